/* SPDX-License-Identifier: MIT */
/*
 * QTest of the SACC device's own memory behind BAR4 (docs/spec.md,
 * device memory and FILL): its size and BAR, MEMCPY and XFORM in all
 * four directions, FILL into host and device memory, addresses past its
 * end, the SQ and PUT word in it (MODE.SQ_DEV), and which resets keep
 * it.
 */

#include "sacc-qtest.h"

static void dm_fill(Sacc *t, uint64_t off, uint8_t byte, size_t len)
{
    g_autofree uint8_t *b = g_malloc(len);

    memset(b, byte, len);
    qpci_memwrite(t->dev, t->bar4, off, b, len);
}

/* Bytes [off, off + len) of device memory all @byte */
static void dm_expect(Sacc *t, uint64_t off, uint8_t byte, size_t len)
{
    g_autofree uint8_t *b = g_malloc(len);
    size_t i;

    qpci_memread(t->dev, t->bar4, off, b, len);
    for (i = 0; i < len; i++) {
        g_assert_cmphex(b[i], ==, byte);
    }
}

/* Identity: VERSION 4, DEVMEM_SIZE and BAR4 agree; devmem=0: neither. */
static void test_devmem_identity(void)
{
    Sacc t;

    sacc_start(&t);
    g_assert_cmpuint(rd(&t, SACC_REG_VERSION), ==, 4);
    g_assert_cmphex(qpci_io_readq(t.dev, t.bar2, SACC_DEV_DEVMEM_SIZE), ==,
                    DEVMEM_SIZE);
    g_assert_cmphex(drd(&t, SACC_DEV_DEVMEM_SIZE), ==, (uint32_t)DEVMEM_SIZE);
    g_assert_cmphex(drd(&t, SACC_DEV_DEVMEM_SIZE + 4), ==, DEVMEM_SIZE >> 32);
    g_assert_cmphex(qpci_config_readl(t.dev, PCI_BASE_ADDRESS_4) & 0xf, ==,
                    PCI_BASE_ADDRESS_MEM_TYPE_64 |
                    PCI_BASE_ADDRESS_MEM_PREFETCH);
    sacc_map_devmem(&t);
    /* the CPU's stores and loads through the BAR */
    qpci_io_writel(t.dev, t.bar4, DEVMEM_SIZE - 4, 0x12345678);
    g_assert_cmphex(qpci_io_readl(t.dev, t.bar4, DEVMEM_SIZE - 4), ==,
                    0x12345678);
    sacc_stop(&t);

    sacc_start_props(&t, ",devmem=0");
    g_assert_cmphex(qpci_io_readq(t.dev, t.bar2, SACC_DEV_DEVMEM_SIZE), ==,
                    0);
    g_assert_cmphex(qpci_config_readl(t.dev, PCI_BASE_ADDRESS_4), ==, 0);
    sacc_stop(&t);
}

/*
 * MEMCPY and XFORM in all four directions, small and big (a big one
 * runs without the BQL, in pieces), and a MODE 0 channel, which knows no
 * device flags: its descriptor names an IOVA whatever its flags say.
 */
static void test_devmem_directions(void)
{
    static const uint32_t lens[] = { 4096, 1024 * 1024 };
    const uint16_t S = SACC_DESC_F_SRC_DEV, D = SACC_DESC_F_DST_DEV;
    uint64_t h1, h2;
    uint32_t i, len;
    Sacc t;
    Chan c;

    sacc_start(&t);
    sacc_map_devmem(&t);
    chan_setup(&t, &c, 1, SACC_MODE_V3, 8, 8);
    h1 = guest_alloc(&t.qs->alloc, lens[1]);
    h2 = guest_alloc(&t.qs->alloc, lens[1]);
    for (i = 0; i < G_N_ELEMENTS(lens); i++) {
        len = lens[i];
        qtest_memset(t.qts, h1, 0x11 + i, len);
        qtest_memset(t.qts, h2, 0, len);
        dm_fill(&t, 0x100000, 0, len);
        dm_fill(&t, 0x800000, 0, len);
        /* H2D, D2D, D2H (XFORM), then H2H of the result */
        chan_submit(&c, SACC_OP_MEMCPY, h1, 0x100000, len, D, 1);
        chan_submit(&c, SACC_OP_MEMCPY, 0x100000, 0x800000, len, S | D, 2);
        chan_submit(&c, SACC_OP_XFORM, 0x800000, h2, len, S, 3);
        chan_submit(&c, SACC_OP_MEMCPY, h2, h1, len, 0, 4);
        chan_ring(&c);
        chan_expect(&c, 1, SACC_STS_OK, len);
        chan_expect(&c, 2, SACC_STS_OK, len);
        chan_expect(&c, 3, SACC_STS_OK, len);
        chan_expect(&c, 4, SACC_STS_OK, len);
        chan_ack(&c);
        dm_expect(&t, 0x100000, 0x11 + i, len);
        dm_expect(&t, 0x800000, 0x11 + i, len);
        host_expect(&t, h1, (0x11 + i) ^ SACC_XFORM_KEY, len);
    }

    /* MODE 0: channel 0 in page 0, flags other than IRQ mean nothing */
    qtest_memset(t.qts, h2, 0x5a, 4096);
    chan_setup(&t, &t.ch0, 0, 0, 8, 8);
    chan_submit(&t.ch0, SACC_OP_MEMCPY, h2, h1, 4096, S | D, 5);
    chan_ring(&t.ch0);
    chan_expect(&t.ch0, 5, SACC_STS_OK, 4096);
    host_expect(&t, h1, 0x5a, 4096);
    sacc_stop(&t);
}

/*
 * FILL: byte i of dst is byte (i mod 8) of the pattern; 1 byte, an
 * unaligned length at an unaligned address, 1 MiB; host and device
 * memory; the bytes around it untouched.
 */
static void test_devmem_fill(void)
{
    const uint64_t pat = 0x8877665544332211ull;
    g_autofree uint8_t *b = g_malloc(1024 * 1024 + 16);
    static const uint32_t lens[] = { 1, 4097, 1024 * 1024 };
    uint32_t i, k, len;
    uint64_t h;
    Sacc t;
    Chan c;

    sacc_start(&t);
    sacc_map_devmem(&t);
    chan_setup(&t, &c, 1, SACC_MODE_V3, 8, 8);
    h = guest_alloc(&t.qs->alloc, 1024 * 1024 + 16);
    for (i = 0; i < G_N_ELEMENTS(lens); i++) {
        len = lens[i];
        qtest_memset(t.qts, h, 0xee, len + 16);
        dm_fill(&t, 0x2000, 0xee, len + 16);
        chan_submit(&c, SACC_OP_FILL, pat, h + 3, len, 0, 1);
        chan_submit(&c, SACC_OP_FILL, pat, 0x2000 + 3, len,
                    SACC_DESC_F_DST_DEV, 2);
        chan_ring(&c);
        chan_expect(&c, 1, SACC_STS_OK, len);
        chan_expect(&c, 2, SACC_STS_OK, len);
        chan_ack(&c);
        for (k = 0; k < 2; k++) {
            uint32_t j;

            if (k == 0) {
                qtest_memread(t.qts, h, b, len + 16);
            } else {
                qpci_memread(t.dev, t.bar4, 0x2000, b, len + 16);
            }
            for (j = 0; j < len + 16; j++) {
                uint8_t want = j < 3 || j >= len + 3
                               ? 0xee : (uint8_t)(pat >> (8 * ((j - 3) % 8)));

                g_assert_cmphex(b[j], ==, want);
            }
        }
    }
    /* a MODE 0 channel has no FILL */
    chan_setup(&t, &t.ch0, 0, 0, 8, 8);
    chan_submit(&t.ch0, SACC_OP_FILL, pat, h, 8, 0, 3);
    chan_ring(&t.ch0);
    chan_expect(&t.ch0, 3, SACC_STS_BAD_OPCODE, 0);
    sacc_stop(&t);
}

/*
 * A device address past the end: just past it, straddling it, wrapping
 * past 2^64; as src (access 6) and dst (7 | IS_WRITE), for MEMCPY,
 * FILL, WRITE_INLINE and TIMESTAMP.  Status 2, the fault record, and
 * not a byte moved on either side.
 */
static void test_devmem_range(void)
{
    const uint16_t S = SACC_DESC_F_SRC_DEV, D = SACC_DESC_F_DST_DEV;
    const uint32_t rd_ = SACC_FAULT_DEV_READ;
    const uint32_t wr_ = SACC_FAULT_DEV_WRITE | SACC_FAULT_IS_WRITE;
    const struct {
        uint16_t op, flags;
        uint64_t src, dst;
        uint32_t len, info;
        uint64_t addr;
    } cases[] = {
        { SACC_OP_MEMCPY, S, DEVMEM_SIZE, 0, 1, rd_, DEVMEM_SIZE },
        { SACC_OP_MEMCPY, S, DEVMEM_SIZE - 4096, 0, 8192, rd_,
          DEVMEM_SIZE - 4096 },
        { SACC_OP_MEMCPY, S, ~0ull - 4095, 0, 8192, rd_, ~0ull - 4095 },
        { SACC_OP_MEMCPY, D, 0, DEVMEM_SIZE - 1, 2, wr_, DEVMEM_SIZE - 1 },
        { SACC_OP_MEMCPY, S | D, 0, ~0ull, 1, wr_, ~0ull },
        { SACC_OP_FILL, D, 0x1234, DEVMEM_SIZE - 8, 9, wr_, DEVMEM_SIZE - 8 },
        { SACC_OP_TIMESTAMP, D, 0, DEVMEM_SIZE - 4, 0, wr_, DEVMEM_SIZE - 4 },
    };
    uint64_t h;
    uint32_t i, count = 0;
    Sacc t;
    Chan c;

    sacc_start(&t);
    sacc_map_devmem(&t);
    chan_setup(&t, &c, 1, SACC_MODE_V3, 16, 16);
    h = guest_alloc(&t.qs->alloc, 8192);
    dm_fill(&t, DEVMEM_SIZE - 8192, 0x77, 8192);
    for (i = 0; i < G_N_ELEMENTS(cases); i++) {
        uint64_t src = cases[i].src, dst = cases[i].dst;

        /* host sides of the cases: the host buffer */
        if (!(cases[i].flags & D)) {
            dst = h;
        }
        if (!(cases[i].flags & S) && cases[i].op == SACC_OP_MEMCPY) {
            src = h;
        }
        qtest_memset(t.qts, h, 0x33, 8192);
        chan_submit(&c, cases[i].op, src, dst, cases[i].len, cases[i].flags,
                    0x100 + i);
        chan_ring(&c);
        chan_expect(&c, 0x100 + i, SACC_STS_DMA_FAULT, 0);
        chan_ack(&c);
        chan_expect_fault(&c, cases[i].addr, cases[i].info, 0x100 + i,
                          ++count);
        host_expect(&t, h, 0x33, 8192);
        dm_expect(&t, DEVMEM_SIZE - 8192, 0x77, 8192);
        g_assert_cmpuint(crd(&c, SACC_REG_ERR_CODE), ==, SACC_ERR_DMA);
    }
    /* WRITE_INLINE: the payload is consumed, dst faults */
    chan_inline(&c, DEVMEM_SIZE - 2, 4, (const uint8_t *)"abcd", 1, 0x200);
    chan_submit(&c, SACC_OP_NOP, 0, 0, 0, 0, 0x201);
    /* the descriptor's D flag: patch it into the slot we just wrote */
    {
        uint16_t f = cpu_to_le16(D);
        uint32_t slot = (c.sq_tail + c.sq_n - 3) % c.sq_n;

        qtest_memwrite(t.qts, c.sq + slot * 32 + 22, &f, 2);
    }
    chan_ring(&c);
    chan_expect(&c, 0x200, SACC_STS_DMA_FAULT, 0);
    chan_expect(&c, 0x201, SACC_STS_OK, 0);
    chan_expect_fault(&c, DEVMEM_SIZE - 2, wr_, 0x200, ++count);
    dm_expect(&t, DEVMEM_SIZE - 8192, 0x77, 8192);
    g_assert_cmphex(crd(&c, SACC_REG_STATUS), ==,
                    SACC_STATUS_READY); /* per descriptor, not the ring */
    sacc_stop(&t);
}

/*
 * MODE.SQ_DEV: the SQ (and PUT word) in device memory, written through
 * the BAR; laps of a 4-entry ring, inline payloads wrapping in it, the
 * token doorbell; a channel reset and re-enable keep device memory; an
 * SQ or PUT word past the end fails the enable.
 */
static void test_devmem_sq_dev(void)
{
    const uint32_t modes[] = { SACC_MODE_V3 | SACC_MODE_SQ_DEV,
                               SACC_MODE_V3 | SACC_MODE_SQ_DEV |
                               SACC_MODE_TOKEN };
    uint8_t data[40];
    uint32_t m, i;
    uint64_t h;
    Sacc t;
    Chan c;

    sacc_start(&t);
    sacc_map_devmem(&t);
    h = guest_alloc(&t.qs->alloc, 4096);
    for (i = 0; i < sizeof(data); i++) {
        data[i] = i + 1;
    }
    for (m = 0; m < G_N_ELEMENTS(modes); m++) {
        chan_init(&t, &c, 2, modes[m], 4, 4);
        c.dev_pa = t.bar4.addr;
        c.sq = 0x40000;
        c.put = 0x40100;
        dm_fill(&t, c.sq, 0, 4 * 32);
        chan_enable(&c);
        g_assert_cmphex(crd(&c, SACC_REG_STATUS), ==, SACC_STATUS_READY);
        for (i = 0; i < 10; i++) { /* 2.5 laps */
            chan_submit(&c, SACC_OP_NOP, 0, 0, 0, 0, i);
            chan_ring(&c);
            chan_expect(&c, i, SACC_STS_OK, 0);
            chan_ack(&c);
        }
        qtest_memset(t.qts, h, 0, 64);
        chan_inline(&c, h, sizeof(data), data, 2, 0x40); /* wraps */
        chan_ring(&c);
        chan_expect(&c, 0x40, SACC_STS_OK, sizeof(data));
        chan_ack(&c);
        {
            uint8_t got[sizeof(data)];

            qtest_memread(t.qts, h, got, sizeof(got));
            g_assert_cmpmem(got, sizeof(got), data, sizeof(data));
        }
        /* a channel reset keeps device memory */
        dm_fill(&t, 0x300000, 0x42, 4096);
        cwr(&c, SACC_REG_CTRL, SACC_CTRL_RESET);
        dm_expect(&t, 0x300000, 0x42, 4096);
    }
    /* out of range at enable */
    chan_init(&t, &c, 3, SACC_MODE_V3 | SACC_MODE_SQ_DEV, 8, 8);
    c.dev_pa = t.bar4.addr;
    c.sq = DEVMEM_SIZE - 4 * 32;
    chan_enable(&c);
    g_assert_cmphex(crd(&c, SACC_REG_STATUS), ==, SACC_STATUS_ERROR);
    g_assert_cmpuint(crd(&c, SACC_REG_ERR_CODE), ==, SACC_ERR_DMA);
    cwr(&c, SACC_REG_CTRL, SACC_CTRL_RESET);
    chan_init(&t, &c, 3, SACC_MODE_V3 | SACC_MODE_SQ_DEV | SACC_MODE_TOKEN,
              8, 8);
    c.dev_pa = t.bar4.addr;
    c.sq = 0;
    c.put = DEVMEM_SIZE - 2;
    chan_enable(&c);
    g_assert_cmphex(crd(&c, SACC_REG_STATUS), ==, SACC_STATUS_ERROR);
    sacc_stop(&t);
}

/*
 * Device memory across resets: CTRL.RESET of the device keeps it (as a
 * channel's reset does, above); FLR and system reset zero it.
 */
static void test_devmem_resets(void)
{
    uint8_t exp;
    Sacc t;

    sacc_start(&t);
    exp = qpci_find_capability(t.dev, PCI_CAP_ID_EXP, 0);
    sacc_map_devmem(&t);
    dm_fill(&t, 0, 0x42, 4096);
    dm_fill(&t, DEVMEM_SIZE - 4096, 0x43, 4096);
    wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);
    dm_expect(&t, 0, 0x42, 4096);
    dm_expect(&t, DEVMEM_SIZE - 4096, 0x43, 4096);
    sacc_flr(&t, exp);
    sacc_remap(&t);
    sacc_map_devmem(&t);
    dm_expect(&t, 0, 0, 4096);
    dm_expect(&t, DEVMEM_SIZE - 4096, 0, 4096);

    dm_fill(&t, 0, 0x44, 4096);
    qobject_unref(qtest_qmp(t.qts, "{'execute': 'system_reset'}"));
    qtest_qmp_eventwait(t.qts, "RESET");
    sacc_remap(&t);
    sacc_map_devmem(&t);
    dm_expect(&t, 0, 0, 4096);
    sacc_stop(&t);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/sacc/devmem/identity", test_devmem_identity);
    qtest_add_func("/sacc/devmem/directions", test_devmem_directions);
    qtest_add_func("/sacc/devmem/fill", test_devmem_fill);
    qtest_add_func("/sacc/devmem/range", test_devmem_range);
    qtest_add_func("/sacc/devmem/sq-dev", test_devmem_sq_dev);
    qtest_add_func("/sacc/devmem/resets", test_devmem_resets);

    return g_test_run();
}

/* SPDX-License-Identifier: MIT */
/*
 * QTest of the SACC device against a guest writing garbage: every
 * register offset of BAR0 and BAR2 with random values, random rings and
 * descriptors in RAM, doorbells and tokens with any value, accesses of
 * any size, MSI-X table junk, resets now and then.  The device must never
 * crash or assert, and must work again after a reset.
 */

#include "sacc-qtest.h"

/*
 * Garbage into BAR0 (channel 0's registers and the doorbell page), into
 * channel 0's rings and the MSI-X table.
 */
static void test_garbage_page0(void)
{
    static const uint32_t regs[] = {
        SACC_REG_CTRL, SACC_REG_SQ_BASE, SACC_REG_SQ_BASE + 4,
        SACC_REG_SQ_SIZE, SACC_REG_CQ_BASE, SACC_REG_CQ_BASE + 4,
        SACC_REG_CQ_SIZE, SACC_REG_CQ_HEAD, SACC_REG_IRQ_ACK,
        SACC_DOORBELL_OFFSET,
    };
    static const uint32_t msix_junk[] = {
        PCI_MSIX_ENTRY_LOWER_ADDR, PCI_MSIX_ENTRY_DATA,
        PCI_MSIX_ENTRY_VECTOR_CTRL,
    };
    const uint64_t area_len = 4 * SACC_MAX_XFER;
    Sacc t;
    Chan *ch0 = &t.ch0;
    uint64_t seed = 0x5acc5acc12345678ull;
    uint64_t area, off, v, sq, cq;
    g_autofree uint8_t *junk = g_malloc(64 * 1024);
    int i, j;

    sacc_start(&t);
    /*
     * The vector's upper address word stays at unmapped space, so junk
     * MSI-X messages cannot land in other devices' MMIO (e.g. MMCONFIG):
     * only the SACC model is under test here.
     */
    qpci_msix_enable(t.dev);
    qpci_io_writel(t.dev, t.dev->msix_table_bar,
                   t.dev->msix_table_off + PCI_MSIX_ENTRY_UPPER_ADDR,
                   UNMAPPED >> 32);
    area = guest_alloc(&t.qs->alloc, area_len);

    /* every offset of both pages, a few random values each */
    for (off = 0; off < SACC_BAR0_SIZE; off += 4) {
        for (j = 0; j < 2; j++) {
            wr(&t, off, rnd(&seed));
            rd(&t, off);
        }
    }
    g_assert_cmphex(rd(&t, SACC_REG_MAGIC), ==, SACC_MAGIC);

    for (i = 0; i < 3000; i++) {
        switch (rnd(&seed) % 8) {
        case 0: /* garbage descriptors (and CQ entries) in RAM */
            for (j = 0; j < 64 * 1024; j++) {
                junk[j] = rnd(&seed);
            }
            /* mostly valid opcodes/lengths pointing into area */
            for (j = 0; j < 64 * 1024; j += 32) {
                struct sacc_desc *d = (void *)(junk + j);

                if (rnd(&seed) % 2) {
                    d->opcode = rnd(&seed) % 4;
                    d->length = rnd(&seed) % 2
                                ? rnd(&seed) % 8192
                                : rnd(&seed) % (SACC_MAX_XFER + 2);
                    d->src = area + rnd(&seed) % area_len;
                    d->dst = area + rnd(&seed) % area_len;
                }
            }
            /* 32-byte aligned, so it lines up with ring slots */
            off = rnd(&seed) % (area_len - 64 * 1024) & ~31ull;
            qtest_bufwrite(t.qts, area + off, junk, 64 * 1024);
            break;
        case 1: /* a random but mostly sane ring in RAM */
            wr(&t, SACC_REG_CTRL, rnd(&seed) % 4 ? SACC_CTRL_RESET : 0);
            sq = area + rnd(&seed) % area_len;
            cq = area + rnd(&seed) % area_len;
            if (rnd(&seed) % 4) {
                sq &= ~31ull;
                cq &= ~15ull;
            }
            if (rnd(&seed) % 8 == 0) {
                sq = rnd(&seed);
            }
            if (rnd(&seed) % 8 == 0) {
                cq = rnd(&seed);
            }
            ring_enable(ch0, sq, 1u << (rnd(&seed) % 18), cq,
                        1u << (rnd(&seed) % 18));
            break;
        case 2:
        case 3: /* ring the doorbell */
            wr(&t, SACC_DOORBELL_OFFSET,
               rnd(&seed) % 2 ? rnd(&seed) : rnd(&seed) % 64);
            break;
        case 4:
            wr(&t, SACC_REG_CQ_HEAD,
               rnd(&seed) % 2 ? rnd(&seed) : rnd(&seed) % 64);
            break;
        case 5: /* any register, any size */
            off = rnd(&seed) % SACC_BAR0_SIZE;
            v = rnd(&seed);
            switch (rnd(&seed) % 4) {
            case 0:
                qpci_io_writeb(t.dev, t.bar0, off, v);
                break;
            case 1:
                qpci_io_writew(t.dev, t.bar0, off & ~1, v);
                break;
            case 2:
                qpci_io_writel(t.dev, t.bar0, off & ~3, v);
                break;
            default:
                qpci_io_writeq(t.dev, t.bar0, off & ~7, v);
            }
            qpci_io_readq(t.dev, t.bar0, off & ~7);
            break;
        case 6:
            wr(&t, regs[rnd(&seed) % ARRAY_SIZE(regs)], rnd(&seed));
            break;
        default: /* MSI-X vector junk, now and then a reset */
            qpci_io_writel(t.dev, t.dev->msix_table_bar,
                           msix_junk[rnd(&seed) % 3], rnd(&seed));
            if (rnd(&seed) % 16 == 0) {
                wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);
            }
        }
    }

    /* still alive, and still working after a reset */
    g_assert_cmphex(rd(&t, SACC_REG_MAGIC), ==, SACC_MAGIC);
    wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);
    check_power_on(&t);
    chan_setup(&t, ch0, 0, 0, 4, 4);
    chan_submit(ch0, SACC_OP_NOP, 0, 0, 0, 0, 42);
    chan_ring(ch0);
    chan_expect(ch0, 42, SACC_STS_OK, 0);
    sacc_stop(&t);
}

/* Garbage into BAR2, the doorbell page and rings of every channel. */
static void test_garbage_channels(void)
{
    static const uint32_t regs[] = {
        SACC_REG_CTRL, SACC_REG_SQ_BASE, SACC_REG_SQ_BASE + 4,
        SACC_REG_SQ_SIZE, SACC_REG_CQ_BASE, SACC_REG_CQ_BASE + 4,
        SACC_REG_CQ_SIZE, SACC_REG_CQ_HEAD, SACC_REG_IRQ_ACK,
        SACC_REG_MODE, SACC_REG_PUT_ADDR, SACC_REG_PUT_ADDR + 4,
    };
    const uint64_t area_len = 4 * SACC_MAX_XFER;
    Sacc t;
    Chan c;
    uint64_t seed = 0x5acc000312345678ull;
    uint64_t area, off, v;
    g_autofree uint8_t *junk = g_malloc(16 * 1024);
    int i, j;

    sacc_start(&t);
    qpci_msix_enable(t.dev);
    for (i = 0; i < SACC_MSIX_VECTORS; i++) {
        qpci_io_writel(t.dev, t.dev->msix_table_bar,
                       t.dev->msix_table_off + i * PCI_MSIX_ENTRY_SIZE +
                       PCI_MSIX_ENTRY_UPPER_ADDR, UNMAPPED >> 32);
    }
    area = guest_alloc(&t.qs->alloc, area_len);

    for (off = 0; off < SACC_BAR2_SIZE; off += 4) {
        qpci_io_writel(t.dev, t.bar2, off, rnd(&seed));
        qpci_io_readl(t.dev, t.bar2, off);
    }
    g_assert_cmphex(rd(&t, SACC_REG_MAGIC), ==, SACC_MAGIC);

    for (i = 0; i < 3000; i++) {
        c = (Chan) { .t = &t, .id = rnd(&seed) % SACC_CHANNELS_DEFAULT };
        switch (rnd(&seed) % 8) {
        case 0: /* descriptors with v0.3 opcodes, and payload junk */
            for (j = 0; j < 16 * 1024; j++) {
                junk[j] = rnd(&seed);
            }
            for (j = 0; j < 16 * 1024; j += 32) {
                struct sacc_desc *d = (void *)(junk + j);

                if (rnd(&seed) % 2) {
                    d->opcode = rnd(&seed) % 6;
                    d->length = rnd(&seed) % 2 ? rnd(&seed) % 5000
                                               : rnd(&seed);
                    d->src = area + rnd(&seed) % area_len;
                    d->dst = area + rnd(&seed) % area_len;
                }
            }
            off = rnd(&seed) % (area_len - 16 * 1024) & ~31ull;
            qtest_bufwrite(t.qts, area + off, junk, 16 * 1024);
            break;
        case 1: /* a mostly sane channel in RAM, any mode */
            cwr(&c, SACC_REG_CTRL, rnd(&seed) % 4 ? SACC_CTRL_RESET : 0);
            cwr(&c, SACC_REG_MODE, rnd(&seed));
            cwr64(&c, SACC_REG_PUT_ADDR, rnd(&seed) % 8 ?
                  area + (rnd(&seed) % area_len & ~3ull) : rnd(&seed));
            cwr64(&c, SACC_REG_SQ_BASE,
                  area + (rnd(&seed) % area_len & ~31ull));
            cwr(&c, SACC_REG_SQ_SIZE, 1u << (rnd(&seed) % 12));
            cwr64(&c, SACC_REG_CQ_BASE, rnd(&seed) % 8 ?
                  area + (rnd(&seed) % area_len & ~15ull) : rnd(&seed));
            cwr(&c, SACC_REG_CQ_SIZE, 1u << (rnd(&seed) % 12));
            cwr(&c, SACC_REG_CTRL, SACC_CTRL_ENABLE);
            break;
        case 2: /* PUT words in the area */
            qtest_writel(t.qts, area + (rnd(&seed) % area_len & ~3ull),
                         rnd(&seed) % 2 ? rnd(&seed) % 64 : rnd(&seed));
            /* fall through */
        case 3: /* doorbells: tail or token */
            if (rnd(&seed) % 2) {
                wr(&t, SACC_DOORBELL(c.id), rnd(&seed) % 2 ?
                   rnd(&seed) % 64 : rnd(&seed));
            } else {
                wr(&t, SACC_DOORBELL_TOKEN, rnd(&seed) % 4 ?
                   c.id : rnd(&seed));
            }
            break;
        case 4:
            cwr(&c, SACC_REG_CQ_HEAD, rnd(&seed) % 64);
            break;
        case 5: /* anywhere in BAR2 or the doorbell page, any size */
            off = rnd(&seed) % SACC_BAR2_SIZE;
            v = rnd(&seed);
            switch (rnd(&seed) % 4) {
            case 0:
                qpci_io_writeb(t.dev, t.bar2, off, v);
                break;
            case 1:
                qpci_io_writew(t.dev, t.bar0,
                               SACC_DOORBELL_OFFSET + (off & 0xffe), v);
                break;
            case 2:
                qpci_io_writel(t.dev, t.bar2, off & ~3, v);
                break;
            default:
                qpci_io_writeq(t.dev, t.bar2, off & ~7, v);
            }
            qpci_io_readq(t.dev, t.bar2, off & ~7);
            break;
        case 6:
            cwr(&c, regs[rnd(&seed) % ARRAY_SIZE(regs)], rnd(&seed));
            break;
        default:
            if (rnd(&seed) % 32 == 0) {
                wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);
            }
            qpci_io_readq(t.dev, t.bar2, SACC_DEV_IRQ_PENDING);
        }
    }

    /* still alive, and still working after a reset */
    g_assert_cmphex(rd(&t, SACC_REG_MAGIC), ==, SACC_MAGIC);
    wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);
    check_power_on(&t);
    for (i = 0; i < SACC_CHANNELS_DEFAULT; i++) {
        c = (Chan) { .t = &t, .id = i };
        for (off = SACC_REG_CTRL; off < SACC_CHAN_STRIDE; off += 4) {
            g_assert_cmphex(crd(&c, off), ==, 0);
        }
    }
    chan_setup(&t, &c, 6, SACC_MODE_V3 | SACC_MODE_TOKEN, 4, 4);
    chan_submit(&c, SACC_OP_TIMESTAMP, 0, area, 0, 0, 42);
    chan_ring(&c);
    chan_expect(&c, 42, SACC_STS_OK, SACC_TIMESTAMP_LEN);
    sacc_stop(&t);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/sacc/garbage/page0", test_garbage_page0);
    qtest_add_func("/sacc/garbage/channels", test_garbage_channels);

    return g_test_run();
}

/* SPDX-License-Identifier: MIT */
/*
 * QTest of the SACC engine's operations on the rings (docs/spec.md):
 * NOP, MEMCPY and XFORM round trips on both copy paths, bad descriptors,
 * DMA and ring faults, phase over ring laps, CQ full, WRITE_INLINE,
 * TIMESTAMP and engine time, and channels side by side (isolation of
 * their faults, fairness between them).
 */

#include "sacc-qtest.h"

static void test_nop(void)
{
    Sacc t;
    Chan *ch0 = &t.ch0;
    struct sacc_cqe raw;

    sacc_start(&t);
    chan_setup(&t, ch0, 0, 0, 4, 4);
    /* NOP ignores src/dst/length */
    chan_submit(ch0, SACC_OP_NOP, UNMAPPED, UNMAPPED, 12345, 0, 0x1234);
    chan_ring(ch0);
    chan_expect(ch0, 0x1234, SACC_STS_OK, 0);

    qtest_memread(t.qts, ch0->cq, &raw, sizeof(raw));
    g_assert_cmphex(le16_to_cpu(raw.phase), ==, 1);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, 0);
    g_assert_cmpuint(rd(&t, SACC_REG_IRQ_STATUS), ==, 0);
    g_assert_cmpuint(rd(&t, SACC_REG_FAULT_COUNT), ==, 0);
    sacc_stop(&t);
}

static void fill_pattern(uint8_t *buf, size_t len, uint32_t seed)
{
    size_t i;

    for (i = 0; i < len; i++) {
        seed = seed * 1103515245 + 12345;
        buf[i] = seed >> 16;
    }
}

static void copy_round_trip(Chan *c, uint16_t op, uint32_t len,
                            uint32_t src_off, uint32_t dst_off, uint32_t id)
{
    Sacc *t = c->t;
    uint64_t src = guest_alloc(&t->qs->alloc, len + src_off);
    uint64_t dst = guest_alloc(&t->qs->alloc, len + dst_off + 64);
    g_autofree uint8_t *in = g_malloc(len);
    g_autofree uint8_t *out = g_malloc(len + 64);
    uint32_t i;

    fill_pattern(in, len, id);
    qtest_bufwrite(t->qts, src + src_off, in, len);
    qtest_memset(t->qts, dst, 0xaa, len + dst_off + 64);

    chan_submit(c, op, src + src_off, dst + dst_off, len, 0, id);
    chan_ring(c);
    chan_expect(c, id, SACC_STS_OK, len);
    chan_ack(c);

    qtest_bufread(t->qts, dst + dst_off, out, len + 64);
    for (i = 0; i < len; i++) {
        uint8_t want = op == SACC_OP_XFORM ? in[i] ^ SACC_XFORM_KEY : in[i];
        if (out[i] != want) {
            g_error("byte %u: 0x%02x != 0x%02x", i, out[i], want);
        }
    }
    for (i = len; i < len + 64; i++) {
        g_assert_cmphex(out[i], ==, 0xaa); /* no overrun */
    }
    guest_free(&t->qs->alloc, src);
    guest_free(&t->qs->alloc, dst);
}

static void test_memcpy_xform(void)
{
    Sacc t;
    Chan *ch0 = &t.ch0;

    sacc_start(&t);
    chan_setup(&t, ch0, 0, 0, 8, 8);
    copy_round_trip(ch0, SACC_OP_MEMCPY, 1, 0, 0, 1);
    copy_round_trip(ch0, SACC_OP_XFORM, 1, 3, 5, 2);
    copy_round_trip(ch0, SACC_OP_MEMCPY, 10000, 100, 4000, 3);
    copy_round_trip(ch0, SACC_OP_XFORM, 10000, 4095, 1, 4);
    copy_round_trip(ch0, SACC_OP_MEMCPY, SACC_MAX_XFER, 0, 0, 5);
    copy_round_trip(ch0, SACC_OP_XFORM, SACC_MAX_XFER, 17, 4001, 6);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, 0);
    sacc_stop(&t);
}

static void test_bad_descriptors(void)
{
    Sacc t;
    Chan *ch0 = &t.ch0;
    uint64_t buf;
    uint8_t b[16];

    sacc_start(&t);
    chan_setup(&t, ch0, 0, 0, 8, 8);
    buf = guest_alloc(&t.qs->alloc, 4096);
    qtest_memset(t.qts, buf, 0x55, 4096);

    chan_submit(ch0, 7, buf, buf + 8, 8, 0, 1);
    chan_ring(ch0);
    chan_expect(ch0, 1, SACC_STS_BAD_OPCODE, 0);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_BAD_OPCODE);

    chan_submit(ch0, SACC_OP_MEMCPY, buf, buf + 8, 0, 0, 2);
    chan_submit(ch0, SACC_OP_XFORM, buf, buf + 8, SACC_MAX_XFER + 1, 0, 3);
    chan_ring(ch0);
    chan_expect(ch0, 2, SACC_STS_BAD_LENGTH, 0);
    chan_expect(ch0, 3, SACC_STS_BAD_LENGTH, 0);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_INVALID);

    /* failing descriptors never set STATUS.ERROR or touch memory */
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_READY);
    g_assert_cmpuint(rd(&t, SACC_REG_FAULT_COUNT), ==, 0);
    qtest_memread(t.qts, buf, b, sizeof(b));
    g_assert_cmphex(b[8], ==, 0x55);
    sacc_stop(&t);
}

static void test_dma_faults(void)
{
    const uint32_t dst_w = SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE;
    Sacc t;
    Chan *ch0 = &t.ch0;
    uint64_t buf;
    uint8_t b[512];
    int i;

    sacc_start(&t);
    chan_setup(&t, ch0, 0, 0, 16, 16);
    buf = guest_alloc(&t.qs->alloc, 8192);
    qtest_memset(t.qts, buf, 0x55, 8192);
    qtest_memset(t.qts, RAM_SIZE - 4096, 0x66, 4096);

    /* unmapped source: dst untouched */
    chan_submit(ch0, SACC_OP_MEMCPY, UNMAPPED + 8, buf, 100, 0, 11);
    chan_ring(ch0);
    chan_expect(ch0, 11, SACC_STS_DMA_FAULT, 0);
    chan_expect_fault(ch0, UNMAPPED + 8, SACC_FAULT_SRC_READ, 11, 1);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_DMA);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_READY);

    /* source faulting on its second page: still no dst byte written */
    chan_submit(ch0, SACC_OP_MEMCPY, RAM_SIZE - 100, buf, 300, 0, 12);
    chan_ring(ch0);
    chan_expect(ch0, 12, SACC_STS_DMA_FAULT, 0);
    chan_expect_fault(ch0, RAM_SIZE, SACC_FAULT_SRC_READ, 12, 2);
    qtest_memread(t.qts, buf, b, sizeof(b));
    for (i = 0; i < 300; i++) {
        g_assert_cmphex(b[i], ==, 0x55);
    }

    /* destination faulting on its second page: first page written */
    chan_submit(ch0, SACC_OP_XFORM, buf, RAM_SIZE - 100, 300, 0, 13);
    chan_ring(ch0);
    chan_expect(ch0, 13, SACC_STS_DMA_FAULT, 0);
    chan_expect_fault(ch0, RAM_SIZE, dst_w, 13, 3);
    qtest_memread(t.qts, RAM_SIZE - 100, b, 100);
    for (i = 0; i < 100; i++) {
        g_assert_cmphex(b[i], ==, 0x55 ^ SACC_XFORM_KEY);
    }

    /* wrapping past 2^64 faults at the start address */
    chan_submit(ch0, SACC_OP_MEMCPY, UINT64_MAX - 10, buf, 100, 0, 14);
    chan_ring(ch0);
    chan_expect(ch0, 14, SACC_STS_DMA_FAULT, 0);
    chan_expect_fault(ch0, UINT64_MAX - 10, SACC_FAULT_SRC_READ, 14, 4);
    chan_submit(ch0, SACC_OP_MEMCPY, buf, UINT64_MAX - 4095, 8192, 0, 15);
    chan_ring(ch0);
    chan_expect(ch0, 15, SACC_STS_DMA_FAULT, 0);
    chan_expect_fault(ch0, UINT64_MAX - 4095, dst_w, 15, 5);

    /* DMA into the device's own BAR is refused, not recursed into */
    chan_submit(ch0, SACC_OP_MEMCPY, buf,
                t.bar0.addr + SACC_DOORBELL_OFFSET, 4, 0, 16);
    chan_ring(ch0);
    chan_expect(ch0, 16, SACC_STS_DMA_FAULT, 0);
    chan_expect_fault(ch0, t.bar0.addr + SACC_DOORBELL_OFFSET, dst_w, 16, 6);

    /* a good one still works and the error state is unchanged */
    chan_submit(ch0, SACC_OP_MEMCPY, buf, buf + 4096, 64, 0, 17);
    chan_ring(ch0);
    chan_expect(ch0, 17, SACC_STS_OK, 64);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_DMA);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_READY);
    g_assert_cmpuint(rd(&t, SACC_REG_IRQ_STATUS), ==, 0);
    sacc_stop(&t);
}

/*
 * The copy paths (x-direct-copy on: one host copy where src and dst are
 * plain RAM; off: staged through the bounce buffer) must give the guest
 * the same result: status, fault record, and memory.  Each case runs on
 * both, with the fault edges at the end of RAM (nothing is mapped above
 * it here; tests/guest covers IOMMU faults) and with overlapping and
 * aliased buffers.
 */
typedef struct {
    uint16_t op;
    bool src_end;     /* src (and dst) relative to the end of RAM, */
    int64_t src;      /* else to the test area */
    bool dst_end;
    int64_t dst;
    uint32_t len;
    int64_t fault;    /* RAM_SIZE + this; NO_FAULT for none */
    bool dst_fault;
} CopyCase;

#define P SACC_PAGE_SIZE
#define NO_FAULT INT64_MAX
static const CopyCase copy_cases[] = {
    /* source faults: first page (exact address), middle, last page */
    { SACC_OP_MEMCPY, true, 8, false, 0x10000, 100, 8, false },
    { SACC_OP_MEMCPY, true, -(2 * P + 50), false, 0x10000, 4 * P, 0, false },
    { SACC_OP_XFORM, true, -(3 * P - 10), false, 0x10000, 3 * P - 9, 0,
      false },
    /* destination faults: first page, middle, last page */
    { SACC_OP_MEMCPY, false, 0x100, true, 0x10, 300, 0x10, true },
    { SACC_OP_XFORM, false, 0x100, true, -(P + 7), 3 * P, 0, true },
    { SACC_OP_MEMCPY, false, 0x100, true, -(2 * P + 1), 2 * P + 2, 0, true },
    /* overlapping (both ways) and aliased buffers: src is read first */
    { SACC_OP_XFORM, false, 0x100, false, 0x100 + 100, 3 * P + 5, NO_FAULT,
      false },
    { SACC_OP_MEMCPY, false, 0x100 + 100, false, 0x100, 3 * P + 5, NO_FAULT,
      false },
    { SACC_OP_XFORM, false, 0x200, false, 0x200, 5000, NO_FAULT, false },
    /* unaligned starts and lengths, page and sub-page */
    { SACC_OP_MEMCPY, false, 1, false, 0x8000 + 4095, 2 * P + 3, NO_FAULT,
      false },
    { SACC_OP_XFORM, false, 4095, false, 0x8000 + 1, 1, NO_FAULT, false },
};
#undef P

#define COPY_AREA (256 * 1024)

/* Run every copy case on a device with @props; record what the guest saw */
static void copy_cases_run(const char *props, GByteArray **mem,
                           uint32_t *status, uint64_t *fault_addr)
{
    const uint64_t edge = RAM_SIZE - COPY_AREA;
    g_autofree uint8_t *init = g_malloc(COPY_AREA);
    Sacc t;
    Chan *ch0 = &t.ch0;
    uint64_t area;
    size_t i;

    sacc_start_props(&t, props);
    chan_setup(&t, ch0, 0, 0, 4, 4);
    area = guest_alloc(&t.qs->alloc, COPY_AREA);
    fill_pattern(init, COPY_AREA, 77);
    for (i = 0; i < ARRAY_SIZE(copy_cases); i++) {
        const CopyCase *c = &copy_cases[i];
        uint64_t src = (c->src_end ? RAM_SIZE : area) + c->src;
        uint64_t dst = (c->dst_end ? RAM_SIZE : area) + c->dst;
        struct sacc_cqe cqe;

        qtest_bufwrite(t.qts, area, init, COPY_AREA);
        qtest_bufwrite(t.qts, edge, init, COPY_AREA);
        chan_submit(ch0, c->op, src, dst, c->len, 0, 100 + i);
        chan_ring(ch0);
        g_assert_true(chan_wait_cqe(ch0, &cqe, WAIT_US));
        chan_ack(ch0);
        g_assert_cmphex(cqe.req_id, ==, 100 + i);
        status[i] = cqe.status;
        fault_addr[i] = qpci_io_readq(t.dev, t.bar0, SACC_REG_FAULT_ADDR);
        mem[i] = g_byte_array_sized_new(2 * COPY_AREA);
        g_byte_array_set_size(mem[i], 2 * COPY_AREA);
        qtest_bufread(t.qts, area, mem[i]->data, COPY_AREA);
        qtest_bufread(t.qts, edge, mem[i]->data + COPY_AREA, COPY_AREA);

        if (c->fault == NO_FAULT) {
            g_assert_cmpuint(cqe.status, ==, SACC_STS_OK);
            g_assert_cmpuint(cqe.result_len, ==, c->len);
        } else {
            g_assert_cmpuint(cqe.status, ==, SACC_STS_DMA_FAULT);
            g_assert_cmphex(fault_addr[i], ==, RAM_SIZE + c->fault);
            g_assert_cmphex(rd(&t, SACC_REG_FAULT_INFO), ==,
                            c->dst_fault ? SACC_FAULT_DST_WRITE |
                                           SACC_FAULT_IS_WRITE
                                         : SACC_FAULT_SRC_READ);
        }
    }
    g_assert_cmpuint(rd(&t, SACC_REG_FAULT_COUNT), ==, 6);
    sacc_stop(&t);
}

/* What the staged rules say the memory must hold after case @c */
static void copy_case_expect(const CopyCase *c, const uint8_t *init,
                             uint8_t *want)
{
    /* the area is at [0, COPY_AREA), RAM_SIZE + x at 2 * COPY_AREA + x */
    int64_t src = (c->src_end ? 2 * COPY_AREA : 0) + c->src;
    int64_t dst = (c->dst_end ? 2 * COPY_AREA : 0) + c->dst;
    uint32_t n = c->len, i;

    memcpy(want, init, COPY_AREA);
    memcpy(want + COPY_AREA, init, COPY_AREA);
    if (c->fault != NO_FAULT && !c->dst_fault) {
        return; /* a source fault writes nothing */
    }
    if (c->dst_fault) {
        /* dst up to the faulting page (which is past the end of RAM) */
        n = c->fault - c->dst;
        g_assert_true(c->dst_end && c->fault >= 0);
    }
    {
        g_autofree uint8_t *snap = g_memdup2(want + src, c->len);

        for (i = 0; i < n; i++) {
            want[dst + i] = c->op == SACC_OP_XFORM
                                ? snap[i] ^ SACC_XFORM_KEY : snap[i];
        }
    }
}

static void test_copy_paths(void)
{
    const size_t n = ARRAY_SIZE(copy_cases);
    g_autofree uint8_t *init = g_malloc(COPY_AREA);
    g_autofree uint8_t *want = g_malloc(2 * COPY_AREA);
    GByteArray *mem[2][ARRAY_SIZE(copy_cases)];
    uint32_t status[2][ARRAY_SIZE(copy_cases)];
    uint64_t fault[2][ARRAY_SIZE(copy_cases)];
    size_t i, j;

    copy_cases_run("", mem[0], status[0], fault[0]);
    copy_cases_run(",x-direct-copy=off", mem[1], status[1], fault[1]);
    fill_pattern(init, COPY_AREA, 77);
    for (i = 0; i < n; i++) {
        copy_case_expect(&copy_cases[i], init, want);
        for (j = 0; j < 2 * COPY_AREA; j++) {
            if (mem[0][i]->data[j] != want[j] ||
                mem[1][i]->data[j] != want[j]) {
                g_error("case %zu, byte %zu: direct 0x%02x staged 0x%02x "
                        "want 0x%02x", i, j, mem[0][i]->data[j],
                        mem[1][i]->data[j], want[j]);
            }
        }
        g_assert_cmpuint(status[0][i], ==, status[1][i]);
        g_assert_cmphex(fault[0][i], ==, fault[1][i]);
        g_byte_array_unref(mem[0][i]);
        g_byte_array_unref(mem[1][i]);
    }
}

/* 1 MiB and unaligned copies on the staged path too */
static void test_memcpy_staged(void)
{
    Sacc t;
    Chan *ch0 = &t.ch0;

    sacc_start_props(&t, ",x-direct-copy=off");
    chan_setup(&t, ch0, 0, 0, 8, 8);
    copy_round_trip(ch0, SACC_OP_MEMCPY, 10000, 100, 4000, 3);
    copy_round_trip(ch0, SACC_OP_MEMCPY, SACC_MAX_XFER, 0, 0, 5);
    copy_round_trip(ch0, SACC_OP_XFORM, SACC_MAX_XFER, 17, 4001, 6);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, 0);
    sacc_stop(&t);
}

static void test_ring_faults(void)
{
    Sacc t;
    Chan *ch0 = &t.ch0;

    /* descriptor fetch fault */
    sacc_start(&t);
    ring_enable(ch0, UNMAPPED, 4, 0x100000, 4);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_READY);
    wr(&t, SACC_DOORBELL_OFFSET, 2);
    chan_wait_reg(ch0, SACC_REG_STATUS, SACC_STATUS_ERROR);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_DMA);
    g_assert_cmphex(rd(&t, SACC_REG_IRQ_STATUS), ==, SACC_IRQ_FATAL);
    chan_expect_fault(ch0, UNMAPPED, SACC_FAULT_DESC_FETCH, 0, 1);
    /* nothing more is processed; the doorbell now says not ready */
    wr(&t, SACC_DOORBELL_OFFSET, 3);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_NOT_READY);
    wr(&t, SACC_REG_IRQ_ACK, SACC_IRQ_FATAL);
    g_assert_cmphex(rd(&t, SACC_REG_IRQ_STATUS), ==, 0);
    sacc_stop(&t);

    /* completion write fault */
    sacc_start(&t);
    chan_setup(&t, ch0, 0, 0, 4, 4);
    wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);
    ring_enable(ch0, ch0->sq, 4, UNMAPPED + 0x40, 4);
    chan_submit(ch0, SACC_OP_NOP, 0, 0, 0, 0, 0xabcd);
    chan_submit(ch0, SACC_OP_NOP, 0, 0, 0, 0, 0xabce);
    chan_ring(ch0);
    chan_wait_reg(ch0, SACC_REG_STATUS, SACC_STATUS_ERROR);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_DMA);
    g_assert_cmphex(rd(&t, SACC_REG_IRQ_STATUS), ==, SACC_IRQ_FATAL);
    chan_expect_fault(ch0, UNMAPPED + 0x40,
                      SACC_FAULT_CQ_WRITE | SACC_FAULT_IS_WRITE, 0xabcd, 1);
    /* RESET recovers */
    wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);
    check_power_on(&t);
    chan_setup(&t, ch0, 0, 0, 4, 4);
    chan_submit(ch0, SACC_OP_NOP, 0, 0, 0, 0, 5);
    chan_ring(ch0);
    chan_expect(ch0, 5, SACC_STS_OK, 0);
    sacc_stop(&t);
}

static void test_phase_laps(void)
{
    Sacc t;
    Chan *ch0 = &t.ch0;
    struct sacc_cqe raw;
    uint32_t id = 0;
    int batch, i;

    sacc_start(&t);
    chan_setup(&t, ch0, 0, 0, 4, 4);
    /* 3 laps of the CQ in batches of 1..3, checking the raw phase */
    for (batch = 0; batch < 8; batch++) {
        int n = batch % 3 + 1;

        for (i = 0; i < n; i++) {
            chan_submit(ch0, SACC_OP_NOP, 0, 0, 0, 0, id + i);
        }
        chan_ring(ch0);
        for (i = 0; i < n; i++) {
            uint16_t want = ch0->phase;
            uint64_t slot = ch0->cq + ch0->cq_head * sizeof(raw);

            chan_expect(ch0, id++, SACC_STS_OK, 0);
            qtest_memread(t.qts, slot, &raw, sizeof(raw));
            g_assert_cmphex(le16_to_cpu(raw.phase), ==, want);
        }
        chan_ack(ch0);
    }
    g_assert_cmpuint(id, >, 3 * 4);
    sacc_stop(&t);
}

static void test_cq_full(void)
{
    Sacc t;
    Chan *ch0 = &t.ch0;
    struct sacc_cqe cqe;
    int i;

    sacc_start(&t);
    chan_setup(&t, ch0, 0, 0, 8, 4);
    for (i = 0; i < 6; i++) {
        chan_submit(ch0, SACC_OP_NOP, 0, 0, 0, 0, 100 + i);
    }
    chan_ring(ch0);

    /* only CQ_SIZE - 1 completions are posted */
    for (i = 0; i < 3; i++) {
        chan_expect(ch0, 100 + i, SACC_STS_OK, 0);
    }
    g_assert_false(chan_wait_cqe(ch0, &cqe, G_USEC_PER_SEC / 5));
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_READY);

    /* freeing space resumes, in ring order */
    chan_ack(ch0);
    for (i = 3; i < 6; i++) {
        chan_expect(ch0, 100 + i, SACC_STS_OK, 0);
    }
    chan_ack(ch0);
    g_assert_false(chan_wait_cqe(ch0, &cqe, G_USEC_PER_SEC / 20));
    sacc_stop(&t);
}

/* A ring fault stops one channel; the others run on. */
static void test_channel_isolation(void)
{
    Sacc t;
    Chan *ch0 = &t.ch0;
    Chan a, b, c, d;
    uint64_t buf;
    int i;

    sacc_start(&t);
    chan_setup(&t, ch0, 0, 0, 4, 4);
    chan_setup(&t, &a, 1, SACC_MODE_V3, 4, 4);
    chan_init(&t, &b, 2, 0, 4, 4);
    b.sq = UNMAPPED;
    chan_enable(&b);
    chan_init(&t, &d, 4, SACC_MODE_V3, 4, 4);
    d.cq = UNMAPPED + 0x40;
    chan_enable(&d);
    chan_setup(&t, &c, 3, 0, 4, 4);
    buf = guest_alloc(&t.qs->alloc, 4096);

    /* descriptor fetch fault on b, completion write fault on d */
    wr(&t, SACC_DOORBELL(2), 2);
    chan_submit(&d, SACC_OP_NOP, 0, 0, 0, 0, 0xd0);
    chan_ring(&d);
    chan_wait_reg(&b, SACC_REG_STATUS, SACC_STATUS_ERROR);
    chan_wait_reg(&d, SACC_REG_STATUS, SACC_STATUS_ERROR);
    g_assert_cmpuint(crd(&b, SACC_REG_ERR_CODE), ==, SACC_ERR_DMA);
    g_assert_cmphex(crd(&b, SACC_REG_IRQ_STATUS), ==, SACC_IRQ_FATAL);
    chan_expect_fault(&b, UNMAPPED, SACC_FAULT_DESC_FETCH, 0, 1);
    chan_expect_fault(&d, UNMAPPED + 0x40,
                      SACC_FAULT_CQ_WRITE | SACC_FAULT_IS_WRITE, 0xd0, 1);
    g_assert_cmphex(qpci_io_readq(t.dev, t.bar2, SACC_DEV_IRQ_PENDING), ==,
                    (1u << 2) | (1u << 4));

    /* everyone else is READY, error-free and working */
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_READY);
    g_assert_cmpuint(rd(&t, SACC_REG_FAULT_COUNT), ==, 0);
    g_assert_cmpuint(rd(&t, SACC_REG_IRQ_STATUS), ==, 0);
    for (i = 0; i < 3; i++) {
        chan_submit(ch0, SACC_OP_NOP, 0, 0, 0, 0, i);
        chan_submit(&a, SACC_OP_NOP, 0, 0, 0, 0, 0xa0 + i);
        chan_submit(&c, SACC_OP_MEMCPY, buf, buf + 2048, 64, 0, 0xc0 + i);
    }
    chan_ring(ch0);
    chan_ring(&a);
    chan_ring(&c);
    for (i = 0; i < 3; i++) {
        chan_expect(ch0, i, SACC_STS_OK, 0);
        chan_expect(&a, 0xa0 + i, SACC_STS_OK, 0);
        chan_expect(&c, 0xc0 + i, SACC_STS_OK, 64);
    }
    chan_ack(ch0);
    chan_ack(&a);
    chan_ack(&c);
    g_assert_cmpuint(crd(&a, SACC_REG_ERR_CODE), ==, 0);
    g_assert_cmpuint(crd(&c, SACC_REG_ERR_CODE), ==, 0);

    /* a stopped channel stays stopped: its doorbell says NOT_READY */
    wr(&t, SACC_DOORBELL(2), 3);
    g_assert_cmpuint(crd(&b, SACC_REG_ERR_CODE), ==, SACC_ERR_NOT_READY);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, 0);

    /* a buffer fault is recorded on its own channel only */
    chan_submit(&c, SACC_OP_MEMCPY, buf, UNMAPPED + 8, 64, 0, 0xcf);
    chan_ring(&c);
    chan_expect(&c, 0xcf, SACC_STS_DMA_FAULT, 0);
    chan_expect_fault(&c, UNMAPPED + 8,
                      SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE, 0xcf, 1);
    g_assert_cmpuint(crd(&a, SACC_REG_FAULT_COUNT), ==, 0);
    chan_expect_fault(&b, UNMAPPED, SACC_FAULT_DESC_FETCH, 0, 1);

    /* a channel reset clears b alone; b then works again */
    cwr(&b, SACC_REG_CTRL, SACC_CTRL_RESET);
    g_assert_cmphex(crd(&b, SACC_REG_STATUS), ==, 0);
    g_assert_cmpuint(crd(&b, SACC_REG_ERR_CODE), ==, 0);
    g_assert_cmpuint(crd(&b, SACC_REG_FAULT_COUNT), ==, 0);
    g_assert_cmphex(crd(&b, SACC_REG_IRQ_STATUS), ==, 0);
    g_assert_cmphex(qpci_io_readq(t.dev, t.bar2, SACC_DEV_IRQ_PENDING), ==,
                    1u << 4);
    g_assert_cmpuint(crd(&c, SACC_REG_FAULT_COUNT), ==, 1);
    chan_setup(&t, &b, 2, 0, 4, 4);
    chan_submit(&b, SACC_OP_NOP, 0, 0, 0, 0, 0xb1);
    chan_ring(&b);
    chan_expect(&b, 0xb1, SACC_STS_OK, 0);

    /* a device reset clears them all */
    wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);
    check_power_on(&t);
    g_assert_cmpuint(crd(&c, SACC_REG_FAULT_COUNT), ==, 0);
    g_assert_cmphex(crd(&d, SACC_REG_STATUS), ==, 0);
    g_assert_cmphex(crd(&a, SACC_REG_MODE), ==, 0);
    g_assert_cmphex(qpci_io_readq(t.dev, t.bar2, SACC_DEV_IRQ_PENDING), ==,
                    0);
    sacc_stop(&t);
}

/*
 * Fairness: channel 1 gets 255 copies of 128 KiB, then channel 2 one
 * MEMCPY that copies channel 1's CQ.  That copy is a snapshot, taken by
 * the device itself, of how far channel 1 had got when channel 2's
 * descriptor ran: at most one turn (SACC_TURN_MAX_DESCS) past where it
 * was when channel 2's doorbell had been rung.  Each copy is held 1 ms
 * (x-copy-delay-us), so channel 1 is far from done when channel 2 rings,
 * on any host: the case the test exists for, every time.
 */
static void test_channel_fairness(void)
{
    const uint32_t n = 255, len = 128 * 1024;
    const uint32_t cq_bytes = 256 * sizeof(struct sacc_cqe);
    Sacc t;
    Chan a, b;
    uint64_t src, dst, snap;
    g_autofree struct sacc_cqe *cq = g_new(struct sacc_cqe, 256);
    struct sacc_cqe cqe;
    uint32_t i, before, at_b;

    sacc_start_props(&t, ",x-copy-delay-us=1000");
    chan_setup(&t, &a, 1, 0, 256, 256);
    chan_setup(&t, &b, 2, SACC_MODE_V3, 4, 4);
    src = guest_alloc(&t.qs->alloc, len);
    dst = guest_alloc(&t.qs->alloc, len);
    snap = guest_alloc(&t.qs->alloc, cq_bytes);
    for (i = 0; i < n; i++) {
        chan_submit(&a, SACC_OP_MEMCPY, src, dst, len, 0, i);
    }
    chan_submit(&b, SACC_OP_MEMCPY, a.cq, snap, cq_bytes, 0, 0xb);

    chan_ring(&a);
    chan_ring(&b);
    qtest_memread(t.qts, a.cq, cq, cq_bytes);
    before = cq_valid(cq, 256);
    chan_expect(&b, 0xb, SACC_STS_OK, cq_bytes);
    qtest_memread(t.qts, snap, cq, cq_bytes);
    at_b = cq_valid(cq, 256);
    g_test_message("channel 1: %u of %u done after channel 2's doorbell, "
                   "%u when channel 2's descriptor ran", before, n, at_b);
    g_assert_cmpint((int)at_b - (int)before, <=, SACC_TURN_MAX_DESCS);
    g_assert_cmpuint(before, <, n); /* it met the case: channel 1 busy */
    g_assert_cmpuint(at_b, <, n);

    /* channel 1 still completes everything, in order */
    for (i = 0; i < n; i++) {
        chan_expect(&a, i, SACC_STS_OK, len);
    }
    g_assert_false(chan_wait_cqe(&a, &cqe, G_USEC_PER_SEC / 20));
    sacc_stop(&t);
}

/* Copy the payload back from dst and compare; the canary after it. */
static void check_inline_dst(Sacc *t, uint64_t dst, const uint8_t *want,
                             uint32_t len)
{
    g_autofree uint8_t *got = g_malloc(len + 64);
    uint32_t i;

    qtest_memread(t->qts, dst, got, len + 64);
    g_assert_cmpmem(got, len, want, len);
    for (i = len; i < len + 64; i++) {
        g_assert_cmphex(got[i], ==, 0xaa);
    }
}

/* WRITE_INLINE payloads that wrap the ring end. */
static void test_inline_wrap(void)
{
    Sacc t;
    Chan c, d;
    uint8_t small[200];
    g_autofree uint8_t *big = g_malloc(SACC_INLINE_MAX);
    uint64_t dst;
    int i;

    sacc_start(&t);
    chan_setup(&t, &c, 1, SACC_MODE_V3, 16, 8);
    dst = guest_alloc(&t.qs->alloc, 2 * SACC_INLINE_MAX + 128);
    qtest_memset(t.qts, dst, 0xaa, 2 * SACC_INLINE_MAX + 128);
    fill_pattern(small, sizeof(small), 1);
    fill_pattern(big, SACC_INLINE_MAX, 2);

    /* 12 NOPs, so the inline descriptor lands in slot 12 of 16 */
    for (i = 0; i < 12; i++) {
        chan_submit(&c, SACC_OP_NOP, 0, 0, 0, 0, i);
        if (i % 6 == 5) {
            chan_ring(&c);
            for (int j = i - 5; j <= i; j++) {
                chan_expect(&c, j, SACC_STS_OK, 0);
            }
            chan_ack(&c);
        }
    }
    /* 200 bytes: 7 slots, 13-15 then 0-3; then a NOP in slot 4 */
    chan_inline(&c, dst, sizeof(small), small,
                SACC_INLINE_SLOTS(sizeof(small)), 0x100);
    g_assert_cmpuint(c.sq_tail, ==, 4);
    chan_submit(&c, SACC_OP_NOP, 0, 0, 0, 0, 0x101);
    chan_ring(&c);
    chan_expect(&c, 0x100, SACC_STS_OK, sizeof(small));
    chan_expect(&c, 0x101, SACC_STS_OK, 0);
    chan_ack(&c);
    check_inline_dst(&t, dst, small, sizeof(small));

    /* 4 KiB twice on a 256-slot ring: the second wraps (129..255, 0..1) */
    chan_setup(&t, &d, 2, SACC_MODE_V3, 256, 4);
    qtest_memset(t.qts, dst, 0xaa, 2 * SACC_INLINE_MAX + 128);
    chan_inline(&d, dst, SACC_INLINE_MAX, big, 128, 0x200);
    chan_ring(&d);
    chan_expect(&d, 0x200, SACC_STS_OK, SACC_INLINE_MAX);
    g_assert_cmpuint(d.sq_tail, ==, 129);
    chan_inline(&d, dst + SACC_INLINE_MAX + 64, SACC_INLINE_MAX, big, 128,
                0x201);
    g_assert_cmpuint(d.sq_tail, ==, 2);
    chan_submit(&d, SACC_OP_NOP, 0, 0, 0, 0, 0x202);
    chan_ring(&d);
    chan_expect(&d, 0x201, SACC_STS_OK, SACC_INLINE_MAX);
    chan_expect(&d, 0x202, SACC_STS_OK, 0);
    check_inline_dst(&t, dst, big, SACC_INLINE_MAX);
    check_inline_dst(&t, dst + SACC_INLINE_MAX + 64, big, SACC_INLINE_MAX);
    g_assert_cmpuint(crd(&d, SACC_REG_ERR_CODE), ==, 0);
    sacc_stop(&t);
}

/* Bad WRITE_INLINE lengths: BAD_LENGTH, no DMA, the ring stays in step. */
static void test_inline_errors(void)
{
    Sacc t;
    Chan c, v2;
    uint8_t data[128];
    uint64_t dst;
    uint8_t b[64];
    uint32_t i;

    sacc_start(&t);
    chan_setup(&t, &c, 1, SACC_MODE_V3, 256, 16);
    dst = guest_alloc(&t.qs->alloc, 8192);
    qtest_memset(t.qts, dst, 0xaa, 8192);
    fill_pattern(data, sizeof(data), 3);

    /* length 0: no payload slots */
    chan_inline(&c, dst, 0, NULL, 0, 1);
    chan_submit(&c, SACC_OP_NOP, 0, 0, 0, 0, 2);
    /* 4097 bytes, 129 slots written: all 129 skipped */
    chan_inline(&c, dst, SACC_INLINE_MAX + 1, NULL,
                SACC_INLINE_SLOTS(SACC_INLINE_MAX + 1), 3);
    chan_submit(&c, SACC_OP_NOP, 0, 0, 0, 0, 4);
    chan_ring(&c);
    chan_expect(&c, 1, SACC_STS_BAD_LENGTH, 0);
    chan_expect(&c, 2, SACC_STS_OK, 0);
    chan_expect(&c, 3, SACC_STS_BAD_LENGTH, 0);
    chan_expect(&c, 4, SACC_STS_OK, 0);
    chan_ack(&c);
    g_assert_cmpuint(crd(&c, SACC_REG_ERR_CODE), ==, SACC_ERR_INVALID);

    /* 0xffffffff bytes: the device skips what the tail covers */
    chan_inline(&c, dst, UINT32_MAX, data, 3, 5);
    chan_ring(&c);
    chan_expect(&c, 5, SACC_STS_BAD_LENGTH, 0);
    /* a doorbell inside a command: the device ends it at the tail */
    chan_inline(&c, dst, 100, data, 2, 6);
    chan_ring(&c);
    chan_expect(&c, 6, SACC_STS_BAD_LENGTH, 0);
    chan_submit(&c, SACC_OP_NOP, 0, 0, 0, 0, 7);
    chan_ring(&c);
    chan_expect(&c, 7, SACC_STS_OK, 0);
    chan_ack(&c);

    /* a good command with a faulting dst: status 2, still in step */
    chan_inline(&c, UNMAPPED, 100, data, SACC_INLINE_SLOTS(100), 8);
    chan_inline(&c, dst + 4096 - 32, 64, data, 2, 9);
    chan_submit(&c, SACC_OP_NOP, 0, 0, 0, 0, 10);
    chan_ring(&c);
    chan_expect(&c, 8, SACC_STS_DMA_FAULT, 0);
    chan_expect(&c, 9, SACC_STS_OK, 64);
    chan_expect(&c, 10, SACC_STS_OK, 0);
    chan_expect_fault(&c, UNMAPPED,
                      SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE, 8, 1);

    /* no byte landed from the bad ones */
    qtest_memread(t.qts, dst, b, sizeof(b));
    for (i = 0; i < sizeof(b); i++) {
        g_assert_cmphex(b[i], ==, 0xaa);
    }
    qtest_memread(t.qts, dst + 4096 - 32, b, sizeof(b));
    g_assert_cmpmem(b, 64, data, 64);
    g_assert_cmphex(crd(&c, SACC_REG_STATUS), ==, SACC_STATUS_READY);

    /* without MODE.V3, opcode 3 is an unknown opcode */
    chan_setup(&t, &v2, 2, 0, 4, 4);
    chan_inline(&v2, dst, 0, NULL, 0, 11);
    chan_ring(&v2);
    chan_expect(&v2, 11, SACC_STS_BAD_OPCODE, 0);
    sacc_stop(&t);
}

/* An inline payload the device cannot read is a ring fault (access 5). */
static void test_inline_fault(void)
{
    Sacc t;
    Chan c, d;
    struct sacc_cqe cqe;
    uint8_t data[64] = { 1 };

    sacc_start(&t);
    /* slots 0-3 are the last 128 bytes of RAM, slots 4-15 are not RAM */
    chan_init(&t, &c, 1, SACC_MODE_V3, 16, 4);
    c.sq = RAM_SIZE - 4 * sizeof(struct sacc_desc);
    chan_enable(&c);
    chan_setup(&t, &d, 2, SACC_MODE_V3, 4, 4);
    chan_submit(&c, SACC_OP_NOP, 0, 0, 0, 0, 1);
    chan_submit(&c, SACC_OP_NOP, 0, 0, 0, 0, 2);
    chan_submit(&c, SACC_OP_NOP, 0, 0, 0, 0, 3);
    /* the inline descriptor in slot 3, its payload (slots 4-5) not RAM */
    qtest_memwrite(t.qts, c.sq + 3 * sizeof(struct sacc_desc),
                   &(struct sacc_desc) {
                       .dst = cpu_to_le64(RAM_SIZE / 2),
                       .length = cpu_to_le32(sizeof(data)),
                       .opcode = cpu_to_le16(SACC_OP_WRITE_INLINE),
                       .req_id = cpu_to_le32(0x44),
                   }, sizeof(struct sacc_desc));
    c.sq_tail = 6;
    chan_ring(&c);
    chan_expect(&c, 1, SACC_STS_OK, 0);
    chan_expect(&c, 2, SACC_STS_OK, 0);
    chan_expect(&c, 3, SACC_STS_OK, 0);
    chan_ack(&c);
    chan_wait_reg(&c, SACC_REG_STATUS, SACC_STATUS_ERROR);
    chan_expect_fault(&c, RAM_SIZE, SACC_FAULT_INLINE_READ, 0x44, 1);
    g_assert_cmpuint(crd(&c, SACC_REG_ERR_CODE), ==, SACC_ERR_DMA);
    g_assert_false(chan_wait_cqe(&c, &cqe, G_USEC_PER_SEC / 20));
    chan_inline(&d, RAM_SIZE / 2, sizeof(data), data, 2, 5);
    chan_ring(&d);
    chan_expect(&d, 5, SACC_STS_OK, sizeof(data));
    sacc_stop(&t);
}

static uint64_t read_le64(Sacc *t, uint64_t addr)
{
    uint64_t v;

    qtest_memread(t->qts, addr, &v, sizeof(v));
    return le64_to_cpu(v);
}

/* TIMESTAMP is a fence, and the clock only moves forward. */
static void test_timestamp(void)
{
    const uint32_t mib = SACC_MAX_XFER;
    Sacc t;
    Chan c, d;
    uint64_t ts, src, dst, c0, c1, t1, t2, t3, t4, sum = 0;
    g_autofree uint8_t *in = g_malloc(mib);
    g_autofree uint8_t *out = g_malloc(mib);
    struct sacc_cqe cqe;
    uint32_t i;

    sacc_start(&t);
    chan_setup(&t, &c, 1, SACC_MODE_V3, 16, 16);
    chan_setup(&t, &d, 2, SACC_MODE_V3 | SACC_MODE_TOKEN, 4, 4);
    ts = guest_alloc(&t.qs->alloc, 64);
    src = guest_alloc(&t.qs->alloc, mib);
    dst = guest_alloc(&t.qs->alloc, 4 * mib);
    fill_pattern(in, mib, 4);
    qtest_bufwrite(t.qts, src, in, mib);
    qtest_memset(t.qts, dst, 0, 4 * mib);
    qtest_memset(t.qts, ts, 0, 64);

    c0 = dev_clock(&t);
    chan_submit(&c, SACC_OP_TIMESTAMP, 0, ts, 0, 0, 1);
    for (i = 0; i < 4; i++) {
        chan_submit(&c, i % 2 ? SACC_OP_XFORM : SACC_OP_MEMCPY, src,
                    dst + i * mib, mib, 0, 10 + i);
    }
    /* src and length are ignored; dst need not be aligned */
    chan_submit(&c, SACC_OP_TIMESTAMP, UNMAPPED, ts + 8, 12345, 0, 2);
    chan_submit(&c, SACC_OP_TIMESTAMP, 0, ts + 17, 0, 0, 3);
    chan_ring(&c);
    chan_expect(&c, 1, SACC_STS_OK, SACC_TIMESTAMP_LEN);
    for (i = 0; i < 4; i++) {
        cqe = chan_expect(&c, 10 + i, SACC_STS_OK, mib);
        g_assert_cmpuint(cqe.engine_ns, >, 0);
        sum += cqe.engine_ns;
    }
    chan_expect(&c, 2, SACC_STS_OK, SACC_TIMESTAMP_LEN);
    /* when the fence has completed, all earlier work has landed */
    qtest_bufread(t.qts, dst + 3 * mib, out, mib);
    for (i = 0; i < mib; i++) {
        g_assert_cmphex(out[i], ==, in[i] ^ SACC_XFORM_KEY);
    }
    chan_expect(&c, 3, SACC_STS_OK, SACC_TIMESTAMP_LEN);
    c1 = dev_clock(&t);

    t1 = read_le64(&t, ts);
    t2 = read_le64(&t, ts + 8);
    t3 = read_le64(&t, ts + 17);
    g_test_message("clock %" PRIu64 " ts %" PRIu64 " +%" PRIu64 " +%" PRIu64
                   " clock +%" PRIu64 "; engine time between: %" PRIu64,
                   c0, t1, t2 - t1, t3 - t2, c1 - t3, sum);
    g_assert_cmpuint(c0, <=, t1);
    g_assert_cmpuint(t1, <=, t2);
    g_assert_cmpuint(t2, <=, t3);
    g_assert_cmpuint(t3, <=, c1);
    /* the copies ran between the two fences, each its engine time */
    g_assert_cmpuint(t2 - t1, >=, sum);

    /* a timestamp on another channel, later: not earlier */
    chan_submit(&d, SACC_OP_TIMESTAMP, 0, ts + 32, 0, 0, 4);
    chan_ring(&d);
    chan_expect(&d, 4, SACC_STS_OK, SACC_TIMESTAMP_LEN);
    t4 = read_le64(&t, ts + 32);
    g_assert_cmpuint(t4, >=, t3);
    g_assert_cmpuint(t4, <=, dev_clock(&t));

    /* dst faults like any destination */
    chan_submit(&c, SACC_OP_TIMESTAMP, 0, UNMAPPED + 16, 0, 0, 5);
    chan_submit(&c, SACC_OP_TIMESTAMP, 0, UINT64_MAX - 3, 0, 0, 6);
    chan_ring(&c);
    chan_expect(&c, 5, SACC_STS_DMA_FAULT, 0);
    chan_expect(&c, 6, SACC_STS_DMA_FAULT, 0);
    chan_expect_fault(&c, UINT64_MAX - 3,
                      SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE, 6, 2);
    g_assert_cmphex(crd(&c, SACC_REG_STATUS), ==, SACC_STATUS_READY);
    sacc_stop(&t);
}

/* Engine time: plausible on MODE.V3 channels, 0 elsewhere. */
static void test_engine_time(void)
{
    const uint32_t mib = SACC_MAX_XFER;
    Sacc t;
    Chan c, v2;
    uint64_t buf, c0, c1, sum = 0;
    uint8_t data[100] = { 7 };
    struct sacc_cqe cqe[6];
    int i;

    sacc_start(&t);
    chan_setup(&t, &c, 1, SACC_MODE_V3, 16, 16);
    chan_setup(&t, &v2, 2, 0, 4, 4);
    buf = guest_alloc(&t.qs->alloc, 2 * mib);

    c0 = dev_clock(&t);
    chan_submit(&c, SACC_OP_MEMCPY, buf, buf + mib, mib, 0, 0);
    chan_submit(&c, SACC_OP_XFORM, buf, buf + mib, mib, 0, 1);
    chan_inline(&c, buf, sizeof(data), data, SACC_INLINE_SLOTS(100), 2);
    chan_submit(&c, SACC_OP_TIMESTAMP, 0, buf, 0, 0, 3);
    chan_submit(&c, SACC_OP_NOP, 0, 0, 0, 0, 4);
    chan_submit(&c, 9, 0, 0, 0, 0, 5);
    chan_ring(&c);
    cqe[0] = chan_expect(&c, 0, SACC_STS_OK, mib);
    cqe[1] = chan_expect(&c, 1, SACC_STS_OK, mib);
    cqe[2] = chan_expect(&c, 2, SACC_STS_OK, sizeof(data));
    cqe[3] = chan_expect(&c, 3, SACC_STS_OK, SACC_TIMESTAMP_LEN);
    cqe[4] = chan_expect(&c, 4, SACC_STS_OK, 0);
    cqe[5] = chan_expect(&c, 5, SACC_STS_BAD_OPCODE, 0);
    c1 = dev_clock(&t);
    for (i = 0; i < 6; i++) {
        g_test_message("op %d: engine_ns %u", i, cqe[i].engine_ns);
        /* no more than the time the whole batch took */
        g_assert_cmpuint(cqe[i].engine_ns, <=, c1 - c0);
        sum += cqe[i].engine_ns;
    }
    g_assert_cmpuint(sum, <=, c1 - c0);
    /* work that moves data takes time */
    for (i = 0; i < 4; i++) {
        g_assert_cmpuint(cqe[i].engine_ns, >, 0);
    }
    /* a 1 MiB copy takes longer than a NOP */
    g_assert_cmpuint(cqe[0].engine_ns, >, cqe[4].engine_ns);

    /* MODE 0: word 8 stays 0 (chan_expect checks) */
    chan_submit(&v2, SACC_OP_MEMCPY, buf, buf + mib, mib, 0, 6);
    chan_ring(&v2);
    chan_expect(&v2, 6, SACC_STS_OK, mib);
    sacc_stop(&t);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/sacc/engine/nop", test_nop);
    qtest_add_func("/sacc/engine/memcpy-xform", test_memcpy_xform);
    qtest_add_func("/sacc/engine/bad-descriptors", test_bad_descriptors);
    qtest_add_func("/sacc/engine/dma-faults", test_dma_faults);
    qtest_add_func("/sacc/engine/copy-paths", test_copy_paths);
    qtest_add_func("/sacc/engine/memcpy-staged", test_memcpy_staged);
    qtest_add_func("/sacc/engine/ring-faults", test_ring_faults);
    qtest_add_func("/sacc/engine/phase-laps", test_phase_laps);
    qtest_add_func("/sacc/engine/cq-full", test_cq_full);
    qtest_add_func("/sacc/engine/inline-wrap", test_inline_wrap);
    qtest_add_func("/sacc/engine/inline-errors", test_inline_errors);
    qtest_add_func("/sacc/engine/inline-fault", test_inline_fault);
    qtest_add_func("/sacc/engine/timestamp", test_timestamp);
    qtest_add_func("/sacc/engine/engine-time", test_engine_time);
    qtest_add_func("/sacc/engine/channel-isolation", test_channel_isolation);
    qtest_add_func("/sacc/engine/channel-fairness", test_channel_fairness);

    return g_test_run();
}

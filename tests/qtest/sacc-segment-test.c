/* SPDX-License-Identifier: MIT */
/*
 * QTest of the SACC device's pushbuffer segments (docs/spec.md, pushbuffer
 * segments): every command kind in one segment, in host and in device
 * memory; bad segments and failing commands; one segment launched again
 * and again; a reset and an FLR in the middle of a long segment.
 */

#include "sacc-qtest.h"

/*
 * Pushbuffer segments (docs/spec.md section 21).  A segment is
 * built in guest memory (or device memory through BAR4) as 32-byte
 * commands; one SEGMENT entry in the SQ runs it.
 */
static struct sacc_desc seg_cmd(uint16_t op, uint64_t src, uint64_t dst,
                                uint32_t len, uint16_t flags, uint32_t req)
{
    return (struct sacc_desc) {
        .src = cpu_to_le64(src), .dst = cpu_to_le64(dst),
        .length = cpu_to_le32(len), .opcode = cpu_to_le16(op),
        .flags = cpu_to_le16(flags), .req_id = cpu_to_le32(req),
    };
}

/*
 * Every command kind inside one segment, in host and in device memory,
 * an inline payload inside it, TIMESTAMPs around work; one completion
 * per entry, result_len the number of commands.
 */
static void test_segment_kinds(void)
{
    const uint16_t D = SACC_DESC_F_DST_DEV, S = SACC_DESC_F_SRC_DEV;
    struct sacc_desc seg[16];
    uint8_t payload[40], got[40];
    uint64_t h, src, ts[2], segaddr;
    uint32_t n = 0, i, where;
    Sacc t;
    Chan c;

    sacc_start(&t);
    sacc_map_devmem(&t);
    chan_setup(&t, &c, 1, SACC_MODE_V3, 8, 8);
    h = guest_alloc(&t.qs->alloc, 65536);
    src = guest_alloc(&t.qs->alloc, 4096);
    segaddr = guest_alloc(&t.qs->alloc, sizeof(seg));
    for (i = 0; i < sizeof(payload); i++) {
        payload[i] = 0xa0 + i;
    }
    for (where = 0; where < 2; where++) {
        qtest_memset(t.qts, h, 0, 65536);
        qtest_memset(t.qts, src, 0x5c, 4096);
        n = 0;
        seg[n++] = seg_cmd(SACC_OP_TIMESTAMP, 0, h, 0, 0, 1);
        seg[n++] = seg_cmd(SACC_OP_NOP, 0, 0, 0, 0, 2);
        seg[n++] = seg_cmd(SACC_OP_MEMCPY, src, 0x10000, 4096, D, 3);
        seg[n++] = seg_cmd(SACC_OP_XFORM, 0x10000, h + 4096, 4096, S, 4);
        seg[n++] = seg_cmd(SACC_OP_FILL, 0x1122334455667788ull, h + 8192,
                           64, 0, 5);
        seg[n++] = seg_cmd(SACC_OP_WRITE_INLINE, 0, h + 12288,
                           sizeof(payload), 0, 6);
        memcpy(&seg[n++], payload, 32);
        memset(&seg[n], 0xee, 32);
        memcpy(&seg[n++], payload + 32, sizeof(payload) - 32);
        seg[n++] = seg_cmd(SACC_OP_TIMESTAMP, 0, h + 8, 0, 0, 7);
        if (where == 0) {
            qtest_memwrite(t.qts, segaddr, seg, n * 32);
            chan_submit(&c, SACC_OP_SEGMENT, segaddr, 0, n * 32, 0, 0x51);
        } else {
            qpci_memwrite(t.dev, t.bar4, 0x20000, seg, n * 32);
            chan_submit(&c, SACC_OP_SEGMENT, 0x20000, 0, n * 32, S, 0x52);
        }
        chan_ring(&c);
        chan_expect(&c, 0x51 + where, SACC_STS_OK, 7);
        chan_ack(&c);
        host_expect(&t, h + 4096, 0x5c ^ SACC_XFORM_KEY, 4096);
        for (i = 0; i < 64; i++) {
            uint8_t b;

            qtest_memread(t.qts, h + 8192 + i, &b, 1);
            g_assert_cmphex(b, ==, (uint8_t)(0x1122334455667788ull >>
                                             (8 * (i % 8))));
        }
        qtest_memread(t.qts, h + 12288, got, sizeof(got));
        g_assert_cmpmem(got, sizeof(got), payload, sizeof(payload));
        qtest_memread(t.qts, h, ts, sizeof(ts));
        g_assert_cmpuint(le64_to_cpu(ts[0]), >, 0);
        g_assert_cmpuint(le64_to_cpu(ts[1]), >=, le64_to_cpu(ts[0]));
    }
    sacc_stop(&t);
}

/*
 * Errors: a bad length, a segment at an unmapped IOVA (access 8), in
 * device memory past the end (access 6), a failing command in the middle
 * (its index and status, later commands not run), SEGMENT inside a
 * segment (status 1), an inline payload past the segment's end (3), and
 * a garbage segment; none of them fatal, and another channel unharmed.
 */
static void test_segment_errors(void)
{
    struct sacc_desc seg[8];
    uint64_t h, segaddr;
    uint8_t junk[4096];
    uint32_t i, seed = 1;
    Sacc t;
    Chan c, o;

    sacc_start(&t);
    sacc_map_devmem(&t);
    chan_setup(&t, &c, 1, SACC_MODE_V3, 16, 16);
    chan_setup(&t, &o, 2, SACC_MODE_V3, 4, 4);
    h = guest_alloc(&t.qs->alloc, 8192);
    segaddr = guest_alloc(&t.qs->alloc, sizeof(junk));
    qtest_memset(t.qts, h, 0, 8192);

    chan_submit(&c, SACC_OP_SEGMENT, segaddr, 0, 48, 0, 1);
    chan_submit(&c, SACC_OP_SEGMENT, segaddr, 0, SACC_SEGMENT_MAX + 32, 0, 2);
    chan_submit(&c, SACC_OP_SEGMENT, UNMAPPED, 0, 64, 0, 3);
    chan_submit(&c, SACC_OP_SEGMENT, DEVMEM_SIZE - 32, 0, 64,
                SACC_DESC_F_SRC_DEV, 4);
    chan_ring(&c);
    chan_expect(&c, 1, SACC_STS_BAD_LENGTH, 0);
    chan_expect(&c, 2, SACC_STS_BAD_LENGTH, 0);
    chan_expect(&c, 3, SACC_STS_DMA_FAULT, 0);
    chan_expect(&c, 4, SACC_STS_DMA_FAULT, 0);
    chan_ack(&c);
    chan_expect_fault(&c, DEVMEM_SIZE - 32, SACC_FAULT_DEV_READ, 4, 2);

    chan_submit(&c, SACC_OP_SEGMENT, UNMAPPED, 0, 64, 0, 5);
    chan_ring(&c);
    chan_expect(&c, 5, SACC_STS_DMA_FAULT, 0);
    chan_ack(&c);
    chan_expect_fault(&c, UNMAPPED, SACC_FAULT_SEGMENT_READ, 5, 3);

    /* command 2 faults: commands 0-1 ran, 3 did not */
    seg[0] = seg_cmd(SACC_OP_FILL, 0x0101010101010101ull, h, 8, 0, 10);
    seg[1] = seg_cmd(SACC_OP_NOP, 0, 0, 0, 0, 11);
    seg[2] = seg_cmd(SACC_OP_MEMCPY, h, UNMAPPED, 64, 0, 12);
    seg[3] = seg_cmd(SACC_OP_FILL, 0x0202020202020202ull, h + 4096, 8, 0,
                     13);
    qtest_memwrite(t.qts, segaddr, seg, 4 * 32);
    chan_submit(&c, SACC_OP_SEGMENT, segaddr, 0, 4 * 32, 0, 6);
    /* SEGMENT inside a segment: status 1 at index 0 */
    seg[4] = seg_cmd(SACC_OP_SEGMENT, segaddr, 0, 32, 0, 14);
    qtest_memwrite(t.qts, segaddr + 1024, &seg[4], 32);
    chan_submit(&c, SACC_OP_SEGMENT, segaddr + 1024, 0, 32, 0, 7);
    /* an inline payload running past the end: status 3 at index 0 */
    seg[5] = seg_cmd(SACC_OP_WRITE_INLINE, 0, h, 64, 0, 15);
    qtest_memwrite(t.qts, segaddr + 2048, &seg[5], 32);
    chan_submit(&c, SACC_OP_SEGMENT, segaddr + 2048, 0, 64, 0, 8);
    chan_ring(&c);
    chan_expect(&c, 6, SACC_STS_DMA_FAULT, 2);
    chan_expect(&c, 7, SACC_STS_BAD_OPCODE, 0);
    chan_expect(&c, 8, SACC_STS_BAD_LENGTH, 0);
    chan_ack(&c);
    host_expect(&t, h, 0x01, 8);
    host_expect(&t, h + 4096, 0, 8);
    g_assert_cmphex(crd(&c, SACC_REG_FAULT_REQ_ID), ==, 12);

    /* garbage, 16 times: each entry completes, the channel goes on */
    for (i = 0; i < 16; i++) {
        uint32_t k;

        for (k = 0; k < sizeof(junk); k++) {
            seed = seed * 1103515245 + 12345;
            junk[k] = seed >> 16;
        }
        qtest_memwrite(t.qts, segaddr, junk, sizeof(junk));
        chan_submit(&c, SACC_OP_SEGMENT, segaddr, 0, sizeof(junk), 0,
                    0x100 + i);
        chan_ring(&c);
        {
            struct sacc_cqe cqe;

            g_assert_true(chan_wait_cqe(&c, &cqe, WAIT_US));
            g_assert_cmphex(cqe.req_id, ==, 0x100 + i);
        }
        chan_ack(&c);
    }
    g_assert_cmphex(crd(&c, SACC_REG_STATUS) & SACC_STATUS_READY, ==,
                    SACC_STATUS_READY);
    chan_submit(&o, SACC_OP_NOP, 0, 0, 0, 0, 0x77);
    chan_ring(&o);
    chan_expect(&o, 0x77, SACC_STS_OK, 0);
    sacc_stop(&t);
}

/*
 * Launched again and again: one segment 10,000 times unchanged, then
 * rewritten between two launches and run as rewritten.
 */
static void test_segment_relaunch(void)
{
    const uint32_t launches = 10000, sq = 256;
    struct sacc_desc seg[2], entry[256];
    struct sacc_cqe cqe[256];
    uint32_t i, n, done = 0;
    uint64_t h, segaddr;
    Sacc t;
    Chan c;

    sacc_start(&t);
    chan_setup(&t, &c, 1, SACC_MODE_V3, sq, sq);
    h = guest_alloc(&t.qs->alloc, 4096);
    segaddr = guest_alloc(&t.qs->alloc, sizeof(seg));
    seg[0] = seg_cmd(SACC_OP_NOP, 0, 0, 0, 0, 1);
    seg[1] = seg_cmd(SACC_OP_FILL, 0x4141414141414141ull, h, 16, 0, 2);
    qtest_memwrite(t.qts, segaddr, seg, sizeof(seg));
    while (done < launches) {
        /* a ring's worth a doorbell, written and read back in bulk */
        n = MIN(launches - done, sq - 1);
        for (i = 0; i < n; i++) {
            entry[i] = seg_cmd(SACC_OP_SEGMENT, segaddr, 0, sizeof(seg), 0,
                               done + i);
        }
        chan_submit_many(&c, entry, n);
        chan_ring(&c);
        g_assert_true(chan_wait_cqes(&c, cqe, n, WAIT_US));
        for (i = 0; i < n; i++) {
            g_assert_cmpuint(cqe[i].req_id, ==, done);
            g_assert_cmpuint(cqe[i].status, ==, SACC_STS_OK);
            g_assert_cmpuint(cqe[i].result_len, ==, 2);
            done++;
        }
        chan_ack(&c);
    }
    host_expect(&t, h, 0x41, 16);
    seg[1] = seg_cmd(SACC_OP_FILL, 0x4242424242424242ull, h, 16, 0, 2);
    qtest_memwrite(t.qts, segaddr, seg, sizeof(seg));
    chan_submit(&c, SACC_OP_SEGMENT, segaddr, 0, sizeof(seg), 0, 0xabc);
    chan_ring(&c);
    chan_expect(&c, 0xabc, SACC_STS_OK, 2);
    host_expect(&t, h, 0x42, 16);
    sacc_stop(&t);
}

/*
 * A channel reset and an FLR in the middle of a long segment (copies
 * held by x-copy-delay-us): once the reset returned, nothing of the
 * segment lands, and it has no completion.
 */
static void test_segment_reset(void)
{
    const uint32_t ncmd = 64, len = 64 * 1024;
    g_autofree struct sacc_desc *seg = g_new0(struct sacc_desc, 64);
    uint64_t src, dst, segaddr;
    struct sacc_cqe cqe;
    uint32_t kind, i, held;
    uint8_t exp;
    Sacc t;
    Chan c;

    sacc_start_props(&t, ",x-copy-delay-us=100000");
    exp = qpci_find_capability(t.dev, PCI_CAP_ID_EXP, 0);
    src = guest_alloc(&t.qs->alloc, len);
    dst = guest_alloc(&t.qs->alloc, len);
    segaddr = guest_alloc(&t.qs->alloc, ncmd * 32);
    qtest_memset(t.qts, src, 0x3c, len);
    for (i = 0; i < ncmd; i++) {
        seg[i] = seg_cmd(SACC_OP_MEMCPY, src, dst, len, 0, i);
    }
    qtest_memwrite(t.qts, segaddr, seg, ncmd * 32);
    for (kind = 0; kind < 2; kind++) {
        chan_setup(&t, &c, 1, SACC_MODE_V3, 4, 4);
        chan_submit(&c, SACC_OP_SEGMENT, segaddr, 0, ncmd * 32, 0, 0x99);
        chan_ring(&c);
        /* the segment's third copy is held: it is part way */
        wait_copies_held(t.qts, "sacc0", copies_held(t.qts, "sacc0") + 3);
        if (kind == 0) {
            cwr(&c, SACC_REG_CTRL, SACC_CTRL_RESET);
        } else {
            sacc_flr(&t, exp);
        }
        held = copies_held(t.qts, "sacc0");
        qtest_memset(t.qts, dst, 0, len);
        g_usleep(G_USEC_PER_SEC / 2); /* five held copies' time */
        host_expect(&t, dst, 0, len);
        g_assert_cmpuint(copies_held(t.qts, "sacc0"), ==, held);
        g_assert_false(chan_wait_cqe(&c, &cqe, 0));
        if (kind == 1) {
            sacc_remap(&t);
        }
        /* enabled again, the channel has forgotten the segment */
        chan_setup(&t, &c, 1, SACC_MODE_V3, 4, 4);
        chan_submit(&c, SACC_OP_NOP, 0, 0, 0, 0, 0x55);
        chan_ring(&c);
        chan_expect(&c, 0x55, SACC_STS_OK, 0);
        host_expect(&t, dst, 0, len);
        cwr(&c, SACC_REG_CTRL, SACC_CTRL_RESET);
    }
    sacc_stop(&t);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/sacc/segment/kinds", test_segment_kinds);
    qtest_add_func("/sacc/segment/errors", test_segment_errors);
    qtest_add_func("/sacc/segment/relaunch", test_segment_relaunch);
    qtest_add_func("/sacc/segment/reset", test_segment_reset);

    return g_test_run();
}

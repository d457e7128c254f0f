/* SPDX-License-Identifier: MIT */
/*
 * QTest of the SACC device's monitor commands, x-query-sacc and
 * "info sacc" (qemu-model/sacc-monitor.c): rings decoded as the driver
 * wrote them, the same through intel-iommu's translation without
 * recording a fault, and the commands against whatever state a guest
 * left, which they must neither crash on nor change.
 */

#include "sacc-qtest.h"
#include "qapi/qmp/qdict.h"
#include "qapi/qmp/qlist.h"
#include "qapi/qmp/qjson.h"
#include "qapi/error.h"

/* x-query-sacc with @args (JSON); the response */
static QDict *query_sacc(QTestState *qts, const char *args)
{
    QDict *r = qtest_qmp(qts, "{'execute': 'x-query-sacc', "
                         "'arguments': %p}", qobject_from_json(args,
                                                               &error_abort));

    g_assert(qdict_haskey(r, "return"));
    return r;
}

/* The first device's channel list from a query's response */
static QList *query_channels(QDict *r)
{
    QList *devs = qdict_get_qlist(r, "return");
    QDict *dev = qobject_to(QDict, qlist_peek(devs));

    g_assert(dev);
    return qdict_get_qlist(dev, "channel-info");
}

/*
 * Descriptors written but not rung, and rung and completed, decoded from
 * the rings as the driver wrote them: opcode names, req_ids, addresses,
 * lengths, the inline payload; the completions with their status names.
 */
static void test_monitor_rings(void)
{
    uint8_t payload[40];
    g_autofree char *hmp = NULL;
    QDict *r, *ch, *slot;
    QList *sq, *cq;
    const QListEntry *e;
    uint32_t i, seen = 0;
    uint64_t h;
    Sacc t;
    Chan c;

    sacc_start(&t);
    chan_setup(&t, &c, 1, SACC_MODE_V3, 8, 8);
    h = guest_alloc(&t.qs->alloc, 4096);
    for (i = 0; i < sizeof(payload); i++) {
        payload[i] = i;
    }
    chan_submit(&c, SACC_OP_NOP, 0, 0, 0, 0, 0x11);
    chan_ring(&c);
    chan_expect(&c, 0x11, SACC_STS_OK, 0);
    /* queued, not rung: the device's tail is before them */
    chan_submit(&c, SACC_OP_MEMCPY, h, h + 2048, 0, 0, 0x12); /* no length */
    chan_inline(&c, h, sizeof(payload), payload, 2, 0x13);

    r = query_sacc(t.qts, "{'id': 'sacc0', 'channel': 1, 'count': 8}");
    ch = qobject_to(QDict, qlist_peek(query_channels(r)));
    g_assert_cmpuint(qdict_get_int(ch, "sq-head"), ==, 1);
    g_assert_cmpuint(qdict_get_int(ch, "sq-tail"), ==, 1);
    sq = qdict_get_qlist(ch, "sq");
    QLIST_FOREACH_ENTRY(sq, e) {
        slot = qobject_to(QDict, qlist_entry_obj(e));
        if (qdict_get_bool(slot, "fault")) {
            continue;
        }
        switch (qdict_get_int(slot, "index")) {
        case 1:
            g_assert_cmpstr(qdict_get_str(slot, "op"), ==, "memcpy");
            g_assert_cmphex(qdict_get_int(slot, "req-id"), ==, 0x12);
            g_assert_cmphex(qdict_get_int(slot, "src"), ==, h);
            g_assert_cmphex(qdict_get_int(slot, "dst"), ==, h + 2048);
            g_assert_cmpuint(qdict_get_int(slot, "length"), ==, 0);
            g_assert_false(qdict_get_bool(slot, "pending"));
            seen |= 1;
            break;
        case 2:
            g_assert_cmpstr(qdict_get_str(slot, "op"), ==, "write inline");
            g_assert_cmpstr(qdict_get_str(slot, "payload"), ==,
                            "000102030405060708090a0b0c0d0e0f1011121314151617"
                            "18191a1b1c1d1e1f2021222324252627");
            seen |= 2;
            break;
        }
    }
    g_assert_cmpuint(seen, ==, 3);
    cq = qdict_get_qlist(ch, "cq");
    seen = 0;
    QLIST_FOREACH_ENTRY(cq, e) {
        slot = qobject_to(QDict, qlist_entry_obj(e));
        if (qdict_get_int(slot, "index") == 0) {
            g_assert_true(qdict_get_bool(slot, "posted"));
            g_assert_cmphex(qdict_get_int(slot, "req-id"), ==, 0x11);
            g_assert_cmpstr(qdict_get_str(slot, "status-name"), ==, "ok");
            seen = 1;
        }
    }
    g_assert_cmpuint(seen, ==, 1);
    qobject_unref(r);

    /* the same for people, and memory through the same view */
    hmp = qtest_hmp(t.qts, "info sacc sacc0 --ring 1 --count 4");
    g_assert_nonnull(strstr(hmp, "req_id 0x12"));
    g_assert_nonnull(strstr(hmp, "memcpy"));
    g_free(hmp);
    qtest_memwrite(t.qts, h, "SACC", 4);
    hmp = qtest_hmp(t.qts, "info sacc sacc0 --mem 0x%" PRIx64 " 4", h);
    g_assert_nonnull(strstr(hmp, "53414343"));
    g_free(hmp);
    hmp = qtest_hmp(t.qts, "info sacc nosuch");
    g_assert_nonnull(strstr(hmp, "no SACC device 'nosuch'"));
    sacc_stop(&t);
}

/*
 * Through intel-iommu: the SQ at an IOVA mapped by second-level page
 * tables the test builds, so the descriptors are decoded through the
 * vIOMMU's translation; a slot at an unmapped IOVA is reported
 * unreadable, and none of it records a fault in the IOMMU (FSTS, the
 * fault recording register): a real DMA does.
 */
#define VTD_BASE      0xfed90000ull
#define VTD_GCMD      0x18
#define VTD_GSTS      0x1c
#define VTD_RTADDR    0x20
#define VTD_FSTS      0x34
#define VTD_FRCD_HI   0x228 /* the one fault recording register, bits 64+ */
#define SQ_IOVA       0x10000000ull


static void vtd_map_page(QTestState *qts, QGuestAllocator *a, uint64_t l3,
                         uint64_t iova, uint64_t gpa)
{
    uint64_t l2 = guest_alloc(a, 4096), l1 = guest_alloc(a, 4096);

    qtest_memset(qts, l2, 0, 4096);
    qtest_memset(qts, l1, 0, 4096);
    qtest_writeq(qts, l3 + ((iova >> 30) & 511) * 8, l2 | 3);
    qtest_writeq(qts, l2 + ((iova >> 21) & 511) * 8, l1 | 3);
    qtest_writeq(qts, l1 + ((iova >> 12) & 511) * 8, gpa | 3);
}

static void test_monitor_vtd(void)
{
    QGuestAllocator *a;
    uint64_t root, ctx, l3, sq, h;
    g_autofree char *hmp = NULL;
    QDict *r, *ch, *slot;
    QList *sqv;
    const QListEntry *e;
    uint32_t seen = 0;
    Sacc t;
    Chan c;

    memset(&t, 0, sizeof(t));
    t.ch0.t = &t;
    t.qs = qtest_pc_boot("-M q35 -m 256M -nodefaults -device intel-iommu "
                         "-device sacc,id=sacc0,addr=04.0");
    t.qts = t.qs->qts;
    a = &t.qs->alloc;
    t.dev = qpci_device_find(t.qs->pcibus, SACC_DEVFN);
    qpci_device_enable(t.dev);
    t.bar0 = qpci_iomap(t.dev, SACC_BAR_REGS, NULL);
    t.bar2 = qpci_iomap(t.dev, SACC_BAR_CHAN, NULL);

    /* root -> context (bus 0, devfn 04.0) -> 3-level tables, 39 bits */
    root = guest_alloc(a, 4096);
    ctx = guest_alloc(a, 4096);
    l3 = guest_alloc(a, 4096);
    sq = guest_alloc(a, 4096);
    h = guest_alloc(a, 4096);
    qtest_memset(t.qts, root, 0, 4096);
    qtest_memset(t.qts, ctx, 0, 4096);
    qtest_memset(t.qts, l3, 0, 4096);
    qtest_memset(t.qts, sq, 0, 4096);
    qtest_writeq(t.qts, root, ctx | 1);
    qtest_writeq(t.qts, ctx + SACC_DEVFN * 16, l3 | 1);
    qtest_writeq(t.qts, ctx + SACC_DEVFN * 16 + 8, 1 | (1 << 8));
    vtd_map_page(t.qts, a, l3, SQ_IOVA, sq);
    qtest_writeq(t.qts, VTD_BASE + VTD_RTADDR, root);
    qtest_writel(t.qts, VTD_BASE + VTD_GCMD, 1u << 30); /* SRTP */
    g_assert_cmphex(qtest_readl(t.qts, VTD_BASE + VTD_GSTS) & (1u << 30),
                    !=, 0);
    qtest_writel(t.qts, VTD_BASE + VTD_GCMD, 1u << 31); /* TE */
    g_assert_cmphex(qtest_readl(t.qts, VTD_BASE + VTD_GSTS) & (1u << 31),
                    !=, 0);

    /* channel 1: SQ at the IOVA (written at its GPA), CQ unmapped */
    chan_init(&t, &c, 1, SACC_MODE_V3, 8, 8);
    c.sq = SQ_IOVA;
    c.dev_pa = sq - SQ_IOVA;
    c.cq = UNMAPPED;
    chan_enable(&c);
    chan_submit(&c, SACC_OP_MEMCPY, 0x7000, 0x8000, 0x100, 0, 0xabc);
    chan_submit(&c, SACC_OP_FILL, 0x5a5a5a5a5a5a5a5aull, h, 64, 0, 0xabd);

    r = query_sacc(t.qts, "{'channel': 1, 'count': 8}");
    ch = qobject_to(QDict, qlist_peek(query_channels(r)));
    sqv = qdict_get_qlist(ch, "sq");
    QLIST_FOREACH_ENTRY(sqv, e) {
        slot = qobject_to(QDict, qlist_entry_obj(e));
        g_assert_false(qdict_get_bool(slot, "fault")); /* one mapped page */
        if (qdict_get_int(slot, "index") == 0) {
            g_assert_cmphex(qdict_get_int(slot, "addr"), ==, SQ_IOVA);
            g_assert_cmphex(qdict_get_int(slot, "req-id"), ==, 0xabc);
            g_assert_cmphex(qdict_get_int(slot, "length"), ==, 0x100);
            seen |= 1;
        } else if (qdict_get_int(slot, "index") == 1) {
            g_assert_cmpstr(qdict_get_str(slot, "op"), ==, "fill");
            seen |= 2;
        }
    }
    g_assert_cmpuint(seen, ==, 3);
    qobject_unref(r);
    hmp = qtest_hmp(t.qts, "info sacc --ring 1 --mem 0x%" PRIx64 " 16",
                    (uint64_t)UNMAPPED);
    g_assert_nonnull(strstr(hmp, "no translation"));
    /* looking recorded no fault */
    g_assert_cmphex(qtest_readl(t.qts, VTD_BASE + VTD_FSTS), ==, 0);
    g_assert_cmphex(qtest_readq(t.qts, VTD_BASE + VTD_FRCD_HI), ==, 0);

    /* a real DMA does: the CQ write faults */
    chan_ring(&c);
    chan_wait_reg(&c, SACC_REG_STATUS, SACC_STATUS_ERROR);
    g_assert_cmphex(qtest_readl(t.qts, VTD_BASE + VTD_FSTS), !=, 0);
    sacc_stop(&t);
}

static uint32_t rnd32(uint64_t *s)
{
    return rnd(s);
}

/*
 * The commands with whatever state the guest left: random registers,
 * rings of garbage in and out of device memory, random arguments.
 * QEMU goes on, and the device's registers read the same before and
 * after every query.
 */
static void test_monitor_garbage(void)
{
    uint64_t seed = 7;
    uint32_t i, k, before[64], after[64];
    g_autofree uint8_t *junk = g_malloc(8192);
    uint64_t mem;
    Sacc t;

    sacc_start(&t);
    sacc_map_devmem(&t);
    mem = guest_alloc(&t.qs->alloc, 8192);
    for (i = 0; i < 200; i++) {
        uint32_t chn = rnd32(&seed) % SACC_CHANNELS_DEFAULT;
        uint32_t blk = SACC_CHAN_BLOCK(chn);
        g_autofree char *cmd = NULL;
        QDict *r;

        for (k = 0; k < 8192; k++) {
            junk[k] = rnd32(&seed);
        }
        qtest_memwrite(t.qts, mem, junk, 8192);
        qpci_memwrite(t.dev, t.bar4, 0, junk, 8192);
        qpci_io_writel(t.dev, t.bar2, blk + SACC_REG_MODE, rnd32(&seed) & 7);
        qpci_io_writel(t.dev, t.bar2, blk + SACC_REG_SQ_BASE,
                       rnd32(&seed) & 1 ? (uint32_t)mem : rnd32(&seed) & ~31u);
        qpci_io_writel(t.dev, t.bar2, blk + SACC_REG_SQ_SIZE,
                       1u << (rnd32(&seed) % 17));
        qpci_io_writel(t.dev, t.bar2, blk + SACC_REG_CQ_BASE,
                       (uint32_t)mem + 4096);
        qpci_io_writel(t.dev, t.bar2, blk + SACC_REG_CQ_SIZE,
                       1u << (rnd32(&seed) % 17));
        qpci_io_writel(t.dev, t.bar2, blk + SACC_REG_CTRL, SACC_CTRL_ENABLE);
        for (k = 0; k < 64; k++) {
            before[k] = qpci_io_readl(t.dev, t.bar2, blk + 4 * k);
        }
        cmd = g_strdup_printf("info sacc sacc0 --ring %u --count %u "
                              "--mem 0x%x %u%s", chn, 1 + rnd32(&seed) % 300,
                              rnd32(&seed), 1 + rnd32(&seed) % 5000,
                              rnd32(&seed) & 1 ? " --dev" : "");
        g_free(qtest_hmp(t.qts, "%s", cmd));
        r = qtest_qmp(t.qts, "{'execute': 'x-query-sacc', 'arguments': "
                      "{'channel': %u, 'count': %u, 'addr': %u, "
                      "'length': %u}}", rnd32(&seed) % 70, rnd32(&seed) % 300,
                      rnd32(&seed), rnd32(&seed) % 5000);
        qobject_unref(r);
        for (k = 0; k < 64; k++) {
            after[k] = qpci_io_readl(t.dev, t.bar2, blk + 4 * k);
        }
        g_assert_cmpmem(before, sizeof(before), after, sizeof(after));
        qpci_io_writel(t.dev, t.bar2, blk + SACC_REG_CTRL, SACC_CTRL_RESET);
    }
    g_assert_cmphex(rd(&t, SACC_REG_MAGIC), ==, SACC_MAGIC);
    sacc_stop(&t);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/sacc/monitor/rings", test_monitor_rings);
    qtest_add_func("/sacc/monitor/vtd", test_monitor_vtd);
    qtest_add_func("/sacc/monitor/garbage", test_monitor_garbage);

    return g_test_run();
}

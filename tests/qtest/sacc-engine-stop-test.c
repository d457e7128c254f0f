/* SPDX-License-Identifier: MIT */
/*
 * QTest of stopping a busy SACC engine: CTRL.RESET, clearing
 * CTRL.ENABLE, a channel's reset, FLR, bus mastering off and hot-unplug,
 * in the middle of long rings and of big copies held in flight by
 * x-copy-delay-us, with the engine thread and with the bottom half.
 * Once a stop returned, nothing more lands and nothing more completes;
 * after it the device works.
 */

#include "sacc-qtest.h"

/* Put the device into a thoroughly non-power-on state. */
static void make_dirty(Sacc *t)
{
    Chan *ch0 = &t->ch0;

    chan_setup(t, ch0, 0, 0, 8, 8);
    wr(t, SACC_REG_SCRATCH, 0x5a5a5a5a);
    chan_submit(ch0, SACC_OP_MEMCPY, UNMAPPED, UNMAPPED, 8, SACC_DESC_F_IRQ,
                9);
    chan_ring(ch0);
    chan_expect(ch0, 9, SACC_STS_DMA_FAULT, 0);
    g_assert_cmpuint(rd(t, SACC_REG_FAULT_COUNT), ==, 1);
    g_assert_cmpuint(rd(t, SACC_REG_IRQ_STATUS), ==, SACC_IRQ_COMPLETION);
}

static void test_reset(void)
{
    Sacc t;
    Chan *ch0 = &t.ch0;
    uint64_t buf, snap;
    g_autofree uint8_t *before = NULL;
    g_autofree uint8_t *after = NULL;
    uint8_t exp, msix;
    int i;

    sacc_start(&t);
    make_dirty(&t);
    wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET | SACC_CTRL_ENABLE);
    check_power_on(&t);

    /* RESET in the middle of a long batch: no DMA after it returns */
    chan_setup(&t, ch0, 0, 0, 64, 64);
    buf = guest_alloc(&t.qs->alloc, 2 * SACC_MAX_XFER);
    for (i = 0; i < 63; i++) {
        chan_submit(ch0, SACC_OP_MEMCPY, buf, buf + SACC_MAX_XFER,
                    SACC_MAX_XFER, 0, i);
    }
    chan_ring(ch0);
    wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);
    check_power_on(&t);
    snap = 64 * sizeof(struct sacc_cqe);
    before = g_malloc(snap);
    after = g_malloc(snap);
    qtest_memread(t.qts, ch0->cq, before, snap);
    g_usleep(G_USEC_PER_SEC / 5);
    qtest_memread(t.qts, ch0->cq, after, snap);
    g_assert_cmpmem(before, snap, after, snap);

    /* FLR: registers and MSI-X state back to power-on */
    qpci_msix_enable(t.dev);
    make_dirty(&t);
    exp = qpci_find_capability(t.dev, PCI_CAP_ID_EXP, 0);
    sacc_flr(&t, exp);
    g_assert_cmphex(qpci_config_readw(t.dev, exp + PCI_EXP_DEVCTL) &
                    PCI_EXP_DEVCTL_BCR_FLR, ==, 0);
    msix = qpci_find_capability(t.dev, PCI_CAP_ID_MSIX, 0);
    g_assert_cmphex(qpci_config_readw(t.dev, msix + PCI_MSIX_FLAGS) &
                    PCI_MSIX_FLAGS_ENABLE, ==, 0);
    /* FLR cleared the BARs and the command register: map again */
    qpci_device_enable(t.dev);
    t.bar0 = qpci_iomap(t.dev, SACC_BAR_REGS, NULL);
    check_power_on(&t);
    sacc_stop(&t);
}

#define STRESS_ROUNDS 48
#define STRESS_DESCS  63 /* a full 64-entry SQ */
#define STRESS_LEN    SACC_MAX_XFER /* the engine takes a while */

/*
 * The completions of stress round @round in the CQ snapshot @cq: a
 * prefix of the round's descriptors, in order and all OK, and nothing
 * after it.  Returns the prefix's length.
 */
static uint32_t stress_check_cq(const struct sacc_cqe *cq, uint32_t round)
{
    uint32_t i, done = 0;

    for (i = 0; i < STRESS_DESCS; i++) {
        if (!(le16_to_cpu(cq[i].phase) & SACC_CQE_PHASE)) {
            break;
        }
        g_assert_cmphex(le32_to_cpu(cq[i].req_id), ==, round << 8 | i);
        g_assert_cmpuint(le16_to_cpu(cq[i].status), ==, SACC_STS_OK);
        done++;
    }
    for (; i < STRESS_DESCS; i++) {
        g_assert_cmpuint(le16_to_cpu(cq[i].phase), ==, 0);
    }
    return done;
}

/*
 * Each descriptor's destination (at @dst, one per descriptor) starts
 * with STRESS_HEAD zero bytes again: all stress_check_dst() reads.
 * Zeroing all 63 MiB every round cost about a second a round (qtest's
 * memset fills a buffer of that size in QEMU first), most of the test;
 * it is done once, before the first round, so that the engine's copies
 * find their destinations' host pages there in every round.
 */
#define STRESS_HEAD 16
static void stress_clear_dst(Sacc *t, uint64_t dst)
{
    uint32_t i;

    for (i = 0; i < STRESS_DESCS; i++) {
        qtest_memset(t->qts, dst + (uint64_t)i * STRESS_LEN, 0, STRESS_HEAD);
    }
}

/*
 * Channel @c's ring: STRESS_DESCS copies of @src, one destination each
 * from @dst on, req_id @round << 8 | index, written in bulk.
 */
static void stress_fill_ring(Chan *c, uint64_t src, uint64_t dst,
                             uint32_t round)
{
    struct sacc_desc d[STRESS_DESCS];
    uint32_t i;

    for (i = 0; i < STRESS_DESCS; i++) {
        d[i] = (struct sacc_desc) {
            .src = cpu_to_le64(src),
            .dst = cpu_to_le64(dst + (uint64_t)i * STRESS_LEN),
            .length = cpu_to_le32(STRESS_LEN),
            .opcode = cpu_to_le16(SACC_OP_MEMCPY),
            .req_id = cpu_to_le32(round << 8 | i),
        };
    }
    chan_submit_many(c, d, STRESS_DESCS);
}

/*
 * After a stop: descriptors past the one in flight (@done + 1 on) never
 * started, so their destinations (at @dst, one per descriptor) still
 * start with the zeroes stress_clear_dst() put there.
 */
static void stress_check_dst(Sacc *t, uint64_t dst, uint32_t done)
{
    uint64_t head[STRESS_HEAD / 8];
    uint32_t i;

    for (i = done + 1; i < STRESS_DESCS; i++) {
        qtest_memread(t->qts, dst + (uint64_t)i * STRESS_LEN, head,
                      sizeof(head));
        g_assert_cmphex(head[0] | head[1], ==, 0);
    }
}

/*
 * While the engine works through two full rings of 1 MiB copies
 * (channel 0 through BAR0, channel 1 through its BAR2 block), stop it
 * every way there is: CTRL.RESET, clearing CTRL.ENABLE, a channel's
 * CTRL.RESET and FLR, after a varying number of qtest commands.  After
 * each stop the completions are a valid prefix, and after a while
 * neither CQ has changed and no later descriptor has started (no DMA
 * after the stop returned); at the end the device still works.  Runs
 * with the engine thread (the default) and without it (the bottom half).
 *
 * The case it exists for is a stop that meets a ring part way done
 * (some completions, not all): every kind of stop must meet one, in up
 * to STRESS_ROUNDS_MAX rounds, or the test fails.
 */
#define STRESS_KINDS      4
#define STRESS_ROUNDS_MAX (4 * STRESS_ROUNDS)
static void test_engine_stress(gconstpointer props)
{
    const size_t cq_bytes = 64 * sizeof(struct sacc_cqe);
    const size_t dst_bytes = STRESS_DESCS * STRESS_LEN;
    g_autofree struct sacc_cqe *cq0 = g_malloc(cq_bytes);
    g_autofree struct sacc_cqe *cq1 = g_malloc(cq_bytes);
    g_autofree struct sacc_cqe *again = g_malloc(cq_bytes);
    uint64_t src, dst0, dst1, seed = 0x5acc5eed;
    uint32_t round, k, d0, d1, stopped = 0, completed = 0;
    uint32_t met[STRESS_KINDS] = { 0 }, unmet = STRESS_KINDS;
    uint8_t exp;
    Sacc t;
    Chan *ch0 = &t.ch0;
    Chan c;

    sacc_start_props(&t, props);
    exp = qpci_find_capability(t.dev, PCI_CAP_ID_EXP, 0);
    src = guest_alloc(&t.qs->alloc, STRESS_LEN);
    dst0 = guest_alloc(&t.qs->alloc, dst_bytes);
    dst1 = guest_alloc(&t.qs->alloc, dst_bytes);
    qtest_memset(t.qts, src, 0xa5, STRESS_LEN);
    qtest_memset(t.qts, dst0, 0, dst_bytes);
    qtest_memset(t.qts, dst1, 0, dst_bytes);

    for (round = 0; round < STRESS_ROUNDS ||
                    (unmet && round < STRESS_ROUNDS_MAX); round++) {
        stress_clear_dst(&t, dst0);
        stress_clear_dst(&t, dst1);
        chan_setup(&t, ch0, 0, 0, 64, 64);
        chan_setup(&t, &c, 1, 0, 64, 64);
        stress_fill_ring(ch0, src, dst0, round);
        stress_fill_ring(&c, src, dst1, round);
        chan_ring(ch0);
        chan_ring(&c);
        /* let the engine run beside us for a few commands */
        for (k = rnd(&seed) % 16; k > 0; k--) {
            rd(&t, SACC_REG_STATUS);
        }

        switch (round % STRESS_KINDS) {
        case 0:
            wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);
            check_power_on(&t);
            break;
        case 1:
            wr(&t, SACC_REG_CTRL, 0);
            cwr(&c, SACC_REG_CTRL, 0);
            g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, 0);
            g_assert_cmphex(crd(&c, SACC_REG_STATUS), ==, 0);
            break;
        case 2:
            /* channel 1's own reset, and channel 0 disabled */
            cwr(&c, SACC_REG_CTRL, SACC_CTRL_RESET);
            wr(&t, SACC_REG_CTRL, 0);
            g_assert_cmphex(crd(&c, SACC_REG_STATUS), ==, 0);
            g_assert_cmphex(crd(&c, SACC_REG_SQ_SIZE), ==, 0);
            break;
        default:
            sacc_flr(&t, exp);
            sacc_remap(&t);
            check_power_on(&t);
            break;
        }

        /* Stopped: what landed is a valid prefix, and nothing moves. */
        qtest_memread(t.qts, ch0->cq, cq0, cq_bytes);
        qtest_memread(t.qts, c.cq, cq1, cq_bytes);
        d0 = stress_check_cq(cq0, round);
        d1 = stress_check_cq(cq1, round);
        g_usleep(G_USEC_PER_SEC / 50);
        qtest_memread(t.qts, ch0->cq, again, cq_bytes);
        g_assert_cmpmem(cq0, cq_bytes, again, cq_bytes);
        qtest_memread(t.qts, c.cq, again, cq_bytes);
        g_assert_cmpmem(cq1, cq_bytes, again, cq_bytes);
        stress_check_dst(&t, dst0, d0);
        stress_check_dst(&t, dst1, d1);
        completed += d0 + d1;
        k = (d0 > 0 && d0 < STRESS_DESCS) + (d1 > 0 && d1 < STRESS_DESCS);
        stopped += k;
        if (k && !met[round % STRESS_KINDS]++) {
            unmet--;
        }
        wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);
    }
    g_test_message("%u rounds: %u of %u rings stopped part way (by kind: "
                   "reset %u, disable %u, channel reset %u, FLR %u), "
                   "%u completions", round, stopped, 2 * round, met[0],
                   met[1], met[2], met[3], completed);
    for (k = 0; k < STRESS_KINDS; k++) {
        g_assert_cmpuint(met[k], >, 0); /* else it never met its case */
    }

    /* still usable */
    chan_setup(&t, ch0, 0, 0, 8, 8);
    chan_submit(ch0, SACC_OP_NOP, 0, 0, 0, 0, 7);
    chan_ring(ch0);
    chan_expect(ch0, 7, SACC_STS_OK, 0);
    sacc_stop(&t);
}

/*
 * A copy of 64 KiB or more runs without the BQL (the engine thread's
 * direct path), here slowed to 200 ms by x-copy-delay-us.  Whatever stops
 * the device in the middle of one (CTRL.RESET, clearing CTRL.ENABLE, a
 * channel's reset, FLR, bus mastering off) returns only after it: once
 * the stop returned, no byte of it lands.  The destination is cleared
 * right after the stop and must stay clear.  Each stop comes once the
 * device says the copy is held (x-copies-held), so each meets one.
 */
#define QUIESCE_LEN (64 * 1024)

static void test_engine_copy_quiesce(void)
{
    g_autofree uint8_t *buf = g_malloc(QUIESCE_LEN);
    uint64_t src, dst;
    uint32_t kind, waited = 0, i;
    uint16_t cmd;
    uint8_t exp;
    Sacc t;
    Chan *ch0 = &t.ch0;
    Chan c;

    sacc_start_props(&t, ",x-copy-delay-us=200000");
    exp = qpci_find_capability(t.dev, PCI_CAP_ID_EXP, 0);
    src = guest_alloc(&t.qs->alloc, QUIESCE_LEN);
    dst = guest_alloc(&t.qs->alloc, QUIESCE_LEN);
    qtest_memset(t.qts, src, 0xa5, QUIESCE_LEN);

    for (kind = 0; kind < 5; kind++) {
        qtest_memset(t.qts, dst, 0, QUIESCE_LEN);
        if (kind == 2) {
            chan_setup(&t, &c, 1, 0, 8, 8);
            chan_submit(&c, SACC_OP_MEMCPY, src, dst, QUIESCE_LEN, 0, 1);
            chan_ring(&c);
        } else {
            chan_setup(&t, ch0, 0, 0, 8, 8);
            chan_submit(ch0, SACC_OP_MEMCPY, src, dst, QUIESCE_LEN, 0, 1);
            chan_ring(ch0);
        }
        /*
         * The copy is held in its delay, which only a copy without the
         * BQL has: nothing of it has landed yet.
         */
        wait_copies_held(t.qts, "sacc0", kind + 1);
        qtest_memread(t.qts, dst, buf, QUIESCE_LEN);
        for (i = 0; i < QUIESCE_LEN; i++) {
            g_assert_cmphex(buf[i], ==, 0);
        }

        switch (kind) {
        case 0:
            wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);
            break;
        case 1:
            wr(&t, SACC_REG_CTRL, 0);
            break;
        case 2:
            cwr(&c, SACC_REG_CTRL, SACC_CTRL_RESET);
            break;
        case 3:
            sacc_flr(&t, exp);
            break;
        default:
            cmd = qpci_config_readw(t.dev, PCI_COMMAND);
            qpci_config_writew(t.dev, PCI_COMMAND,
                               cmd & ~PCI_COMMAND_MASTER);
            break;
        }
        /* The stop returned after the held copy had landed, whole */
        qtest_memread(t.qts, dst, buf, QUIESCE_LEN);
        waited += buf[0] == 0xa5;
        for (i = 0; i < QUIESCE_LEN; i++) {
            g_assert_cmphex(buf[i], ==, 0xa5);
        }
        /* ...and nothing of it lands after. */
        qtest_memset(t.qts, dst, 0, QUIESCE_LEN);
        g_usleep(G_USEC_PER_SEC / 2);
        qtest_memread(t.qts, dst, buf, QUIESCE_LEN);
        for (i = 0; i < QUIESCE_LEN; i++) {
            g_assert_cmphex(buf[i], ==, 0);
        }
        if (kind >= 3) { /* FLR and bus mastering off: enable again */
            sacc_remap(&t);
        }
        wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);
    }
    g_test_message("%u of 5 stops waited for a copy", waited);
    g_assert_cmpuint(waited, ==, 5);
    sacc_stop(&t);
}

/*
 * A NOP behind another channel's big copy waits for a piece of it, not
 * the whole (SaccCursor, spec section 11).  Channel 1's 1 MiB copy is
 * held in its delay; channel 2 then copies channel 1's CQ and the end of
 * its destination: that snapshot, taken by the device, must show channel
 * 1's copy part way (no completion, the last page not written).  Then
 * channel 1 is reset while its copy is part way (channel 2's own big
 * copy holds the engine meanwhile): nothing of channel 1 lands after the
 * reset returns.
 */
#define INTERLEAVE_LEN (1024 * 1024)

static void test_engine_copy_interleave(void)
{
    g_autofree uint8_t *buf = g_malloc(INTERLEAVE_LEN);
    uint64_t src, dst, src2, dst2, snap;
    struct sacc_cqe cq[4];
    Chan a, b;
    Sacc t;
    uint32_t i;

    sacc_start_props(&t, ",x-copy-delay-us=200000");
    chan_setup(&t, &a, 1, 0, 8, 8);
    chan_setup(&t, &b, 2, 0, 8, 8);
    src = guest_alloc(&t.qs->alloc, INTERLEAVE_LEN);
    dst = guest_alloc(&t.qs->alloc, INTERLEAVE_LEN);
    src2 = guest_alloc(&t.qs->alloc, 256 * 1024);
    dst2 = guest_alloc(&t.qs->alloc, 256 * 1024);
    snap = guest_alloc(&t.qs->alloc, 4096);
    qtest_memset(t.qts, src, 0xa5, INTERLEAVE_LEN);
    qtest_memset(t.qts, dst, 0, INTERLEAVE_LEN);

    chan_submit(&a, SACC_OP_MEMCPY, src, dst, INTERLEAVE_LEN, 0, 1);
    chan_ring(&a);
    wait_copies_held(t.qts, "sacc0", 1);
    chan_submit(&b, SACC_OP_MEMCPY, a.cq, snap, sizeof(cq), 0, 2);
    chan_submit(&b, SACC_OP_MEMCPY, dst + INTERLEAVE_LEN - 4096,
                snap + 1024, 1024, 0, 3);
    chan_ring(&b);
    chan_expect(&b, 2, SACC_STS_OK, sizeof(cq));
    chan_expect(&b, 3, SACC_STS_OK, 1024);
    qtest_memread(t.qts, snap, cq, sizeof(cq));
    g_assert_cmpuint(cq_valid(cq, 4), ==, 0);
    qtest_memread(t.qts, snap + 1024, buf, 1024);
    for (i = 0; i < 1024; i++) {
        g_assert_cmphex(buf[i], ==, 0);
    }
    chan_expect(&a, 1, SACC_STS_OK, INTERLEAVE_LEN);
    qtest_memread(t.qts, dst, buf, INTERLEAVE_LEN);
    for (i = 0; i < INTERLEAVE_LEN; i++) {
        g_assert_cmphex(buf[i], ==, 0xa5);
    }

    /* Reset channel 1 while its copy is part way. */
    qtest_memset(t.qts, dst, 0, INTERLEAVE_LEN);
    chan_submit(&a, SACC_OP_MEMCPY, src, dst, INTERLEAVE_LEN, 0, 4);
    chan_ring(&a);
    wait_copies_held(t.qts, "sacc0", 2);
    chan_submit(&b, SACC_OP_MEMCPY, src2, dst2, 256 * 1024, 0, 5);
    chan_ring(&b);
    wait_copies_held(t.qts, "sacc0", 3); /* channel 1 is part way now */
    cwr(&a, SACC_REG_CTRL, SACC_CTRL_RESET);
    qtest_memread(t.qts, dst, buf, INTERLEAVE_LEN);
    g_assert_cmphex(buf[0], ==, 0xa5);                  /* a piece moved */
    g_assert_cmphex(buf[INTERLEAVE_LEN - 1], ==, 0);    /* not the rest */
    qtest_memset(t.qts, dst, 0, INTERLEAVE_LEN);
    chan_expect(&b, 5, SACC_STS_OK, 256 * 1024);
    g_usleep(G_USEC_PER_SEC / 10);
    qtest_memread(t.qts, dst, buf, INTERLEAVE_LEN);
    for (i = 0; i < INTERLEAVE_LEN; i++) {
        g_assert_cmphex(buf[i], ==, 0);
    }
    sacc_stop(&t);
}

/*
 * Hot-unplug while the engine has a long ring to work through: the
 * engine thread must stop cleanly, whatever it was doing, and QEMU must
 * go on.  q35 with native PCIe hotplug on a root port (bus 1), whose
 * windows the test programs itself; qtest plays the guest's part of the
 * unplug by powering the slot off after device_del.  Round 0 unplugs
 * at once; round r unplugs once the device holds its r-th copy (each
 * held UNPLUG_DELAY_US, with the engine thread), so the unplug meets
 * the ring part way, which the CQ shows after it.
 */
#define UNPLUG_DELAY_US 20000
#define HP_PORT   QPCI_DEVFN(5, 0)
#define HP_DEVFN  (1 << 8) /* bus 1, device 0: libqos puts devfn << 8 */

static void test_engine_unplug(gconstpointer thread)
{
    QPCIDevice *port;
    uint64_t buf;
    uint8_t exp;
    uint16_t sltctl;
    struct sacc_cqe cqe;
    Sacc t;
    Chan *ch0 = &t.ch0;
    int round, i, done;

    memset(&t, 0, sizeof(t));
    t.qs = qtest_pc_boot("-M q35 -m 256M -nodefaults "
                         "-global ICH9-LPC.acpi-pci-hotplug-with-bridge-"
                         "support=off -device pcie-root-port,id=rp1,"
                         "addr=05.0,chassis=1,slot=1");
    t.qts = t.qs->qts;
    port = qpci_device_find(t.qs->pcibus, HP_PORT);
    g_assert(port);
    qpci_device_enable(port);
    qpci_config_writeb(port, PCI_SECONDARY_BUS, 1);
    qpci_config_writeb(port, PCI_SUBORDINATE_BUS, 1);
    /* the window libqos allocates BARs from on q35/pc */
    qpci_config_writew(port, PCI_MEMORY_BASE, 0xe000);
    qpci_config_writew(port, PCI_MEMORY_LIMIT, 0xfff0);
    exp = qpci_find_capability(port, PCI_CAP_ID_EXP, 0);
    sltctl = qpci_config_readw(port, exp + PCI_EXP_SLTCTL);
    buf = guest_alloc(&t.qs->alloc, 2 * SACC_MAX_XFER);

    for (round = 0; round < 4; round++) {
        qtest_qmp_device_add(t.qts, "sacc", "hp",
                             "{'bus': 'rp1', 'x-engine-thread': %i, "
                             "'x-copy-delay-us': %d}", thread != NULL,
                             UNPLUG_DELAY_US);
        /* an empty slot is powered off: power it on, as pciehp would */
        qpci_config_writew(port, exp + PCI_EXP_SLTCTL,
                           (sltctl & ~(PCI_EXP_SLTCTL_PIC |
                                       PCI_EXP_SLTCTL_PCC)) |
                           PCI_EXP_SLTCTL_PWR_IND_ON | PCI_EXP_SLTCTL_PWR_ON);
        t.dev = qpci_device_find(t.qs->pcibus, HP_DEVFN);
        g_assert(t.dev);
        qpci_device_enable(t.dev);
        t.bar0 = qpci_iomap(t.dev, SACC_BAR_REGS, NULL);
        chan_setup(&t, ch0, 0, 0, 64, 64);
        chan_submit(ch0, SACC_OP_NOP, 0, 0, 0, 0, 1);
        chan_ring(ch0);
        chan_expect(ch0, 1, SACC_STS_OK, 0);
        chan_ack(ch0);
        for (i = 0; i < 62; i++) {
            chan_submit(ch0, SACC_OP_MEMCPY, buf, buf + SACC_MAX_XFER,
                        SACC_MAX_XFER, 0, i);
        }
        chan_ring(ch0);
        if (thread && round > 0) { /* the bottom half holds no copy */
            wait_copies_held(t.qts, "hp", round);
        }
        qtest_qmp_device_del_send(t.qts, "hp");
        qpci_config_writew(port, exp + PCI_EXP_SLTCTL,
                           (sltctl & ~PCI_EXP_SLTCTL_PIC) |
                           PCI_EXP_SLTCTL_PWR_IND_OFF |
                           PCI_EXP_SLTCTL_PWR_OFF);
        /*
         * The slot's power-off unplugged (unrealized) it synchronously:
         * the engine has stopped.  (DEVICE_DELETED comes only when the
         * last reference goes, after an RCU grace period; not waited.)
         */
        g_assert_cmphex(qpci_config_readw(t.dev, PCI_VENDOR_ID), ==, 0xffff);
        /* ...part way through its ring: not every copy completed */
        for (done = 0; done < 62; done++) {
            qtest_memread(t.qts, ch0->cq + (done + 1) * sizeof(cqe), &cqe,
                          sizeof(cqe));
            if (!(le16_to_cpu(cqe.phase) & SACC_CQE_PHASE)) {
                break;
            }
        }
        g_test_message("round %d: unplugged after %d of 62 copies", round,
                       done);
        if (thread && round > 0) {
            g_assert_cmpint(done, <, 62);
        }
        g_free(t.dev);
        t.dev = NULL;
    }
    g_free(qtest_qmp(t.qts, "{'execute': 'query-status'}"));
    g_free(port);
    qtest_shutdown(t.qs);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/sacc/engine/reset", test_reset);
    qtest_add_data_func("/sacc/engine/stress", "", test_engine_stress);
    qtest_add_data_func("/sacc/engine/stress-bh", ",x-engine-thread=off",
                        test_engine_stress);
    qtest_add_func("/sacc/engine/copy-quiesce", test_engine_copy_quiesce);
    qtest_add_func("/sacc/engine/copy-interleave",
                   test_engine_copy_interleave);
    qtest_add_data_func("/sacc/engine/unplug", "on", test_engine_unplug);
    qtest_add_data_func("/sacc/engine/unplug-bh", NULL, test_engine_unplug);

    return g_test_run();
}

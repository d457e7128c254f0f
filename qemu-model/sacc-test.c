/* SPDX-License-Identifier: MIT */
/*
 * QTest for the SACC device model (qemu-model/sacc.c).
 *
 * Drives the device on q35 without an IOMMU: identity, register
 * semantics, enable validation, doorbell errors, NOP/MEMCPY/XFORM round
 * trips, phase over ring laps, CQ-full stall, DMA and ring faults,
 * MSI-X, CTRL.RESET, FLR and a garbage-writing robustness run: the v0.2
 * cases, all on channel 0 through BAR0 page 0.  The /sacc/v3/ cases
 * drive v0.3's channels through their BAR2 blocks: registers, channel 0
 * for a v0.2 driver next to v0.3 channels, isolation, fairness, token
 * doorbells, inline data, timestamps, engine time, per-channel MSI-X
 * and garbage.
 *
 * The device works asynchronously (its engine thread, or a bottom half
 * with x-engine-thread=off), so every wait for a completion polls guest
 * memory through qtest commands (each lets the main loop run) with a
 * deadline; no wait is unbounded.  The /sacc/engine/ cases stop a busy
 * engine by every reset, disable and hot-unplug, in both modes.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/pci-pc.h"
#include "hw/pci/pci_regs.h"
#include "qapi/qmp/qdict.h"
#include "hw/misc/sacc_hw.h"

#define SACC_DEVFN QPCI_DEVFN(4, 0)
#define RAM_SIZE   (256 * 1024 * 1024ull)
/* Nothing is mapped here: a DMA target that always faults. */
#define UNMAPPED 0x4000000000ull
#define WAIT_US  (10 * G_USEC_PER_SEC)

typedef struct Sacc Sacc;

/*
 * One channel and its rings.  Channel 0 is reached two ways: Sacc.ch0 is
 * it through BAR0 page 0 (the v0.2 path, where MODE and PUT_ADDR do not
 * exist); any other Chan, one with id 0 included, is a channel through
 * its BAR2 block.  chan_page0() tells them apart by address, so a copy of
 * Sacc.ch0 would be block 0.
 */
typedef struct {
    Sacc *t;
    uint32_t id;
    uint32_t mode;
    uint64_t sq, cq, put;
    uint32_t sq_n, cq_n;
    uint32_t sq_tail, cq_head;
    uint16_t phase;
    uint64_t dev_pa; /* MODE.SQ_DEV: BAR4's address; sq, put are offsets */
} Chan;

struct Sacc {
    QOSState *qs;
    QTestState *qts;
    QPCIDevice *dev;
    QPCIBar bar0;
    QPCIBar bar2;
    QPCIBar bar4; /* device memory (v0.4), once sacc_map_devmem() */
    Chan ch0; /* channel 0 through BAR0 page 0 */
};

/* Boot with "-device sacc,id=sacc0,addr=04.0@props", map BAR0 and BAR2. */
static void sacc_start_props(Sacc *t, const char *props)
{
    uint64_t size;

    memset(t, 0, sizeof(*t));
    t->ch0.t = t;
    t->qs = qtest_pc_boot("-M q35 -m 256M -nodefaults "
                          "-device sacc,id=sacc0,addr=04.0%s", props);
    t->qts = t->qs->qts;
    t->dev = qpci_device_find(t->qs->pcibus, SACC_DEVFN);
    g_assert(t->dev);
    qpci_device_enable(t->dev);
    t->bar0 = qpci_iomap(t->dev, SACC_BAR_REGS, &size);
    g_assert_cmpuint(size, ==, SACC_BAR0_SIZE);
    t->bar2 = qpci_iomap(t->dev, SACC_BAR_CHAN, &size);
    g_assert_cmpuint(size, ==, SACC_BAR2_SIZE);
}

static void sacc_start(Sacc *t)
{
    sacc_start_props(t, "");
}

static void sacc_stop(Sacc *t)
{
    g_free(t->dev);
    qtest_shutdown(t->qs);
}

static uint32_t rd(Sacc *t, uint64_t off)
{
    return qpci_io_readl(t->dev, t->bar0, off);
}

static void wr(Sacc *t, uint64_t off, uint32_t val)
{
    qpci_io_writel(t->dev, t->bar0, off, val);
}

static bool chan_page0(Chan *c)
{
    return c == &c->t->ch0;
}

/* Where channel register @off is: page 0 for Sacc.ch0, else the block. */
static QPCIBar chan_bar(Chan *c)
{
    return chan_page0(c) ? c->t->bar0 : c->t->bar2;
}

static uint64_t chan_reg(Chan *c, uint32_t off)
{
    return chan_page0(c) ? off : SACC_CHAN_BLOCK(c->id) + off;
}

static uint32_t crd(Chan *c, uint32_t off)
{
    return qpci_io_readl(c->t->dev, chan_bar(c), chan_reg(c, off));
}

static uint64_t crd64(Chan *c, uint32_t off)
{
    return qpci_io_readq(c->t->dev, chan_bar(c), chan_reg(c, off));
}

static void cwr(Chan *c, uint32_t off, uint32_t val)
{
    qpci_io_writel(c->t->dev, chan_bar(c), chan_reg(c, off), val);
}

static void cwr64(Chan *c, uint32_t off, uint64_t val)
{
    cwr(c, off, val);
    cwr(c, off + 4, val >> 32);
}

/*
 * Allocate (and zero) channel @id's rings and, in a block, its PUT word;
 * no registers.  For Sacc.ch0, @id and @mode are 0.
 */
static void chan_init(Sacc *t, Chan *c, uint32_t id, uint32_t mode,
                      uint32_t sq_n, uint32_t cq_n)
{
    memset(c, 0, sizeof(*c));
    c->t = t;
    c->id = id;
    c->mode = mode;
    g_assert(!chan_page0(c) || (id == 0 && mode == 0));
    c->sq_n = sq_n;
    c->cq_n = cq_n;
    c->sq = guest_alloc(&t->qs->alloc, sq_n * sizeof(struct sacc_desc));
    c->cq = guest_alloc(&t->qs->alloc, cq_n * sizeof(struct sacc_cqe));
    qtest_memset(t->qts, c->sq, 0, sq_n * sizeof(struct sacc_desc));
    qtest_memset(t->qts, c->cq, 0, cq_n * sizeof(struct sacc_cqe));
    if (!chan_page0(c)) {
        c->put = guest_alloc(&t->qs->alloc, 8);
        qtest_memset(t->qts, c->put, 0, 8);
    }
    c->phase = 1;
}

/* Program the ring registers (no validation here) and set ENABLE. */
static void ring_enable(Chan *c, uint64_t sq, uint32_t sq_n, uint64_t cq,
                        uint32_t cq_n)
{
    cwr64(c, SACC_REG_SQ_BASE, sq);
    cwr(c, SACC_REG_SQ_SIZE, sq_n);
    cwr64(c, SACC_REG_CQ_BASE, cq);
    cwr(c, SACC_REG_CQ_SIZE, cq_n);
    cwr(c, SACC_REG_CTRL, SACC_CTRL_ENABLE);
}

/* Program the rings from *c, in a block MODE and PUT_ADDR first; ENABLE. */
static void chan_enable(Chan *c)
{
    if (!chan_page0(c)) {
        cwr(c, SACC_REG_MODE, c->mode);
        cwr64(c, SACC_REG_PUT_ADDR, c->put);
    }
    ring_enable(c, c->sq, c->sq_n, c->cq, c->cq_n);
}

/* chan_init() and chan_enable(); the channel must go READY. */
static void chan_setup(Sacc *t, Chan *c, uint32_t id, uint32_t mode,
                       uint32_t sq_n, uint32_t cq_n)
{
    chan_init(t, c, id, mode, sq_n, cq_n);
    chan_enable(c);
    g_assert_cmphex(crd(c, SACC_REG_STATUS), ==, SACC_STATUS_READY);
}

/* Write one slot at the SQ tail (the doorbell is rung separately). */
static void chan_put_slot(Chan *c, const void *slot)
{
    qtest_memwrite(c->t->qts,
                   c->dev_pa + c->sq + c->sq_tail * sizeof(struct sacc_desc),
                   slot, sizeof(struct sacc_desc));
    c->sq_tail = (c->sq_tail + 1) % c->sq_n;
}

static void chan_submit(Chan *c, uint16_t op, uint64_t src, uint64_t dst,
                        uint32_t len, uint16_t flags, uint32_t req_id)
{
    struct sacc_desc d = {
        .src = cpu_to_le64(src),
        .dst = cpu_to_le64(dst),
        .length = cpu_to_le32(len),
        .opcode = cpu_to_le16(op),
        .flags = cpu_to_le16(flags),
        .req_id = cpu_to_le32(req_id),
    };

    chan_put_slot(c, &d);
}

/*
 * A WRITE_INLINE descriptor saying @len, followed by @slots payload
 * slots holding @data (the rest of the last slot is junk the device must
 * ignore).  A driver following the spec passes SACC_INLINE_SLOTS(len).
 */
static void chan_inline(Chan *c, uint64_t dst, uint32_t len,
                        const uint8_t *data, uint32_t slots, uint32_t req_id)
{
    uint8_t slot[sizeof(struct sacc_desc)];
    uint32_t i, n;

    chan_submit(c, SACC_OP_WRITE_INLINE, 0, dst, len, 0, req_id);
    for (i = 0; i < slots; i++) {
        memset(slot, 0xee, sizeof(slot));
        n = i * sizeof(slot) < len ? MIN(len - i * sizeof(slot), sizeof(slot))
                                   : 0;
        if (data && n) {
            memcpy(slot, data + i * sizeof(slot), n);
        }
        chan_put_slot(c, slot);
    }
}

/*
 * The channel's doorbell: the tail (channel 0's is v0.2's doorbell), or
 * the PUT word and the token.
 */
static void chan_ring(Chan *c)
{
    if (c->mode & SACC_MODE_TOKEN) {
        qtest_writel(c->t->qts, c->dev_pa + c->put, c->sq_tail);
        wr(c->t, SACC_DOORBELL_TOKEN, c->id);
    } else {
        wr(c->t, SACC_DOORBELL(c->id), c->sq_tail);
    }
}

/*
 * Bounded poll for the completion at cq_head; consumes it on success,
 * moving cq_head and phase.
 */
static bool chan_wait_cqe(Chan *c, struct sacc_cqe *cqe, gint64 timeout_us)
{
    uint64_t addr = c->cq + c->cq_head * sizeof(*cqe);
    gint64 deadline = g_get_monotonic_time() + timeout_us;

    do {
        qtest_memread(c->t->qts, addr, cqe, sizeof(*cqe));
        if ((le16_to_cpu(cqe->phase) & SACC_CQE_PHASE) == c->phase) {
            cqe->req_id = le32_to_cpu(cqe->req_id);
            cqe->result_len = le32_to_cpu(cqe->result_len);
            cqe->reserved = le32_to_cpu(cqe->reserved);
            cqe->status = le16_to_cpu(cqe->status);
            if (++c->cq_head == c->cq_n) {
                c->cq_head = 0;
                c->phase ^= 1;
            }
            return true;
        }
        g_usleep(100);
    } while (g_get_monotonic_time() < deadline);
    return false;
}

/*
 * The next completion must be this one; word 8 (v0.2's reserved) is 0
 * without MODE.V3.
 */
static struct sacc_cqe chan_expect(Chan *c, uint32_t req_id, uint16_t status,
                                   uint32_t result_len)
{
    struct sacc_cqe cqe;

    g_assert_true(chan_wait_cqe(c, &cqe, WAIT_US));
    g_assert_cmphex(cqe.req_id, ==, req_id);
    g_assert_cmpuint(cqe.status, ==, status);
    g_assert_cmpuint(cqe.result_len, ==, result_len);
    if (!(c->mode & SACC_MODE_V3)) {
        g_assert_cmpuint(cqe.engine_ns, ==, 0);
    }
    return cqe;
}

static void chan_ack(Chan *c)
{
    cwr(c, SACC_REG_CQ_HEAD, c->cq_head);
}

/* Bounded poll until register @off reads @want. */
static void chan_wait_reg(Chan *c, uint32_t off, uint32_t want)
{
    gint64 deadline = g_get_monotonic_time() + WAIT_US;

    while (crd(c, off) != want) {
        g_assert_cmpint(g_get_monotonic_time(), <, deadline);
        g_usleep(100);
    }
}

static void chan_expect_fault(Chan *c, uint64_t addr, uint32_t info,
                              uint32_t req_id, uint32_t count)
{
    g_assert_cmphex(crd64(c, SACC_REG_FAULT_ADDR), ==, addr);
    g_assert_cmphex(crd(c, SACC_REG_FAULT_INFO), ==, info);
    g_assert_cmphex(crd(c, SACC_REG_FAULT_REQ_ID), ==, req_id);
    g_assert_cmpuint(crd(c, SACC_REG_FAULT_COUNT), ==, count);
}

static void check_power_on(Sacc *t)
{
    static const uint32_t zero_regs[] = {
        SACC_REG_CTRL, SACC_REG_STATUS, SACC_REG_SQ_BASE,
        SACC_REG_SQ_BASE + 4, SACC_REG_SQ_SIZE, SACC_REG_CQ_BASE,
        SACC_REG_CQ_BASE + 4, SACC_REG_CQ_SIZE, SACC_REG_CQ_HEAD,
        SACC_REG_IRQ_STATUS, SACC_REG_IRQ_ACK, SACC_REG_ERR_CODE,
        SACC_REG_SCRATCH, SACC_REG_FAULT_ADDR, SACC_REG_FAULT_ADDR + 4,
        SACC_REG_FAULT_INFO, SACC_REG_FAULT_REQ_ID,
        SACC_REG_FAULT_COUNT, SACC_DOORBELL_OFFSET,
    };
    size_t i;

    g_assert_cmphex(rd(t, SACC_REG_MAGIC), ==, SACC_MAGIC);
    g_assert_cmphex(rd(t, SACC_REG_VERSION), ==, SACC_VERSION);
    for (i = 0; i < ARRAY_SIZE(zero_regs); i++) {
        g_assert_cmphex(rd(t, zero_regs[i]), ==, 0);
    }
}

static void test_identity(void)
{
    Sacc t;
    uint8_t exp, msix;
    uint32_t tbl, pba;
    uint64_t size;
    QPCIBar bar1;

    sacc_start(&t);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_VENDOR_ID), ==,
                    SACC_PCI_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_DEVICE_ID), ==,
                    SACC_PCI_DEVICE_ID);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_SUBSYSTEM_VENDOR_ID), ==,
                    SACC_PCI_SUBSYS_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_SUBSYSTEM_ID), ==,
                    SACC_PCI_SUBSYS_ID);
    g_assert_cmphex(qpci_config_readb(t.dev, PCI_REVISION_ID), ==,
                    SACC_PCI_REVISION);
    g_assert_cmphex(qpci_config_readl(t.dev, PCI_CLASS_REVISION) >> 8, ==,
                    SACC_PCI_CLASS);
    g_assert_cmphex(qpci_config_readb(t.dev, PCI_INTERRUPT_PIN), ==, 0);

    /* PCIe capability version 2, FLR advertised */
    exp = qpci_find_capability(t.dev, PCI_CAP_ID_EXP, 0);
    g_assert_cmphex(exp, !=, 0);
    g_assert_cmphex(qpci_config_readw(t.dev, exp + PCI_EXP_FLAGS) &
                    PCI_EXP_FLAGS_VERS, ==, 2);
    g_assert_true(qpci_config_readl(t.dev, exp + PCI_EXP_DEVCAP) &
                  PCI_EXP_DEVCAP_FLR);

    /* MSI-X: 1 vector, table and PBA in BAR1 */
    msix = qpci_find_capability(t.dev, PCI_CAP_ID_MSIX, 0);
    g_assert_cmphex(msix, !=, 0);
    g_assert_cmpuint(qpci_msix_table_size(t.dev), ==, SACC_MSIX_VECTORS);
    tbl = qpci_config_readl(t.dev, msix + PCI_MSIX_TABLE);
    pba = qpci_config_readl(t.dev, msix + PCI_MSIX_PBA);
    g_assert_cmphex(tbl, ==, SACC_MSIX_TABLE_OFFSET | SACC_BAR_MSIX);
    g_assert_cmphex(pba, ==, SACC_MSIX_PBA_OFFSET | SACC_BAR_MSIX);
    bar1 = qpci_iomap(t.dev, SACC_BAR_MSIX, &size);
    g_assert_cmpuint(size, ==, SACC_BAR1_SIZE);
    (void)bar1;

    check_power_on(&t);
    sacc_stop(&t);
}

static void test_registers(void)
{
    static const uint32_t reserved[] = {
        0x44, 0x5c, 0x60, 0x100, 0x800, 0xffc,
        SACC_DOORBELL_OFFSET + 4, SACC_DOORBELL_OFFSET + 0x800,
        SACC_BAR0_SIZE - 4,
    };
    Sacc t;
    Chan *ch0 = &t.ch0;
    size_t i;

    sacc_start(&t);

    /* SCRATCH is RW */
    wr(&t, SACC_REG_SCRATCH, 0xdeadbeef);
    g_assert_cmphex(rd(&t, SACC_REG_SCRATCH), ==, 0xdeadbeef);
    wr(&t, SACC_REG_SCRATCH, 0x12345678);
    g_assert_cmphex(rd(&t, SACC_REG_SCRATCH), ==, 0x12345678);

    /* reserved space reads 0 and ignores writes */
    for (i = 0; i < ARRAY_SIZE(reserved); i++) {
        wr(&t, reserved[i], 0xffffffff);
        g_assert_cmphex(rd(&t, reserved[i]), ==, 0);
    }
    g_assert_cmphex(rd(&t, SACC_REG_SCRATCH), ==, 0x12345678);

    /* read-only registers ignore writes */
    wr(&t, SACC_REG_MAGIC, 0);
    wr(&t, SACC_REG_VERSION, 0);
    wr(&t, SACC_REG_STATUS, 0xffffffff);
    wr(&t, SACC_REG_ERR_CODE, 0xffffffff);
    wr(&t, SACC_REG_FAULT_COUNT, 0xffffffff);
    g_assert_cmphex(rd(&t, SACC_REG_MAGIC), ==, SACC_MAGIC);
    g_assert_cmphex(rd(&t, SACC_REG_VERSION), ==, SACC_VERSION);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, 0);
    g_assert_cmphex(rd(&t, SACC_REG_ERR_CODE), ==, 0);
    g_assert_cmphex(rd(&t, SACC_REG_FAULT_COUNT), ==, 0);

    /* CTRL.RESET reads back 0; stray CTRL bits are not stored */
    wr(&t, SACC_REG_CTRL, 0xfffffffc);
    g_assert_cmphex(rd(&t, SACC_REG_CTRL), ==, 0);

    /* 64-bit registers: LO/HI halves and one 64-bit access */
    cwr64(ch0, SACC_REG_SQ_BASE, 0x1122334455667780ull);
    g_assert_cmphex(rd(&t, SACC_REG_SQ_BASE), ==, 0x55667780);
    g_assert_cmphex(rd(&t, SACC_REG_SQ_BASE + 4), ==, 0x11223344);
    g_assert_cmphex(qpci_io_readq(t.dev, t.bar0, SACC_REG_SQ_BASE), ==,
                    0x1122334455667780ull);
    qpci_io_writeq(t.dev, t.bar0, SACC_REG_CQ_BASE, 0xa1b2c3d4e5f60710ull);
    g_assert_cmphex(rd(&t, SACC_REG_CQ_BASE), ==, 0xe5f60710);
    g_assert_cmphex(rd(&t, SACC_REG_CQ_BASE + 4), ==, 0xa1b2c3d4);
    g_assert_cmphex(qpci_io_readq(t.dev, t.bar0, SACC_REG_FAULT_ADDR), ==,
                    0);
    /* other sizes are ignored, and 8 bytes elsewhere too */
    qpci_io_writeq(t.dev, t.bar0, SACC_REG_SCRATCH, 0);
    qpci_io_writeb(t.dev, t.bar0, SACC_REG_SCRATCH, 0);
    qpci_io_writew(t.dev, t.bar0, SACC_REG_SCRATCH + 2, 0);
    g_assert_cmphex(rd(&t, SACC_REG_SCRATCH), ==, 0x12345678);
    g_assert_cmphex(qpci_io_readb(t.dev, t.bar0, SACC_REG_MAGIC), ==, 0);
    g_assert_cmphex(qpci_io_readw(t.dev, t.bar0, SACC_REG_MAGIC), ==, 0);
    g_assert_cmphex(qpci_io_readq(t.dev, t.bar0, SACC_REG_MAGIC), ==, 0);
    qpci_io_writeq(t.dev, t.bar0, SACC_DOORBELL_OFFSET, 1);

    /* write-only registers read 0 */
    wr(&t, SACC_REG_SQ_SIZE, 4);
    wr(&t, SACC_REG_CQ_SIZE, 4);
    g_assert_cmphex(rd(&t, SACC_REG_CQ_HEAD), ==, 0);
    g_assert_cmphex(rd(&t, SACC_REG_IRQ_ACK), ==, 0);
    g_assert_cmphex(rd(&t, SACC_DOORBELL_OFFSET), ==, 0);

    /* ring registers are read-only while ENABLE=1 */
    cwr64(ch0, SACC_REG_SQ_BASE, 0x100000);
    cwr64(ch0, SACC_REG_CQ_BASE, 0x200000);
    wr(&t, SACC_REG_CTRL, SACC_CTRL_ENABLE);
    g_assert_cmphex(rd(&t, SACC_REG_CTRL), ==, SACC_CTRL_ENABLE);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_READY);
    cwr64(ch0, SACC_REG_SQ_BASE, 0x300000);
    qpci_io_writeq(t.dev, t.bar0, SACC_REG_CQ_BASE, 0x400000);
    wr(&t, SACC_REG_SQ_SIZE, 8);
    wr(&t, SACC_REG_CQ_SIZE, 8);
    g_assert_cmphex(qpci_io_readq(t.dev, t.bar0, SACC_REG_SQ_BASE), ==,
                    0x100000);
    g_assert_cmphex(qpci_io_readq(t.dev, t.bar0, SACC_REG_CQ_BASE), ==,
                    0x200000);
    g_assert_cmpuint(rd(&t, SACC_REG_SQ_SIZE), ==, 4);
    g_assert_cmpuint(rd(&t, SACC_REG_CQ_SIZE), ==, 4);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_NONE);

    /* clearing ENABLE unlocks them again */
    wr(&t, SACC_REG_CTRL, 0);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, 0);
    wr(&t, SACC_REG_SQ_SIZE, 8);
    g_assert_cmpuint(rd(&t, SACC_REG_SQ_SIZE), ==, 8);

    sacc_stop(&t);
}

static void test_enable_validation(void)
{
    static const struct {
        uint64_t sq_base;
        uint32_t sq_n;
        uint64_t cq_base;
        uint32_t cq_n;
        uint32_t err;
    } tc[] = {
        { 0x100000, 0, 0x200000, 4, SACC_ERR_INVALID },
        { 0x100000, 1, 0x200000, 4, SACC_ERR_INVALID },
        { 0x100000, 3, 0x200000, 4, SACC_ERR_INVALID },
        { 0x100000, 4, 0x200000, 6, SACC_ERR_INVALID },
        { 0x100000, 131072, 0x200000, 4, SACC_ERR_INVALID },
        { 0x100000, 4, 0x200000, 0xffffffff, SACC_ERR_INVALID },
        { 0x100010, 4, 0x200000, 4, SACC_ERR_DMA },
        { 0x100000, 4, 0x200008, 4, SACC_ERR_DMA },
        { 0x100001, 3, 0x200000, 4, SACC_ERR_INVALID },
        { 0x100000, 2, 0x200010, 2, SACC_ERR_NONE },
        { 0x100020, 65536, 0x200000, 65536, SACC_ERR_NONE },
        { 0xfffffffffffe0, 4, 0x7ffffff0, 4, SACC_ERR_NONE },
    };
    Sacc t;
    Chan *ch0 = &t.ch0;
    size_t i;

    sacc_start(&t);
    for (i = 0; i < ARRAY_SIZE(tc); i++) {
        uint32_t status = tc[i].err ? SACC_STATUS_ERROR : SACC_STATUS_READY;

        ring_enable(ch0, tc[i].sq_base, tc[i].sq_n,
                    tc[i].cq_base, tc[i].cq_n);
        g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, tc[i].err);
        g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, status);
        g_assert_cmphex(rd(&t, SACC_REG_CTRL), ==, SACC_CTRL_ENABLE);
        wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);
        check_power_on(&t);
    }

    /* ENABLE 1->0 then a valid enable recovers from ERROR */
    ring_enable(ch0, 0x100000, 5, 0x200000, 4);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_ERROR);
    wr(&t, SACC_REG_CTRL, 0);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_ERROR);
    ring_enable(ch0, 0x100000, 8, 0x200000, 4);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_READY);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_INVALID);
    sacc_stop(&t);
}

static void test_doorbell_errors(void)
{
    Sacc t;
    Chan *ch0 = &t.ch0;

    sacc_start(&t);
    wr(&t, SACC_DOORBELL_OFFSET, 0);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_NOT_READY);
    wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);

    chan_setup(&t, ch0, 0, 0, 4, 8);
    wr(&t, SACC_DOORBELL_OFFSET, 4);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_INVALID);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_READY);
    wr(&t, SACC_DOORBELL_OFFSET, 0xffffffff);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_INVALID);
    wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);

    chan_setup(&t, ch0, 0, 0, 4, 8);
    wr(&t, SACC_REG_CQ_HEAD, 8);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_INVALID);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_READY);

    /* the ring still works after the bad values */
    chan_submit(ch0, SACC_OP_NOP, 0, 0, 0, 0, 77);
    chan_ring(ch0);
    chan_expect(ch0, 77, SACC_STS_OK, 0);
    sacc_stop(&t);
}

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

/* Bounded poll for an MSI-X message: the data word at @msg, 0 if none */
static uint32_t wait_msg(Sacc *t, uint64_t msg)
{
    gint64 deadline = g_get_monotonic_time() + WAIT_US;
    uint32_t data;

    while ((data = qtest_readl(t->qts, msg)) == 0 &&
           g_get_monotonic_time() < deadline) {
        g_usleep(100);
    }
    return data;
}

static void test_msix(void)
{
    Sacc t;
    Chan *ch0 = &t.ch0;
    uint64_t msg;
    uint64_t tbl;

    sacc_start(&t);
    qpci_msix_enable(t.dev);
    msg = guest_alloc(&t.qs->alloc, 4);
    qtest_writel(t.qts, msg, 0);
    tbl = t.dev->msix_table_off;
    qpci_io_writel(t.dev, t.dev->msix_table_bar,
                   tbl + PCI_MSIX_ENTRY_LOWER_ADDR, msg);
    qpci_io_writel(t.dev, t.dev->msix_table_bar,
                   tbl + PCI_MSIX_ENTRY_UPPER_ADDR, msg >> 32);
    qpci_io_writel(t.dev, t.dev->msix_table_bar,
                   tbl + PCI_MSIX_ENTRY_DATA, 0x5acc);
    g_assert_true(qpci_msix_masked(t.dev, 0));

    chan_setup(&t, ch0, 0, 0, 4, 4);
    /* no IRQ flag: nothing */
    chan_submit(ch0, SACC_OP_NOP, 0, 0, 0, 0, 1);
    chan_ring(ch0);
    chan_expect(ch0, 1, SACC_STS_OK, 0);
    g_assert_cmphex(rd(&t, SACC_REG_IRQ_STATUS), ==, 0);
    g_assert_false(qpci_msix_pending(t.dev, 0));

    /* masked vector: IRQ_STATUS set, PBA pending, no message */
    chan_submit(ch0, SACC_OP_NOP, 0, 0, 0, SACC_DESC_F_IRQ, 2);
    chan_ring(ch0);
    chan_expect(ch0, 2, SACC_STS_OK, 0);
    g_assert_cmphex(rd(&t, SACC_REG_IRQ_STATUS), ==, SACC_IRQ_COMPLETION);
    g_assert_true(qpci_msix_pending(t.dev, 0));
    g_assert_cmphex(qtest_readl(t.qts, msg), ==, 0);
    wr(&t, SACC_REG_IRQ_ACK, SACC_IRQ_COMPLETION);
    g_assert_cmphex(rd(&t, SACC_REG_IRQ_STATUS), ==, 0);

    /* unmasked: the message is written */
    qpci_io_writel(t.dev, t.dev->msix_table_bar,
                   tbl + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
    qtest_writel(t.qts, msg, 0);
    chan_submit(ch0, SACC_OP_NOP, 0, 0, 0, SACC_DESC_F_IRQ, 3);
    chan_ring(ch0);
    chan_expect(ch0, 3, SACC_STS_OK, 0);
    g_assert_cmphex(wait_msg(&t, msg), ==, 0x5acc);
    g_assert_cmphex(rd(&t, SACC_REG_IRQ_STATUS), ==, SACC_IRQ_COMPLETION);
    sacc_stop(&t);
}

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

/* Function level reset through the PCIe capability at @exp. */
static void sacc_flr(Sacc *t, uint8_t exp)
{
    qpci_config_writew(t->dev, exp + PCI_EXP_DEVCTL,
                       qpci_config_readw(t->dev, exp + PCI_EXP_DEVCTL) |
                       PCI_EXP_DEVCTL_BCR_FLR);
}

/* FLR, or bus mastering off, cleared the BARs and the command register */
static void sacc_remap(Sacc *t)
{
    qpci_device_enable(t->dev);
    t->bar0 = qpci_iomap(t->dev, SACC_BAR_REGS, NULL);
    t->bar2 = qpci_iomap(t->dev, SACC_BAR_CHAN, NULL);
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

/* xorshift64: deterministic garbage */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void test_garbage(void)
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

/* ---- v0.3: channels through their BAR2 blocks ---- */

static uint32_t drd(Sacc *t, uint32_t off)
{
    return qpci_io_readl(t->dev, t->bar2, off);
}

static uint64_t dev_clock(Sacc *t)
{
    return qpci_io_readq(t->dev, t->bar2, SACC_DEV_CLOCK);
}

/* Valid (first-lap) entries in a copy of a zeroed CQ. */
static uint32_t cq_valid(const struct sacc_cqe *cq, uint32_t n)
{
    uint32_t i, valid = 0;

    for (i = 0; i < n; i++) {
        valid += le16_to_cpu(cq[i].phase) & SACC_CQE_PHASE;
    }
    return valid;
}

static void test_v3_registers(void)
{
    Sacc t;
    Chan *ch0 = &t.ch0;
    Chan c, c3;
    uint64_t t0, t1;
    uint32_t k;

    sacc_start(&t);
    /* identity: VERSION, 64 MSI-X vectors, CHANNELS 8 by default */
    g_assert_cmpuint(rd(&t, SACC_REG_VERSION), ==, SACC_VERSION);
    g_assert_cmpuint(qpci_msix_table_size(t.dev), ==, 64);
    g_assert_cmpuint(drd(&t, SACC_DEV_CHANNELS), ==, SACC_CHANNELS_DEFAULT);
    g_assert_cmpuint(drd(&t, SACC_DEV_ERR_CODE), ==, 0);
    g_assert_cmphex(qpci_io_readq(t.dev, t.bar2, SACC_DEV_IRQ_PENDING), ==,
                    0);

    /* the clock moves forward; its halves read too */
    t0 = dev_clock(&t);
    g_usleep(1000);
    t1 = dev_clock(&t);
    g_assert_cmpuint(t1, >, t0);
    g_assert_cmphex(drd(&t, SACC_DEV_CLOCK + 4), >=, t1 >> 32);
    /* device page: read-only and reserved */
    qpci_io_writel(t.dev, t.bar2, SACC_DEV_CHANNELS, 1);
    qpci_io_writel(t.dev, t.bar2, SACC_DEV_ERR_CODE, 1);
    qpci_io_writel(t.dev, t.bar2, SACC_DEV_DEVMEM_SIZE, 1);
    qpci_io_writel(t.dev, t.bar2, 0x20, 1);
    g_assert_cmpuint(drd(&t, SACC_DEV_CHANNELS), ==, SACC_CHANNELS_DEFAULT);
    g_assert_cmpuint(drd(&t, SACC_DEV_ERR_CODE), ==, 0);
    g_assert_cmpuint(drd(&t, SACC_DEV_DEVMEM_SIZE), ==, SACC_DEVMEM_DEFAULT);
    g_assert_cmpuint(drd(&t, 0x20), ==, 0);

    /* BAR0 page 0 and block 0 are two windows on channel 0 */
    c = (Chan) { .t = &t, .id = 0 };
    cwr64(ch0, SACC_REG_SQ_BASE, 0x1234567800ull);
    g_assert_cmphex(crd64(&c, SACC_REG_SQ_BASE), ==, 0x1234567800ull);
    cwr(&c, SACC_REG_CQ_SIZE, 16);
    g_assert_cmpuint(rd(&t, SACC_REG_CQ_SIZE), ==, 16);
    /* ...but MAGIC, VERSION and SCRATCH are page 0's */
    wr(&t, SACC_REG_SCRATCH, 0x5a5a5a5a);
    cwr(&c, SACC_REG_SCRATCH, 1);
    g_assert_cmphex(crd(&c, SACC_REG_SCRATCH), ==, 0);
    g_assert_cmphex(crd(&c, SACC_REG_MAGIC), ==, 0);
    g_assert_cmphex(crd(&c, SACC_REG_VERSION), ==, 0);
    g_assert_cmphex(rd(&t, SACC_REG_SCRATCH), ==, 0x5a5a5a5a);

    /* MODE and PUT_ADDR: in blocks only; reserved MODE bits not kept */
    cwr(&c, SACC_REG_MODE, 0xffffffff);
    g_assert_cmphex(crd(&c, SACC_REG_MODE), ==, SACC_MODE_MASK);
    cwr64(&c, SACC_REG_PUT_ADDR, 0x1122334455667788ull);
    g_assert_cmphex(crd64(&c, SACC_REG_PUT_ADDR), ==, 0x1122334455667788ull);
    qpci_io_writeq(t.dev, t.bar2, SACC_CHAN_BLOCK(0) + SACC_REG_PUT_ADDR,
                   0x8000ull);
    g_assert_cmphex(crd(&c, SACC_REG_PUT_ADDR), ==, 0x8000);
    g_assert_cmphex(crd(&c, SACC_REG_PUT_ADDR + 4), ==, 0);
    wr(&t, SACC_REG_MODE, 0);
    wr(&t, SACC_REG_PUT_ADDR, 0);
    g_assert_cmphex(rd(&t, SACC_REG_MODE), ==, 0);
    g_assert_cmphex(rd(&t, SACC_REG_PUT_ADDR), ==, 0);
    g_assert_cmphex(crd(&c, SACC_REG_MODE), ==, SACC_MODE_MASK);
    /* only 32-bit accesses, 64-bit ones at 64-bit registers */
    g_assert_cmphex(qpci_io_readq(t.dev, t.bar2,
                                  SACC_CHAN_BLOCK(0) + SACC_REG_CTRL), ==, 0);
    g_assert_cmphex(qpci_io_readb(t.dev, t.bar2,
                                  SACC_CHAN_BLOCK(0) + SACC_REG_MODE), ==, 0);
    qpci_io_writew(t.dev, t.bar2, SACC_CHAN_BLOCK(0) + SACC_REG_MODE, 0);
    g_assert_cmphex(crd(&c, SACC_REG_MODE), ==, SACC_MODE_MASK);

    /* MODE and PUT_ADDR are ring registers: locked while ENABLE */
    chan_setup(&t, &c3, 3, SACC_MODE_V3, 4, 4);
    cwr(&c3, SACC_REG_MODE, SACC_MODE_TOKEN);
    cwr64(&c3, SACC_REG_PUT_ADDR, 0x4000);
    g_assert_cmphex(crd(&c3, SACC_REG_MODE), ==, SACC_MODE_V3);
    g_assert_cmphex(crd64(&c3, SACC_REG_PUT_ADDR), ==, c3.put);
    g_assert_cmpuint(crd(&c3, SACC_REG_ERR_CODE), ==, 0);

    /* TOKEN needs a 4-byte aligned PUT_ADDR at enable; V3 alone does not */
    cwr(&c3, SACC_REG_CTRL, 0);
    cwr64(&c3, SACC_REG_PUT_ADDR, 0x4002);
    cwr(&c3, SACC_REG_CTRL, SACC_CTRL_ENABLE);
    g_assert_cmphex(crd(&c3, SACC_REG_STATUS), ==, SACC_STATUS_READY);
    cwr(&c3, SACC_REG_CTRL, 0);
    cwr(&c3, SACC_REG_MODE, SACC_MODE_TOKEN);
    cwr(&c3, SACC_REG_CTRL, SACC_CTRL_ENABLE);
    g_assert_cmphex(crd(&c3, SACC_REG_STATUS), ==, SACC_STATUS_ERROR);
    g_assert_cmpuint(crd(&c3, SACC_REG_ERR_CODE), ==, SACC_ERR_DMA);
    /* channel 0 saw none of it */
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, 0);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, 0);

    /* CTRL.RESET in a block resets that channel only */
    cwr(&c3, SACC_REG_CTRL, SACC_CTRL_RESET | SACC_CTRL_ENABLE);
    for (k = SACC_REG_CTRL; k < SACC_CHAN_STRIDE; k += 4) {
        g_assert_cmphex(crd(&c3, k), ==, 0);
    }
    g_assert_cmphex(rd(&t, SACC_REG_SCRATCH), ==, 0x5a5a5a5a);
    g_assert_cmphex(crd(&c, SACC_REG_MODE), ==, SACC_MODE_MASK);
    g_assert_cmpuint(rd(&t, SACC_REG_CQ_SIZE), ==, 16);

    /* blocks of channels that do not exist, and the rest, are reserved */
    for (k = SACC_CHAN_BLOCK(SACC_CHANNELS_DEFAULT); k < SACC_BAR2_SIZE;
         k += 0x7c4) {
        qpci_io_writel(t.dev, t.bar2, k & ~3u, 0xffffffff);
        g_assert_cmphex(drd(&t, k & ~3u), ==, 0);
    }
    qpci_io_writel(t.dev, t.bar2, SACC_BAR2_SIZE - 4, 0xffffffff);
    g_assert_cmphex(drd(&t, SACC_BAR2_SIZE - 4), ==, 0);

    /* page 0's CTRL.RESET still resets the whole device */
    wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);
    g_assert_cmphex(crd(&c, SACC_REG_MODE), ==, 0);
    g_assert_cmphex(crd64(&c, SACC_REG_PUT_ADDR), ==, 0);
    check_power_on(&t);
    sacc_stop(&t);

    /* the channels property: CHANNELS says it, blocks and doorbells obey */
    sacc_start_props(&t, ",channels=3");
    g_assert_cmpuint(drd(&t, SACC_DEV_CHANNELS), ==, 3);
    c = (Chan) { .t = &t, .id = 3 };
    cwr(&c, SACC_REG_SQ_SIZE, 4);
    g_assert_cmpuint(crd(&c, SACC_REG_SQ_SIZE), ==, 0);
    c = (Chan) { .t = &t, .id = 2 };
    cwr(&c, SACC_REG_SQ_SIZE, 4);
    g_assert_cmpuint(crd(&c, SACC_REG_SQ_SIZE), ==, 4);
    wr(&t, SACC_DOORBELL(3), 1); /* not a doorbell: no ERR_CODE anywhere */
    wr(&t, SACC_DOORBELL(2), 1); /* channel 2 not READY */
    g_assert_cmpuint(crd(&c, SACC_REG_ERR_CODE), ==, SACC_ERR_NOT_READY);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, 0);
    g_assert_cmpuint(drd(&t, SACC_DEV_ERR_CODE), ==, 0);
    wr(&t, SACC_DOORBELL_TOKEN, 3);
    g_assert_cmpuint(drd(&t, SACC_DEV_ERR_CODE), ==, SACC_ERR_INVALID);
    sacc_stop(&t);
}

/* A v0.2 driver on channel 0 (BAR0 only) next to busy v0.3 channels. */
static void test_v3_channel0(void)
{
    Sacc t;
    Chan *ch0 = &t.ch0;
    Chan a, b, blk0;
    uint64_t buf;
    struct sacc_cqe cqe;
    int i;

    sacc_start(&t);
    chan_setup(&t, ch0, 0, 0, 8, 8);
    chan_setup(&t, &a, 1, SACC_MODE_V3 | SACC_MODE_TOKEN, 8, 8);
    chan_setup(&t, &b, 7, SACC_MODE_V3, 8, 8);
    buf = guest_alloc(&t.qs->alloc, 8192);
    qtest_memset(t.qts, buf, 0x55, 8192);

    /* interleaved work: everyone completes, channel 0 in v0.2 format */
    for (i = 0; i < 3; i++) {
        chan_submit(ch0, SACC_OP_MEMCPY, buf, buf + 4096, 1024, 0, 10 + i);
        chan_submit(&a, SACC_OP_TIMESTAMP, 0, buf + 6000 + 8 * i, 0, 0,
                    20 + i);
        chan_submit(&b, SACC_OP_MEMCPY, buf, buf + 4096, 1024, 0, 30 + i);
    }
    chan_ring(ch0);
    chan_ring(&a);
    chan_ring(&b);
    for (i = 0; i < 3; i++) {
        chan_expect(ch0, 10 + i, SACC_STS_OK, 1024); /* reserved == 0 */
        chan_expect(&a, 20 + i, SACC_STS_OK, 8);
        cqe = chan_expect(&b, 30 + i, SACC_STS_OK, 1024);
        g_assert_cmpuint(cqe.engine_ns, >, 0);
    }
    chan_ack(ch0);

    /* v0.3 opcodes are unknown opcodes on a MODE 0 channel */
    chan_submit(ch0, SACC_OP_WRITE_INLINE, buf, buf + 4096, 64, 0, 40);
    chan_submit(ch0, SACC_OP_TIMESTAMP, buf, buf + 4096, 64, 0, 41);
    chan_ring(ch0);
    chan_expect(ch0, 40, SACC_STS_BAD_OPCODE, 0);
    chan_expect(ch0, 41, SACC_STS_BAD_OPCODE, 0);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_BAD_OPCODE);
    chan_ack(ch0);

    /* other channels' errors and faults stay on those channels */
    chan_submit(&b, SACC_OP_MEMCPY, UNMAPPED, buf, 8, 0, 50);
    chan_submit(&b, SACC_OP_MEMCPY, buf, buf, 0, 0, 51);
    chan_ring(&b);
    chan_expect(&b, 50, SACC_STS_DMA_FAULT, 0);
    chan_expect(&b, 51, SACC_STS_BAD_LENGTH, 0);
    wr(&t, SACC_DOORBELL(5), 1);
    wr(&t, SACC_DOORBELL_TOKEN, 1000);
    wr(&t, SACC_DOORBELL(1), 1);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_BAD_OPCODE);
    g_assert_cmpuint(rd(&t, SACC_REG_FAULT_COUNT), ==, 0);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_READY);
    g_assert_cmpuint(crd(&b, SACC_REG_FAULT_COUNT), ==, 1);
    g_assert_cmpuint(crd(&b, SACC_REG_ERR_CODE), ==, SACC_ERR_INVALID);
    g_assert_cmpuint(crd(&a, SACC_REG_ERR_CODE), ==, SACC_ERR_INVALID);

    /* block 0 shows channel 0 as page 0 does, MODE 0 */
    blk0 = (Chan) { .t = &t, .id = 0 };
    g_assert_cmphex(crd(&blk0, SACC_REG_MODE), ==, 0);
    g_assert_cmphex(crd64(&blk0, SACC_REG_SQ_BASE), ==, ch0->sq);
    g_assert_cmpuint(crd(&blk0, SACC_REG_ERR_CODE), ==, SACC_ERR_BAD_OPCODE);
    chan_submit(ch0, SACC_OP_NOP, 0, 0, 0, 0, 60);
    chan_ring(ch0);
    chan_expect(ch0, 60, SACC_STS_OK, 0);
    sacc_stop(&t);
}

/* A ring fault stops one channel; the others run on. */
static void test_v3_isolation(void)
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
static void test_v3_fairness(void)
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

/* Token doorbell: the tail comes from the PUT word. */
static void test_v3_token(void)
{
    Sacc t;
    Chan a, b, c5;
    struct sacc_cqe cqe;
    int i;

    sacc_start(&t);
    chan_setup(&t, &a, 1, SACC_MODE_TOKEN | SACC_MODE_V3, 8, 8);
    chan_setup(&t, &b, 2, 0, 8, 8);

    for (i = 0; i < 3; i++) {
        chan_submit(&a, SACC_OP_NOP, 0, 0, 0, 0, i);
    }
    chan_ring(&a);
    for (i = 0; i < 3; i++) {
        chan_expect(&a, i, SACC_STS_OK, 0);
    }
    chan_ack(&a);

    /* several tokens, one PUT: each descriptor once */
    chan_submit(&a, SACC_OP_NOP, 0, 0, 0, 0, 3);
    chan_submit(&a, SACC_OP_NOP, 0, 0, 0, 0, 4);
    chan_ring(&a);
    wr(&t, SACC_DOORBELL_TOKEN, 1);
    wr(&t, SACC_DOORBELL_TOKEN, 1);
    chan_expect(&a, 3, SACC_STS_OK, 0);
    chan_expect(&a, 4, SACC_STS_OK, 0);
    chan_ack(&a);

    /*
     * The wrong doorbell for the mode: ignored, ERR_CODE 3.  PUT keeps
     * the old tail until the right doorbell: the second token above may
     * still be read after this point (the engine runs beside us), and
     * must find nothing new.
     */
    chan_submit(&a, SACC_OP_NOP, 0, 0, 0, 0, 5);
    wr(&t, SACC_DOORBELL(1), a.sq_tail);
    g_assert_cmpuint(crd(&a, SACC_REG_ERR_CODE), ==, SACC_ERR_INVALID);
    chan_submit(&b, SACC_OP_NOP, 0, 0, 0, 0, 0xb0);
    wr(&t, SACC_DOORBELL_TOKEN, 2);
    g_assert_cmpuint(crd(&b, SACC_REG_ERR_CODE), ==, SACC_ERR_INVALID);
    g_assert_false(chan_wait_cqe(&a, &cqe, G_USEC_PER_SEC / 20));
    g_assert_false(chan_wait_cqe(&b, &cqe, G_USEC_PER_SEC / 20));
    /* the right ones still work */
    chan_ring(&a);
    chan_ring(&b);
    chan_expect(&a, 5, SACC_STS_OK, 0);
    chan_expect(&b, 0xb0, SACC_STS_OK, 0);

    /* a token naming no channel, or a channel not READY */
    wr(&t, SACC_DOORBELL_TOKEN, SACC_CHANNELS_DEFAULT);
    g_assert_cmpuint(drd(&t, SACC_DEV_ERR_CODE), ==, SACC_ERR_INVALID);
    c5 = (Chan) { .t = &t, .id = 5 };
    wr(&t, SACC_DOORBELL_TOKEN, 5);
    g_assert_cmpuint(crd(&c5, SACC_REG_ERR_CODE), ==, SACC_ERR_NOT_READY);
    qpci_io_writew(t.dev, t.bar0, SACC_DOORBELL_TOKEN, 1);

    /* a PUT value >= SQ_SIZE: ignored, ERR_CODE 3, not fatal */
    cwr(&a, SACC_REG_CTRL, SACC_CTRL_RESET);
    chan_setup(&t, &a, 1, SACC_MODE_TOKEN | SACC_MODE_V3, 8, 8);
    chan_submit(&a, SACC_OP_NOP, 0, 0, 0, 0, 6);
    qtest_writel(t.qts, a.put, 8);
    wr(&t, SACC_DOORBELL_TOKEN, 1);
    chan_wait_reg(&a, SACC_REG_ERR_CODE, SACC_ERR_INVALID);
    g_assert_cmphex(crd(&a, SACC_REG_STATUS), ==, SACC_STATUS_READY);
    chan_ring(&a);
    chan_expect(&a, 6, SACC_STS_OK, 0);

    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, 0);
    g_assert_cmpuint(crd(&a, SACC_REG_FAULT_COUNT), ==, 0);
    sacc_stop(&t);
}

/* A PUT word the device cannot read is a ring fault on its channel. */
static void test_v3_token_put_fault(void)
{
    Sacc t;
    Chan *ch0 = &t.ch0;
    Chan a, b;
    struct sacc_cqe cqe;

    sacc_start(&t);
    chan_setup(&t, ch0, 0, 0, 4, 4);
    chan_init(&t, &a, 1, SACC_MODE_TOKEN | SACC_MODE_V3, 8, 8);
    a.put = UNMAPPED + 4;
    chan_enable(&a);
    g_assert_cmphex(crd(&a, SACC_REG_STATUS), ==, SACC_STATUS_READY);
    chan_setup(&t, &b, 2, SACC_MODE_TOKEN, 8, 8);

    chan_submit(&a, SACC_OP_NOP, 0, 0, 0, 0, 1);
    wr(&t, SACC_DOORBELL_TOKEN, 1);
    chan_wait_reg(&a, SACC_REG_STATUS, SACC_STATUS_ERROR);
    g_assert_cmpuint(crd(&a, SACC_REG_ERR_CODE), ==, SACC_ERR_DMA);
    g_assert_cmphex(crd(&a, SACC_REG_IRQ_STATUS), ==, SACC_IRQ_FATAL);
    chan_expect_fault(&a, UNMAPPED + 4, SACC_FAULT_PUT_READ, 0, 1);
    g_assert_false(chan_wait_cqe(&a, &cqe, G_USEC_PER_SEC / 20));
    wr(&t, SACC_DOORBELL_TOKEN, 1);
    g_assert_cmpuint(crd(&a, SACC_REG_ERR_CODE), ==, SACC_ERR_NOT_READY);

    /* the neighbours are untouched */
    chan_submit(&b, SACC_OP_NOP, 0, 0, 0, 0, 2);
    chan_ring(&b);
    chan_expect(&b, 2, SACC_STS_OK, 0);
    chan_submit(ch0, SACC_OP_NOP, 0, 0, 0, 0, 3);
    chan_ring(ch0);
    chan_expect(ch0, 3, SACC_STS_OK, 0);
    g_assert_cmpuint(rd(&t, SACC_REG_FAULT_COUNT), ==, 0);
    g_assert_cmpuint(crd(&b, SACC_REG_FAULT_COUNT), ==, 0);
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
static void test_v3_inline_wrap(void)
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
static void test_v3_inline_errors(void)
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
static void test_v3_inline_fault(void)
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
static void test_v3_timestamp(void)
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
static void test_v3_engine_time(void)
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

/* Point MSI-X vector @v at @msg with @data, unmasked. */
static void msix_vector(Sacc *t, int v, uint64_t msg, uint32_t data)
{
    uint64_t e = t->dev->msix_table_off + v * PCI_MSIX_ENTRY_SIZE;

    qpci_io_writel(t->dev, t->dev->msix_table_bar,
                   e + PCI_MSIX_ENTRY_LOWER_ADDR, msg);
    qpci_io_writel(t->dev, t->dev->msix_table_bar,
                   e + PCI_MSIX_ENTRY_UPPER_ADDR, msg >> 32);
    qpci_io_writel(t->dev, t->dev->msix_table_bar,
                   e + PCI_MSIX_ENTRY_DATA, data);
    qpci_io_writel(t->dev, t->dev->msix_table_bar,
                   e + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
}

/* One MSI-X vector per channel: vector k is channel k's. */
static void test_v3_msix(void)
{
    Sacc t;
    Chan *ch0 = &t.ch0;
    Chan a, f;
    uint64_t msg;

    sacc_start(&t);
    qpci_msix_enable(t.dev);
    msg = guest_alloc(&t.qs->alloc, 64);
    qtest_memset(t.qts, msg, 0, 64);
    msix_vector(&t, 0, msg, 0x5ac0);
    msix_vector(&t, 1, msg + 4, 0x5ac1);
    msix_vector(&t, 5, msg + 8, 0x5ac5);
    chan_setup(&t, ch0, 0, 0, 4, 4);
    chan_setup(&t, &a, 1, SACC_MODE_V3, 4, 4);

    chan_submit(&a, SACC_OP_NOP, 0, 0, 0, SACC_DESC_F_IRQ, 1);
    chan_ring(&a);
    chan_expect(&a, 1, SACC_STS_OK, 0);
    g_assert_cmphex(wait_msg(&t, msg + 4), ==, 0x5ac1);
    g_assert_cmphex(qtest_readl(t.qts, msg), ==, 0);
    g_assert_cmphex(crd(&a, SACC_REG_IRQ_STATUS), ==, SACC_IRQ_COMPLETION);
    g_assert_cmphex(rd(&t, SACC_REG_IRQ_STATUS), ==, 0);
    g_assert_cmphex(qpci_io_readq(t.dev, t.bar2, SACC_DEV_IRQ_PENDING), ==,
                    1u << 1);

    chan_submit(ch0, SACC_OP_NOP, 0, 0, 0, SACC_DESC_F_IRQ, 2);
    chan_ring(ch0);
    chan_expect(ch0, 2, SACC_STS_OK, 0);
    g_assert_cmphex(wait_msg(&t, msg), ==, 0x5ac0);
    g_assert_cmphex(qpci_io_readq(t.dev, t.bar2, SACC_DEV_IRQ_PENDING), ==,
                    (1u << 1) | 1);
    cwr(&a, SACC_REG_IRQ_ACK, SACC_IRQ_COMPLETION);
    g_assert_cmphex(qpci_io_readq(t.dev, t.bar2, SACC_DEV_IRQ_PENDING), ==,
                    1);
    g_assert_cmphex(rd(&t, SACC_REG_IRQ_STATUS), ==, SACC_IRQ_COMPLETION);

    /* a ring fault signals the faulting channel's vector */
    chan_init(&t, &f, 5, 0, 4, 4);
    f.sq = UNMAPPED;
    chan_enable(&f);
    wr(&t, SACC_DOORBELL(5), 1);
    g_assert_cmphex(wait_msg(&t, msg + 8), ==, 0x5ac5);
    g_assert_cmphex(crd(&f, SACC_REG_IRQ_STATUS), ==, SACC_IRQ_FATAL);
    g_assert_false(qpci_msix_pending(t.dev, 2));
    sacc_stop(&t);
}

/* Garbage into BAR2, the doorbell page and rings of every channel. */
static void test_v3_garbage(void)
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


/* ---- the engine thread (x-engine-thread) beside resets and unplug ---- */

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
 * After a stop: descriptors past the one in flight (@done + 1 on) never
 * started, so their destinations (at @dst, one per descriptor) are still
 * zero.
 */
static void stress_check_dst(Sacc *t, uint64_t dst, uint32_t done)
{
    uint64_t head[2];
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
    uint32_t round, i, k, d0, d1, stopped = 0, completed = 0;
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

    for (round = 0; round < STRESS_ROUNDS ||
                    (unmet && round < STRESS_ROUNDS_MAX); round++) {
        qtest_memset(t.qts, dst0, 0, dst_bytes);
        qtest_memset(t.qts, dst1, 0, dst_bytes);
        chan_setup(&t, ch0, 0, 0, 64, 64);
        chan_setup(&t, &c, 1, 0, 64, 64);
        for (i = 0; i < STRESS_DESCS; i++) {
            chan_submit(ch0, SACC_OP_MEMCPY, src, dst0 + i * STRESS_LEN,
                        STRESS_LEN, 0, round << 8 | i);
            chan_submit(&c, SACC_OP_MEMCPY, src, dst1 + i * STRESS_LEN,
                        STRESS_LEN, 0, round << 8 | i);
        }
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

/* The device's x-copies-held (tests only): copies that began the delay */
static uint32_t copies_held(QTestState *qts, const char *id)
{
    g_autofree char *path = g_strdup_printf("/machine/peripheral/%s", id);
    QDict *r = qtest_qmp(qts, "{'execute': 'qom-get', 'arguments': "
                         "{'path': %s, 'property': 'x-copies-held'}}", path);
    uint32_t n;

    g_assert(qdict_haskey(r, "return"));
    n = qdict_get_int(r, "return");
    qobject_unref(r);
    return n;
}

/* Wait (bounded) until device @id holds its @n-th copy since boot. */
static void wait_copies_held(QTestState *qts, const char *id, uint32_t n)
{
    gint64 end = g_get_monotonic_time() + WAIT_US;

    while (copies_held(qts, id) < n) {
        g_assert_cmpint(g_get_monotonic_time(), <, end);
        g_usleep(1000);
    }
}

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
 * v0.4: device memory (docs/spec.md section 17) and FILL (section 18).
 * BAR4 is mapped by the test; qpci_memread/-write reach it as the CPU
 * does, through the BAR.
 */
#define DEVMEM_SIZE ((uint64_t)SACC_DEVMEM_DEFAULT)

static void sacc_map_devmem(Sacc *t)
{
    uint64_t size;

    t->bar4 = qpci_iomap(t->dev, SACC_BAR_DEVMEM, &size);
    g_assert_cmpuint(size, ==, DEVMEM_SIZE);
}

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

static void host_expect(Sacc *t, uint64_t addr, uint8_t byte, size_t len)
{
    g_autofree uint8_t *b = g_malloc(len);
    size_t i;

    qtest_memread(t->qts, addr, b, len);
    for (i = 0; i < len; i++) {
        g_assert_cmphex(b[i], ==, byte);
    }
}

/* Identity: VERSION 4, DEVMEM_SIZE and BAR4 agree; devmem=0: neither. */
static void test_v4_identity(void)
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
 * runs without the BQL, in pieces), and a v0.2 channel, which knows no
 * device flags: its descriptor names an IOVA whatever its flags say.
 */
static void test_v4_directions(void)
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

    /* v0.2: channel 0 in page 0, flags other than IRQ mean nothing */
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
static void test_v4_fill(void)
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
    /* a v0.2 channel has no FILL */
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
static void test_v4_range(void)
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
static void test_v4_sq_dev(void)
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
static void test_v4_resets(void)
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

/*
 * v0.4 pushbuffer segments (docs/spec.md section 21).  A segment is
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
static void test_v4_segment_kinds(void)
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
static void test_v4_segment_errors(void)
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
static void test_v4_segment_relaunch(void)
{
    const uint32_t launches = 10000, sq = 256;
    struct sacc_desc seg[2];
    uint32_t i, done = 0, sent = 0;
    uint64_t h, segaddr;
    struct sacc_cqe cqe;
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
        while (sent < launches && sent - done < sq - 1) {
            chan_submit(&c, SACC_OP_SEGMENT, segaddr, 0, sizeof(seg), 0,
                        sent++);
        }
        chan_ring(&c);
        while (done < sent) {
            g_assert_true(chan_wait_cqe(&c, &cqe, WAIT_US));
            g_assert_cmpuint(cqe.req_id, ==, done);
            g_assert_cmpuint(cqe.status, ==, SACC_STS_OK);
            g_assert_cmpuint(cqe.result_len, ==, 2);
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
    (void)i;
    sacc_stop(&t);
}

/*
 * A channel reset and an FLR in the middle of a long segment (copies
 * held by x-copy-delay-us): once the reset returned, nothing of the
 * segment lands, and it has no completion.
 */
static void test_v4_segment_reset(void)
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

    qtest_add_func("/sacc/identity", test_identity);
    qtest_add_func("/sacc/registers", test_registers);
    qtest_add_func("/sacc/enable-validation", test_enable_validation);
    qtest_add_func("/sacc/doorbell-errors", test_doorbell_errors);
    qtest_add_func("/sacc/nop", test_nop);
    qtest_add_func("/sacc/memcpy-xform", test_memcpy_xform);
    qtest_add_func("/sacc/bad-descriptors", test_bad_descriptors);
    qtest_add_func("/sacc/dma-faults", test_dma_faults);
    qtest_add_func("/sacc/copy-paths", test_copy_paths);
    qtest_add_func("/sacc/memcpy-staged", test_memcpy_staged);
    qtest_add_func("/sacc/ring-faults", test_ring_faults);
    qtest_add_func("/sacc/phase-laps", test_phase_laps);
    qtest_add_func("/sacc/cq-full", test_cq_full);
    qtest_add_func("/sacc/msix", test_msix);
    qtest_add_func("/sacc/reset", test_reset);
    qtest_add_func("/sacc/garbage", test_garbage);
    qtest_add_func("/sacc/v3/registers", test_v3_registers);
    qtest_add_func("/sacc/v3/channel0-v02", test_v3_channel0);
    qtest_add_func("/sacc/v3/isolation", test_v3_isolation);
    qtest_add_func("/sacc/v3/fairness", test_v3_fairness);
    qtest_add_func("/sacc/v3/token", test_v3_token);
    qtest_add_func("/sacc/v3/token-put-fault", test_v3_token_put_fault);
    qtest_add_func("/sacc/v3/inline-wrap", test_v3_inline_wrap);
    qtest_add_func("/sacc/v3/inline-errors", test_v3_inline_errors);
    qtest_add_func("/sacc/v3/inline-fault", test_v3_inline_fault);
    qtest_add_func("/sacc/v3/timestamp", test_v3_timestamp);
    qtest_add_func("/sacc/v3/engine-time", test_v3_engine_time);
    qtest_add_func("/sacc/v3/msix", test_v3_msix);
    qtest_add_func("/sacc/v3/garbage", test_v3_garbage);
    qtest_add_data_func("/sacc/engine/stress", "", test_engine_stress);
    qtest_add_data_func("/sacc/engine/stress-bh", ",x-engine-thread=off",
                        test_engine_stress);
    qtest_add_func("/sacc/v4/identity", test_v4_identity);
    qtest_add_func("/sacc/v4/directions", test_v4_directions);
    qtest_add_func("/sacc/v4/fill", test_v4_fill);
    qtest_add_func("/sacc/v4/range", test_v4_range);
    qtest_add_func("/sacc/v4/sq-dev", test_v4_sq_dev);
    qtest_add_func("/sacc/v4/resets", test_v4_resets);
    qtest_add_func("/sacc/v4/segment-kinds", test_v4_segment_kinds);
    qtest_add_func("/sacc/v4/segment-errors", test_v4_segment_errors);
    qtest_add_func("/sacc/v4/segment-relaunch", test_v4_segment_relaunch);
    qtest_add_func("/sacc/v4/segment-reset", test_v4_segment_reset);
    qtest_add_func("/sacc/engine/copy-quiesce", test_engine_copy_quiesce);
    qtest_add_func("/sacc/engine/copy-interleave",
                   test_engine_copy_interleave);
    qtest_add_data_func("/sacc/engine/unplug", "on", test_engine_unplug);
    qtest_add_data_func("/sacc/engine/unplug-bh", NULL, test_engine_unplug);

    return g_test_run();
}

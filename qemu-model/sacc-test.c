/* SPDX-License-Identifier: MIT */
/*
 * QTest for the SACC device model (qemu-model/sacc.c).
 *
 * Drives the device on q35 without an IOMMU: identity, register
 * semantics, enable validation, doorbell errors, NOP/MEMCPY/XFORM round
 * trips, phase over ring laps, CQ-full stall, DMA and ring faults,
 * MSI-X, CTRL.RESET, FLR and a garbage-writing robustness run.
 *
 * The device works in a bottom half, so every wait for a completion polls
 * guest memory through qtest commands (each lets the main loop run) with
 * a deadline; no wait is unbounded.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/pci-pc.h"
#include "hw/pci/pci_regs.h"
#include "hw/misc/sacc_hw.h"

#define SACC_DEVFN QPCI_DEVFN(4, 0)
#define RAM_SIZE   (256 * 1024 * 1024ull)
/* Nothing is mapped here: a DMA target that always faults. */
#define UNMAPPED 0x4000000000ull
#define WAIT_US  (10 * G_USEC_PER_SEC)

typedef struct {
    QOSState *qs;
    QTestState *qts;
    QPCIDevice *dev;
    QPCIBar bar0;
    /* rings, once ring_setup() ran */
    uint64_t sq, cq;
    uint32_t sq_n, cq_n;
    uint32_t sq_tail, cq_head;
    uint16_t phase;
} Sacc;

static void sacc_start(Sacc *t)
{
    uint64_t size;

    memset(t, 0, sizeof(*t));
    t->qs = qtest_pc_boot("-M q35 -m 256M -nodefaults "
                          "-device sacc,addr=04.0");
    t->qts = t->qs->qts;
    t->dev = qpci_device_find(t->qs->pcibus, SACC_DEVFN);
    g_assert(t->dev);
    qpci_device_enable(t->dev);
    t->bar0 = qpci_iomap(t->dev, SACC_BAR_REGS, &size);
    g_assert_cmpuint(size, ==, SACC_BAR0_SIZE);
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

static void wr64(Sacc *t, uint64_t off, uint64_t val)
{
    wr(t, off, val);
    wr(t, off + 4, val >> 32);
}

/* Program the ring registers (no validation here) and set ENABLE. */
static void ring_enable(Sacc *t, uint64_t sq, uint32_t sq_n, uint64_t cq,
                        uint32_t cq_n)
{
    wr64(t, SACC_REG_SQ_BASE, sq);
    wr(t, SACC_REG_SQ_SIZE, sq_n);
    wr64(t, SACC_REG_CQ_BASE, cq);
    wr(t, SACC_REG_CQ_SIZE, cq_n);
    wr(t, SACC_REG_CTRL, SACC_CTRL_ENABLE);
}

/* Allocate and enable rings in guest RAM; the device must go READY. */
static void ring_setup(Sacc *t, uint32_t sq_n, uint32_t cq_n)
{
    t->sq_n = sq_n;
    t->cq_n = cq_n;
    t->sq = guest_alloc(&t->qs->alloc, sq_n * sizeof(struct sacc_desc));
    t->cq = guest_alloc(&t->qs->alloc, cq_n * sizeof(struct sacc_cqe));
    qtest_memset(t->qts, t->sq, 0, sq_n * sizeof(struct sacc_desc));
    qtest_memset(t->qts, t->cq, 0, cq_n * sizeof(struct sacc_cqe));
    ring_enable(t, t->sq, sq_n, t->cq, cq_n);
    g_assert_cmphex(rd(t, SACC_REG_STATUS), ==, SACC_STATUS_READY);
    t->sq_tail = 0;
    t->cq_head = 0;
    t->phase = 1;
}

/* Write one descriptor at the SQ tail (the doorbell is rung separately). */
static void submit(Sacc *t, uint16_t op, uint64_t src, uint64_t dst,
                   uint32_t len, uint16_t flags, uint32_t req_id)
{
    struct sacc_desc d = {
        .src = cpu_to_le64(src),
        .dst = cpu_to_le64(dst),
        .length = cpu_to_le32(len),
        .opcode = cpu_to_le16(op),
        .flags = cpu_to_le16(flags),
        .req_id = cpu_to_le32(req_id),
        .reserved = 0,
    };

    qtest_memwrite(t->qts, t->sq + t->sq_tail * sizeof(d), &d, sizeof(d));
    t->sq_tail = (t->sq_tail + 1) % t->sq_n;
}

static void ring_doorbell(Sacc *t)
{
    wr(t, SACC_DOORBELL_OFFSET, t->sq_tail);
}

/* Bounded poll for the completion at cq_head; consumes it on success. */
static bool wait_cqe(Sacc *t, struct sacc_cqe *cqe, gint64 timeout_us)
{
    uint64_t addr = t->cq + t->cq_head * sizeof(*cqe);
    gint64 deadline = g_get_monotonic_time() + timeout_us;

    do {
        qtest_memread(t->qts, addr, cqe, sizeof(*cqe));
        if ((le16_to_cpu(cqe->phase) & SACC_CQE_PHASE) == t->phase) {
            cqe->req_id = le32_to_cpu(cqe->req_id);
            cqe->result_len = le32_to_cpu(cqe->result_len);
            cqe->reserved = le32_to_cpu(cqe->reserved);
            cqe->status = le16_to_cpu(cqe->status);
            if (++t->cq_head == t->cq_n) {
                t->cq_head = 0;
                t->phase ^= 1;
            }
            return true;
        }
        g_usleep(100);
    } while (g_get_monotonic_time() < deadline);
    return false;
}

static void expect_cqe(Sacc *t, uint32_t req_id, uint16_t status,
                       uint32_t result_len)
{
    struct sacc_cqe cqe;

    g_assert_true(wait_cqe(t, &cqe, WAIT_US));
    g_assert_cmphex(cqe.req_id, ==, req_id);
    g_assert_cmpuint(cqe.status, ==, status);
    g_assert_cmpuint(cqe.result_len, ==, result_len);
    g_assert_cmpuint(cqe.reserved, ==, 0);
}

static void ack_cq(Sacc *t)
{
    wr(t, SACC_REG_CQ_HEAD, t->cq_head);
}

/* Bounded poll until (reg & mask) == want. */
static void wait_reg(Sacc *t, uint64_t off, uint32_t mask, uint32_t want)
{
    gint64 deadline = g_get_monotonic_time() + WAIT_US;

    while ((rd(t, off) & mask) != want) {
        g_assert_cmpint(g_get_monotonic_time(), <, deadline);
        g_usleep(100);
    }
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
    wr64(&t, SACC_REG_SQ_BASE, 0x1122334455667780ull);
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
    wr64(&t, SACC_REG_SQ_BASE, 0x100000);
    wr64(&t, SACC_REG_CQ_BASE, 0x200000);
    wr(&t, SACC_REG_CTRL, SACC_CTRL_ENABLE);
    g_assert_cmphex(rd(&t, SACC_REG_CTRL), ==, SACC_CTRL_ENABLE);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_READY);
    wr64(&t, SACC_REG_SQ_BASE, 0x300000);
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
    size_t i;

    sacc_start(&t);
    for (i = 0; i < ARRAY_SIZE(tc); i++) {
        uint32_t status = tc[i].err ? SACC_STATUS_ERROR : SACC_STATUS_READY;

        ring_enable(&t, tc[i].sq_base, tc[i].sq_n,
                    tc[i].cq_base, tc[i].cq_n);
        g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, tc[i].err);
        g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, status);
        g_assert_cmphex(rd(&t, SACC_REG_CTRL), ==, SACC_CTRL_ENABLE);
        wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);
        check_power_on(&t);
    }

    /* ENABLE 1->0 then a valid enable recovers from ERROR */
    ring_enable(&t, 0x100000, 5, 0x200000, 4);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_ERROR);
    wr(&t, SACC_REG_CTRL, 0);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_ERROR);
    ring_enable(&t, 0x100000, 8, 0x200000, 4);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_READY);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_INVALID);
    sacc_stop(&t);
}

static void test_doorbell_errors(void)
{
    Sacc t;

    sacc_start(&t);
    wr(&t, SACC_DOORBELL_OFFSET, 0);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_NOT_READY);
    wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);

    ring_setup(&t, 4, 8);
    wr(&t, SACC_DOORBELL_OFFSET, 4);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_INVALID);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_READY);
    wr(&t, SACC_DOORBELL_OFFSET, 0xffffffff);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_INVALID);
    wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);

    ring_setup(&t, 4, 8);
    wr(&t, SACC_REG_CQ_HEAD, 8);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_INVALID);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_READY);

    /* the ring still works after the bad values */
    submit(&t, SACC_OP_NOP, 0, 0, 0, 0, 77);
    ring_doorbell(&t);
    expect_cqe(&t, 77, SACC_STS_OK, 0);
    sacc_stop(&t);
}

static void test_nop(void)
{
    Sacc t;
    struct sacc_cqe raw;

    sacc_start(&t);
    ring_setup(&t, 4, 4);
    /* NOP ignores src/dst/length */
    submit(&t, SACC_OP_NOP, UNMAPPED, UNMAPPED, 12345, 0, 0x1234);
    ring_doorbell(&t);
    expect_cqe(&t, 0x1234, SACC_STS_OK, 0);

    qtest_memread(t.qts, t.cq, &raw, sizeof(raw));
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

static void copy_round_trip(Sacc *t, uint16_t op, uint32_t len,
                            uint32_t src_off, uint32_t dst_off, uint32_t id)
{
    uint64_t src = guest_alloc(&t->qs->alloc, len + src_off);
    uint64_t dst = guest_alloc(&t->qs->alloc, len + dst_off + 64);
    g_autofree uint8_t *in = g_malloc(len);
    g_autofree uint8_t *out = g_malloc(len + 64);
    uint32_t i;

    fill_pattern(in, len, id);
    qtest_bufwrite(t->qts, src + src_off, in, len);
    qtest_memset(t->qts, dst, 0xaa, len + dst_off + 64);

    submit(t, op, src + src_off, dst + dst_off, len, 0, id);
    ring_doorbell(t);
    expect_cqe(t, id, SACC_STS_OK, len);
    ack_cq(t);

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

    sacc_start(&t);
    ring_setup(&t, 8, 8);
    copy_round_trip(&t, SACC_OP_MEMCPY, 1, 0, 0, 1);
    copy_round_trip(&t, SACC_OP_XFORM, 1, 3, 5, 2);
    copy_round_trip(&t, SACC_OP_MEMCPY, 10000, 100, 4000, 3);
    copy_round_trip(&t, SACC_OP_XFORM, 10000, 4095, 1, 4);
    copy_round_trip(&t, SACC_OP_MEMCPY, SACC_MAX_XFER, 0, 0, 5);
    copy_round_trip(&t, SACC_OP_XFORM, SACC_MAX_XFER, 17, 4001, 6);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, 0);
    sacc_stop(&t);
}

static void test_bad_descriptors(void)
{
    Sacc t;
    uint64_t buf;
    uint8_t b[16];

    sacc_start(&t);
    ring_setup(&t, 8, 8);
    buf = guest_alloc(&t.qs->alloc, 4096);
    qtest_memset(t.qts, buf, 0x55, 4096);

    submit(&t, 7, buf, buf + 8, 8, 0, 1);
    ring_doorbell(&t);
    expect_cqe(&t, 1, SACC_STS_BAD_OPCODE, 0);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_BAD_OPCODE);

    submit(&t, SACC_OP_MEMCPY, buf, buf + 8, 0, 0, 2);
    submit(&t, SACC_OP_XFORM, buf, buf + 8, SACC_MAX_XFER + 1, 0, 3);
    ring_doorbell(&t);
    expect_cqe(&t, 2, SACC_STS_BAD_LENGTH, 0);
    expect_cqe(&t, 3, SACC_STS_BAD_LENGTH, 0);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_INVALID);

    /* failing descriptors never set STATUS.ERROR or touch memory */
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_READY);
    g_assert_cmpuint(rd(&t, SACC_REG_FAULT_COUNT), ==, 0);
    qtest_memread(t.qts, buf, b, sizeof(b));
    g_assert_cmphex(b[8], ==, 0x55);
    sacc_stop(&t);
}

static void expect_fault(Sacc *t, uint64_t addr, uint32_t info,
                         uint32_t req_id, uint32_t count)
{
    g_assert_cmphex(qpci_io_readq(t->dev, t->bar0, SACC_REG_FAULT_ADDR),
                    ==, addr);
    g_assert_cmphex(rd(t, SACC_REG_FAULT_INFO), ==, info);
    g_assert_cmphex(rd(t, SACC_REG_FAULT_REQ_ID), ==, req_id);
    g_assert_cmpuint(rd(t, SACC_REG_FAULT_COUNT), ==, count);
}

static void test_dma_faults(void)
{
    const uint32_t dst_w = SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE;
    Sacc t;
    uint64_t buf;
    uint8_t b[512];
    int i;

    sacc_start(&t);
    ring_setup(&t, 16, 16);
    buf = guest_alloc(&t.qs->alloc, 8192);
    qtest_memset(t.qts, buf, 0x55, 8192);
    qtest_memset(t.qts, RAM_SIZE - 4096, 0x66, 4096);

    /* unmapped source: dst untouched */
    submit(&t, SACC_OP_MEMCPY, UNMAPPED + 8, buf, 100, 0, 11);
    ring_doorbell(&t);
    expect_cqe(&t, 11, SACC_STS_DMA_FAULT, 0);
    expect_fault(&t, UNMAPPED + 8, SACC_FAULT_SRC_READ, 11, 1);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_DMA);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_READY);

    /* source faulting on its second page: still no dst byte written */
    submit(&t, SACC_OP_MEMCPY, RAM_SIZE - 100, buf, 300, 0, 12);
    ring_doorbell(&t);
    expect_cqe(&t, 12, SACC_STS_DMA_FAULT, 0);
    expect_fault(&t, RAM_SIZE, SACC_FAULT_SRC_READ, 12, 2);
    qtest_memread(t.qts, buf, b, sizeof(b));
    for (i = 0; i < 300; i++) {
        g_assert_cmphex(b[i], ==, 0x55);
    }

    /* destination faulting on its second page: first page written */
    submit(&t, SACC_OP_XFORM, buf, RAM_SIZE - 100, 300, 0, 13);
    ring_doorbell(&t);
    expect_cqe(&t, 13, SACC_STS_DMA_FAULT, 0);
    expect_fault(&t, RAM_SIZE, dst_w, 13, 3);
    qtest_memread(t.qts, RAM_SIZE - 100, b, 100);
    for (i = 0; i < 100; i++) {
        g_assert_cmphex(b[i], ==, 0x55 ^ SACC_XFORM_KEY);
    }

    /* wrapping past 2^64 faults at the start address */
    submit(&t, SACC_OP_MEMCPY, UINT64_MAX - 10, buf, 100, 0, 14);
    ring_doorbell(&t);
    expect_cqe(&t, 14, SACC_STS_DMA_FAULT, 0);
    expect_fault(&t, UINT64_MAX - 10, SACC_FAULT_SRC_READ, 14, 4);
    submit(&t, SACC_OP_MEMCPY, buf, UINT64_MAX - 4095, 8192, 0, 15);
    ring_doorbell(&t);
    expect_cqe(&t, 15, SACC_STS_DMA_FAULT, 0);
    expect_fault(&t, UINT64_MAX - 4095, dst_w, 15, 5);

    /* DMA into the device's own BAR is refused, not recursed into */
    submit(&t, SACC_OP_MEMCPY, buf, t.bar0.addr + SACC_DOORBELL_OFFSET, 4,
           0, 16);
    ring_doorbell(&t);
    expect_cqe(&t, 16, SACC_STS_DMA_FAULT, 0);
    expect_fault(&t, t.bar0.addr + SACC_DOORBELL_OFFSET, dst_w, 16, 6);

    /* a good one still works and the error state is unchanged */
    submit(&t, SACC_OP_MEMCPY, buf, buf + 4096, 64, 0, 17);
    ring_doorbell(&t);
    expect_cqe(&t, 17, SACC_STS_OK, 64);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_DMA);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_READY);
    g_assert_cmpuint(rd(&t, SACC_REG_IRQ_STATUS), ==, 0);
    sacc_stop(&t);
}

static void test_ring_faults(void)
{
    Sacc t;
    uint64_t sq;

    /* descriptor fetch fault */
    sacc_start(&t);
    ring_enable(&t, UNMAPPED, 4, 0x100000, 4);
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_READY);
    wr(&t, SACC_DOORBELL_OFFSET, 2);
    wait_reg(&t, SACC_REG_STATUS, ~0u, SACC_STATUS_ERROR);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_DMA);
    g_assert_cmphex(rd(&t, SACC_REG_IRQ_STATUS), ==, SACC_IRQ_FATAL);
    expect_fault(&t, UNMAPPED, SACC_FAULT_DESC_FETCH, 0, 1);
    /* nothing more is processed; the doorbell now says not ready */
    wr(&t, SACC_DOORBELL_OFFSET, 3);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_NOT_READY);
    wr(&t, SACC_REG_IRQ_ACK, SACC_IRQ_FATAL);
    g_assert_cmphex(rd(&t, SACC_REG_IRQ_STATUS), ==, 0);
    sacc_stop(&t);

    /* completion write fault */
    sacc_start(&t);
    ring_setup(&t, 4, 4);
    sq = t.sq;
    wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);
    ring_enable(&t, sq, 4, UNMAPPED + 0x40, 4);
    t.sq_tail = 0;
    submit(&t, SACC_OP_NOP, 0, 0, 0, 0, 0xabcd);
    submit(&t, SACC_OP_NOP, 0, 0, 0, 0, 0xabce);
    ring_doorbell(&t);
    wait_reg(&t, SACC_REG_STATUS, ~0u, SACC_STATUS_ERROR);
    g_assert_cmpuint(rd(&t, SACC_REG_ERR_CODE), ==, SACC_ERR_DMA);
    g_assert_cmphex(rd(&t, SACC_REG_IRQ_STATUS), ==, SACC_IRQ_FATAL);
    expect_fault(&t, UNMAPPED + 0x40,
                 SACC_FAULT_CQ_WRITE | SACC_FAULT_IS_WRITE, 0xabcd, 1);
    /* RESET recovers */
    wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);
    check_power_on(&t);
    ring_setup(&t, 4, 4);
    submit(&t, SACC_OP_NOP, 0, 0, 0, 0, 5);
    ring_doorbell(&t);
    expect_cqe(&t, 5, SACC_STS_OK, 0);
    sacc_stop(&t);
}

static void test_phase_laps(void)
{
    Sacc t;
    struct sacc_cqe raw;
    uint32_t id = 0;
    int batch, i;

    sacc_start(&t);
    ring_setup(&t, 4, 4);
    /* 3 laps of the CQ in batches of 1..3, checking the raw phase */
    for (batch = 0; batch < 8; batch++) {
        int n = batch % 3 + 1;

        for (i = 0; i < n; i++) {
            submit(&t, SACC_OP_NOP, 0, 0, 0, 0, id + i);
        }
        ring_doorbell(&t);
        for (i = 0; i < n; i++) {
            uint16_t want = t.phase;
            uint64_t slot = t.cq + t.cq_head * sizeof(raw);

            expect_cqe(&t, id++, SACC_STS_OK, 0);
            qtest_memread(t.qts, slot, &raw, sizeof(raw));
            g_assert_cmphex(le16_to_cpu(raw.phase), ==, want);
        }
        ack_cq(&t);
    }
    g_assert_cmpuint(id, >, 3 * 4);
    sacc_stop(&t);
}

static void test_cq_full(void)
{
    Sacc t;
    struct sacc_cqe cqe;
    int i;

    sacc_start(&t);
    ring_setup(&t, 8, 4);
    for (i = 0; i < 6; i++) {
        submit(&t, SACC_OP_NOP, 0, 0, 0, 0, 100 + i);
    }
    ring_doorbell(&t);

    /* only CQ_SIZE - 1 completions are posted */
    for (i = 0; i < 3; i++) {
        expect_cqe(&t, 100 + i, SACC_STS_OK, 0);
    }
    g_assert_false(wait_cqe(&t, &cqe, G_USEC_PER_SEC / 5));
    g_assert_cmphex(rd(&t, SACC_REG_STATUS), ==, SACC_STATUS_READY);

    /* freeing space resumes, in ring order */
    ack_cq(&t);
    for (i = 3; i < 6; i++) {
        expect_cqe(&t, 100 + i, SACC_STS_OK, 0);
    }
    ack_cq(&t);
    g_assert_false(wait_cqe(&t, &cqe, G_USEC_PER_SEC / 20));
    sacc_stop(&t);
}

static void test_msix(void)
{
    Sacc t;
    uint64_t msg;
    uint64_t tbl;
    uint32_t data = 0;
    gint64 deadline;

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

    ring_setup(&t, 4, 4);
    /* no IRQ flag: nothing */
    submit(&t, SACC_OP_NOP, 0, 0, 0, 0, 1);
    ring_doorbell(&t);
    expect_cqe(&t, 1, SACC_STS_OK, 0);
    g_assert_cmphex(rd(&t, SACC_REG_IRQ_STATUS), ==, 0);
    g_assert_false(qpci_msix_pending(t.dev, 0));

    /* masked vector: IRQ_STATUS set, PBA pending, no message */
    submit(&t, SACC_OP_NOP, 0, 0, 0, SACC_DESC_F_IRQ, 2);
    ring_doorbell(&t);
    expect_cqe(&t, 2, SACC_STS_OK, 0);
    g_assert_cmphex(rd(&t, SACC_REG_IRQ_STATUS), ==, SACC_IRQ_COMPLETION);
    g_assert_true(qpci_msix_pending(t.dev, 0));
    g_assert_cmphex(qtest_readl(t.qts, msg), ==, 0);
    wr(&t, SACC_REG_IRQ_ACK, SACC_IRQ_COMPLETION);
    g_assert_cmphex(rd(&t, SACC_REG_IRQ_STATUS), ==, 0);

    /* unmasked: the message is written */
    qpci_io_writel(t.dev, t.dev->msix_table_bar,
                   tbl + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
    qtest_writel(t.qts, msg, 0);
    submit(&t, SACC_OP_NOP, 0, 0, 0, SACC_DESC_F_IRQ, 3);
    ring_doorbell(&t);
    expect_cqe(&t, 3, SACC_STS_OK, 0);
    deadline = g_get_monotonic_time() + WAIT_US;
    while ((data = qtest_readl(t.qts, msg)) == 0 &&
           g_get_monotonic_time() < deadline) {
        g_usleep(100);
    }
    g_assert_cmphex(data, ==, 0x5acc);
    g_assert_cmphex(rd(&t, SACC_REG_IRQ_STATUS), ==, SACC_IRQ_COMPLETION);
    sacc_stop(&t);
}

/* Put the device into a thoroughly non-power-on state. */
static void make_dirty(Sacc *t)
{
    ring_setup(t, 8, 8);
    wr(t, SACC_REG_SCRATCH, 0x5a5a5a5a);
    submit(t, SACC_OP_MEMCPY, UNMAPPED, UNMAPPED, 8, SACC_DESC_F_IRQ, 9);
    ring_doorbell(t);
    expect_cqe(t, 9, SACC_STS_DMA_FAULT, 0);
    g_assert_cmpuint(rd(t, SACC_REG_FAULT_COUNT), ==, 1);
    g_assert_cmpuint(rd(t, SACC_REG_IRQ_STATUS), ==, SACC_IRQ_COMPLETION);
}

static void test_reset(void)
{
    Sacc t;
    uint64_t buf, snap;
    g_autofree uint8_t *before = NULL;
    g_autofree uint8_t *after = NULL;
    uint8_t exp, msix;
    uint16_t devctl;
    int i;

    sacc_start(&t);
    make_dirty(&t);
    wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET | SACC_CTRL_ENABLE);
    check_power_on(&t);

    /* RESET in the middle of a long batch: no DMA after it returns */
    ring_setup(&t, 64, 64);
    buf = guest_alloc(&t.qs->alloc, 2 * SACC_MAX_XFER);
    for (i = 0; i < 63; i++) {
        submit(&t, SACC_OP_MEMCPY, buf, buf + SACC_MAX_XFER,
               SACC_MAX_XFER, 0, i);
    }
    ring_doorbell(&t);
    wr(&t, SACC_REG_CTRL, SACC_CTRL_RESET);
    check_power_on(&t);
    snap = 64 * sizeof(struct sacc_cqe);
    before = g_malloc(snap);
    after = g_malloc(snap);
    qtest_memread(t.qts, t.cq, before, snap);
    g_usleep(G_USEC_PER_SEC / 5);
    qtest_memread(t.qts, t.cq, after, snap);
    g_assert_cmpmem(before, snap, after, snap);

    /* FLR: registers and MSI-X state back to power-on */
    qpci_msix_enable(t.dev);
    make_dirty(&t);
    exp = qpci_find_capability(t.dev, PCI_CAP_ID_EXP, 0);
    devctl = qpci_config_readw(t.dev, exp + PCI_EXP_DEVCTL);
    qpci_config_writew(t.dev, exp + PCI_EXP_DEVCTL,
                       devctl | PCI_EXP_DEVCTL_BCR_FLR);
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
            ring_enable(&t, sq, 1u << (rnd(&seed) % 18), cq,
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
    ring_setup(&t, 4, 4);
    submit(&t, SACC_OP_NOP, 0, 0, 0, 0, 42);
    ring_doorbell(&t);
    expect_cqe(&t, 42, SACC_STS_OK, 0);
    sacc_stop(&t);
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
    qtest_add_func("/sacc/ring-faults", test_ring_faults);
    qtest_add_func("/sacc/phase-laps", test_phase_laps);
    qtest_add_func("/sacc/cq-full", test_cq_full);
    qtest_add_func("/sacc/msix", test_msix);
    qtest_add_func("/sacc/reset", test_reset);
    qtest_add_func("/sacc/garbage", test_garbage);

    return g_test_run();
}

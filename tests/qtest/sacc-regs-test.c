/* SPDX-License-Identifier: MIT */
/*
 * QTest of the SACC device's registers and doorbells (docs/spec.md):
 * identity and PCI capabilities, register semantics (read-only, reserved,
 * write-only, 64-bit halves, locked while enabled), enable validation,
 * doorbell errors, channel 0 through BAR0 page 0 and every channel
 * through its BAR2 block, tail and token doorbells, MSI-X per channel.
 */

#include "sacc-qtest.h"

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

static void test_channel_blocks(void)
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

/*
 * A driver of channel 0 through BAR0 alone (MODE 0, as spec v0.2 knew
 * the device) next to busy channels driven through their blocks.
 */
static void test_channel0_page0(void)
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

    /* interleaved work: everyone completes, channel 0 in MODE 0 format */
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

    /* MODE.V3's opcodes are unknown opcodes on a MODE 0 channel */
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

/* Token doorbell: the tail comes from the PUT word. */
static void test_token(void)
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
static void test_token_put_fault(void)
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
static void test_msix_channels(void)
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

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/sacc/regs/identity", test_identity);
    qtest_add_func("/sacc/regs/page0", test_registers);
    qtest_add_func("/sacc/regs/enable-validation", test_enable_validation);
    qtest_add_func("/sacc/regs/doorbell-errors", test_doorbell_errors);
    qtest_add_func("/sacc/regs/channel-blocks", test_channel_blocks);
    qtest_add_func("/sacc/regs/channel0-page0", test_channel0_page0);
    qtest_add_func("/sacc/regs/token", test_token);
    qtest_add_func("/sacc/regs/token-put-fault", test_token_put_fault);
    qtest_add_func("/sacc/regs/msix", test_msix);
    qtest_add_func("/sacc/regs/msix-channels", test_msix_channels);

    return g_test_run();
}

/* SPDX-License-Identifier: MIT */
/*
 * QTest for 64-bit accesses to intel-iommu's 32-bit registers
 * (qemu-model/patches/0002-intel-iommu-split-64-bit-accesses-...).
 *
 * QEMU 7.2 aborts with "Assertion `size == 4' failed" in vtd_mem_write()
 * when a guest writes 8 bytes to FECTL, IECTL or IEADDR.  With the patch
 * such an access is done as two 32-bit accesses, lower dword first, as
 * VT-d hardware may split a quadword access.  Each case checks that QEMU
 * is still alive and that both dwords landed with the registers' write
 * masks applied.
 */

#include "qemu/osdep.h"
#include "libqtest.h"

#define VTD_BASE        0xfed90000ull
#define VTD_REG_SIZE    0x230

#define DMAR_VER        0x00
#define DMAR_GSTS       0x1c
#define DMAR_FSTS       0x34
#define DMAR_FECTL      0x38
#define DMAR_FEDATA     0x3c
#define DMAR_FEADDR     0x40
#define DMAR_FEUADDR    0x44
#define DMAR_IECTL      0xa0
#define DMAR_IEDATA     0xa4
#define DMAR_IEADDR     0xa8
#define DMAR_IEUADDR    0xac

#define VTD_IM          0x80000000u /* FECTL/IECTL interrupt mask */

static QTestState *vtd_start(void)
{
    return qtest_init("-machine q35 -nodefaults -device intel-iommu");
}

static uint32_t rd(QTestState *qts, uint64_t reg)
{
    return qtest_readl(qts, VTD_BASE + reg);
}

/* QEMU still answers, and the version register reads VT-d 1.0 */
static void assert_alive(QTestState *qts)
{
    g_assert_cmphex(rd(qts, DMAR_VER), ==, 0x10);
}

/* The reproducer: this write aborted stock QEMU 7.2 */
static void test_fectl_writeq(void)
{
    QTestState *qts = vtd_start();

    g_assert_cmphex(rd(qts, DMAR_FECTL), ==, VTD_IM);  /* reset value */
    qtest_writeq(qts, VTD_BASE + DMAR_FECTL, 0x3907);
    assert_alive(qts);
    /* Only IM is writable; the high dword went to FEDATA (bits 15:0) */
    g_assert_cmphex(rd(qts, DMAR_FECTL), ==, 0);
    g_assert_cmphex(rd(qts, DMAR_FEDATA), ==, 0);

    qtest_writeq(qts, VTD_BASE + DMAR_FECTL, 0x12345678ull << 32 | VTD_IM);
    assert_alive(qts);
    g_assert_cmphex(rd(qts, DMAR_FECTL), ==, VTD_IM);
    g_assert_cmphex(rd(qts, DMAR_FEDATA), ==, 0x5678);
    g_assert_cmphex(qtest_readq(qts, VTD_BASE + DMAR_FECTL), ==,
                    0x5678ull << 32 | VTD_IM);
    /* Nothing else moved */
    g_assert_cmphex(rd(qts, DMAR_FSTS), ==, 0);
    g_assert_cmphex(rd(qts, DMAR_FEADDR), ==, 0);
    qtest_quit(qts);
}

static void test_iectl_writeq(void)
{
    QTestState *qts = vtd_start();

    g_assert_cmphex(rd(qts, DMAR_IECTL), ==, VTD_IM);
    qtest_writeq(qts, VTD_BASE + DMAR_IECTL, 0xdeadbeefull << 32);
    assert_alive(qts);
    g_assert_cmphex(rd(qts, DMAR_IECTL), ==, 0);
    g_assert_cmphex(rd(qts, DMAR_IEDATA), ==, 0xdeadbeef);
    g_assert_cmphex(qtest_readq(qts, VTD_BASE + DMAR_IECTL), ==,
                    0xdeadbeefull << 32);

    qtest_writeq(qts, VTD_BASE + DMAR_IECTL, VTD_IM | 0x7fffffffull);
    assert_alive(qts);
    g_assert_cmphex(rd(qts, DMAR_IECTL), ==, VTD_IM);
    g_assert_cmphex(rd(qts, DMAR_IEDATA), ==, 0);
    qtest_quit(qts);
}

static void test_ieaddr_writeq(void)
{
    QTestState *qts = vtd_start();

    qtest_writeq(qts, VTD_BASE + DMAR_IEADDR, 0x12345678fee00003ull);
    assert_alive(qts);
    /* Bits 1:0 are reserved; IEUADDR is RsvdZ without EIM */
    g_assert_cmphex(rd(qts, DMAR_IEADDR), ==, 0xfee00000);
    g_assert_cmphex(rd(qts, DMAR_IEUADDR), ==, 0);
    g_assert_cmphex(qtest_readq(qts, VTD_BASE + DMAR_IEADDR), ==, 0xfee00000);
    /* A 32-bit write still works as before */
    qtest_writel(qts, VTD_BASE + DMAR_IEADDR, 0xfee01000);
    g_assert_cmphex(rd(qts, DMAR_IEADDR), ==, 0xfee01000);
    qtest_quit(qts);
}

/* FEADDR took 64-bit writes before the patch (Xen); unchanged */
static void test_feaddr_writeq(void)
{
    QTestState *qts = vtd_start();

    qtest_writeq(qts, VTD_BASE + DMAR_FEADDR, 0x1fee00004ull);
    assert_alive(qts);
    g_assert_cmphex(rd(qts, DMAR_FEADDR), ==, 0xfee00004);
    g_assert_cmphex(rd(qts, DMAR_FEUADDR), ==, 0);
    qtest_quit(qts);
}

/*
 * Every 8-byte read (aligned: the only kind the memory core passes on)
 * and every 4-byte read of the register file; then 8-byte writes of the
 * value just read to the fault and invalidation event registers.
 */
static void test_sweep(void)
{
    QTestState *qts = vtd_start();
    uint64_t off, v;

    for (off = 0; off < VTD_REG_SIZE; off += 8) {
        v = qtest_readq(qts, VTD_BASE + off);
        g_assert_cmphex(v & 0xffffffff, ==, rd(qts, off));
        g_assert_cmphex(v >> 32, ==, rd(qts, off + 4));
    }
    for (off = DMAR_FECTL; off < DMAR_IEUADDR; off += 8) {
        if (off == 0x60 || off == 0x68 || off == 0x70 || off == 0x78 ||
            off == 0x80 || off == 0x88 || off == 0x90 || off == 0x98) {
            continue; /* PMR and invalidation queue: not 32-bit pairs */
        }
        v = qtest_readq(qts, VTD_BASE + off);
        qtest_writeq(qts, VTD_BASE + off, v);
        assert_alive(qts);
        g_assert_cmphex(qtest_readq(qts, VTD_BASE + off), ==, v);
    }
    /* Translation stays off: GSTS is read-only and was never touched */
    g_assert_cmphex(rd(qts, DMAR_GSTS), ==, 0);
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/vtd-access/fectl-writeq", test_fectl_writeq);
    qtest_add_func("/vtd-access/iectl-writeq", test_iectl_writeq);
    qtest_add_func("/vtd-access/ieaddr-writeq", test_ieaddr_writeq);
    qtest_add_func("/vtd-access/feaddr-writeq", test_feaddr_writeq);
    qtest_add_func("/vtd-access/sweep", test_sweep);

    return g_test_run();
}

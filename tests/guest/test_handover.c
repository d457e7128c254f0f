/* SPDX-License-Identifier: MIT */
/*
 * sacc-kernel-handover - what a VFIO program finds on a device the kernel
 * driver (sacc_dma) has just let go (ci/guest-kernel handover), through
 * the spec suite's raw-VFIO fixture, from docs/spec.md alone:
 *
 *  - every register of every channel at its power-on value (section 9):
 *    no ring, no MODE, no fault record, no interrupt pending;
 *  - device memory all zero (vfio-pci's FLR at open, section 18): none
 *    of the kernel driver's data;
 *  - rings of its own see no completion they did not ask for (no stale
 *    work), and a copy through them is exact.
 *
 * The device is the one at $SACC_HANDOVER_BDF (default: the first SACC
 * device bound to vfio-pci).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "spec_vfio.h"

static unsigned int dev_index(void)
{
	const char *want = getenv("SACC_HANDOVER_BDF");

	for (unsigned int i = 0; want && i < guest_nr_devices(); i++)
		if (!strcmp(guest_bdf(i), want))
			return i;
	ck_assert_msg(!want, "%s is not bound to vfio-pci", want);
	return 0;
}

START_TEST(power_on_values)
{
	uint32_t nch;

	vd_open(&D, dev_index());
	expect_power_on(&D, "the kernel driver");
	nch = b2_rd32(&D, SACC_DEV_CHANNELS);
	ck_assert_uint_ge(nch, 1);
	ck_assert_uint_eq(b2_rd64(&D, SACC_DEV_IRQ_PENDING), 0);
	for (uint32_t k = 0; k < nch; k++) {
		static const uint32_t regs[] = {
		    SACC_REG_CTRL,	  SACC_REG_STATUS,	SACC_REG_SQ_SIZE,
		    SACC_REG_CQ_SIZE,	  SACC_REG_IRQ_STATUS,	SACC_REG_ERR_CODE,
		    SACC_REG_FAULT_INFO,  SACC_REG_FAULT_COUNT, SACC_REG_MODE,
		};
		uint32_t blk = SACC_CHAN_BLOCK(k);

		for (unsigned int i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
			ck_assert_msg(!b2_rd32(&D, blk + regs[i]),
				      "channel %u register 0x%02x reads 0x%x after the kernel driver",
				      k, regs[i], b2_rd32(&D, blk + regs[i]));
		ck_assert_uint_eq(b2_rd64(&D, blk + SACC_REG_SQ_BASE), 0);
		ck_assert_uint_eq(b2_rd64(&D, blk + SACC_REG_CQ_BASE), 0);
		ck_assert_uint_eq(b2_rd64(&D, blk + SACC_REG_PUT_ADDR), 0);
	}
	vd_close(&D);
}
END_TEST

START_TEST(device_memory_zeroed)
{
	uint64_t n, nonzero = 0, first = UINT64_MAX;

	vd_open(&D, dev_index());
	ck_assert_msg(D.bar4, "no device memory (BAR4) to check");
	n = D.bar4_len / 8;
	for (uint64_t i = 0; i < n; i++)
		if (((volatile uint64_t *)D.bar4)[i]) {
			nonzero++;
			if (first == UINT64_MAX)
				first = i * 8;
		}
	ck_assert_msg(!nonzero,
		      "%llu words of device memory left non-zero (first at +0x%llx): the last owner's data",
		      (unsigned long long)nonzero, (unsigned long long)first);
	vd_close(&D);
}
END_TEST

START_TEST(no_stale_work)
{
	struct dbuf *src, *dst;
	struct sacc_cqe c;

	vd_open(&D, dev_index());
	rings_init(&D, 64, 64);
	expect_no_cqe(&D, "rings of its own, nothing submitted");
	src = buf_new(&D, 65536, R);
	dst = buf_new(&D, 65536, W);
	fill_rand(src->va, 65536, 32);
	memset(dst->va, CANARY, 65536);
	c = run1(&D, SACC_OP_MEMCPY, src->iova, dst->iova, 65536, 0);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
	ck_assert_uint_eq(c.result_len, 65536);
	ck_assert_msg(!memcmp(src->va, dst->va, 65536), "the copy is not exact");
	expect_no_cqe(&D, "after its one copy");
	vd_close(&D);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kernel-handover");
	TCase *tc = tcase_create("after sacc_dma");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, power_on_values);
	tcase_add_test(tc, device_memory_zeroed);
	tcase_add_test(tc, no_stale_work);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

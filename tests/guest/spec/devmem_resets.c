// SPDX-License-Identifier: MIT
/*
 * devmem_resets.c - device memory across the resets (spec 9, 18): CTRL.RESET
 * and a channel's reset keep it, an FLR and reopening the device zero it
 */
#include "devmem.h"

/* ====================================================================
 * Device memory across the resets (spec 9, 18)
 * ==================================================================== */

/* Offset of the first non-zero byte of device memory, or -1. */
static int64_t dm_first_nonzero(void)
{
	const volatile uint64_t *w = (const volatile uint64_t *)D.bar4;

	for (uint64_t i = 0; i < S / 8; i++) {
		if (!w[i])
			continue;
		for (unsigned int b = 0; b < 8; b++)
			if (dm(i * 8)[b])
				return (int64_t)(i * 8 + b);
	}
	return -1;
}

static uint8_t *keep_ref;

/* Random bytes at the start and the end (CPU) and 1 MiB at DM_B
 * written by the device (H2D); keep_check() compares. */
static void keep_fill(struct dbuf *hs)
{
	struct sacc_cqe c;

	keep_ref = malloc(2 * PAGE);
	ck_assert(keep_ref);
	fill_rand(keep_ref, 2 * PAGE, 91);
	memcpy(dm(0), keep_ref, PAGE);
	memcpy(dm(S - PAGE), keep_ref + PAGE, PAGE);
	fill_rand(hs->va, MiB, 92);
	c = q_run1(&Q, SACC_OP_MEMCPY, hs->iova, DM_B, MiB,
		   SACC_DESC_F_DST_DEV);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
}

static void keep_check(struct dbuf *hs, const char *after)
{
	char m[96];

	snprintf(m, sizeof(m), "device memory's first page after %s", after);
	expect_bytes(dm(0), keep_ref, PAGE, 0, m);
	snprintf(m, sizeof(m), "device memory's last page after %s", after);
	expect_bytes(dm(S - PAGE), keep_ref + PAGE, PAGE, 0, m);
	snprintf(m, sizeof(m), "the device's 1 MiB after %s", after);
	expect_bytes(dm(DM_B), hs->va, MiB, 0, m);
	ck_assert_uint_eq(b2_rd64(&D, SACC_DEV_DEVMEM_SIZE), S);
}

/* Kept across CTRL.ENABLE, a channel reset and CTRL.RESET; zeroed,
 * every byte, by FLR (VFIO_DEVICE_RESET); usable after it. */
START_TEST(test_devmem_resets)
{
	struct sacc_cqe c;
	struct dbuf *hs;
	int64_t nz;
	double t;

	q_alloc(&Q, 8, 8);
	q_config(&Q, SACC_MODE_V3, 0, 0);
	q_start(&Q);
	hs = buf_new(&D, MiB, R);
	keep_fill(hs);
	q_wr32(&Q, SACC_REG_CTRL, 0);
	keep_check(hs, "clearing ENABLE");
	q_start(&Q);
	keep_check(hs, "setting ENABLE");
	q_reset(&Q);
	ck_assert_uint_eq(q_rd32(&Q, SACC_REG_MODE), 0);
	keep_check(hs, "a channel reset");
	wr32(&D, SACC_REG_CTRL, SACC_CTRL_RESET);
	keep_check(hs, "CTRL.RESET");

	t = now_s();
	ck_assert_int_eq(ioctl(D.device, VFIO_DEVICE_RESET), 0);
	fprintf(stderr, "test_devmem_resets: VFIO_DEVICE_RESET %.3f s\n",
		now_s() - t);
	nz = dm_first_nonzero();
	ck_assert_msg(nz < 0, "after FLR device memory byte 0x%llx is 0x%02x",
		      (unsigned long long)nz, nz < 0 ? 0 : dm(nz)[0]);
	ck_assert_uint_eq(b2_rd64(&D, SACC_DEV_DEVMEM_SIZE), S);
	/* Still memory for the CPU and the device. */
	dm(S - 1)[0] = 0x42;
	ck_assert_uint_eq(dm(S - 1)[0], 0x42);
	q_start(&Q);
	c = q_run1(&Q, SACC_OP_XFORM, hs->iova, DM_B, MiB, SACC_DESC_F_DST_DEV);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
	expect_bytes(dm(DM_B), hs->va, MiB, SACC_XFORM_KEY, "H2D after FLR");
	free(keep_ref);
}
END_TEST

/* Opening the device through VFIO resets it (spec 18): the next user
 * sees none of the last one's device memory. */
START_TEST(test_devmem_reopen)
{
	int64_t nz;

	fill_rand(dm(0), PAGE, 93);
	fill_rand(dm(S / 2), PAGE, 94);
	memset(dm(S - PAGE), 0xff, PAGE);
	vd_close(&D);
	vd_open(&D, 0);
	ck_assert_msg(D.bar4, "BAR4 gone after reopening");
	nz = dm_first_nonzero();
	ck_assert_msg(
	    nz < 0, "after close and open, device memory byte 0x%llx is 0x%02x",
	    (unsigned long long)nz, nz < 0 ? 0 : dm(nz)[0]);
}
END_TEST

void devmem_reset_tests(Suite *s)
{
	TCase *t = devmem_tc(s, "devmem-resets");

	tcase_add_test(t, test_devmem_resets);
	tcase_add_test(t, test_devmem_reopen);
}

// SPDX-License-Identifier: MIT
/*
 * devmem_compat.c - a channel without MODE.V3 (what a v0.2 driver sees, spec 5,
 * 18) ignores the device memory flags: host memory only, FILL,
 * WRITE_INLINE and TIMESTAMP unknown opcodes
 */
#include "devmem.h"

/* ====================================================================
 * A v0.2 channel ignores the flags (spec 5, 18)
 * ==================================================================== */

/*
 * Loop _i: 0 channel 0 through BAR0 page 0 (a v0.2 driver's view),
 * 1 channel CH with MODE 0, 2 channel CH with MODE.TOKEN alone.  Host
 * buffers at IOVAs beyond device memory (no device addresses at all)
 * and at IOVAs inside it (whose device bytes must not move).
 */
START_TEST(test_devmem_flags_ignored_without_v3)
{
	const uint16_t both = SACC_DESC_F_SRC_DEV | SACC_DESC_F_DST_DEV;
	struct dbuf *fs, *fd, *ns, *nd;
	struct sacc_cqe c;
	struct vq q;

	if (_i == 0)
		q_init(&q, &D, 0, true);
	else
		q_init(&q, &D, CH, false);
	q_alloc(&q, 8, 8);
	q_config(&q, _i == 2 ? SACC_MODE_TOKEN : 0, 0, 0);
	q_start(&q);
	ck_assert_uint_ge(IOVA_SPECIAL, S);
	fs = buf_at(&D, PAGE, IOVA_SPECIAL, R);
	fd = buf_at(&D, PAGE, IOVA_SPECIAL + 0x100000, W);
	ns = buf_new(&D, PAGE, R);
	nd = buf_new(&D, PAGE, W);
	ck_assert_uint_lt(nd->iova + PAGE, S);
	fill_rand(fs->va, PAGE, 71);
	fill_rand(ns->va, PAGE, 72);
	memset(fd->va, CANARY, PAGE);
	memset(nd->va, CANARY, PAGE);
	memset(dm(ns->iova), CANARY, PAGE);
	memset(dm(nd->iova), CANARY, PAGE);

	c = q_run1(&q, SACC_OP_MEMCPY, fs->iova, fd->iova, PAGE, both);
	ck_assert_msg(
	    c.status == SACC_STS_OK,
	    "MEMCPY with SRC_DEV|DST_DEV on a v0.2 channel: status %u "
	    "FAULT_INFO 0x%x",
	    c.status, q_rd32(&q, SACC_REG_FAULT_INFO));
	expect_bytes(fd->va, fs->va, PAGE, 0, "v0.2 MEMCPY, flags ignored");
	c = q_run1(&q, SACC_OP_XFORM, ns->iova, nd->iova, PAGE,
		   SACC_DESC_F_DST_DEV);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
	expect_bytes(nd->va, ns->va, PAGE, SACC_XFORM_KEY,
		     "v0.2 XFORM, DST_DEV ignored");
	ck_untouched(dm(nd->iova), PAGE, "device memory at dst's IOVA");
	ck_untouched(dm(ns->iova), PAGE, "device memory at src's IOVA");
	/* FILL, WRITE_INLINE and TIMESTAMP are unknown opcodes here. */
	memset(fd->va, CANARY, PAGE);
	for (uint16_t op = SACC_OP_WRITE_INLINE; op <= SACC_OP_FILL; op++) {
		c = q_run1(&q, op, 0x55, fd->iova, 64, both);
		ck_assert_msg(c.status == SACC_STS_BAD_OPCODE,
			      "opcode %u on a v0.2 channel: status %u", op,
			      c.status);
		ck_assert_uint_eq(q_rd32(&q, SACC_REG_ERR_CODE),
				  SACC_ERR_BAD_OPCODE);
	}
	ck_untouched(fd->va, PAGE, "dst of unknown opcodes");
	ck_assert_uint_eq(q_rd32(&q, SACC_REG_FAULT_COUNT), 0);
	q_expect_ready(&q);
}
END_TEST

void devmem_compat_tests(Suite *s)
{
	TCase *t = devmem_tc(s, "devmem-compat");

	tcase_add_loop_test(t, test_devmem_flags_ignored_without_v3, 0, 3);
}

// SPDX-License-Identifier: MIT
/*
 * enable.c - enable validation (spec 4): ring sizes and bases checked at
 * enable, the minimum alignment, disable dropping state and work in
 * flight
 */
#include "spec.h"

START_TEST(test_enable_validation)
{
	static const struct {
		uint32_t sqs, cqs;
		uint64_t sqb, cqb;
		uint32_t err;
	} bad[] = {
		{0, 8, 0, 0, SACC_ERR_INVALID},
		{1, 8, 0, 0, SACC_ERR_INVALID},
		{3, 8, 0, 0, SACC_ERR_INVALID},
		{12, 8, 0, 0, SACC_ERR_INVALID},
		{65535, 8, 0, 0, SACC_ERR_INVALID},
		{131072, 8, 0, 0, SACC_ERR_INVALID},
		{0x80000000, 8, 0, 0, SACC_ERR_INVALID},
		{0xffffffff, 8, 0, 0, SACC_ERR_INVALID},
		{8, 0, 0, 0, SACC_ERR_INVALID},
		{8, 1, 0, 0, SACC_ERR_INVALID},
		{8, 6, 0, 0, SACC_ERR_INVALID},
		{8, 131072, 0, 0, SACC_ERR_INVALID},
		{8, 0xffffffff, 0, 0, SACC_ERR_INVALID},
		{8, 8, 0x1001, 0, SACC_ERR_DMA},
		{8, 8, 0x1004, 0, SACC_ERR_DMA},
		{8, 8, 0x1008, 0, SACC_ERR_DMA},
		{8, 8, 0x1010, 0, SACC_ERR_DMA},
		{8, 8, 0x100000010ull, 0, SACC_ERR_DMA},
		{8, 8, 0, 0x2001, SACC_ERR_DMA},
		{8, 8, 0, 0x2004, SACC_ERR_DMA},
		{8, 8, 0, 0x2008, SACC_ERR_DMA},
		{8, 8, 0, 0x8000000008ull, SACC_ERR_DMA},
		/* a ring may not wrap past 2^64 */
		{2, 8, 0xffffffffffffffe0ull, 0, SACC_ERR_DMA},
		{8, 2, 0, 0xfffffffffffffff0ull, SACC_ERR_DMA},
	};
	static const struct {
		uint32_t sqs, cqs;
		uint64_t sqb, cqb;
	} good[] = {
		{2, 2, 0, 0},
		{65536, 65536, 0x20, 0x10},
		{2, 65536, 0x7fffffffe0ull, 0x30},
		{65536, 2, 0x1000, 0xffffffffffffffe0ull}, /* ends at 2^64 - 1 */
		{256, 4, 0x40, 0x50},
	};

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		wr32(&D, SACC_REG_CTRL, SACC_CTRL_RESET);
		wr32(&D, SACC_REG_SQ_SIZE, bad[i].sqs);
		wr32(&D, SACC_REG_CQ_SIZE, bad[i].cqs);
		wr64(&D, SACC_REG_SQ_BASE, bad[i].sqb);
		wr64(&D, SACC_REG_CQ_BASE, bad[i].cqb);
		wr32(&D, SACC_REG_CTRL, SACC_CTRL_ENABLE);
		ck_assert_msg(rd32(&D, SACC_REG_STATUS) == SACC_STATUS_ERROR &&
				      rd32(&D, SACC_REG_ERR_CODE) == bad[i].err,
			      "case %u (SQ %u@0x%llx CQ %u@0x%llx): STATUS 0x%x "
			      "ERR_CODE %u, expected ERROR and %u",
			      i, bad[i].sqs, (unsigned long long)bad[i].sqb,
			      bad[i].cqs, (unsigned long long)bad[i].cqb,
			      rd32(&D, SACC_REG_STATUS),
			      rd32(&D, SACC_REG_ERR_CODE), bad[i].err);
		ck_assert_uint_eq(rd32(&D, SACC_REG_CTRL), SACC_CTRL_ENABLE);
		/* The device does nothing: a doorbell is NOT_READY. */
		wr32(&D, SACC_DOORBELL_OFFSET, 1);
		ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE), SACC_ERR_NOT_READY);
		ck_assert_uint_eq(rd32(&D, SACC_REG_STATUS), SACC_STATUS_ERROR);
	}

	for (unsigned int i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		wr32(&D, SACC_REG_CTRL, SACC_CTRL_RESET);
		wr32(&D, SACC_REG_SQ_SIZE, good[i].sqs);
		wr32(&D, SACC_REG_CQ_SIZE, good[i].cqs);
		wr64(&D, SACC_REG_SQ_BASE, good[i].sqb);
		wr64(&D, SACC_REG_CQ_BASE, good[i].cqb);
		wr32(&D, SACC_REG_CTRL, SACC_CTRL_ENABLE);
		ck_assert_msg(rd32(&D, SACC_REG_STATUS) == SACC_STATUS_READY,
			      "valid case %u: STATUS 0x%x ERR_CODE %u", i,
			      rd32(&D, SACC_REG_STATUS),
			      rd32(&D, SACC_REG_ERR_CODE));
		ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE), 0);
	}

	/* Invalid, then clear ENABLE, fix, enable: READY, ERROR cleared,
	 * ERR_CODE kept until reset (spec 4). */
	wr32(&D, SACC_REG_CTRL, SACC_CTRL_RESET);
	wr32(&D, SACC_REG_SQ_SIZE, 5);
	wr32(&D, SACC_REG_CQ_SIZE, 8);
	wr32(&D, SACC_REG_CTRL, SACC_CTRL_ENABLE);
	ck_assert_uint_eq(rd32(&D, SACC_REG_STATUS), SACC_STATUS_ERROR);
	wr32(&D, SACC_REG_CTRL, SACC_CTRL_ENABLE); /* ENABLE again: no effect */
	ck_assert_uint_eq(rd32(&D, SACC_REG_STATUS), SACC_STATUS_ERROR);
	wr32(&D, SACC_REG_CTRL, 0);
	ck_assert_uint_eq(rd32(&D, SACC_REG_STATUS) & SACC_STATUS_READY, 0);
	wr32(&D, SACC_REG_SQ_SIZE, 8);
	wr32(&D, SACC_REG_CTRL, SACC_CTRL_ENABLE);
	ck_assert_uint_eq(rd32(&D, SACC_REG_STATUS), SACC_STATUS_READY);
	ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE), SACC_ERR_INVALID);
}
END_TEST

/* Bases aligned to exactly 32 / 16 bytes work, and the device uses them. */
START_TEST(test_enable_min_alignment)
{
	struct sacc_cqe c;

	D.sq_off = 32 * 3;
	D.cq_off = 16 * 5;
	rings_init(&D, 4, 4);
	for (unsigned int i = 0; i < 6; i++) {
		c = run1(&D, SACC_OP_NOP, 0, 0, 0, 0);
		ck_assert_uint_eq(c.status, SACC_STS_OK);
	}
	for (unsigned int i = 0; i < D.cq_off; i++)
		ck_assert_msg(!D.cq->va[i], "CQ byte %u before CQ_BASE written", i);
	for (unsigned int i = D.cq_off + 4 * 16; i < PAGE; i++)
		ck_assert_msg(!D.cq->va[i], "CQ byte %u after the ring written", i);
}
END_TEST

/* Clearing ENABLE drops ring state; re-enable starts at 0 with phase 1. */
START_TEST(test_disable_drops_state)
{
	struct sacc_cqe c;
	uint32_t id;

	rings_init(&D, 8, 8);
	for (unsigned int i = 0; i < 3; i++)
		run1(&D, SACC_OP_NOP, 0, 0, 0, 0);
	wr32(&D, SACC_REG_CTRL, 0);
	ck_assert_uint_eq(rd32(&D, SACC_REG_STATUS), 0);
	/* Doorbell while disabled: NOT_READY, ignored. */
	push(&D, SACC_OP_NOP, 0, 0, 0, 0);
	ring(&D);
	ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE), SACC_ERR_NOT_READY);
	expect_no_cqe(&D, "doorbell while disabled");

	rings_start(&D); /* zeroes the CQ, head/tail 0, phase 1 */
	id = push(&D, SACC_OP_NOP, 0, 0, 0, 0);
	ring(&D);
	c = take(&D, id);
	cq_ack(&D);
	ck_assert_uint_eq(c.phase, 1);
	ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE), SACC_ERR_NOT_READY);
}
END_TEST

/* Clearing ENABLE abandons work in flight too (spec 4). */
START_TEST(test_disable_in_flight)
{
	struct dbuf *src;

	rings_alloc(&D, 16, 16, R, W);
	src = buf_new(&D, PAGE, R);
	fill_rand(src->va, PAGE, 12);
	reset_in_flight(&D, STOP_DISABLE);
	ck_assert_uint_eq(rd32(&D, SACC_REG_STATUS), 0);
	wr32(&D, SACC_REG_CTRL, SACC_CTRL_RESET);
	expect_recovers(&D, src);
}
END_TEST

void enable_tests(Suite *s)
{
	TCase *t = spec_tc(s, "enable");

	tcase_add_test(t, test_enable_validation);
	tcase_add_test(t, test_enable_min_alignment);
	tcase_add_test(t, test_disable_drops_state);
	tcase_add_test(t, test_disable_in_flight);
}

// SPDX-License-Identifier: MIT
/*
 * ops.c - operations (spec 6): NOP, MEMCPY and XFORM of every size,
 * bad lengths and opcodes, a mixed batch completing in order
 */
#include "spec.h"

START_TEST(test_nop)
{
	struct sacc_cqe c;

	rings_init(&D, 4, 4);
	/* src, dst and length are ignored: no DMA, no fault. */
	c = run1(&D, SACC_OP_NOP, IOVA_HOLE, ~0ull - 8, 0xffffffff, 0);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
	ck_assert_uint_eq(c.result_len, 0);
	c = run1(&D, SACC_OP_NOP, 0, 0, 0, 0);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
	ck_assert_uint_eq(c.phase, 1);
	ck_assert_uint_eq(rd32(&D, SACC_REG_FAULT_COUNT), 0);
	ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE), 0);
	ck_assert_uint_eq(rd32(&D, SACC_REG_IRQ_STATUS), 0);
	expect_ready(&D);
	/* The flag sets IRQ_STATUS bit 0 even with MSI-X not enabled. */
	c = run1(&D, SACC_OP_NOP, 0, 0, 0, SACC_DESC_F_IRQ);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
	ck_assert_uint_eq(rd32(&D, SACC_REG_IRQ_STATUS), SACC_IRQ_COMPLETION);
}
END_TEST

/* MEMCPY (_i = 0) and XFORM (_i = 1) at 1 B to 1 MiB, odd sizes and
 * offsets across 4 KiB boundaries; neighbours of dst untouched. */
START_TEST(test_copy_sizes)
{
	static const struct {
		uint32_t len, soff, doff;
	} cases[] = {
		{1, 0, 0}, {1, 4095, 4095}, {2, 4095, 4095}, {3, 1, 2},
		{7, 4093, 4094}, {4095, 1, 0}, {4096, 0, 0}, {4096, 1, 4095},
		{4097, 0, 4095}, {8191, 3, 5}, {12289, 4000, 100},
		{65539, 0, 7}, {MiB - 1, 17, 4}, {MiB, 0, 0}, {MiB, 1, 4095},
	};
	const uint16_t op = _i ? SACC_OP_XFORM : SACC_OP_MEMCPY;
	const uint8_t key = _i ? SACC_XFORM_KEY : 0;
	struct dbuf *src, *dst;

	rings_init(&D, 16, 16);
	src = buf_new(&D, MiB + 2 * PAGE, R);
	dst = buf_new(&D, MiB + 3 * PAGE, W);
	fill_rand(src->va, src->len, 1234 + _i);
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const uint32_t len = cases[i].len, so = cases[i].soff;
		const uint32_t doff = PAGE + cases[i].doff; /* room before */
		struct sacc_cqe c;
		size_t end = doff + len;

		memset(dst->va, CANARY, dst->len);
		c = run1(&D, op, src->iova + so, dst->iova + doff, len, 0);
		ck_assert_msg(c.status == SACC_STS_OK && c.result_len == len,
			      "%s len %u: status %u result_len %u",
			      _i ? "xform" : "memcpy", len, c.status, c.result_len);
		for (uint32_t k = 0; k < len; k++)
			if (dst->va[doff + k] != (src->va[so + k] ^ key))
				ck_abort_msg("%s len %u soff %u doff %u: byte %u is "
					     "0x%02x, expected 0x%02x",
					     _i ? "xform" : "memcpy", len, so,
					     cases[i].doff, k, dst->va[doff + k],
					     src->va[so + k] ^ key);
		ck_untouched(dst->va, doff, "bytes before dst");
		ck_untouched(dst->va + end, dst->len - end, "bytes after dst");
	}
	ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE), 0);
	ck_assert_uint_eq(rd32(&D, SACC_REG_FAULT_COUNT), 0);
	/* src and dst may overlap: src is read first (spec 6). */
	struct dbuf *ov = buf_new(&D, 2 * PAGE, R | W);

	fill_rand(ov->va, 2 * PAGE, 99);
	memcpy(src->va, ov->va, 2 * PAGE);
	ck_assert_uint_eq(run1(&D, op, ov->iova, ov->iova + 100, PAGE, 0).status,
			  SACC_STS_OK);
	for (uint32_t k = 0; k < PAGE; k++)
		ck_assert_uint_eq(ov->va[100 + k], src->va[k] ^ key);
}
END_TEST

START_TEST(test_bad_length)
{
	static const uint32_t lens[] = {0, MiB + 1, 2 * MiB, 0x80000000, 0xffffffff};
	struct dbuf *src, *dst;

	rings_init(&D, 8, 8);
	src = buf_new(&D, 2 * MiB + PAGE, R);
	dst = buf_new(&D, 2 * MiB + PAGE, W);
	memset(dst->va, CANARY, dst->len);
	for (unsigned int op = SACC_OP_MEMCPY; op <= SACC_OP_XFORM; op++) {
		for (unsigned int i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			struct sacc_cqe c;

			wr32(&D, SACC_REG_CTRL, SACC_CTRL_RESET);
			rings_start(&D);
			c = run1(&D, op, src->iova, dst->iova, lens[i], 0);
			ck_assert_msg(c.status == SACC_STS_BAD_LENGTH,
				      "op %u len 0x%x: status %u", op, lens[i],
				      c.status);
			ck_assert_uint_eq(c.result_len, 0);
			ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE),
					  SACC_ERR_INVALID);
			expect_ready(&D);
			ck_assert_uint_eq(rd32(&D, SACC_REG_FAULT_COUNT), 0);
		}
	}
	ck_untouched(dst->va, dst->len, "dst after bad lengths (no DMA)");
	/* The device goes on; ERR_CODE holds the last error. */
	ck_assert_uint_eq(run1(&D, SACC_OP_MEMCPY, src->iova, dst->iova, 1, 0).status,
			  SACC_STS_OK);
	ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE), SACC_ERR_INVALID);
}
END_TEST

START_TEST(test_bad_opcode)
{
	static const uint16_t ops[] = {3, 4, 0x100, 0x8000, 0xffff};
	struct dbuf *src, *dst;

	rings_init(&D, 8, 8);
	src = buf_new(&D, PAGE, R);
	dst = buf_new(&D, PAGE, W);
	memset(dst->va, CANARY, dst->len);
	for (unsigned int i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct sacc_cqe c = run1(&D, ops[i], src->iova, dst->iova, 64,
					 0);

		ck_assert_msg(c.status == SACC_STS_BAD_OPCODE,
			      "opcode 0x%x: status %u", ops[i], c.status);
		ck_assert_uint_eq(c.result_len, 0);
		ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE), SACC_ERR_BAD_OPCODE);
		expect_ready(&D);
	}
	ck_untouched(dst->va, dst->len, "dst after bad opcodes (no DMA)");
	ck_assert_uint_eq(rd32(&D, SACC_REG_FAULT_COUNT), 0);
}
END_TEST

/* One doorbell, a mixed batch: one completion each, in ring order. */
START_TEST(test_mixed_batch_order)
{
	struct dbuf *src, *dst;
	struct {
		uint16_t op;
		uint32_t len;
		uint64_t dst_off; /* ~0: unmapped */
		uint16_t status;
	} b[] = {
		{SACC_OP_MEMCPY, 100, 0, SACC_STS_OK},
		{7, 100, 0, SACC_STS_BAD_OPCODE},
		{SACC_OP_NOP, 0, 0, SACC_STS_OK},
		{SACC_OP_XFORM, 0, 0, SACC_STS_BAD_LENGTH},
		{SACC_OP_MEMCPY, 64, ~0ull, SACC_STS_DMA_FAULT},
		{SACC_OP_XFORM, 4097, 8192, SACC_STS_OK},
		{SACC_OP_MEMCPY, MiB + 1, 0, SACC_STS_BAD_LENGTH},
		{SACC_OP_MEMCPY, 5, 4094, SACC_STS_OK},
		{0x1234, 1, 0, SACC_STS_BAD_OPCODE},
		{SACC_OP_NOP, 77, 0, SACC_STS_OK},
	};
	const unsigned int n = sizeof(b) / sizeof(b[0]);
	uint32_t ids[16];

	rings_init(&D, 16, 16);
	src = buf_new(&D, 4 * PAGE, R);
	dst = buf_new(&D, 4 * PAGE, W);
	fill_rand(src->va, src->len, 5);
	dmar_budget(1);
	for (unsigned int i = 0; i < n; i++)
		ids[i] = push(&D, b[i].op, src->iova,
			      b[i].dst_off == ~0ull ? IOVA_HOLE
						   : dst->iova + b[i].dst_off,
			      b[i].len, 0);
	ring(&D);
	for (unsigned int i = 0; i < n; i++) {
		struct sacc_cqe c = take(&D, ids[i]);
		uint32_t want = b[i].status == SACC_STS_OK && b[i].op != SACC_OP_NOP
					? b[i].len : 0;

		ck_assert_msg(c.status == b[i].status && c.result_len == want,
			      "entry %u: status %u result_len %u, expected %u %u",
			      i, c.status, c.result_len, b[i].status, want);
	}
	cq_ack(&D);
	ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE), SACC_ERR_BAD_OPCODE);
	ck_assert_uint_eq(rd32(&D, SACC_REG_FAULT_COUNT), 1);
	ck_assert_uint_eq(rd32(&D, SACC_REG_FAULT_REQ_ID), ids[4]);
	expect_ready(&D);
	for (uint32_t k = 0; k < 4097; k++)
		ck_assert_uint_eq(dst->va[8192 + k], src->va[k] ^ SACC_XFORM_KEY);
}
END_TEST

void op_tests(Suite *s)
{
	TCase *t = spec_tc(s, "ops");

	tcase_add_test(t, test_nop);
	tcase_add_loop_test(t, test_copy_sizes, 0, 2);
	tcase_add_test(t, test_bad_length);
	tcase_add_test(t, test_bad_opcode);
	tcase_add_test(t, test_mixed_batch_order);
}

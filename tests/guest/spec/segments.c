// SPDX-License-Identifier: MIT
/*
 * segments.c - pushbuffer segments (docs/spec.md section 21, opcode 6
 * SEGMENT), probe by probe through the raw-VFIO fixture: every command
 * kind in host and in device memory, inline payloads inside, no
 * nesting, TIMESTAMPs around commands, relaunching unchanged and
 * rewritten.
 *
 * Written from the spec alone, not from the model: where the spec leaves
 * a question open, the probe prints what the device did ("open
 * question") and asserts nothing about it.  The channel under test is
 * channel 1 with MODE.V3, as in devmem.c.
 */
#include "segment.h"

#define AREA   (64 * 1024u)

/* ====================================================================
 * Every command kind, in host memory (_i 0) and device memory (_i 1)
 * ==================================================================== */

START_TEST(test_seg_kinds)
{
	const uint16_t SD = SACC_DESC_F_SRC_DEV, DD = SACC_DESC_F_DST_DEV;
	const uint64_t P1 = 0x8877665544332211ull, P2 = 0x0102030405060708ull;
	uint8_t *exp_h = malloc(AREA), *exp_d = malloc(AREA);
	uint8_t *ref_hs = malloc(AREA), *ref_da = malloc(AREA), *segcopy;
	uint8_t in1[100], in2[32];
	struct dbuf *hs, *hd, *hseg;
	uint64_t t0, t1, tsh, tsd;
	struct seg g;
	struct sacc_cqe c;

	ck_assert(exp_h && exp_d && ref_hs && ref_da);
	start_q(8, 8);
	hs = buf_new(&D, AREA, R);
	hd = buf_new(&D, AREA, W);
	hseg = buf_new(&D, PAGE, R);
	fill_rand(hs->va, AREA, 71);
	memcpy(ref_hs, hs->va, AREA);
	fill_rand(ref_da, AREA, 72);
	memcpy(dm(DM_A), ref_da, AREA);
	memset(hd->va, CANARY, AREA);
	memset(dm(DM_B), CANARY, AREA);
	memset(exp_h, CANARY, AREA);
	memset(exp_d, CANARY, AREA);
	fill_rand(in1, sizeof(in1), 73);
	fill_rand(in2, sizeof(in2), 74);

	seg_init(&g, _i, hseg, DM_SEG);
	/* NOP: addresses and length ignored, its IRQ flag too (spec 21). */
	seg_cmd(&g, SACC_OP_NOP, ~0ull, ~0ull, 5, SACC_DESC_F_IRQ | SD | DD);
	/* MEMCPY in all four directions. */
	seg_cmd(&g, SACC_OP_MEMCPY, hs->iova, hd->iova, 3000, 0);
	memcpy(exp_h, ref_hs, 3000);
	seg_cmd(&g, SACC_OP_MEMCPY, hs->iova + 3000, DM_B, 5000, DD);
	memcpy(exp_d, ref_hs + 3000, 5000);
	seg_cmd(&g, SACC_OP_MEMCPY, DM_A, hd->iova + 8192, PAGE + 7, SD);
	memcpy(exp_h + 8192, ref_da, PAGE + 7);
	seg_cmd(&g, SACC_OP_MEMCPY, DM_A + 100, DM_B + 16384, 9000, SD | DD);
	memcpy(exp_d + 16384, ref_da + 100, 9000);
	/* XFORM, H2D and D2H. */
	seg_cmd(&g, SACC_OP_XFORM, hs->iova + 8000, DM_B + 32768, 777, DD);
	for (int k = 0; k < 777; k++)
		exp_d[32768 + k] = ref_hs[8000 + k] ^ SACC_XFORM_KEY;
	seg_cmd(&g, SACC_OP_XFORM, DM_A + 5, hd->iova + 20000, 1234, SD);
	for (int k = 0; k < 1234; k++)
		exp_h[20000 + k] = ref_da[5 + k] ^ SACC_XFORM_KEY;
	/* WRITE_INLINE, payloads in the segment: 4 slots and 1 slot. */
	seg_inline(&g, hd->iova + 30000, in1, sizeof(in1), 0);
	memcpy(exp_h + 30000, in1, sizeof(in1));
	seg_inline(&g, DM_B + 40000, in2, sizeof(in2), DD);
	memcpy(exp_d + 40000, in2, sizeof(in2));
	/* FILL, host and device. */
	seg_cmd(&g, SACC_OP_FILL, P1, hd->iova + 40000, 1000, 0);
	pat_fill(exp_h + 40000, P1, 1000);
	seg_cmd(&g, SACC_OP_FILL, P2, DM_B + 50000, 999, DD);
	pat_fill(exp_d + 50000, P2, 999);
	/* TIMESTAMP, host and device. */
	seg_cmd(&g, SACC_OP_TIMESTAMP, 0, hd->iova + 50003, 0, 0);
	seg_cmd(&g, SACC_OP_TIMESTAMP, 0, DM_B + 60000, 0, DD);
	ck_assert_uint_eq(g.n, g.cmds + 5);
	segcopy = malloc(g.n * 32);
	ck_assert(segcopy);
	memcpy(segcopy, g.va, g.n * 32);

	t0 = b2_rd64(&D, SACC_DEV_CLOCK);
	c = seg_launch(&g);
	t1 = b2_rd64(&D, SACC_DEV_CLOCK);
	ck_assert_msg(c.status == SACC_STS_OK && c.result_len == g.cmds,
		      "%s segment of %u commands (%u slots): status %u "
		      "result_len %u (FAULT_INFO 0x%x FAULT_ADDR 0x%llx "
		      "FAULT_REQ_ID 0x%x)",
		      where_name[_i], g.cmds, g.n, c.status, c.result_len,
		      q_rd32(&Q, SACC_REG_FAULT_INFO),
		      (unsigned long long)q_rd64(&Q, SACC_REG_FAULT_ADDR),
		      q_rd32(&Q, SACC_REG_FAULT_REQ_ID));
	tsh = ld64(hd->va + 50003);
	tsd = ld64(dm(DM_B + 60000));
	ck_assert_msg(t0 <= tsh && tsh <= tsd && tsd <= t1,
		      "timestamps %llu, %llu not ordered within the CLOCK "
		      "reads [%llu, %llu]",
		      (unsigned long long)tsh, (unsigned long long)tsd,
		      (unsigned long long)t0, (unsigned long long)t1);
	memcpy(exp_h + 50003, &tsh, 8);
	memcpy(exp_d + 60000, &tsd, 8);
	expect_same(hd->va, exp_h, AREA, "host destination area");
	expect_same(dm(DM_B), exp_d, AREA, "device destination area");
	expect_same(hs->va, ref_hs, AREA, "host source");
	expect_same(dm(DM_A), ref_da, AREA, "device source");
	expect_same(g.va, segcopy, g.n * 32, "the segment (device reads it)");
	/* Word 8 spans the whole segment, so both timestamps. */
	ck_assert_msg(c.engine_ns >= tsd - tsh,
		      "engine_ns %u < the timestamps' distance %llu",
		      c.engine_ns, (unsigned long long)(tsd - tsh));
	ck_assert_uint_eq(q_rd32(&Q, SACC_REG_ERR_CODE), 0);
	ck_assert_uint_eq(q_rd32(&Q, SACC_REG_FAULT_COUNT), 0);
	/* A command's IRQ flag is ignored; the entry's counts. */
	ck_assert_msg(!(q_rd32(&Q, SACC_REG_IRQ_STATUS) & SACC_IRQ_COMPLETION),
		      "a command's IRQ flag raised IRQ_STATUS");
	c = seg_launch_len(&g, g.n * 32, SACC_DESC_F_IRQ);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
	ck_assert_uint_eq(c.result_len, g.cmds);
	ck_assert_msg(q_rd32(&Q, SACC_REG_IRQ_STATUS) & SACC_IRQ_COMPLETION,
		      "the entry's IRQ flag did not set IRQ_STATUS");
	q_wr32(&Q, SACC_REG_IRQ_ACK, SACC_IRQ_COMPLETION);
	ck_assert_uint_eq(rd32(&D, SACC_REG_FAULT_COUNT), 0);
	free(exp_h);
	free(exp_d);
	free(ref_hs);
	free(ref_da);
	free(segcopy);
}
END_TEST

/* ====================================================================
 * No nesting (spec 21: SEGMENT inside a segment has status 1)
 * ==================================================================== */

START_TEST(test_seg_nested)
{
	const uint64_t P = 0x0f0e0d0c0b0a0908ull;
	struct dbuf *hd, *hseg, *hin;
	struct seg g, in;
	struct sacc_cqe c;

	start_q(8, 8);
	hd = buf_new(&D, PAGE, W);
	hseg = buf_new(&D, PAGE, R);
	hin = buf_new(&D, PAGE, R);
	/* The inner segment would FILL hd + 512 if it ran. */
	seg_init(&in, _i, hin, DM_IN);
	seg_cmd(&in, SACC_OP_FILL, P, hd->iova + 512, 64, 0);
	ck_assert_uint_eq(seg_launch(&in).status, SACC_STS_OK);
	ck_assert_uint_eq(hd->va[512], 0x08);

	for (uint32_t at = 0; at <= 2; at += 2) {
		memset(hd->va, CANARY, PAGE);
		seg_init(&g, _i, hseg, DM_SEG);
		for (uint32_t k = 0; k < at; k++)
			seg_cmd(&g, SACC_OP_FILL, P, hd->iova + 8 * k, 8, 0);
		seg_cmd(&g, SACC_OP_SEGMENT, in.addr, 0, 32, in.flags);
		seg_cmd(&g, SACC_OP_FILL, P, hd->iova + 256, 8, 0);
		c = seg_launch(&g);
		ck_assert_msg(c.status == SACC_STS_BAD_OPCODE &&
				  c.result_len == at,
			      "SEGMENT at index %u: status %u result_len %u",
			      at, c.status, c.result_len);
		ck_assert_uint_eq(q_rd32(&Q, SACC_REG_ERR_CODE),
				  SACC_ERR_BAD_OPCODE);
		ck_untouched(hd->va + 8 * at, PAGE - 8 * at,
			     "the nested segment or the command after it");
		for (uint32_t k = 0; k < 8 * at; k++)
			ck_assert_uint_eq(hd->va[k],
					  (uint8_t)(P >> (8 * (k % 8))));
	}
	ck_assert_uint_eq(q_rd32(&Q, SACC_REG_FAULT_COUNT), 0);
	q_expect_ready(&Q);
}
END_TEST

/* ====================================================================
 * TIMESTAMPs around commands (spec 16, 21)
 * ==================================================================== */

START_TEST(test_seg_timestamps)
{
	struct dbuf *hs, *hd, *hts, *hseg;
	uint64_t t0, t1, ts[5], before, after;
	struct seg g;
	struct sacc_cqe c;

	start_q(8, 8);
	hs = buf_new(&D, MiB, R);
	hd = buf_new(&D, MiB, W);
	hts = buf_new(&D, PAGE, W);
	hseg = buf_new(&D, PAGE, R);
	fill_rand(hs->va, MiB, 91);
	memset(hts->va, 0, PAGE);

	seg_init(&g, _i, hseg, DM_SEG);
	seg_cmd(&g, SACC_OP_TIMESTAMP, 0, hts->iova, 0, 0);
	seg_cmd(&g, SACC_OP_MEMCPY, hs->iova, hd->iova, MiB, 0);
	seg_cmd(&g, SACC_OP_TIMESTAMP, 0, DM_B, 0, SACC_DESC_F_DST_DEV);
	seg_cmd(&g, SACC_OP_FILL, 0x1234, DM_B + PAGE, MiB,
		SACC_DESC_F_DST_DEV);
	seg_cmd(&g, SACC_OP_TIMESTAMP, 0, hts->iova + 8, 0, 0);
	seg_cmd(&g, SACC_OP_TIMESTAMP, 0, hts->iova + 16, 0, 0);
	seg_cmd(&g, SACC_OP_XFORM, hd->iova, DM_B + 2 * MiB, MiB,
		SACC_DESC_F_DST_DEV);
	seg_cmd(&g, SACC_OP_TIMESTAMP, 0, hts->iova + 24, 0, 0);

	c = q_run1(&Q, SACC_OP_TIMESTAMP, 0, hts->iova + 64, 0, 0);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
	t0 = b2_rd64(&D, SACC_DEV_CLOCK);
	c = seg_launch(&g);
	t1 = b2_rd64(&D, SACC_DEV_CLOCK);
	ck_assert_msg(c.status == SACC_STS_OK && c.result_len == g.cmds,
		      "status %u result_len %u", c.status, c.result_len);
	before = ld64(hts->va + 64);
	ts[0] = ld64(hts->va);
	ts[1] = ld64(dm(DM_B));
	ts[2] = ld64(hts->va + 8);
	ts[3] = ld64(hts->va + 16);
	ts[4] = ld64(hts->va + 24);
	ck_assert_msg(before <= t0 && t0 <= ts[0],
		      "ring %llu CLOCK %llu "
		      "first %llu",
		      (unsigned long long)before, (unsigned long long)t0,
		      (unsigned long long)ts[0]);
	for (int k = 1; k < 5; k++)
		ck_assert_msg(ts[k - 1] <= ts[k],
			      "timestamp %d (%llu) < timestamp %d (%llu)", k,
			      (unsigned long long)ts[k], k - 1,
			      (unsigned long long)ts[k - 1]);
	ck_assert_msg(ts[4] <= t1, "last timestamp %llu after CLOCK %llu",
		      (unsigned long long)ts[4], (unsigned long long)t1);
	ck_assert_msg(c.engine_ns >= ts[4] - ts[0],
		      "engine_ns %u < last - first timestamp %llu", c.engine_ns,
		      (unsigned long long)(ts[4] - ts[0]));
	/* The copies landed before the timestamps after them, as the
	 * data shows once the entry completes. */
	expect_same(hd->va, hs->va, MiB, "the 1 MiB copy");
	for (uint32_t k = 0; k < MiB; k += 4099)
		ck_assert_uint_eq(dm(DM_B + 2 * MiB)[k],
				  hs->va[k] ^ SACC_XFORM_KEY);
	printf("segment timestamps: copy 1 MiB %llu ns, fill 1 MiB %llu ns, "
	       "back to back %llu ns, xform 1 MiB %llu ns, engine %u ns\n",
	       (unsigned long long)(ts[1] - ts[0]),
	       (unsigned long long)(ts[2] - ts[1]),
	       (unsigned long long)(ts[3] - ts[2]),
	       (unsigned long long)(ts[4] - ts[3]), c.engine_ns);
	/* A later timestamp on the ring is >= every earlier one. */
	c = q_run1(&Q, SACC_OP_TIMESTAMP, 0, hts->iova + 72, 0, 0);
	after = ld64(hts->va + 72);
	ck_assert_msg(after >= ts[4], "ring timestamp %llu < %llu",
		      (unsigned long long)after, (unsigned long long)ts[4]);
}
END_TEST

/* ====================================================================
 * Launched again, unchanged (spec 21: each launch fetches afresh)
 * ==================================================================== */

#define CNT_N	 2048u
#define LAUNCHES 1000u

START_TEST(test_seg_relaunch)
{
	uint8_t *orig = malloc(CNT_N), *segcopy;
	struct dbuf *hts, *hseg;
	uint64_t prev = 0;
	uint32_t done = 0, queued = 0, ids[64];
	struct seg g;
	struct sacc_cqe c;

	ck_assert(orig);
	start_q(64, 64);
	hts = buf_new(&D, PAGE, W);
	hseg = buf_new(&D, PAGE, R);
	fill_rand(orig, CNT_N, 101);
	memcpy(dm(DM_C), orig, CNT_N);
	memset(hts->va, 0, PAGE);
	/* Each run shifts DM_C up by one byte (a memmove: spec 6), so
	 * after k runs bytes 0..k are orig[0]: the area counts runs. */
	seg_init(&g, _i, hseg, DM_SEG);
	seg_cmd(&g, SACC_OP_MEMCPY, DM_C, DM_C + 1, CNT_N - 1,
		SACC_DESC_F_SRC_DEV | SACC_DESC_F_DST_DEV);
	seg_cmd(&g, SACC_OP_TIMESTAMP, 0, hts->iova, 0, 0);
	segcopy = malloc(g.n * 32);
	ck_assert(segcopy);
	memcpy(segcopy, g.va, g.n * 32);

	while (done < LAUNCHES) {
		while (queued < 32 && done + queued < LAUNCHES) {
			ids[queued++] = q_push(&Q, SACC_OP_SEGMENT, g.addr, 0,
					       g.n * 32, g.flags);
		}
		q_ring(&Q);
		for (uint32_t k = 0; k < queued; k++) {
			c = q_take(&Q, ids[k]);
			ck_assert_msg(c.status == SACC_STS_OK &&
					  c.result_len == 2,
				      "launch %u: status %u result_len %u",
				      done + k, c.status, c.result_len);
		}
		q_ack(&Q);
		done += queued;
		queued = 0;
		ck_assert_msg(ld64(hts->va) >= prev,
			      "timestamp after %u launches went backwards",
			      done);
		prev = ld64(hts->va);
		for (uint32_t k = 0; k < CNT_N; k++) {
			uint8_t want = k <= done ? orig[0] : orig[k - done];

			ck_assert_msg(dm(DM_C)[k] == want,
				      "after %u launches, counter byte %u is "
				      "0x%02x, expected 0x%02x",
				      done, k, dm(DM_C)[k], want);
		}
	}
	expect_same(g.va, segcopy, g.n * 32, "the segment (unchanged)");
	ck_assert_uint_eq(q_rd32(&Q, SACC_REG_ERR_CODE), 0);
	free(orig);
	free(segcopy);
}
END_TEST

/* ====================================================================
 * Rewritten between launches (spec 21)
 * ==================================================================== */

START_TEST(test_seg_rewrite)
{
	struct dbuf *hd, *hseg;
	uint8_t exp[512];
	struct seg g;
	struct sacc_cqe c;

	start_q(8, 8);
	hd = buf_new(&D, PAGE, W);
	hseg = buf_new(&D, PAGE, R);
	fill_rand(dm(DM_A), PAGE, 111);

	/* 100 launches, the FILL's pattern, dst and length rewritten
	 * before each. */
	for (uint32_t k = 0; k < 100; k++) {
		const uint64_t pat =
		    0x0101010101010101ull * (k + 1) ^ (uint64_t)k << 40;
		const uint32_t off = (k * 37) % 256, len = 1 + k * 3;

		memset(hd->va, CANARY, PAGE);
		seg_init(&g, _i, hseg, DM_SEG);
		seg_cmd(&g, SACC_OP_FILL, pat, hd->iova + off, len, 0);
		c = seg_launch(&g);
		ck_assert_msg(c.status == SACC_STS_OK && c.result_len == 1,
			      "rewrite %u: status %u result_len %u", k,
			      c.status, c.result_len);
		pat_fill(exp, pat, len);
		expect_same(hd->va + off, exp, len, "the rewritten FILL");
		ck_untouched(hd->va, off, "before the rewritten FILL");
		ck_untouched(hd->va + off + len, PAGE - off - len,
			     "after the rewritten FILL");
	}
	/* Grown to three commands (a different kind first). */
	memset(hd->va, CANARY, PAGE);
	seg_init(&g, _i, hseg, DM_SEG);
	seg_cmd(&g, SACC_OP_MEMCPY, DM_A, hd->iova, 300, SACC_DESC_F_SRC_DEV);
	seg_cmd(&g, SACC_OP_XFORM, DM_A, hd->iova + 1024, 300,
		SACC_DESC_F_SRC_DEV);
	seg_cmd(&g, SACC_OP_NOP, 0, 0, 0, 0);
	c = seg_launch(&g);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
	ck_assert_uint_eq(c.result_len, 3);
	expect_same(hd->va, dm(DM_A), 300, "grown segment, command 0");
	for (int k = 0; k < 300; k++)
		ck_assert_uint_eq(hd->va[1024 + k],
				  dm(DM_A)[k] ^ SACC_XFORM_KEY);
	/* Its first command rewritten into a NOP, same length. */
	memset(hd->va, CANARY, PAGE);
	seg_put(&g, 0, SACC_OP_NOP, DM_A, hd->iova, 300, SACC_DESC_F_SRC_DEV,
		SEG_REQ(0));
	seg_put(&g, 1, SACC_OP_FILL, 0x4242424242424242ull, hd->iova + 2048, 4,
		0, SEG_REQ(1));
	c = seg_launch(&g);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
	ck_assert_uint_eq(c.result_len, 3);
	ck_untouched(hd->va, 2048, "the command rewritten into a NOP");
	ck_assert_uint_eq(hd->va[2048], 0x42);
	ck_untouched(hd->va + 2052, PAGE - 2052, "after the new FILL");
	q_expect_ready(&Q);
}
END_TEST

void segment_tests(Suite *s)
{
	TCase *t = seg_tc(s, "segments");

	tcase_add_loop_test(t, test_seg_kinds, HOST, DEV + 1);
	tcase_add_loop_test(t, test_seg_nested, HOST, DEV + 1);
	tcase_add_loop_test(t, test_seg_timestamps, HOST, DEV + 1);
	tcase_add_loop_test(t, test_seg_relaunch, HOST, DEV + 1);
	tcase_add_loop_test(t, test_seg_rewrite, HOST, DEV + 1);
}

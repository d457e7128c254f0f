// SPDX-License-Identifier: MIT
/*
 * spec_v04_seg.c - docs/spec.md section 21 (pushbuffer segments, opcode
 * 6 SEGMENT), probe by probe, through the raw-VFIO fixture of
 * spec_vfio.c: segments of every command kind in host and in device
 * memory, inline payloads inside, a failing command in the middle, bad
 * lengths, nesting, TIMESTAMPs around commands, relaunching unchanged
 * and rewritten; in the "dmar" case, faults fetching the segment and
 * IOMMU faults of its commands.
 *
 * Written from the spec alone, not from the model: where the spec leaves
 * a question open, the probe prints what the device did ("open
 * question") and asserts nothing about it.
 *
 * As in spec_v04.c, the channel under test is channel 1 with MODE.V3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_vfio.h"

#define CH 1

/* Device addresses (device memory is at least 16 MiB). */
#define DM_A   0x00100000ull /* a source area */
#define DM_B   0x00400000ull /* a destination area */
#define DM_C   0x00600000ull /* the relaunch counter */
#define DM_SEG 0x00800000ull /* a segment in device memory (64 KiB) */
#define DM_IN  0x00900000ull /* a nested segment */
#define AREA   (64 * 1024u)

#define SEG_REQ(i) (0xc0de0000u + (i)) /* a command's own req_id */

static struct vq Q;
static uint64_t S; /* DEVMEM_SIZE */

static uint8_t *dm(uint64_t a)
{
	return (uint8_t *)(D.bar4 + a);
}

static void seg_setup(void)
{
	setup();
	S = b2_rd64(&D, SACC_DEV_DEVMEM_SIZE);
	ck_assert_msg(D.bar4 && S >= 16 * MiB,
		      "these probes need device memory of 16 MiB or more");
	ck_assert_msg(b2_rd32(&D, SACC_DEV_CHANNELS) > CH,
		      "these probes need channel %u", CH);
	q_init(&Q, &D, CH, false);
}

static void expect_bytes(const uint8_t *got, const uint8_t *exp, size_t len,
			 const char *what)
{
	if (!memcmp(got, exp, len))
		return;
	for (size_t k = 0; k < len; k++)
		if (got[k] != exp[k])
			ck_abort_msg("%s: byte %zu is 0x%02x, expected 0x%02x",
				     what, k, got[k], exp[k]);
}

/* ---- a segment, as a driver builds one ---- */

struct seg {
	uint8_t *va;   /* the CPU's view: host buffer or BAR4 */
	uint64_t addr; /* the entry's src */
	uint16_t flags;
	uint32_t n;    /* slots written */
	uint32_t cmds; /* commands among them */
};

enum { HOST, DEV };
static const char *const where_name[] = {"host", "device"};

static void seg_init(struct seg *g, int where, struct dbuf *hb, uint64_t dev)
{
	memset(g, 0, sizeof(*g));
	if (where == DEV) {
		g->va = dm(dev);
		g->addr = dev;
		g->flags = SACC_DESC_F_SRC_DEV;
	} else {
		g->va = hb->va;
		g->addr = hb->iova;
	}
}

static void seg_put(struct seg *g, uint32_t slot, uint16_t op, uint64_t src,
		    uint64_t dst, uint32_t len, uint16_t flags, uint32_t req)
{
	struct sacc_desc d = {.src = src,
			      .dst = dst,
			      .length = len,
			      .opcode = op,
			      .flags = flags,
			      .req_id = req};

	memcpy(g->va + (size_t)slot * 32, &d, sizeof(d));
}

/* Append a command; returns its index among the commands. */
static uint32_t seg_cmd(struct seg *g, uint16_t op, uint64_t src, uint64_t dst,
			uint32_t len, uint16_t flags)
{
	seg_put(g, g->n++, op, src, dst, len, flags, SEG_REQ(g->cmds));
	return g->cmds++;
}

/* WRITE_INLINE and its payload in the slots after it (spec 15, 21). */
static uint32_t seg_inline(struct seg *g, uint64_t dst, const void *data,
			   uint32_t len, uint16_t flags)
{
	uint32_t idx = seg_cmd(g, SACC_OP_WRITE_INLINE, 0, dst, len, flags);

	for (uint32_t i = 0; i < SACC_INLINE_SLOTS(len); i++) {
		uint8_t slot[32] = {0};

		memcpy(slot, (const uint8_t *)data + i * 32,
		       len - i * 32 < 32 ? len - i * 32 : 32);
		memcpy(g->va + (size_t)g->n++ * 32, slot, 32);
	}
	return idx;
}

static struct sacc_cqe seg_launch_len(struct seg *g, uint32_t len,
				      uint16_t extra)
{
	return q_run1(&Q, SACC_OP_SEGMENT, g->addr, 0, len, g->flags | extra);
}

static struct sacc_cqe seg_launch(struct seg *g)
{
	return seg_launch_len(g, g->n * 32, 0);
}

static void start_q(uint32_t sq, uint32_t cq)
{
	q_alloc(&Q, sq, cq);
	q_config(&Q, SACC_MODE_V3, 0, 0);
	q_start(&Q);
}

static uint64_t ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void pat_fill(uint8_t *p, uint64_t pat, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(pat >> (8 * (i % 8)));
}

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
	expect_bytes(hd->va, exp_h, AREA, "host destination area");
	expect_bytes(dm(DM_B), exp_d, AREA, "device destination area");
	expect_bytes(hs->va, ref_hs, AREA, "host source");
	expect_bytes(dm(DM_A), ref_da, AREA, "device source");
	expect_bytes(g.va, segcopy, g.n * 32, "the segment (device reads it)");
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
 * A failing command in the middle (spec 21, Completion)
 * ==================================================================== */

START_TEST(test_seg_fail_middle)
{
	const uint16_t SD = SACC_DESC_F_SRC_DEV, DD = SACC_DESC_F_DST_DEV;
	const uint64_t P = 0x1122334455667788ull;
	struct dbuf *hd, *hseg;
	uint8_t exp[256], pay[64];
	uint32_t count = 0;
	struct seg g;
	struct sacc_cqe c;

	start_q(8, 8);
	hd = buf_new(&D, 4 * PAGE, W);
	hseg = buf_new(&D, PAGE, R);
	fill_rand(dm(DM_A), PAGE, 81);

	/* A device-range fault at index 2: status 2, result_len 2, the
	 * command's own req_id; commands 3 and 4 do not run. */
	memset(hd->va, CANARY, hd->len);
	memset(dm(DM_B), CANARY, 2 * PAGE);
	seg_init(&g, _i, hseg, DM_SEG);
	seg_cmd(&g, SACC_OP_FILL, P, hd->iova, 100, 0);
	seg_cmd(&g, SACC_OP_MEMCPY, DM_A, DM_B, 64, SD | DD);
	seg_cmd(&g, SACC_OP_MEMCPY, S - 8, hd->iova + PAGE, 16, SD);
	seg_cmd(&g, SACC_OP_FILL, P, hd->iova + 2 * PAGE, 100, 0);
	seg_cmd(&g, SACC_OP_FILL, P, DM_B + PAGE, 100, DD);
	c = seg_launch(&g);
	ck_assert_msg(c.status == SACC_STS_DMA_FAULT && c.result_len == 2,
		      "device-range fault at index 2: status %u result_len %u",
		      c.status, c.result_len);
	q_expect_fault(&Q, S - 8, SACC_FAULT_DEV_READ, SEG_REQ(2), ++count);
	ck_assert_uint_eq(q_rd32(&Q, SACC_REG_ERR_CODE), SACC_ERR_DMA);
	q_expect_ready(&Q);
	pat_fill(exp, P, 100);
	expect_bytes(hd->va, exp, 100, "command 0 (ran)");
	expect_bytes(dm(DM_B), dm(DM_A), 64, "command 1 (ran)");
	ck_untouched(hd->va + 100, hd->len - 100, "after command 0's dst");
	ck_untouched(dm(DM_B + 64), 2 * PAGE - 64, "commands 3, 4 (not run)");

	/* An unknown opcode at index 1: status 1, result_len 1. */
	memset(hd->va, CANARY, hd->len);
	seg_init(&g, _i, hseg, DM_SEG);
	seg_cmd(&g, SACC_OP_FILL, P, hd->iova, 8, 0);
	seg_cmd(&g, 0x77, 0, 0, 8, 0);
	seg_cmd(&g, SACC_OP_FILL, P, hd->iova + 8, 8, 0);
	c = seg_launch(&g);
	ck_assert_msg(c.status == SACC_STS_BAD_OPCODE && c.result_len == 1,
		      "bad opcode at index 1: status %u result_len %u",
		      c.status, c.result_len);
	ck_assert_uint_eq(q_rd32(&Q, SACC_REG_ERR_CODE), SACC_ERR_BAD_OPCODE);
	ck_assert_uint_eq(q_rd32(&Q, SACC_REG_FAULT_COUNT), count);
	ck_untouched(hd->va + 8, hd->len - 8, "after a bad opcode");
	ck_assert_uint_eq(hd->va[0], 0x88);

	/* A zero-length MEMCPY at index 0: status 3, result_len 0. */
	memset(hd->va, CANARY, hd->len);
	seg_init(&g, _i, hseg, DM_SEG);
	seg_cmd(&g, SACC_OP_MEMCPY, DM_A, hd->iova, 0, SD);
	seg_cmd(&g, SACC_OP_FILL, P, hd->iova, 8, 0);
	c = seg_launch(&g);
	ck_assert_msg(c.status == SACC_STS_BAD_LENGTH && c.result_len == 0,
		      "length 0 at index 0: status %u result_len %u", c.status,
		      c.result_len);
	ck_assert_uint_eq(q_rd32(&Q, SACC_REG_ERR_CODE), SACC_ERR_INVALID);
	ck_untouched(hd->va, hd->len, "after a bad length at index 0");

	/* A FILL over 1 MiB at index 3. */
	seg_init(&g, _i, hseg, DM_SEG);
	for (int k = 0; k < 3; k++)
		seg_cmd(&g, SACC_OP_NOP, 0, 0, 0, 0);
	seg_cmd(&g, SACC_OP_FILL, P, hd->iova, MiB + 1, 0);
	seg_cmd(&g, SACC_OP_FILL, P, hd->iova, 8, 0);
	c = seg_launch(&g);
	ck_assert_msg(c.status == SACC_STS_BAD_LENGTH && c.result_len == 3,
		      "FILL of 1 MiB + 1 at index 3: status %u result_len %u",
		      c.status, c.result_len);
	ck_untouched(hd->va, hd->len, "after a bad FILL length");

	/* A WRITE_INLINE whose payload runs past the segment's end: 64
	 * bytes need 2 slots, the segment has 1 after it; what follows in
	 * memory is a plausible second slot. */
	fill_rand(pay, sizeof(pay), 82);
	seg_init(&g, _i, hseg, DM_SEG);
	seg_cmd(&g, SACC_OP_FILL, P, hd->iova, 8, 0);
	seg_inline(&g, hd->iova + 64, pay, sizeof(pay), 0);
	c = seg_launch_len(&g, (g.n - 1) * 32, 0);
	ck_assert_msg(c.status == SACC_STS_BAD_LENGTH && c.result_len == 1,
		      "inline payload past the end: status %u result_len %u",
		      c.status, c.result_len);
	ck_assert_uint_eq(q_rd32(&Q, SACC_REG_ERR_CODE), SACC_ERR_INVALID);
	ck_untouched(hd->va + 8, hd->len - 8, "inline dst (payload short)");
	ck_assert_uint_eq(hd->va[0], 0x88);

	/* A TIMESTAMP whose device dst straddles the end, at index 1:
	 * access 7 | write. */
	memset(hd->va, CANARY, hd->len);
	seg_init(&g, _i, hseg, DM_SEG);
	seg_cmd(&g, SACC_OP_NOP, 0, 0, 0, 0);
	seg_cmd(&g, SACC_OP_TIMESTAMP, 0, S - 4, 0, DD);
	seg_cmd(&g, SACC_OP_FILL, P, hd->iova, 8, 0);
	c = seg_launch(&g);
	ck_assert_msg(c.status == SACC_STS_DMA_FAULT && c.result_len == 1,
		      "TIMESTAMP out of range at index 1: status %u "
		      "result_len %u",
		      c.status, c.result_len);
	q_expect_fault(&Q, S - 4, SACC_FAULT_DEV_WRITE | SACC_FAULT_IS_WRITE,
		       SEG_REQ(1), ++count);
	ck_untouched(hd->va, hd->len, "after a failing TIMESTAMP");

	/* The ring goes on. */
	c = q_run1(&Q, SACC_OP_NOP, 0, 0, 0, 0);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
	q_expect_ready(&Q);
	ck_assert_uint_eq(rd32(&D, SACC_REG_FAULT_COUNT), 0);
}
END_TEST

/* ====================================================================
 * The entry's length; a device segment's range (spec 21, The entry)
 * ==================================================================== */

START_TEST(test_seg_bad_length)
{
	static const uint32_t bad[] = {
	    0,		16, 48, 33, SACC_SEGMENT_MAX + 32, SACC_SEGMENT_MAX + 1,
	    0xffffffe0u};
	const uint64_t P = 0x5555aaaa5555aaaaull;
	struct dbuf *hd, *hseg;
	uint32_t count = 0;
	struct seg g;
	struct sacc_cqe c;

	start_q(8, 8);
	hd = buf_new(&D, PAGE, W);
	hseg = buf_new(&D, SACC_SEGMENT_MAX + 2 * PAGE, R);
	memset(hseg->va, 0, hseg->len);
	memset(dm(DM_SEG), 0, SACC_SEGMENT_MAX + 2 * PAGE);
	seg_init(&g, _i, hseg, DM_SEG);
	seg_cmd(&g, SACC_OP_FILL, P, hd->iova, 64, 0);
	seg_cmd(&g, SACC_OP_FILL, P, hd->iova + 64, 64, 0);

	for (unsigned int k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		memset(hd->va, CANARY, PAGE);
		c = seg_launch_len(&g, bad[k], 0);
		ck_assert_msg(c.status == SACC_STS_BAD_LENGTH,
			      "%s segment, length %u: status %u",
			      where_name[_i], bad[k], c.status);
		ck_assert_uint_eq(q_rd32(&Q, SACC_REG_ERR_CODE),
				  SACC_ERR_INVALID);
		ck_untouched(hd->va, PAGE, "a bad-length segment ran");
		/* Open question: the spec gives no result_len for an entry
		 * with status 3 (nor for status 1/3 on the ring). */
		if (c.result_len)
			printf("open question: SEGMENT length %u: status 3 "
			       "result_len %u\n",
			       bad[k], c.result_len);
	}
	ck_assert_uint_eq(q_rd32(&Q, SACC_REG_FAULT_COUNT), 0);

	/* 32: one command; 65536: 2048 slots, zeros after the two FILLs
	 * being NOPs, all commands. */
	memset(hd->va, CANARY, PAGE);
	c = seg_launch_len(&g, 32, 0);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
	ck_assert_uint_eq(c.result_len, 1);
	ck_untouched(hd->va + 64, PAGE - 64, "the command after length 32");
	ck_assert_uint_eq(hd->va[0], 0xaa);
	c = seg_launch_len(&g, SACC_SEGMENT_MAX, 0);
	ck_assert_msg(
	    c.status == SACC_STS_OK && c.result_len == SACC_SEGMENT_MAX / 32,
	    "64 KiB segment: status %u result_len %u", c.status, c.result_len);
	ck_assert_uint_eq(hd->va[64], 0xaa);

	if (_i == DEV) {
		/* Spec 21: the range rule of section 18, access 6 at src;
		 * FAULT_REQ_ID the entry's (a fault fetching the segment). */
		const uint64_t osrc[] = {S - 32, S, ~0ull - 31};
		const uint32_t olen[] = {64, 32, 64};

		seg_put(&g, 0, SACC_OP_FILL, P, hd->iova, 8, 0, 1);
		memcpy(dm(S - 32), g.va, 32);
		g.addr = S - 32;
		memset(hd->va, CANARY, PAGE);
		c = seg_launch_len(&g, 32, 0);
		ck_assert_msg(c.status == SACC_STS_OK && c.result_len == 1,
			      "segment in device memory's last slot: %u",
			      c.status);
		ck_assert_uint_eq(hd->va[0], 0xaa);
		for (unsigned int k = 0; k < 3; k++) {
			const uint64_t src = osrc[k];
			const uint32_t len = olen[k];

			memset(hd->va, CANARY, PAGE);
			g.addr = src;
			c = seg_launch_len(&g, len, 0);
			ck_assert_msg(c.status == SACC_STS_DMA_FAULT &&
					  c.result_len == 0,
				      "device segment 0x%llx+%u: status %u "
				      "result_len %u",
				      (unsigned long long)src, len, c.status,
				      c.result_len);
			q_expect_fault(&Q, src, SACC_FAULT_DEV_READ, c.req_id,
				       ++count);
			ck_assert_uint_eq(q_rd32(&Q, SACC_REG_ERR_CODE),
					  SACC_ERR_DMA);
			ck_untouched(hd->va, PAGE, "an out-of-range segment");
		}
		/* Section 6's order: the length before the range. */
		g.addr = S;
		c = seg_launch_len(&g, 16, 0);
		ck_assert_msg(c.status == SACC_STS_BAD_LENGTH,
			      "out of range and length 16: status %u",
			      c.status);
		ck_assert_uint_eq(q_rd32(&Q, SACC_REG_FAULT_COUNT), count);
	}
	q_expect_ready(&Q);
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
	expect_bytes(hd->va, hs->va, MiB, "the 1 MiB copy");
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
	expect_bytes(g.va, segcopy, g.n * 32, "the segment (unchanged)");
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
		expect_bytes(hd->va + off, exp, len, "the rewritten FILL");
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
	expect_bytes(hd->va, dm(DM_A), 300, "grown segment, command 0");
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

/* ====================================================================
 * Faults fetching the segment, and IOMMU faults of its commands.
 * Tagged dmar: each IOMMU fault is booked with dmar_budget().
 * ==================================================================== */

static bool dmar_page_seen(uint64_t mark, uint64_t addr)
{
	char needle[64];

	snprintf(needle, sizeof(needle), "fault addr 0x%llx",
		 (unsigned long long)(addr & ~0xfffull));
	return guest_kmsg_grep(mark, needle, NULL, 0) > 0;
}

START_TEST(test_seg_fetch_faults)
{
	const uint64_t P = 0x7766554433221100ull;
	const uint64_t hole_a = IOVA_HOLE + 0x9000,
		       hole_b = IOVA_HOLE + 0x21234,
		       hole_c = IOVA_HOLE + 0x33040,
		       hole_d = IOVA_HOLE + 0x45678;
	const uint64_t wrap = ~0ull - 31;
	struct dbuf *hd, *hs, *hseg, *hedge, *hwo;
	uint32_t count = 0;
	struct seg g;
	struct sacc_cqe c;
	uint64_t mark;

	start_q(8, 8);
	hd = buf_new(&D, PAGE, W);
	hs = buf_new(&D, PAGE, R);
	hseg = buf_new(&D, PAGE, R);
	hedge = buf_new(&D, PAGE, R); /* an unmapped guard page after it */
	hwo = buf_new(&D, PAGE, W);   /* the device may not read it */
	fill_rand(hs->va, PAGE, 121);
	memset(hd->va, CANARY, PAGE);

	/* A bad length at an unmapped IOVA: status 3, nothing fetched;
	 * a wrapping host segment: access 8 at src, no DMA.  Then a
	 * command's source fault (access 1, its own req_id), whose DMAR
	 * line shows the log is live while the other two have none. */
	dmar_budget(3);
	mark = guest_kmsg_mark();
	c = q_run1(&Q, SACC_OP_SEGMENT, hole_a, 0, 48, 0);
	ck_assert_msg(c.status == SACC_STS_BAD_LENGTH,
		      "length 48 at an unmapped IOVA: status %u", c.status);
	c = q_run1(&Q, SACC_OP_SEGMENT, wrap, 0, 64, 0);
	ck_assert_msg(c.status == SACC_STS_DMA_FAULT && c.result_len == 0,
		      "wrapping segment: status %u result_len %u", c.status,
		      c.result_len);
	q_expect_fault(&Q, wrap, SACC_FAULT_SEGMENT_READ, c.req_id, ++count);
	seg_init(&g, HOST, hseg, 0);
	seg_cmd(&g, SACC_OP_FILL, P, hd->iova, 16, 0);
	seg_cmd(&g, SACC_OP_MEMCPY, hole_b, hd->iova + 64, 64, 0);
	seg_cmd(&g, SACC_OP_FILL, P, hd->iova + 128, 16, 0);
	c = seg_launch(&g);
	ck_assert_msg(c.status == SACC_STS_DMA_FAULT && c.result_len == 1,
		      "source fault at index 1: status %u result_len %u",
		      c.status, c.result_len);
	q_expect_fault(&Q, hole_b, SACC_FAULT_SRC_READ, SEG_REQ(1), ++count);
	ck_assert_uint_eq(q_rd32(&Q, SACC_REG_ERR_CODE), SACC_ERR_DMA);
	ck_untouched(hd->va + 16, PAGE - 16, "after the faulting command");
	dmar_expect(&D, mark, hole_b, false);
	ck_assert_msg(!dmar_page_seen(mark, hole_a),
		      "a bad-length segment was fetched");
	ck_assert_msg(!dmar_page_seen(mark, wrap),
		      "a wrapping segment reached the IOMMU");

	/* A segment at an unmapped IOVA: access 8, the exact src, the
	 * entry's req_id, ERR_CODE 2, nothing run, the ring goes on. */
	dmar_budget(1);
	mark = guest_kmsg_mark();
	c = q_run1(&Q, SACC_OP_SEGMENT, hole_c, 0, 64, 0);
	ck_assert_msg(c.status == SACC_STS_DMA_FAULT && c.result_len == 0,
		      "unmapped segment: status %u result_len %u", c.status,
		      c.result_len);
	q_expect_fault(&Q, hole_c, SACC_FAULT_SEGMENT_READ, c.req_id, ++count);
	ck_assert_uint_eq(q_rd32(&Q, SACC_REG_ERR_CODE), SACC_ERR_DMA);
	q_expect_ready(&Q);
	dmar_expect(&D, mark, hole_c, false);

	/* The second page unmapped: the failing page's address, and the
	 * commands on the first page do not run (a snapshot first). */
	memset(hd->va, CANARY, PAGE);
	g.va = hedge->va + PAGE - 64;
	g.addr = hedge->iova + PAGE - 64;
	g.n = g.cmds = 0;
	seg_cmd(&g, SACC_OP_FILL, P, hd->iova, 16, 0);
	seg_cmd(&g, SACC_OP_FILL, P, hd->iova + 64, 16, 0);
	dmar_budget(1);
	mark = guest_kmsg_mark();
	c = seg_launch_len(&g, 128, 0);
	ck_assert_msg(c.status == SACC_STS_DMA_FAULT && c.result_len == 0,
		      "segment into a guard page: status %u result_len %u",
		      c.status, c.result_len);
	q_expect_fault(&Q, hedge->iova + PAGE, SACC_FAULT_SEGMENT_READ,
		       c.req_id, ++count);
	ck_untouched(hd->va, PAGE, "commands of a segment that faulted");
	dmar_expect(&D, mark, hedge->iova + PAGE, false);
	/* The same 64 bytes alone run. */
	c = seg_launch_len(&g, 64, 0);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
	ck_assert_uint_eq(c.result_len, 2);

	/* A segment the device may not read (write-only mapping). */
	memset(hd->va, CANARY, PAGE);
	seg_init(&g, HOST, hwo, 0);
	seg_cmd(&g, SACC_OP_FILL, P, hd->iova, 16, 0);
	dmar_budget(1);
	mark = guest_kmsg_mark();
	c = seg_launch(&g);
	if (c.status == SACC_STS_DMA_FAULT) {
		ck_assert_uint_eq(c.result_len, 0);
		q_expect_fault(&Q, hwo->iova, SACC_FAULT_SEGMENT_READ, c.req_id,
			       ++count);
		ck_untouched(hd->va, PAGE, "a write-only segment's command");
		dmar_expect(&D, mark, hwo->iova, false);
	} else {
		/* As test_fault_src_writeonly: not the device's doing. */
		fprintf(stderr, "note: the IOMMU let the device read a "
				"write-only segment (Linux VT-d sets R on "
				"every PTE)\n");
		ck_assert_uint_eq(c.status, SACC_STS_OK);
		ck_assert_uint_eq(c.result_len, 1);
		ck_assert_uint_eq(hd->va[0], 0x00);
		ck_assert_uint_eq(q_rd32(&Q, SACC_REG_FAULT_COUNT), count);
	}

	/* A command's destination fault at index 2 in a device segment:
	 * access 2 | write, its own req_id. */
	seg_init(&g, DEV, NULL, DM_SEG);
	seg_cmd(&g, SACC_OP_NOP, 0, 0, 0, 0);
	seg_cmd(&g, SACC_OP_FILL, P, hd->iova, 16, 0);
	seg_cmd(&g, SACC_OP_MEMCPY, hs->iova, hole_d, 64, 0);
	seg_cmd(&g, SACC_OP_FILL, P, hd->iova + 64, 16, 0);
	dmar_budget(1);
	mark = guest_kmsg_mark();
	c = seg_launch(&g);
	ck_assert_msg(c.status == SACC_STS_DMA_FAULT && c.result_len == 2,
		      "destination fault at index 2: status %u result_len %u",
		      c.status, c.result_len);
	q_expect_fault(&Q, hole_d, SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE,
		       SEG_REQ(2), ++count);
	ck_untouched(hd->va + 64, PAGE - 64, "after the faulting command");
	ck_assert_uint_eq(hd->va[0], 0x00);
	dmar_expect(&D, mark, hole_d, true);
	q_expect_ready(&Q);
	ck_assert_uint_eq(rd32(&D, SACC_REG_FAULT_COUNT), 0);
}
END_TEST

/* ==================================================================== */

static TCase *seg_tc(Suite *s, const char *name)
{
	TCase *t = tcase_create(name);

	tcase_set_timeout(t, GUEST_TEST_TIMEOUT);
	tcase_add_checked_fixture(t, seg_setup, teardown);
	suite_add_tcase(s, t);
	return t;
}

void spec_v04_seg_add(Suite *s)
{
	TCase *t;

	t = seg_tc(s, "v04-seg");
	tcase_add_loop_test(t, test_seg_kinds, HOST, DEV + 1);
	tcase_add_loop_test(t, test_seg_fail_middle, HOST, DEV + 1);
	tcase_add_loop_test(t, test_seg_bad_length, HOST, DEV + 1);
	tcase_add_loop_test(t, test_seg_nested, HOST, DEV + 1);
	tcase_add_loop_test(t, test_seg_timestamps, HOST, DEV + 1);
	tcase_add_loop_test(t, test_seg_relaunch, HOST, DEV + 1);
	tcase_add_loop_test(t, test_seg_rewrite, HOST, DEV + 1);

	t = seg_tc(s, "v04-seg-faults");
	tcase_set_tags(t, "dmar");
	tcase_add_test(t, test_seg_fetch_faults);
}

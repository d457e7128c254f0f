// SPDX-License-Identifier: MIT
/*
 * untrusted.c - the device is not trusted: completions with a wrong req_id,
 * length or status, forged or erased by the device itself, and DMA
 * through a freed IOVA; nothing hangs, sacc_reset() recovers
 */
#include "driver.h"

enum { REQ_FIRST, REQ_SECOND, REQ_BOGUS };

/* A device whose completions the test writes: the SQ and CQ as the
 * CPU sees them, a 4 KiB MEMCPY op to submit. */
struct forger {
	struct sacc_dev *dev;
	struct sacc_buf *src, *dst;
	struct sacc_desc *sq;
	struct sacc_cqe *cq;
	struct sacc_op op;
};

static void forger_open(struct forger *f)
{
	struct sacc_dev *dev = guest_open(0, NULL);

	f->dev = dev;
	f->src = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "u src");
	f->dst = guest_buf(dev, 4096, SACC_DMA_FROM_DEVICE, "u dst");
	f->sq = (struct sacc_desc *)(uintptr_t)mapping_at(dev,
							  sacc_dev_sq_iova(dev))
		    .vaddr;
	f->cq =
	    (struct sacc_cqe *)(uintptr_t)mapping_at(dev, sacc_dev_cq_iova(dev))
		.vaddr;
	f->op = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
				 .len = 4096,
				 .src = f->src,
				 .dst = f->dst};
}

/* A completion with a wrong req_id, length or status, or with nothing
 * outstanding, is a device error: -EIO with what was wrong, nothing
 * delivered, untrusted until sacc_reset(), which is the way out. */
START_TEST(untrusted_completions)
{
	static const struct {
		const char *name;
		unsigned int nsubmit;
		int req;
		uint32_t result_len;
		uint16_t status;
		const char *needle;
	} cases[] = {
	    {"unknown req_id", 1, REQ_BOGUS, 4096, SACC_STS_OK,
	     "not outstanding at all"},
	    {"req_id out of ring order", 2, REQ_SECOND, 4096, SACC_STS_OK,
	     "out of ring order"},
	    {"result_len larger than requested", 1, REQ_FIRST, 4097,
	     SACC_STS_OK, "result_len 4097 is larger than the 4096 bytes"},
	    {"short result_len with status ok", 1, REQ_FIRST, 100,
	     SACC_STS_OK, "status ok but result_len 100 of 4096"},
	    {"unknown status", 1, REQ_FIRST, 0, 9, "unknown status 9"},
	    {"completion with nothing outstanding", 0, REQ_BOGUS, 0,
	     SACC_STS_OK, "while nothing is outstanding"},
	};
	struct forger f;
	struct sacc_dev *dev;
	struct sacc_buf *src, *dst;
	struct sacc_result res[4];
	struct sacc_stats st0, st;
	struct sacc_desc *sq;
	struct sacc_cqe *cq;
	struct sacc_op op;
	int ret;

	BEGIN();
	forger_open(&f);
	dev = f.dev;
	src = f.src;
	dst = f.dst;
	sq = f.sq;
	cq = f.cq;
	op = f.op;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t id;

		/* Fresh rings (head 0, phase 1); then stop the device so
		 * that only the test writes the CQ. */
		ck_assert_int_eq(sacc_reset(dev), 0);
		reg_set(dev, SACC_REG_CTRL, 0);
		sacc_stats(dev, &st0);
		for (unsigned int k = 0; k < cases[i].nsubmit; k++) {
			op.cookie = k;
			ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
		}
		id = cases[i].req == REQ_FIRST	  ? sq[0].req_id
		     : cases[i].req == REQ_SECOND ? sq[1].req_id
						  : sq[0].req_id + 1000;
		cq[0].req_id = id;
		cq[0].result_len = cases[i].result_len;
		cq[0].reserved = 0;
		cq[0].status = cases[i].status;
		__atomic_store_n(&cq[0].phase, 1, __ATOMIC_RELEASE);

		memset(res, 0xee, sizeof(res));
		ret = sacc_poll(dev, res, 4);
		ck_assert_msg(ret == -EIO, "%s: sacc_poll returned %d (%s)",
			      cases[i].name, ret, sacc_errmsg(dev));
		assert_msg_has(sacc_errmsg(dev), "device error");
		assert_msg_has(sacc_errmsg(dev), cases[i].needle);
		assert_msg_has(sacc_errmsg(dev), sacc_dev_bdf(dev));
		ck_assert_uint_eq(res[0].cookie, 0xeeeeeeeeeeeeeeeeull);
		sacc_stats(dev, &st);
		ck_assert_uint_eq(st.device_errors, st0.device_errors + 1);
		ck_assert_uint_eq(st.completed, st0.completed);
		/* Untrusted until reset. */
		ck_assert_int_eq(sacc_poll(dev, res, 4), -EIO);
		ck_assert_int_eq(sacc_submit(dev, &op, 1), -EIO);
		ck_assert_int_eq(sacc_wait(dev, 0), -EIO);
	}

	/* sacc_reset() is the way out: real ops work again. */
	ck_assert_int_eq(sacc_reset(dev), 0);
	sacc_stats(dev, &st);
	ck_assert_uint_ge(st.abandoned, 1);
	one_verified_op(dev, SACC_OP_XFORM, src, dst, 4096);
	sacc_close(dev);
}
END_TEST

/* An entry with the previous lap's phase is not a completion yet. */
START_TEST(completion_previous_lap_phase)
{
	struct forger f;
	struct sacc_dev *dev;
	struct sacc_result res[4];
	struct sacc_stats st0;
	struct sacc_desc *sq;
	struct sacc_cqe *cq;
	struct sacc_op op;

	BEGIN();
	forger_open(&f);
	dev = f.dev;
	sq = f.sq;
	cq = f.cq;
	op = f.op;

	ck_assert_int_eq(sacc_reset(dev), 0);
	reg_set(dev, SACC_REG_CTRL, 0);
	sacc_stats(dev, &st0);
	op.cookie = 55;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	cq[0] = (struct sacc_cqe){.req_id = sq[0].req_id, .result_len = 4096,
				  .status = SACC_STS_OK, .phase = 0};
	for (int k = 0; k < 100; k++)
		ck_assert_int_eq(sacc_poll(dev, res, 4), 0);
	__atomic_store_n(&cq[0].phase, 1, __ATOMIC_RELEASE);
	ck_assert_int_eq(sacc_poll(dev, res, 4), 1);
	ck_assert_uint_eq(res[0].cookie, 55);
	ck_assert_uint_eq(res[0].result_len, 4096);
	sacc_close(dev);
}
END_TEST

/* Good results before a bad entry are delivered first; the bad entry
 * is an error at the next poll. */
START_TEST(completion_good_before_bad)
{
	struct forger f;
	struct sacc_dev *dev;
	struct sacc_result res[4];
	struct sacc_stats st0, st;
	struct sacc_desc *sq;
	struct sacc_cqe *cq;
	struct sacc_op op;

	BEGIN();
	forger_open(&f);
	dev = f.dev;
	sq = f.sq;
	cq = f.cq;
	op = f.op;

	ck_assert_int_eq(sacc_reset(dev), 0);
	reg_set(dev, SACC_REG_CTRL, 0);
	sacc_stats(dev, &st0);
	for (unsigned int k = 0; k < 2; k++) {
		op.cookie = 100 + k;
		ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	}
	cq[0] = (struct sacc_cqe){.req_id = sq[0].req_id, .result_len = 4096,
				  .status = SACC_STS_OK, .phase = 1};
	cq[1] = (struct sacc_cqe){.req_id = sq[1].req_id, .result_len = 8192,
				  .status = SACC_STS_OK};
	__atomic_store_n(&cq[1].phase, 1, __ATOMIC_RELEASE);
	ck_assert_int_eq(sacc_poll(dev, res, 4), 1);
	ck_assert_uint_eq(res[0].cookie, 100);
	ck_assert_int_eq(sacc_poll(dev, res, 4), -EIO);
	assert_msg_has(sacc_errmsg(dev), "larger than the 4096 bytes");
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.completed, st0.completed + 1);
	ck_assert_uint_eq(st.device_errors, st0.device_errors + 1);
	sacc_close(dev);
}
END_TEST

/* Wait (bounded) until @n CQ entries carry phase 1. */
static void wait_posted(const struct sacc_cqe *cq, unsigned int size,
			unsigned int n)
{
	unsigned int posted = 0;
	uint64_t t0 = sacc_monotonic_ns();

	do {
		posted = 0;
		for (unsigned int i = 0; i < size; i++)
			posted +=
			    __atomic_load_n(&cq[i].phase, __ATOMIC_ACQUIRE) & 1;
	} while (posted < n && sacc_monotonic_ns() - t0 < 10000000000ull);
	ck_assert_msg(posted == n, "%u completions posted, want %u", posted, n);
}

/*
 * A well-formed completion DMA-written by the device itself (a MEMCPY
 * it was told to do) into the CQ slot it keeps free, naming a queued
 * 1 MiB XFORM it has not run: the CQ is full, so it never will.
 */
START_TEST(forged_completion)
{
	struct sacc_open_opts o = {.sq_entries = 16, .cq_entries = 4};
	struct sacc_buf *forger, *src, *dst;
	struct sacc_result res[16];
	struct sacc_op ops[3];
	struct sacc_desc d = {0};
	struct sacc_cqe forged;
	const struct sacc_cqe *cq;
	struct sacc_dev *dev;
	int id, k = 0, got = 0;

	BEGIN();
	dev = guest_open(0, &o);
	cq = (const struct sacc_cqe *)(uintptr_t)mapping_at(
		 dev, sacc_dev_cq_iova(dev))
		 .vaddr;
	forger = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "forger");
	src = guest_buf(dev, MiB, SACC_DMA_TO_DEVICE, "f src");
	dst = guest_buf(dev, MiB, SACC_DMA_FROM_DEVICE, "f dst");
	fill_random(va(src), MiB);
	memset(va(dst), CANARY, MiB);
	/* req_ids are sequential: learn the next one, then start afresh
	 * (CQ head 0, phase 1) with the forgery in place before the
	 * doorbell that makes the device copy it. */
	ops[0] = (struct sacc_op){.opcode = SACC_OP_NOP};
	ck_assert_int_eq(sacc_submit(dev, ops, 1), 1);
	reap_n(dev, res, 1);
	id = (int)res[0].req_id + 1;
	ck_assert_int_eq(sacc_reset(dev), 0);
	forged = (struct sacc_cqe){.req_id = (uint32_t)id + 3,
				   .result_len = MiB,
				   .status = SACC_STS_OK,
				   .phase = 1};
	memcpy(va(forger), &forged, sizeof(forged));
	d.opcode = SACC_OP_MEMCPY;
	d.src = sacc_buf_iova(forger);
	d.dst = sacc_dev_cq_iova(dev) + 3 * sizeof(struct sacc_cqe);
	d.length = sizeof(struct sacc_cqe);
	ck_assert_int_eq(sacc_submit_raw(dev, &d), id);
	ops[0] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = 1};
	ops[1] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = 2};
	ops[2] = (struct sacc_op){.opcode = SACC_OP_XFORM,
				  .len = MiB,
				  .src = src,
				  .dst = dst,
				  .cookie = 99};
	ck_assert_int_eq(sacc_submit(dev, ops, 3), 3);
	wait_posted(cq, 4, 4); /* three completions and the forgery */
	guest_sleep_ms(100);
	/* The CQ is full: the device has not run the XFORM the forged
	 * entry claims is done. */
	check_canary("dst of the XFORM the device has not run", va(dst), MiB);
	for (int i = 0; i < 100; i++) {
		k = sacc_poll(dev, res, 16);
		if (k < 0)
			break;
		for (int j = 0; j < k; j++)
			ck_assert_msg(res[j].cookie != 99,
				      "the forged XFORM completion was "
				      "accepted (status %u, result_len %u)",
				      res[j].status, res[j].result_len);
		got += k;
	}
	ck_assert_int_eq(got, 3);
	ck_assert_msg(k == -EIO, "sacc_poll: %d (%s)", k, sacc_errmsg(dev));
	assert_msg_has(sacc_errmsg(dev), "forged");
	assert_msg_has(sacc_errmsg(dev), "slot 3");
	assert_msg_has(sacc_errmsg(dev), "sacc_reset()");
	ck_assert_int_eq(sacc_reset(dev), 0);
	one_verified_op(dev, SACC_OP_XFORM, src, dst, MiB);
	sacc_close(dev);
}
END_TEST

/* A NOP's completion overwritten with zeros before it is reaped; the
 * device's next one sits in the following slot. */
START_TEST(erased_completion)
{
	struct sacc_op ops[2] = {
	    {.opcode = SACC_OP_NOP, .flags = SACC_OPF_IRQ, .cookie = 1},
	    {.opcode = SACC_OP_NOP, .flags = SACC_OPF_IRQ, .cookie = 2}};
	struct sacc_result res[2];
	struct sacc_cqe *cq;
	struct sacc_dev *dev;
	uint64_t t0;
	int k = 0;

	BEGIN();
	for (int mode = 0; mode < 2; mode++) {
		dev = guest_open(0, NULL);
		cq = (struct sacc_cqe *)(uintptr_t)mapping_at(
			 dev, sacc_dev_cq_iova(dev))
			 .vaddr;
		ck_assert_int_eq(sacc_submit(dev, ops, 2), 2);
		wait_posted(cq, SACC_DEFAULT_ENTRIES, 2);
		memset(&cq[0], 0, sizeof(cq[0]));
		t0 = sacc_monotonic_ns();
		if (mode == 0) {
			for (int i = 0; i < 100000 && k == 0; i++)
				k = sacc_poll(dev, res, 2);
		} else {
			k = sacc_wait(dev, 1000);
		}
		ck_assert_msg(k == -EIO, "%s: %d (%s)",
			      mode ? "sacc_wait(1000)" : "sacc_poll", k,
			      sacc_errmsg(dev));
		ck_assert_uint_lt(sacc_monotonic_ns() - t0, 5000000000ull);
		assert_msg_has(sacc_errmsg(dev), "completion lost");
		assert_msg_has(sacc_errmsg(dev), "sacc_reset()");
		ck_assert_int_eq(sacc_reset(dev), 0);
		ck_assert_int_eq(sacc_submit(dev, ops, 2), 2);
		reap_n(dev, res, 2);
		sacc_close(dev);
		k = 0;
	}
}
END_TEST

/* Freed IOVA is quarantined: a device still holding it faults, for
 * many allocations after, instead of writing into a new buffer. */
START_TEST(use_after_unmap_quarantined)
{
	struct sacc_buf *src, *victim, *next[16];
	struct sacc_desc d = {0};
	struct sacc_dev *dev;
	uint64_t stale;

	BEGIN();
	dev = guest_open(0, NULL);
	src = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "q src");
	fill_random(va(src), 4096);
	victim = guest_buf(dev, 4096, SACC_DMA_FROM_DEVICE, "q victim");
	stale = sacc_buf_iova(victim);
	ck_assert_int_eq(sacc_buf_free(victim), 0);
	for (int i = 0; i < 16; i++) {
		next[i] = guest_buf(dev, 4096, SACC_DMA_FROM_DEVICE, "q next");
		ck_assert_uint_ne(sacc_buf_iova(next[i]), stale);
		memset(va(next[i]), CANARY, 4096);
	}
	d.opcode = SACC_OP_MEMCPY;
	d.src = sacc_buf_iova(src);
	d.dst = stale;
	d.length = 4096;
	raw_expect_fault(dev, d, stale, "write through a stale IOVA");
	for (int i = 0; i < 16; i++)
		check_canary("buffers allocated after the unmap", va(next[i]),
			     4096);
	sacc_close(dev);
}
END_TEST

void untrusted_device_tests(Suite *s)
{
	TCase *tc = driver_tcase(s, "untrusted device");

	tcase_add_test(tc, untrusted_completions);
	tcase_add_test(tc, completion_previous_lap_phase);
	tcase_add_test(tc, completion_good_before_bad);
	tcase_add_test(tc, forged_completion);
	tcase_add_test(tc, erased_completion);
	tcase_add_test(tc, use_after_unmap_quarantined);
}

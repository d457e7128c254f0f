// SPDX-License-Identifier: MIT
/*
 * test_rings.c - host unit tests for rings/ with a small in-process
 * stand-in for the device side (test code only).
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sacc_ring.h"

/* ---- device stand-in: consumes the SQ, posts CQEs (0-13 then phase) ---- */

struct fake_dev {
	struct sacc_desc *sq;
	uint32_t sq_size, sq_head;
	_Atomic uint32_t sq_tail; /* last doorbell value */
	struct sacc_cqe *cq;
	uint32_t cq_size, cq_tail;
	_Atomic uint32_t cq_head; /* last CQ_HEAD value */
	uint16_t phase;
	uint16_t phase_junk; /* extra bits set in the phase word */
	unsigned int doorbells, cq_head_writes;
};

static void dev_init(struct fake_dev *d, struct sacc_desc *sq, uint32_t sqs,
		     struct sacc_cqe *cq, uint32_t cqs)
{
	memset(d, 0, sizeof(*d));
	d->sq = sq;
	d->sq_size = sqs;
	d->cq = cq;
	d->cq_size = cqs;
	d->phase = 1;
}

static void dev_doorbell(struct fake_dev *d, uint32_t tail)
{
	ck_assert_uint_lt(tail, d->sq_size);
	atomic_store_explicit(&d->sq_tail, tail, memory_order_release);
	d->doorbells++;
}

static void dev_write_cq_head(struct fake_dev *d, uint32_t head)
{
	ck_assert_uint_lt(head, d->cq_size);
	atomic_store_explicit(&d->cq_head, head, memory_order_release);
	d->cq_head_writes++;
}

/* Post one CQE: bytes 0-13 first, then the phase word (release). */
static void dev_post(struct fake_dev *d, const struct sacc_desc *desc,
		     bool write_phase)
{
	struct sacc_cqe *e = &d->cq[d->cq_tail];
	struct sacc_cqe tmp = {
	    .req_id = desc->req_id,
	    .result_len = desc->length,
	    .reserved = 0,
	    .status = SACC_STS_OK,
	};

	memcpy(e, &tmp, SACC_CQE_PHASE_OFFSET);
	if (!write_phase)
		return;
	__atomic_store_n(&e->phase, (uint16_t)(d->phase | d->phase_junk),
			 __ATOMIC_RELEASE);
	d->cq_tail = sacc_ring_next(d->cq_tail, d->cq_size);
	if (d->cq_tail == 0)
		d->phase ^= 1;
}

/* Process up to @max descriptors; stops when the CQ is full. */
static unsigned int dev_process(struct fake_dev *d, unsigned int max)
{
	unsigned int n = 0;
	uint32_t tail = atomic_load_explicit(&d->sq_tail, memory_order_acquire);

	while (n < max && d->sq_head != tail) {
		uint32_t cqh =
		    atomic_load_explicit(&d->cq_head, memory_order_acquire);
		struct sacc_desc desc;

		if (sacc_ring_full(cqh, d->cq_tail, d->cq_size))
			break;
		memcpy(&desc, &d->sq[d->sq_head], sizeof(desc));
		dev_post(d, &desc, true);
		d->sq_head = sacc_ring_next(d->sq_head, d->sq_size);
		n++;
	}
	return n;
}

static struct sacc_desc mkdesc(uint32_t id)
{
	struct sacc_desc d = {
	    .src = 0x1000 + id,
	    .dst = 0x2000 + id,
	    .length = id * 3 + 1,
	    .opcode = SACC_OP_MEMCPY,
	    .flags = 0,
	    .req_id = id,
	};
	return d;
}

static _Alignas(64) struct sacc_desc sq_mem[256];
static _Alignas(64) struct sacc_cqe cq_mem[256];

/* ---- index arithmetic ---- */

START_TEST(test_index_math)
{
	ck_assert(!sacc_ring_size_valid(0));
	ck_assert(!sacc_ring_size_valid(1));
	ck_assert(sacc_ring_size_valid(2));
	ck_assert(!sacc_ring_size_valid(3));
	ck_assert(sacc_ring_size_valid(4));
	ck_assert(!sacc_ring_size_valid(6));
	ck_assert(!sacc_ring_size_valid(1000));
	ck_assert(sacc_ring_size_valid(1024));
	ck_assert(sacc_ring_size_valid(65536));
	ck_assert(!sacc_ring_size_valid(65537));
	ck_assert(!sacc_ring_size_valid(131072));
	ck_assert(!sacc_ring_size_valid(0x80000000u));
	ck_assert(!sacc_ring_size_valid(UINT32_MAX));

	ck_assert_uint_eq(sacc_ring_next(0, 8), 1);
	ck_assert_uint_eq(sacc_ring_next(7, 8), 0);
	ck_assert_uint_eq(sacc_ring_next(65535, 65536), 0);
	ck_assert_uint_eq(sacc_ring_add(6, 5, 8), 3);
	ck_assert_uint_eq(sacc_ring_add(6, 16, 8), 6);
	ck_assert_uint_eq(sacc_ring_used(0, 0, 8), 0);
	ck_assert_uint_eq(sacc_ring_used(6, 2, 8), 4);
	ck_assert_uint_eq(sacc_ring_used(2, 1, 8), 7);
	ck_assert_uint_eq(sacc_ring_free(0, 0, 8), 7);
	ck_assert_uint_eq(sacc_ring_free(2, 1, 8), 0);
	ck_assert_uint_eq(sacc_ring_free(6, 2, 8), 3);
	ck_assert(sacc_ring_full(2, 1, 8));
	ck_assert(sacc_ring_full(0, 7, 8));
	ck_assert(!sacc_ring_full(0, 6, 8));
	ck_assert(sacc_ring_full(0, 1, 2));
	ck_assert(sacc_ring_empty(5, 5));
	ck_assert(!sacc_ring_empty(5, 6));
	ck_assert(sacc_ring_index_valid(7, 8));
	ck_assert(!sacc_ring_index_valid(8, 8));
	ck_assert_uint_eq(sacc_sq_bytes(64), 2048);
	ck_assert_uint_eq(sacc_cq_bytes(64), 1024);
	/* exhaustive: free + used == size - 1, full iff free == 0 */
	for (uint32_t h = 0; h < 16; h++)
		for (uint32_t t = 0; t < 16; t++) {
			ck_assert_uint_eq(sacc_ring_used(h, t, 16) +
					      sacc_ring_free(h, t, 16),
					  15);
			ck_assert(sacc_ring_full(h, t, 16) ==
				  (sacc_ring_free(h, t, 16) == 0));
		}
}
END_TEST

START_TEST(test_invalid_sizes)
{
	static const uint32_t bad[] = {0,   1,	   3,	   5,	      12,
				       100, 65537, 131072, UINT32_MAX};
	struct sacc_sq sq;
	struct sacc_cq cq;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(sacc_sq_init(&sq, sq_mem, bad[i]), -EINVAL);
		ck_assert_int_eq(sacc_cq_init(&cq, cq_mem, bad[i]), -EINVAL);
	}
	ck_assert_int_eq(sacc_sq_init(&sq, NULL, 8), -EINVAL);
	ck_assert_int_eq(sacc_cq_init(&cq, NULL, 8), -EINVAL);
	ck_assert_int_eq(sacc_sq_init(NULL, sq_mem, 8), -EINVAL);
	ck_assert_int_eq(sacc_cq_init(NULL, cq_mem, 8), -EINVAL);
	/* misaligned ring memory */
	ck_assert_int_eq(sacc_sq_init(&sq, (char *)sq_mem + 16, 8), -EINVAL);
	ck_assert_int_eq(sacc_cq_init(&cq, (char *)cq_mem + 8, 8), -EINVAL);
	/* valid extremes */
	ck_assert_int_eq(sacc_sq_init(&sq, sq_mem, 2), 0);
	ck_assert_int_eq(sacc_cq_init(&cq, cq_mem, 256), 0);
	ck_assert_uint_eq(cq.phase, 1);
	ck_assert_uint_eq(cq.head, 0);

	void *big = aligned_alloc(64, sacc_sq_bytes(65536));

	ck_assert_ptr_nonnull(big);
	ck_assert_int_eq(sacc_sq_init(&sq, big, 65536), 0);
	ck_assert_uint_eq(sacc_sq_space(&sq), 65535);
	free(big);
}
END_TEST

START_TEST(test_init_zeroes)
{
	struct sacc_sq sq;
	struct sacc_cq cq;

	memset(sq_mem, 0xab, sizeof(sq_mem));
	memset(cq_mem, 0xff, sizeof(cq_mem));
	ck_assert_int_eq(sacc_sq_init(&sq, sq_mem, 16), 0);
	ck_assert_int_eq(sacc_cq_init(&cq, cq_mem, 16), 0);
	for (int i = 0; i < 16; i++) {
		ck_assert_uint_eq(sq_mem[i].req_id, 0);
		ck_assert_uint_eq(cq_mem[i].phase, 0);
	}
	/* garbage left from a previous owner must not look like a CQE */
	ck_assert(!sacc_cq_peek(&cq, NULL));
}
END_TEST

/* ---- submission side ---- */

START_TEST(test_full_rule)
{
	struct sacc_sq sq;
	struct sacc_desc d;
	uint32_t slot = 99;

	ck_assert_int_eq(sacc_sq_init(&sq, sq_mem, 8), 0);
	ck_assert_uint_eq(sacc_sq_space(&sq), 7);
	for (uint32_t i = 0; i < 7; i++) {
		d = mkdesc(i);
		ck_assert_int_eq(sacc_sq_push(&sq, &d, &slot), 0);
		ck_assert_uint_eq(slot, i);
		ck_assert_uint_eq(sacc_sq_space(&sq), 6 - i);
	}
	d = mkdesc(7);
	ck_assert_int_eq(sacc_sq_push(&sq, &d, NULL), -EAGAIN);
	ck_assert_uint_eq(sacc_sq_in_flight(&sq), 7);
	ck_assert_uint_eq(sq.tail, 7);
	/* the slot that was refused was not written */
	ck_assert_uint_eq(sq_mem[7].req_id, 0);
	ck_assert_uint_eq(sacc_sq_publish(&sq), 7);

	/* retiring frees exactly that many slots; tail wraps */
	ck_assert_int_eq(sacc_sq_complete(&sq, 3), 0);
	ck_assert_uint_eq(sacc_sq_space(&sq), 3);
	for (uint32_t i = 0; i < 3; i++) {
		d = mkdesc(100 + i);
		ck_assert_int_eq(sacc_sq_push(&sq, &d, &slot), 0);
		ck_assert_uint_eq(slot, (7 + i) % 8);
	}
	ck_assert_int_eq(sacc_sq_push(&sq, &d, NULL), -EAGAIN);
	ck_assert_uint_eq(sq.tail, 2);
	ck_assert_uint_eq(sq_mem[0].req_id, 101);
	ck_assert_uint_eq(sq_mem[1].req_id, 102);

	/* size 2: exactly one in flight */
	ck_assert_int_eq(sacc_sq_init(&sq, sq_mem, 2), 0);
	ck_assert_int_eq(sacc_sq_push(&sq, &d, NULL), 0);
	ck_assert_int_eq(sacc_sq_push(&sq, &d, NULL), -EAGAIN);
}
END_TEST

START_TEST(test_complete_bounds)
{
	struct sacc_sq sq;
	struct sacc_desc d = mkdesc(1);

	ck_assert_int_eq(sacc_sq_init(&sq, sq_mem, 8), 0);
	ck_assert_int_eq(sacc_sq_complete(&sq, 1), -EINVAL);
	ck_assert_int_eq(sacc_sq_push(&sq, &d, NULL), 0);
	ck_assert_int_eq(sacc_sq_push(&sq, &d, NULL), 0);
	/* pushed but not published: cannot have completed */
	ck_assert_int_eq(sacc_sq_complete(&sq, 1), -EINVAL);
	ck_assert_uint_eq(sacc_sq_unpublished(&sq), 2);
	sacc_sq_publish(&sq);
	ck_assert_uint_eq(sacc_sq_unpublished(&sq), 0);
	ck_assert_int_eq(sacc_sq_complete(&sq, 3), -EINVAL);
	ck_assert_uint_eq(sq.head, 0);
	ck_assert_int_eq(sacc_sq_complete(&sq, 2), 0);
	ck_assert_uint_eq(sq.head, 2);
	ck_assert_uint_eq(sacc_sq_in_flight(&sq), 0);
	ck_assert_int_eq(sacc_sq_push(NULL, &d, NULL), -EINVAL);
	ck_assert_int_eq(sacc_sq_push(&sq, NULL, NULL), -EINVAL);
}
END_TEST

START_TEST(test_batch_publish)
{
	struct sacc_sq sq;
	struct sacc_cq cq;
	struct fake_dev dev;
	struct sacc_desc batch[16];
	struct sacc_cqe out[16];
	uint32_t head;

	ck_assert_int_eq(sacc_sq_init(&sq, sq_mem, 16), 0);
	ck_assert_int_eq(sacc_cq_init(&cq, cq_mem, 16), 0);
	dev_init(&dev, sq_mem, 16, cq_mem, 16);
	for (uint32_t i = 0; i < 16; i++)
		batch[i] = mkdesc(i);

	/* 5 pushes, one publish, one doorbell carrying tail 5 */
	for (uint32_t i = 0; i < 5; i++)
		ck_assert_int_eq(sacc_sq_push(&sq, &batch[i], NULL), 0);
	/* the device sees nothing until the doorbell */
	ck_assert_uint_eq(dev_process(&dev, 100), 0);
	ck_assert_uint_eq(sacc_sq_unpublished(&sq), 5);
	dev_doorbell(&dev, sacc_sq_publish(&sq));
	ck_assert_uint_eq(dev.doorbells, 1);
	ck_assert_uint_eq(atomic_load(&dev.sq_tail), 5);
	ck_assert_uint_eq(dev_process(&dev, 100), 5);

	/* all-or-nothing batch push */
	ck_assert_int_eq(sacc_sq_push_batch(&sq, batch, 11), -EAGAIN);
	ck_assert_uint_eq(sq.tail, 5);
	ck_assert_int_eq(sacc_sq_push_batch(&sq, batch, 10), 0);
	ck_assert_uint_eq(sq.tail, 15);
	ck_assert_uint_eq(sacc_sq_space(&sq), 0);
	dev_doorbell(&dev, sacc_sq_publish(&sq));
	ck_assert_uint_eq(dev.doorbells, 2);
	/* CQ of 16 holds 15: the device stalls on the full CQ */
	ck_assert_uint_eq(dev_process(&dev, 100), 10);

	ck_assert_uint_eq(sacc_cq_reap(&cq, out, 16, &head), 15);
	ck_assert_uint_eq(head, 15);
	for (uint32_t i = 0; i < 5; i++)
		ck_assert_uint_eq(out[i].req_id, i);
	for (uint32_t i = 0; i < 10; i++) {
		ck_assert_uint_eq(out[5 + i].req_id, i);
		ck_assert_uint_eq(out[5 + i].result_len, batch[i].length);
	}
	dev_write_cq_head(&dev, head);
	ck_assert_int_eq(sacc_sq_complete(&sq, 15), 0);
	ck_assert_uint_eq(sacc_sq_space(&sq), 15);
	ck_assert_int_eq(sacc_sq_push_batch(&sq, batch, 0), 0);
}
END_TEST

/* ---- completion side ---- */

START_TEST(test_reap_batches_and_head)
{
	struct sacc_sq sq;
	struct sacc_cq cq;
	struct fake_dev dev;
	struct sacc_cqe out[8];
	uint32_t head = 1234;

	ck_assert_int_eq(sacc_sq_init(&sq, sq_mem, 8), 0);
	ck_assert_int_eq(sacc_cq_init(&cq, cq_mem, 8), 0);
	dev_init(&dev, sq_mem, 8, cq_mem, 8);

	ck_assert_uint_eq(sacc_cq_reap(&cq, out, 8, &head), 0);
	ck_assert_uint_eq(head, 0);
	for (uint32_t i = 0; i < 5; i++) {
		struct sacc_desc d = mkdesc(10 + i);

		ck_assert_int_eq(sacc_sq_push(&sq, &d, NULL), 0);
	}
	dev_doorbell(&dev, sacc_sq_publish(&sq));
	ck_assert_uint_eq(dev_process(&dev, 100), 5);

	ck_assert_uint_eq(sacc_cq_reap(&cq, out, 3, &head), 3);
	ck_assert_uint_eq(head, 3);
	ck_assert_uint_eq(out[0].req_id, 10);
	ck_assert_uint_eq(out[2].req_id, 12);
	ck_assert_uint_eq(out[2].phase & 1, 1);
	ck_assert_uint_eq(sacc_cq_reap(&cq, out, 8, &head), 2);
	ck_assert_uint_eq(head, 5);
	ck_assert_uint_eq(out[0].req_id, 13);
	ck_assert_uint_eq(out[1].req_id, 14);
	ck_assert_uint_eq(sacc_cq_reap(&cq, out, 8, &head), 0);
	ck_assert_uint_eq(head, 5);
	/* NULL out: consume without copying */
	struct sacc_desc d = mkdesc(99);

	ck_assert_int_eq(sacc_sq_push(&sq, &d, NULL), 0);
	dev_doorbell(&dev, sacc_sq_publish(&sq));
	ck_assert_uint_eq(dev_process(&dev, 100), 1);
	ck_assert_uint_eq(sacc_cq_reap(&cq, NULL, 8, NULL), 1);
	ck_assert_uint_eq(cq.head, 6);
}
END_TEST

START_TEST(test_peek_advance)
{
	struct sacc_cq cq;
	struct fake_dev dev;
	struct sacc_cqe e;
	struct sacc_desc d = mkdesc(7);

	ck_assert_int_eq(sacc_cq_init(&cq, cq_mem, 2), 0);
	dev_init(&dev, sq_mem, 2, cq_mem, 2);
	ck_assert(!sacc_cq_peek(&cq, &e));
	dev_post(&dev, &d, true);
	memset(&e, 0, sizeof(e));
	ck_assert(sacc_cq_peek(&cq, &e));
	ck_assert_uint_eq(e.req_id, 7);
	/* peek does not consume */
	ck_assert(sacc_cq_peek(&cq, NULL));
	ck_assert_uint_eq(cq.head, 0);
	sacc_cq_advance(&cq);
	ck_assert_uint_eq(cq.head, 1);
	ck_assert_uint_eq(cq.phase, 1);
	ck_assert(!sacc_cq_peek(&cq, &e));
	d = mkdesc(8);
	dev_post(&dev, &d, true);
	ck_assert(sacc_cq_peek(&cq, &e));
	ck_assert_uint_eq(e.req_id, 8);
	sacc_cq_advance(&cq);
	ck_assert_uint_eq(cq.head, 0);
	ck_assert_uint_eq(cq.phase, 0);
}
END_TEST

/* Entries past head, each judged by the phase of its own lap. */
START_TEST(test_peek_at)
{
	struct sacc_cq cq;
	struct fake_dev dev;
	struct sacc_cqe e;
	struct sacc_desc d;
	uint32_t i;

	ck_assert_int_eq(sacc_cq_init(&cq, cq_mem, 4), 0);
	dev_init(&dev, sq_mem, 8, cq_mem, 4);
	for (i = 0; i < 4; i++)
		ck_assert(!sacc_cq_peek_at(&cq, i, NULL));
	/* three posted: offsets 0-2 valid, the kept-free slot 3 not */
	for (i = 1; i <= 3; i++) {
		d = mkdesc(i);
		dev_post(&dev, &d, true);
	}
	ck_assert(sacc_cq_peek_at(&cq, 2, &e));
	ck_assert_uint_eq(e.req_id, 3);
	ck_assert(!sacc_cq_peek_at(&cq, 3, NULL));
	/* consume two: head 2; offset 1 is slot 3 (lap 1), offset 2 is
	 * slot 0 of lap 2 (phase 0), which still holds lap 1's entry */
	sacc_cq_advance(&cq);
	sacc_cq_advance(&cq);
	ck_assert(sacc_cq_peek_at(&cq, 0, NULL));
	ck_assert(!sacc_cq_peek_at(&cq, 1, NULL));
	ck_assert(!sacc_cq_peek_at(&cq, 2, NULL));
	d = mkdesc(4);
	dev_post(&dev, &d, true); /* slot 3, phase 1 */
	d = mkdesc(5);
	dev_post(&dev, &d, true); /* slot 0, phase 0 */
	ck_assert(sacc_cq_peek_at(&cq, 1, &e));
	ck_assert_uint_eq(e.req_id, 4);
	ck_assert(sacc_cq_peek_at(&cq, 2, &e));
	ck_assert_uint_eq(e.req_id, 5);
	ck_assert_uint_eq(e.phase & 1, 0);
	ck_assert(!sacc_cq_peek_at(&cq, 3, NULL)); /* slot 1: lap 1 entry */
	/* peek_at(0) is peek */
	ck_assert_int_eq(sacc_cq_peek_at(&cq, 0, NULL),
			 sacc_cq_peek(&cq, NULL));
}
END_TEST

START_TEST(test_stale_entries_not_taken)
{
	struct sacc_cq cq;
	struct fake_dev dev;
	struct sacc_cqe out[4];
	uint32_t head;

	ck_assert_int_eq(sacc_cq_init(&cq, cq_mem, 4), 0);
	dev_init(&dev, sq_mem, 4, cq_mem, 4);
	/* lap 1: the device fills all 4 entries with phase 1 (bypassing
	 * the CQ full rule is fine for this consumer-only test) */
	for (uint32_t i = 0; i < 4; i++) {
		struct sacc_desc d = mkdesc(i);

		dev_post(&dev, &d, true);
	}
	ck_assert_uint_eq(dev.phase, 0);
	ck_assert_uint_eq(sacc_cq_reap(&cq, out, 4, &head), 4);
	ck_assert_uint_eq(head, 0);
	ck_assert_uint_eq(cq.phase, 0);
	/* every entry still carries lap 1's phase: none is new */
	ck_assert(!sacc_cq_peek(&cq, NULL));
	ck_assert_uint_eq(sacc_cq_reap(&cq, out, 4, &head), 0);

	/* half-written entry: bytes 0-13 written, phase not yet */
	struct sacc_desc d = mkdesc(42);

	dev_post(&dev, &d, false);
	ck_assert_uint_eq(cq_mem[0].req_id, 42);
	ck_assert(!sacc_cq_peek(&cq, NULL));
	ck_assert_uint_eq(sacc_cq_reap(&cq, out, 4, &head), 0);
	dev_post(&dev, &d, true);
	ck_assert_uint_eq(sacc_cq_reap(&cq, out, 4, &head), 1);
	ck_assert_uint_eq(out[0].req_id, 42);
	ck_assert_uint_eq(out[0].phase & 1, 0);
	ck_assert_uint_eq(head, 1);
	/* entries 1..3 are still lap-1 leftovers */
	ck_assert(!sacc_cq_peek(&cq, NULL));
}
END_TEST

START_TEST(test_phase_only_bit0)
{
	struct sacc_cq cq;
	struct fake_dev dev;
	struct sacc_cqe out[8];
	uint32_t head;

	ck_assert_int_eq(sacc_cq_init(&cq, cq_mem, 4), 0);
	dev_init(&dev, sq_mem, 4, cq_mem, 4);
	dev.phase_junk = 0xfffe; /* reserved bits set by a sloppy device */
	for (int lap = 0; lap < 3; lap++) {
		for (uint32_t i = 0; i < 3; i++) {
			struct sacc_desc d = mkdesc(lap * 10 + i);

			dev_post(&dev, &d, true);
		}
		ck_assert_uint_eq(sacc_cq_reap(&cq, out, 8, &head), 3);
		ck_assert_uint_eq(out[2].req_id, lap * 10 + 2);
		ck_assert(!sacc_cq_peek(&cq, NULL));
		dev_write_cq_head(&dev, head);
		/* keep the device's tail in step with the head (size-1 rule) */
		struct sacc_desc n = mkdesc(999);

		dev_post(&dev, &n, true);
		ck_assert_uint_eq(sacc_cq_reap(&cq, out, 8, &head), 1);
		ck_assert_uint_eq(out[0].req_id, 999);
	}
}
END_TEST

/* Several laps of SQ and CQ with differing sizes; checks in-order ids,
 * phase flips exactly on wrap, one doorbell per batch. */
START_TEST(test_phase_flip_laps)
{
	struct sacc_sq sq;
	struct sacc_cq cq;
	struct fake_dev dev;
	struct sacc_cqe out[8];
	uint32_t next_id = 0, expect = 0, head, batches = 0, wraps = 0;
	uint16_t last_phase = 1;

	ck_assert_int_eq(sacc_sq_init(&sq, sq_mem, 4), 0);
	ck_assert_int_eq(sacc_cq_init(&cq, cq_mem, 8), 0);
	dev_init(&dev, sq_mem, 4, cq_mem, 8);

	while (expect < 200) {
		uint32_t want = 1 + (batches % 3), n;

		for (uint32_t i = 0; i < want && sacc_sq_space(&sq); i++) {
			struct sacc_desc d = mkdesc(next_id++);

			ck_assert_int_eq(sacc_sq_push(&sq, &d, NULL), 0);
		}
		dev_doorbell(&dev, sacc_sq_publish(&sq));
		batches++;
		dev_process(&dev, 100);
		n = sacc_cq_reap(&cq, out, 8, &head);
		ck_assert_uint_gt(n, 0);
		for (uint32_t i = 0; i < n; i++) {
			ck_assert_uint_eq(out[i].req_id, expect);
			expect++;
		}
		ck_assert_uint_eq(head, expect % 8);
		/* expected phase = 1 on even laps, 0 on odd laps */
		ck_assert_uint_eq(cq.phase, ((expect / 8) & 1) ? 0 : 1);
		if (cq.phase != last_phase) {
			wraps++;
			last_phase = cq.phase;
		}
		dev_write_cq_head(&dev, head);
		ck_assert_int_eq(sacc_sq_complete(&sq, n), 0);
	}
	ck_assert_uint_eq(dev.doorbells, batches);
	ck_assert_uint_eq(dev.cq_head_writes, batches);
	ck_assert_uint_ge(wraps, 20);
	ck_assert_uint_eq(sacc_sq_in_flight(&sq), 0);
}
END_TEST

/* ---- concurrent device thread: ordering through the atomics ---- */

#define THREAD_OPS 200000u

struct thr {
	struct fake_dev *dev;
	_Atomic bool stop;
};

static void *dev_thread(void *arg)
{
	struct thr *t = arg;

	/* Yield when idle: on a loaded host (ci/test runs this beside two
	 * guests) two spinning threads on two busy cores crawl. */
	while (!atomic_load(&t->stop))
		if (!dev_process(t->dev, 7))
			sched_yield();
	return NULL;
}

START_TEST(test_threaded_device)
{
	static _Alignas(64) struct sacc_desc tsq[8];
	static _Alignas(64) struct sacc_cqe tcq[4];
	struct sacc_sq sq;
	struct sacc_cq cq;
	struct fake_dev dev;
	struct thr t = {.dev = &dev};
	pthread_t th;
	struct sacc_cqe out[4];
	uint32_t sent = 0, got = 0;

	ck_assert_int_eq(sacc_sq_init(&sq, tsq, 8), 0);
	ck_assert_int_eq(sacc_cq_init(&cq, tcq, 4), 0);
	dev_init(&dev, tsq, 8, tcq, 4);
	ck_assert_int_eq(pthread_create(&th, NULL, dev_thread, &t), 0);
	while (got < THREAD_OPS) {
		uint32_t pushed = 0, head, n;

		while (sent < THREAD_OPS && sacc_sq_space(&sq)) {
			struct sacc_desc d = mkdesc(sent++);

			ck_assert_int_eq(sacc_sq_push(&sq, &d, NULL), 0);
			pushed++;
		}
		if (pushed) {
			uint32_t tail = sacc_sq_publish(&sq);

			atomic_store_explicit(&dev.sq_tail, tail,
					      memory_order_release);
		}
		n = sacc_cq_reap(&cq, out, 4, &head);
		for (uint32_t i = 0; i < n; i++) {
			ck_assert_uint_eq(out[i].req_id, got);
			ck_assert_uint_eq(out[i].result_len, got * 3 + 1);
			got++;
		}
		if (n) {
			atomic_store_explicit(&dev.cq_head, head,
					      memory_order_release);
			ck_assert_int_eq(sacc_sq_complete(&sq, n), 0);
		} else if (!pushed) {
			sched_yield();
		}
	}
	atomic_store(&t.stop, true);
	pthread_join(th, NULL);
	ck_assert_uint_eq(got, THREAD_OPS);
	ck_assert_uint_eq(sacc_sq_in_flight(&sq), 0);
}
END_TEST

static Suite *rings_suite(void)
{
	Suite *s = suite_create("rings");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_index_math);
	tcase_add_test(tc, test_invalid_sizes);
	tcase_add_test(tc, test_init_zeroes);
	tcase_add_test(tc, test_full_rule);
	tcase_add_test(tc, test_complete_bounds);
	tcase_add_test(tc, test_batch_publish);
	tcase_add_test(tc, test_reap_batches_and_head);
	tcase_add_test(tc, test_peek_advance);
	tcase_add_test(tc, test_peek_at);
	tcase_add_test(tc, test_stale_entries_not_taken);
	tcase_add_test(tc, test_phase_only_bit0);
	tcase_add_test(tc, test_phase_flip_laps);
	tcase_add_test(tc, test_threaded_device);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(rings_suite());
	int failed;

	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

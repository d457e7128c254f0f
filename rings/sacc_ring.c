// SPDX-License-Identifier: MIT
/*
 * sacc_ring.c - SACC submission producer and completion consumer.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "sacc_ring.h"

_Static_assert(SACC_CQE_PHASE_OFFSET == 14, "phase word is at offset 14");
_Static_assert(__builtin_offsetof(struct sacc_cqe, phase) ==
		   SACC_CQE_PHASE_OFFSET,
	       "struct sacc_cqe.phase matches SACC_CQE_PHASE_OFFSET");

int sacc_sq_init(struct sacc_sq *sq, void *entries, uint32_t size)
{
	if (!sq || !entries || !sacc_ring_size_valid(size))
		return -EINVAL;
	if ((uintptr_t)entries % SACC_SQ_ALIGN)
		return -EINVAL;
	memset(entries, 0, sacc_sq_bytes(size));
	sq->entries = entries;
	sq->size = size;
	sq->tail = 0;
	sq->head = 0;
	sq->published = 0;
	return 0;
}

uint32_t sacc_sq_space(const struct sacc_sq *sq)
{
	return sacc_ring_free(sq->head, sq->tail, sq->size);
}

uint32_t sacc_sq_in_flight(const struct sacc_sq *sq)
{
	return sacc_ring_used(sq->head, sq->tail, sq->size);
}

uint32_t sacc_sq_unpublished(const struct sacc_sq *sq)
{
	return sacc_ring_used(sq->published, sq->tail, sq->size);
}

struct sacc_desc *sacc_sq_slot(const struct sacc_sq *sq, uint32_t idx)
{
	return &sq->entries[idx & (sq->size - 1)];
}

int sacc_sq_push(struct sacc_sq *sq, const struct sacc_desc *desc,
		 uint32_t *slot)
{
	if (!sq || !desc)
		return -EINVAL;
	if (sacc_ring_full(sq->head, sq->tail, sq->size))
		return -EAGAIN;
	memcpy(&sq->entries[sq->tail], desc, sizeof(*desc));
	if (slot)
		*slot = sq->tail;
	sq->tail = sacc_ring_next(sq->tail, sq->size);
	return 0;
}

int sacc_sq_push_batch(struct sacc_sq *sq, const struct sacc_desc *descs,
		       uint32_t n)
{
	if (!sq || (!descs && n))
		return -EINVAL;
	if (n > sacc_sq_space(sq))
		return -EAGAIN;
	for (uint32_t i = 0; i < n; i++) {
		memcpy(&sq->entries[sq->tail], &descs[i], sizeof(descs[i]));
		sq->tail = sacc_ring_next(sq->tail, sq->size);
	}
	return 0;
}

uint32_t sacc_sq_publish(struct sacc_sq *sq)
{
	/* Descriptor stores must be visible before the doorbell store. */
	atomic_thread_fence(memory_order_release);
	sq->published = sq->tail;
	return sq->tail;
}

int sacc_sq_complete(struct sacc_sq *sq, uint32_t n)
{
	if (!sq)
		return -EINVAL;
	/* Only published descriptors can have completed. */
	if (n > sacc_ring_used(sq->head, sq->published, sq->size))
		return -EINVAL;
	sq->head = sacc_ring_add(sq->head, n, sq->size);
	return 0;
}

int sacc_cq_init(struct sacc_cq *cq, void *entries, uint32_t size)
{
	if (!cq || !entries || !sacc_ring_size_valid(size))
		return -EINVAL;
	if ((uintptr_t)entries % SACC_CQ_ALIGN)
		return -EINVAL;
	memset(entries, 0, sacc_cq_bytes(size));
	cq->entries = entries;
	cq->size = size;
	cq->head = 0;
	cq->phase = 1;
	return 0;
}

/* Acquire-load the phase word of @e: nothing after it is read earlier. */
static inline uint16_t cqe_phase_acquire(const struct sacc_cqe *e)
{
	return __atomic_load_n(&e->phase, __ATOMIC_ACQUIRE);
}

static inline void cqe_copy(const struct sacc_cqe *e, struct sacc_cqe *out,
			    uint16_t phase)
{
	/* Bytes 0-13 after the acquire; the phase word we already have. */
	memcpy(out, e, SACC_CQE_PHASE_OFFSET);
	out->phase = phase;
}

bool sacc_cq_peek(const struct sacc_cq *cq, struct sacc_cqe *out)
{
	const struct sacc_cqe *e = &cq->entries[cq->head];
	uint16_t phase = cqe_phase_acquire(e);

	if ((phase & SACC_CQE_PHASE) != cq->phase)
		return false;
	if (out)
		cqe_copy(e, out, phase);
	return true;
}

bool sacc_cq_peek_at(const struct sacc_cq *cq, uint32_t k, struct sacc_cqe *out)
{
	uint32_t idx = sacc_ring_add(cq->head, k, cq->size);
	uint16_t want = cq->head + (k & (cq->size - 1)) >= cq->size
			    ? cq->phase ^ 1
			    : cq->phase;
	const struct sacc_cqe *e = &cq->entries[idx];
	uint16_t phase = cqe_phase_acquire(e);

	if ((phase & SACC_CQE_PHASE) != want)
		return false;
	if (out)
		cqe_copy(e, out, phase);
	return true;
}

void sacc_cq_advance(struct sacc_cq *cq)
{
	cq->head = sacc_ring_next(cq->head, cq->size);
	if (cq->head == 0)
		cq->phase ^= 1;
}

uint32_t sacc_cq_reap(struct sacc_cq *cq, struct sacc_cqe *out, uint32_t max,
		      uint32_t *new_head)
{
	uint32_t n = 0;

	while (n < max) {
		const struct sacc_cqe *e = &cq->entries[cq->head];
		uint16_t phase = cqe_phase_acquire(e);

		if ((phase & SACC_CQE_PHASE) != cq->phase)
			break;
		if (out)
			cqe_copy(e, &out[n], phase);
		sacc_cq_advance(cq);
		n++;
	}
	if (new_head)
		*new_head = cq->head;
	return n;
}

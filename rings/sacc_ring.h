/* SPDX-License-Identifier: MIT */
/*
 * sacc_ring.h - SACC submission/completion ring logic.
 *
 * Plain C, no VFIO, no syscalls.  The index arithmetic at the top is
 * static inline so a device-side implementation (or a test stand-in)
 * can share exactly the same rules as the driver: the QEMU model does
 * (qemu-model/apply.sh copies this header beside sacc_hw.h), so the top
 * of this file compiles under QEMU's flags too.
 *
 * Rules (NVMe style):
 *  - ring sizes are powers of two from SACC_RING_MIN_ENTRIES to
 *    SACC_RING_MAX_ENTRIES;
 *  - the SQ is full when (tail + 1) % size == head, so at most size - 1
 *    descriptors are ever in flight;
 *  - a CQE is new when bit 0 of its phase word equals the consumer's
 *    expected phase; the expected phase starts at 1 and flips each time
 *    the consumer's head wraps to 0;
 *  - the device writes CQE bytes 0-13 first and the phase word last, so
 *    the consumer acquire-loads the phase word and only then reads the
 *    rest of the entry;
 *  - the producer writes descriptors with plain stores, issues one
 *    release fence per batch (sacc_sq_publish) and then stores the tail
 *    it returns into the doorbell;
 *  - the consumer writes CQ_HEAD once per reaped batch (sacc_cq_reap
 *    returns the value to store).
 *
 * Ring structures are not thread safe: one producer thread per SQ, one
 * consumer thread per CQ (or external locking).
 *
 * The SQ may be device memory (v0.4 MODE.SQ_DEV: a BAR mapping): the
 * producer only stores into it (zeroing at init, a 32-byte copy per
 * descriptor) and never reads it back, so it needs nothing from the
 * mapping but plain stores.
 */
#ifndef SACC_RING_H
#define SACC_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sacc_hw.h"

/* ---- shared index arithmetic (driver and device side) ---- */

/* True if @size is a valid ring size: a power of two in [2, 65536]. */
static inline bool sacc_ring_size_valid(uint32_t size)
{
	return size >= SACC_RING_MIN_ENTRIES && size <= SACC_RING_MAX_ENTRIES &&
	       (size & (size - 1)) == 0;
}

/* True if @idx is a valid slot index for a ring of @size entries. */
static inline bool sacc_ring_index_valid(uint32_t idx, uint32_t size)
{
	return idx < size;
}

/* Index following @idx, wrapping to 0 at @size. */
static inline uint32_t sacc_ring_next(uint32_t idx, uint32_t size)
{
	return (idx + 1) & (size - 1);
}

/* Index @n slots after @idx (n may exceed size), wrapping. */
static inline uint32_t sacc_ring_add(uint32_t idx, uint32_t n, uint32_t size)
{
	return (idx + n) & (size - 1);
}

/* Entries between head (oldest outstanding) and tail (next free slot). */
static inline uint32_t sacc_ring_used(uint32_t head, uint32_t tail,
				      uint32_t size)
{
	return (tail - head) & (size - 1);
}

/* Slots that may still be filled: never more than size - 1 in flight. */
static inline uint32_t sacc_ring_free(uint32_t head, uint32_t tail,
				      uint32_t size)
{
	return size - 1 - sacc_ring_used(head, tail, size);
}

/* NVMe full rule: (tail + 1) % size == head. */
static inline bool sacc_ring_full(uint32_t head, uint32_t tail, uint32_t size)
{
	return sacc_ring_next(tail, size) == head;
}

static inline bool sacc_ring_empty(uint32_t head, uint32_t tail)
{
	return head == tail;
}

/* Bytes of ring memory for @entries entries (callers round to pages). */
static inline size_t sacc_sq_bytes(uint32_t entries)
{
	return (size_t)entries * sizeof(struct sacc_desc);
}

static inline size_t sacc_cq_bytes(uint32_t entries)
{
	return (size_t)entries * sizeof(struct sacc_cqe);
}

/* ---- submission queue (driver = producer) ---- */

struct sacc_sq {
	struct sacc_desc *entries; /* ring memory, SACC_SQ_ALIGN aligned */
	uint32_t size;		   /* entries, power of two */
	uint32_t tail;		   /* next slot to fill (local, unpublished) */
	uint32_t head;		   /* oldest slot not yet retired */
	uint32_t published;	   /* tail value last returned by publish */
};

/*
 * Initialise @sq over @entries (size entries of 32 bytes, 32-byte
 * aligned).  Zeroes the ring memory.  head = tail = 0.
 * Returns 0, or -EINVAL for a bad size, NULL or misaligned memory.
 */
int sacc_sq_init(struct sacc_sq *sq, void *entries, uint32_t size);

/* Descriptors that can still be pushed (size - 1 - in flight). */
uint32_t sacc_sq_space(const struct sacc_sq *sq);

/* Descriptors pushed and not yet retired by sacc_sq_complete(). */
uint32_t sacc_sq_in_flight(const struct sacc_sq *sq);

/* Descriptors pushed since the last sacc_sq_publish(). */
uint32_t sacc_sq_unpublished(const struct sacc_sq *sq);

/*
 * Copy @desc into the slot at the local tail and advance the tail.
 * No barrier, no doorbell.  If @slot is not NULL it receives the slot
 * index used.  Returns 0, -EAGAIN if the ring is full, -EINVAL on NULL.
 */
int sacc_sq_push(struct sacc_sq *sq, const struct sacc_desc *desc,
		 uint32_t *slot);

/*
 * Push @n descriptors, all or nothing: -EAGAIN (and nothing pushed) if
 * fewer than @n slots are free.  Returns 0 on success.
 */
int sacc_sq_push_batch(struct sacc_sq *sq, const struct sacc_desc *descs,
		       uint32_t n);

/* Pointer to the descriptor in slot @idx (idx & (size - 1)). */
struct sacc_desc *sacc_sq_slot(const struct sacc_sq *sq, uint32_t idx);

/*
 * Release fence (atomic_thread_fence(memory_order_release)) so every
 * descriptor written before it is visible to the device, then return
 * the tail to store into the doorbell.  Call once per batch.
 */
uint32_t sacc_sq_publish(struct sacc_sq *sq);

/*
 * Retire @n slots (their completions were reaped; completions are in
 * order, one per descriptor).  Returns 0, or -EINVAL if @n exceeds the
 * number of published descriptors in flight (nothing is changed then).
 */
int sacc_sq_complete(struct sacc_sq *sq, uint32_t n);

/* ---- completion queue (driver = consumer) ---- */

struct sacc_cq {
	struct sacc_cqe *entries; /* ring memory, SACC_CQ_ALIGN aligned */
	uint32_t size;		  /* entries, power of two */
	uint32_t head;		  /* next entry to consume */
	uint16_t phase;		  /* expected phase bit, starts at 1 */
};

/*
 * Initialise @cq over @entries (size entries of 16 bytes, 16-byte
 * aligned).  Zeroes the ring memory (every phase bit 0), head = 0,
 * expected phase = 1.  Returns 0 or -EINVAL.
 */
int sacc_cq_init(struct sacc_cq *cq, void *entries, uint32_t size);

/*
 * If the entry at head is new (acquire-load of its phase word, bit 0 ==
 * expected phase), copy it to @out (may be NULL) and return true.
 * Does not consume the entry.
 */
bool sacc_cq_peek(const struct sacc_cq *cq, struct sacc_cqe *out);

/*
 * Like sacc_cq_peek(), for the entry @k slots after head (k < size),
 * judged by the phase it would carry on the lap it belongs to: the
 * expected phase, flipped if head + k wraps.  For consistency checks
 * (a valid entry behind an invalid head means a completion was lost;
 * k = size - 1 is the slot the device must keep free).
 */
bool sacc_cq_peek_at(const struct sacc_cq *cq, uint32_t k,
		     struct sacc_cqe *out);

/* Consume the entry at head: head++, flipping the phase on wrap. */
void sacc_cq_advance(struct sacc_cq *cq);

/*
 * Collect up to @max new entries into @out (may be NULL to just
 * consume), advancing head.  Returns the number reaped.  If @new_head is
 * not NULL it receives the head to write to CQ_HEAD (write it once,
 * and only when the return value is non-zero).
 */
uint32_t sacc_cq_reap(struct sacc_cq *cq, struct sacc_cqe *out, uint32_t max,
		      uint32_t *new_head);

#endif /* SACC_RING_H */

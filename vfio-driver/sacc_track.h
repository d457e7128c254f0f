/* SPDX-License-Identifier: MIT */
/*
 * sacc_track.h - the tracking record: what libsacc remembers about each
 * descriptor it hands the device, one per SQ slot (dev->track).  Made
 * here when a descriptor is pushed (sacc_submit() and the raw hooks,
 * chains, graphs' launches), read when its completion is checked
 * (poll.c, health.c, journal.c), let go of here when it is reaped or
 * abandoned.  A slot that holds an inline payload has an all-zero
 * record.  Inline: the hot path makes one per operation and lets go of
 * one per completion.  Not installed.
 */
#ifndef SACC_TRACK_H
#define SACC_TRACK_H

#include "sacc_graph.h"
#include "sacc_priv.h"

struct sacc_track {
	uint64_t cookie;
	struct sacc_buf *src;
	struct sacc_buf *dst;
	struct sacc_graph *graph; /* a graph's launch (SEGMENT entry) */
	uint32_t req_id;
	uint32_t len; /* bytes; a SEGMENT entry: its commands */
	uint16_t opcode;
	uint8_t raw;	/* a raw descriptor (libsacc_unsafe.h) or raw graph */
	uint8_t irq;	/* descriptor asked for an interrupt */
	uint16_t slots; /* SQ slots it took: 1, 1 + payload for inline */
};

/*
 * The bytes descriptor @d writes at its dst, which its completion's
 * result_len reports: the length field, but a TIMESTAMP writes its 8
 * bytes whatever that says (spec section 16).
 */
static inline uint32_t sacc_desc_dst_len(const struct sacc_desc *d)
{
	return d->opcode == SACC_OP_TIMESTAMP ? SACC_TIMESTAMP_LEN : d->length;
}

/* The record of descriptor @d (its req_id the driver's), which takes
 * @slots SQ slots, with @cookie; it names no buffer yet. */
static inline void sacc_track_desc(struct sacc_track *t,
				   const struct sacc_desc *d, uint32_t slots,
				   uint64_t cookie)
{
	t->cookie = cookie;
	t->src = t->dst = NULL;
	t->graph = NULL;
	t->req_id = d->req_id;
	t->len = sacc_desc_dst_len(d);
	t->opcode = d->opcode;
	t->raw = 0;
	t->irq = !!(d->flags & SACC_DESC_F_IRQ);
	t->slots = (uint16_t)slots;
}

/*
 * The record of checked operation @op, pushed as descriptor @d in
 * @slots SQ slots (sacc_submit(), chains).  Its buffers are pinned
 * (sacc_buf_free(): -EBUSY) until sacc_untrack().  @op NULL: a raw
 * descriptor (libsacc_unsafe.h), which pins nothing and whose
 * completion is checked against the descriptor alone.
 */
static inline void sacc_track_op(struct sacc_track *t,
				 const struct sacc_desc *d, uint32_t slots,
				 const struct sacc_op *op)
{
	sacc_track_desc(t, d, slots, op ? op->cookie : 0);
	if (!op) {
		t->raw = 1;
		return;
	}
	/* A NOP names no buffer, whatever its src and dst say. */
	if (op->opcode == SACC_OP_NOP)
		return;
	t->src = op->src; /* NULL for FILL and the v0.3 ops */
	t->dst = op->dst;
	if (t->src)
		t->src->inflight++;
	if (t->dst)
		t->dst->inflight++;
}

/* The record of a launch of @g: its SEGMENT entry @d, whose completion
 * counts commands, and @g pinned until sacc_untrack(). */
static inline void sacc_track_graph(struct sacc_track *t,
				    const struct sacc_desc *d,
				    struct sacc_graph *g, uint64_t cookie)
{
	sacc_track_desc(t, d, 1, cookie);
	t->len = g->raw ? g->slots : g->n; /* commands (raw: at most) */
	t->raw = g->raw;
	t->graph = g;
	g->inflight++;
}

/* The operation in @t is over (reaped or abandoned): unpin its buffers
 * (or its graph). */
static inline void sacc_untrack(struct sacc_track *t)
{
	if (t->src && t->src->inflight)
		t->src->inflight--;
	if (t->dst && t->dst->inflight)
		t->dst->inflight--;
	t->src = t->dst = NULL;
	if (t->graph) {
		if (t->graph->inflight)
			t->graph->inflight--;
		t->graph = NULL;
	}
}

#endif /* SACC_TRACK_H */

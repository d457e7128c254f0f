/* SPDX-License-Identifier: MIT */
/*
 * sacc_track.h - the tracking record: what libsacc remembers about each
 * descriptor it hands the device, one per SQ slot (dev->track).  Read
 * when its completion is checked (poll.c, health.c, journal.c), let go
 * of here when it is reaped or abandoned.  A slot that holds an inline
 * payload has an all-zero record.  Inline: the hot path lets go of one
 * per completion.  Not installed.
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

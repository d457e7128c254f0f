/* SPDX-License-Identifier: MIT */
/*
 * sacc_graph.h - libsacc's graphs inside: struct sacc_graph, shared by
 * graph.c (build, launch, destroy) and graph_msg.c (what a failed launch
 * says).  Not installed.
 */
#ifndef SACC_GRAPH_H
#define SACC_GRAPH_H

#include "sacc_priv.h"

#define SACC_GRAPH_MAGIC 0x47525048u /* "GRPH" while alive */

/*
 * A command's req_id in a segment: the device puts it in FAULT_REQ_ID
 * when the command faults (spec section 21: the record is the
 * command's).  Bit 31 (libsacc's own req_ids never have it), the
 * graph's tag (20 bits) and the op's index (11 bits: < 2048), so the
 * record names the graph and the op.
 */
#define SACC_GRAPH_CMD_ID(tag, i)                                              \
	(0x80000000u | ((uint32_t)(tag)&0xfffffu) << 11 | (uint32_t)(i))

/* The last failed launch reaped (sacc_graph_failed()). */
struct sacc_graph_fail {
	uint32_t req_id; /* its entry's; 0: none yet */
	uint16_t status;
	uint32_t index; /* result_len: the failing command */
	bool rec;	/* the fault record below is of this failure */
	bool fetch;	/* ... of the segment's fetch, not of a command */
	uint64_t addr;	/* FAULT_ADDR */
	uint32_t info;	/* FAULT_INFO */
};

struct sacc_graph {
	uint32_t magic;
	struct sacc_dev *dev;		/* NULL once its handle closed */
	struct sacc_graph *next, *prev; /* dev->graphs */
	struct sacc_op *ops;		/* n (data NULL); NULL if raw */
	uint32_t *head;			/* n: command i's slot in cmds[] */
	struct sacc_desc *cmds;		/* slots: the segment's contents */
	struct sacc_buf *seg;		/* the segment the device fetches */
	unsigned int n;			/* commands (ops) */
	uint32_t slots;			/* 32-byte slots, payloads included */
	unsigned int flags;		/* SACC_GRAPH_* */
	bool raw;			/* sacc_graph_create_raw() */
	uint32_t tag;			/* in its commands' req_ids */
	uint32_t inflight;		/* launches not reaped yet */
	uint64_t epoch;			/* device memory's, when written */
	struct sacc_graph_fail last;
};

#endif /* SACC_GRAPH_H */

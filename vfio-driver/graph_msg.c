// SPDX-License-Identifier: MIT
/*
 * graph_msg.c - what a graph's launch result says, in words.  A launch
 * completes as one sacc_result: status 0 with result_len the ops run
 * (all of them), or the failing op's status with result_len its index
 * (spec section 21).  sacc_poll() notes each failed launch here
 * (sacc_graph_failed(), the slow path: the fault record registers are
 * read only then) and sacc_graph_explain() turns a result into a
 * sentence: which op failed, what it was, and where the fault was.
 */
#include <stdio.h>
#include <string.h>

#include "sacc_graph.h"

bool sacc_graph_record_is(const struct sacc_graph *g, uint32_t entry_id,
			  uint32_t index, uint32_t rec_id, uint32_t info,
			  bool *fetch)
{
	return sacc_segment_record_is(entry_id, index, sacc_graph_cmd(g, index),
				      rec_id, info, fetch);
}

bool sacc_segment_record_is(uint32_t entry_id, uint32_t index,
			    const struct sacc_desc *cmd, uint32_t rec_id,
			    uint32_t info, bool *fetch)
{
	uint32_t a = info & SACC_FAULT_ACCESS_MASK;

	/* the fetch's: the entry's req_id (section 21) */
	*fetch = !index && rec_id == entry_id &&
		 (a == SACC_FAULT_SEGMENT_READ || a == SACC_FAULT_DEV_READ);
	if (*fetch)
		return true;
	/* a command's: its own req_id (libsacc's carry the op's index) */
	return cmd && cmd->req_id && rec_id == cmd->req_id &&
	       a != SACC_FAULT_SEGMENT_READ;
}

void sacc_graph_failed(struct sacc_graph *g, const struct sacc_cqe *c)
{
	struct sacc_fault_regs r;
	bool fetch;

	g->last = (struct sacc_graph_fail){
	    .req_id = c->req_id, .status = c->status, .index = c->result_len};
	if (c->status != SACC_STS_DMA_FAULT || !g->dev)
		return;
	sacc_fault_regs_read(g->dev, &r);
	if (!sacc_graph_record_is(g, c->req_id, c->result_len, r.req_id, r.info,
				  &fetch))
		return; /* a later fault overwrote it */
	g->last.rec = true;
	g->last.fetch = fetch;
	g->last.addr = r.addr;
	g->last.info = r.info;
}

/* "'name'+off" of an op's buffer @b (the graph's handle is open). */
static const char *side(const struct sacc_graph *g, const struct sacc_buf *b,
			size_t off, char *buf, size_t len)
{
	if (!g->dev || !b)
		snprintf(buf, len, "+%zu", off);
	else
		snprintf(buf, len, "'%s'+%zu", b->name, off);
	return buf;
}

/* Op (command) @i of @g in words. */
static void describe_op(const struct sacc_graph *g, uint32_t i, char *buf,
			size_t len)
{
	const struct sacc_desc *d = sacc_graph_cmd(g, i);
	const struct sacc_op *op;
	char a[96], b[96];

	if (!d) {
		snprintf(buf, len, "command %u, past the segment's last", i);
		return;
	}
	if (g->raw || !g->ops) {
		snprintf(buf, len,
			 "%s, src 0x%llx, dst 0x%llx, length %u, flags 0x%x",
			 sacc_opcode_str(d->opcode), (unsigned long long)d->src,
			 (unsigned long long)d->dst, d->length, d->flags);
		return;
	}
	op = &g->ops[i];
	side(g, op->src, op->src_off, a, sizeof(a));
	side(g, op->dst, op->dst_off, b, sizeof(b));
	switch (op->opcode) {
	case SACC_OP_MEMCPY:
	case SACC_OP_XFORM:
		snprintf(buf, len, "%s of %u bytes from %s to %s",
			 sacc_opcode_str(op->opcode), op->len, a, b);
		break;
	case SACC_OP_FILL:
		snprintf(buf, len, "fill of %u bytes of 0x%016llx into %s",
			 op->len, (unsigned long long)op->pattern, b);
		break;
	case SACC_OP_WRITE_INLINE:
		snprintf(buf, len, "write inline of %u bytes into %s", op->len,
			 b);
		break;
	case SACC_OP_TIMESTAMP:
		snprintf(buf, len, "timestamp into %s", b);
		break;
	default:
		snprintf(buf, len, "%s", sacc_opcode_str(op->opcode));
	}
}

/* The fault record of the last failure, if @r's: " (source read at IOVA
 * 0x... (inside buffer 'src' at offset 0x0))". */
static void describe_fault(const struct sacc_graph *g,
			   const struct sacc_result *r, char *buf, size_t len)
{
	const struct sacc_graph_fail *f = &g->last;
	struct sacc_iova_lookup lk;
	char where[192] = "";
	uint32_t a = f->info & SACC_FAULT_ACCESS_MASK;

	buf[0] = 0;
	if (r->status != SACC_STS_DMA_FAULT)
		return;
	if (f->req_id != r->req_id || !f->rec) {
		const struct sacc_desc *d = sacc_graph_cmd(g, r->result_len);

		snprintf(buf, len, "%s",
			 d && !d->req_id
			     ? " (the command's req_id is 0: the fault record "
			       "cannot be told to be its)"
			     : " (the fault record was overwritten by a later "
			       "fault before the result was reaped)");
		return;
	}
	if (a == SACC_FAULT_DEV_READ || a == SACC_FAULT_DEV_WRITE) {
		snprintf(buf, len,
			 " (%s at device address 0x%llx: device memory, not "
			 "an IOMMU fault)",
			 sacc_fault_access_str(f->info),
			 (unsigned long long)f->addr);
		return;
	}
	if (g->dev && g->dev->dma &&
	    sacc_dma_lookup(g->dev->dma, f->addr, 0, &lk) == 0) {
		where[0] = ' ';
		where[1] = '(';
		sacc_iova_lookup_format(&lk, where + 2, sizeof(where) - 3);
		strcat(where, ")");
	}
	snprintf(buf, len, " (%s at IOVA 0x%llx%s)",
		 sacc_fault_access_str(f->info), (unsigned long long)f->addr,
		 where);
}

/* Did @r's launch fail fetching the segment (no command ran)? */
static bool fetch_failed(const struct sacc_graph *g,
			 const struct sacc_result *r)
{
	const struct sacc_graph_fail *f = &g->last;

	return r->status == SACC_STS_DMA_FAULT && f->req_id == r->req_id &&
	       f->rec && f->fetch;
}

/* Op 0 with a DMA fault and no record of it: or the fetch? */
static bool ambiguous(const struct sacc_graph *g, const struct sacc_result *r)
{
	return !r->result_len && r->status == SACC_STS_DMA_FAULT &&
	       !(g->last.req_id == r->req_id && g->last.rec);
}

const char *sacc_graph_explain(const struct sacc_graph *g,
			       const struct sacc_result *r, char *buf,
			       size_t len)
{
	char op[256], fault[320];

	if (!buf || !len)
		return "";
	if (!g || g->magic != SACC_GRAPH_MAGIC || !r ||
	    r->opcode != SACC_OP_SEGMENT) {
		snprintf(buf, len, "not a graph and the result of its launch");
		return buf;
	}
	if (r->status == SACC_STS_OK) {
		snprintf(buf, len,
			 "ok: the graph's %u ops ran (%u ns on the "
			 "engine)",
			 r->result_len, r->engine_ns);
		return buf;
	}
	describe_fault(g, r, fault, sizeof(fault));
	if (fetch_failed(g, r)) {
		snprintf(buf, len,
			 "the graph's launch failed fetching its segment of "
			 "%zu bytes, so none of its %u ops ran: %s%s",
			 sacc_graph_bytes(g), g->n, sacc_status_str(r->status),
			 fault);
		return buf;
	}
	describe_op(g, r->result_len, op, sizeof(op));
	snprintf(buf, len,
		 "op %u of the graph's %u (%s) failed: %s%s; ops before it "
		 "ran, none after it%s",
		 r->result_len, g->n, op, sacc_status_str(r->status), fault,
		 ambiguous(g, r) ? " (or the segment's fetch failed: the "
				   "fault record cannot say which)"
				 : "");
	return buf;
}

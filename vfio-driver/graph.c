// SPDX-License-Identifier: MIT
/*
 * graph.c - graphs (v0.4, spec section 21): operations checked and
 * encoded once into a pushbuffer segment, then launched as often as
 * wanted with ONE SQ entry (opcode SEGMENT) and one doorbell, however
 * many operations it holds.  A chain (chain.c) copies every descriptor
 * into the SQ at each launch; a graph's launch writes 32 bytes.
 *
 * The segment is the ops encoded exactly as sacc_submit() encodes
 * descriptors (sacc_op_desc(): device addresses with SRC_DEV / DST_DEV,
 * FILL's pattern), each WRITE_INLINE's payload in the slots after it.
 * It lives in an internal buffer of the handle: host memory mapped
 * SACC_DMA_TO_DEVICE (the device may only read it) or, with
 * SACC_GRAPH_DEVMEM, device memory written through BAR4.  The graph
 * keeps a copy in host memory: the CPU never reads BAR4 back, an FLR
 * (which zeroes device memory) is repaired at the next launch, and the
 * journal and sacc_graph_explain() look commands up there.
 *
 * A graph pins its ops' buffers (sacc_buf_free(): -EBUSY, naming the
 * graph) for its whole life, and each launch pins the graph: it cannot
 * be destroyed or updated while the device may still fetch its segment.
 * A handle's close lets go of its graphs (orphans them): their
 * segments and buffers go with the handle, sacc_graph_destroy() then
 * only frees the graph.  Messages for failed launches are graph_msg.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sacc_track.h"

/* ---- the segment ---- */

uint32_t sacc_segment_next(const struct sacc_desc *d, uint32_t j)
{
	j++;
	if (d->opcode == SACC_OP_WRITE_INLINE && d->length >= 1 &&
	    d->length <= SACC_INLINE_MAX)
		j += (uint32_t)SACC_INLINE_SLOTS(d->length);
	return j;
}

/* Command index -> slot for @cmds (a raw graph's, as the device would
 * walk them: a WRITE_INLINE of a valid length skips its payload). */
static unsigned int walk_cmds(const struct sacc_desc *cmds, uint32_t slots,
			      uint32_t *head)
{
	unsigned int n = 0;

	for (uint32_t j = 0; j < slots; n++) {
		if (head)
			head[n] = j;
		j = sacc_segment_next(&cmds[j], j);
	}
	return n;
}

/*
 * Check @n ops as commands of a segment: each as sacc_submit() would
 * (sacc_check_op_in()), no SACC_OPF_IRQ (the device ignores a command's),
 * and all of them within SACC_SEGMENT_MAX.  *@slots gets the slots they
 * take.  0, or the error naming the op and what to do.
 */
static int check_ops(struct sacc_dev *dev, const struct sacc_op *ops,
		     unsigned int n, const char *what, uint32_t *slots)
{
	const uint32_t max = SACC_SEGMENT_MAX / sizeof(struct sacc_desc);
	uint64_t s = 0;
	int ret;

	if (!ops || !n)
		return sacc_seterr(dev, EINVAL, "%s: needs ops and n > 0",
				   what);
	if (n > SACC_GRAPH_MAX_OPS)
		return sacc_seterr(dev, E2BIG,
				   "%s: %u ops; a segment holds at most %u "
				   "commands (%u bytes): split the work into "
				   "several graphs",
				   what, n, SACC_GRAPH_MAX_OPS,
				   SACC_SEGMENT_MAX);
	for (unsigned int i = 0; i < n; i++) {
		ret = sacc_check_op_in(dev, &ops[i], i, true);
		if (ret)
			return ret;
		if (ops[i].flags & SACC_OPF_IRQ)
			return sacc_seterr(
			    dev, EINVAL,
			    "%s: op %u has SACC_OPF_IRQ, which a command of a "
			    "segment cannot have (the device ignores it): "
			    "create the graph with SACC_GRAPH_IRQ for an "
			    "interrupt when a launch completes",
			    what, i);
		s += ops[i].opcode == SACC_OP_WRITE_INLINE
			 ? 1 + SACC_INLINE_SLOTS(ops[i].len)
			 : 1;
		if (s > max)
			return sacc_seterr(
			    dev, E2BIG,
			    "%s: ops 0..%u take %llu slots of 32 bytes (inline "
			    "payloads included), more than a segment's %u "
			    "bytes (%u slots): split the work into several "
			    "graphs, or write big payloads from a buffer "
			    "(memcpy) instead of inline",
			    what, i, (unsigned long long)s, SACC_SEGMENT_MAX,
			    max);
	}
	*slots = (uint32_t)s;
	return 0;
}

/* The encoded form of checked ops: what create and update build. */
struct graph_enc {
	struct sacc_op *ops;
	uint32_t *head;
	struct sacc_desc *cmds;
	uint32_t slots;
};

static void enc_free(struct graph_enc *e)
{
	free(e->ops);
	free(e->head);
	free(e->cmds);
	memset(e, 0, sizeof(*e));
}

/* Encode @n checked ops taking @slots slots into @e, their req_ids
 * SACC_GRAPH_CMD_ID(@tag, i): 0 or -ENOMEM. */
static int encode(struct sacc_dev *dev, const struct sacc_op *ops,
		  unsigned int n, uint32_t slots, uint32_t tag,
		  struct graph_enc *e)
{
	uint32_t j = 0;

	e->ops = calloc(n, sizeof(*e->ops));
	e->head = calloc(n, sizeof(*e->head));
	e->cmds = calloc(slots, sizeof(*e->cmds)); /* payload tails: 0 */
	e->slots = slots;
	if (!e->ops || !e->head || !e->cmds) {
		enc_free(e);
		return sacc_seterr(dev, ENOMEM, "graph of %u ops: no memory",
				   n);
	}
	for (unsigned int i = 0; i < n; i++) {
		const struct sacc_op *op = &ops[i];

		e->ops[i] = *op;
		e->ops[i].data = NULL; /* copied into the payload slots */
		if (op->opcode == SACC_OP_NOP)
			e->ops[i].src = e->ops[i].dst = NULL;
		e->head[i] = j;
		sacc_op_desc(op, &e->cmds[j]);
		e->cmds[j++].req_id = SACC_GRAPH_CMD_ID(tag, i);
		if (op->opcode == SACC_OP_WRITE_INLINE) {
			memcpy(&e->cmds[j], op->data, op->len);
			j += (uint32_t)SACC_INLINE_SLOTS(op->len);
		}
	}
	return 0;
}

/* The graph holds (@d 1) or lets go of (@d -1) its ops' buffers. */
static void pin(struct sacc_op *ops, unsigned int n, int d)
{
	for (unsigned int i = 0; ops && i < n; i++) {
		struct sacc_buf *b[2] = {ops[i].src, ops[i].dst};

		for (int k = 0; k < 2; k++)
			if (b[k] && (d > 0 || b[k]->graphs))
				b[k]->graphs += (uint32_t)d;
	}
}

/* Memory for a segment of @bytes, as @flags place it. */
static int seg_alloc(struct sacc_dev *dev, unsigned int flags, size_t bytes,
		     const char *what, struct sacc_buf **out)
{
	int ret;

	if (!(flags & SACC_GRAPH_DEVMEM))
		return sacc_buf_alloc_internal(dev, bytes, SACC_DMA_TO_DEVICE,
					       "graph segment", true, out);
	ret =
	    sacc_devmem_alloc_internal(dev, bytes, "graph segment", true, out);
	if (ret)
		return sacc_seterr(dev, -ret,
				   "%s: SACC_GRAPH_DEVMEM: %s; or leave the "
				   "segment in host memory",
				   what, sacc_errmsg(dev));
	return 0;
}

/* The segment's contents into its memory (device memory: BAR4 stores;
 * the doorbell's release fence orders them before any launch). */
static void seg_write(struct sacc_graph *g)
{
	memcpy(sacc_buf_va(g->seg), g->cmds,
	       (size_t)g->slots * sizeof(*g->cmds));
	if (g->flags & SACC_GRAPH_DEVMEM)
		g->epoch = sacc_devmem_epoch(g->dev);
}

/* ---- create, destroy ---- */

static void link_graph(struct sacc_dev *dev, struct sacc_graph *g)
{
	g->prev = NULL;
	g->next = dev->graphs;
	if (dev->graphs)
		dev->graphs->prev = g;
	dev->graphs = g;
}

static void unlink_graph(struct sacc_dev *dev, struct sacc_graph *g)
{
	if (g->prev)
		g->prev->next = g->next;
	else
		dev->graphs = g->next;
	if (g->next)
		g->next->prev = g->prev;
	g->next = g->prev = NULL;
}

/* What every graph needs of @dev and @flags (@raw: nothing of the
 * device's version or MODE: the unsafe hook may ask anything). */
static int check_dev(struct sacc_dev *dev, unsigned int flags, bool raw,
		     const char *what)
{
	int ret = sacc_queue_ready(dev, what);

	if (ret)
		return ret;
	if (flags & ~(SACC_GRAPH_DEVMEM | SACC_GRAPH_IRQ))
		return sacc_seterr(dev, EINVAL, "%s: unknown flags 0x%x", what,
				   flags &
				       ~(SACC_GRAPH_DEVMEM | SACC_GRAPH_IRQ));
	if (raw)
		return 0;
	if (dev->version < SACC_VERSION)
		return sacc_seterr(dev, ENOTSUP,
				   "%s: %s has VERSION %u: graphs need a v0.4 "
				   "device (the SEGMENT entry, VERSION %u or "
				   "later); launch the ops as a chain "
				   "(sacc_chain_create()) instead",
				   what, dev->bdf, dev->version, SACC_VERSION);
	if (!(dev->mode & SACC_MODE_V3))
		return sacc_seterr(dev, EINVAL,
				   "%s: graphs need a MODE.V3 handle (SEGMENT "
				   "is a MODE.V3 opcode): sacc_chan_open(), or "
				   "sacc_open() with SACC_OPEN_V3",
				   what);
	return 0;
}

/* A new graph over encoded @e (taken over) on @dev: its segment made
 * and written, buffers pinned, linked.  0 or the error (@e freed). */
static int graph_new(struct sacc_dev *dev, struct graph_enc *e, unsigned int n,
		     unsigned int flags, bool raw, uint32_t tag,
		     const char *what, struct sacc_graph **out)
{
	struct sacc_graph *g = calloc(1, sizeof(*g));
	int ret;

	if (!g) {
		enc_free(e);
		return sacc_seterr(dev, ENOMEM, "%s: no memory", what);
	}
	ret = seg_alloc(dev, flags, (size_t)e->slots * sizeof(*e->cmds), what,
			&g->seg);
	if (ret) {
		enc_free(e);
		free(g);
		return ret;
	}
	g->magic = SACC_GRAPH_MAGIC;
	g->dev = dev;
	g->ops = e->ops;
	g->head = e->head;
	g->cmds = e->cmds;
	g->slots = e->slots;
	g->n = n;
	g->flags = flags;
	g->raw = raw;
	g->tag = tag;
	seg_write(g);
	pin(g->ops, g->n, 1);
	link_graph(dev, g);
	*out = g;
	return 0;
}

int sacc_graph_create(struct sacc_dev *dev, const struct sacc_op *ops,
		      unsigned int n, unsigned int flags,
		      struct sacc_graph **out)
{
	static const char what[] = "sacc_graph_create";
	/* a tag per graph, process-wide (handles may be in threads) */
	static uint32_t tags;
	uint32_t tag = __atomic_add_fetch(&tags, 1, __ATOMIC_RELAXED);
	struct graph_enc e = {0};
	uint32_t slots = 0;
	int ret;

	if (out)
		*out = NULL;
	ret = check_dev(dev, flags, false, what);
	if (ret)
		return ret;
	if (!out)
		return sacc_seterr(dev, EINVAL, "%s: out is NULL", what);
	ret = check_ops(dev, ops, n, what, &slots);
	if (!ret)
		ret = encode(dev, ops, n, slots, tag, &e);
	return ret ? ret : graph_new(dev, &e, n, flags, false, tag, what, out);
}

int sacc_graph_create_raw(struct sacc_dev *dev, const struct sacc_desc *cmds,
			  unsigned int slots, unsigned int flags,
			  struct sacc_graph **out)
{
	static const char what[] = "sacc_graph_create_raw";
	struct graph_enc e = {0};
	unsigned int n;
	int ret;

	if (out)
		*out = NULL;
	ret = check_dev(dev, flags, true, what);
	if (ret)
		return ret;
	if (!out || !cmds || !slots || slots > SACC_SEGMENT_MAX / sizeof(*cmds))
		return sacc_seterr(dev, EINVAL,
				   "%s: needs out and 1..%zu slots of commands",
				   what, SACC_SEGMENT_MAX / sizeof(*cmds));
	n = walk_cmds(cmds, slots, NULL);
	e.head = calloc(n, sizeof(*e.head));
	e.cmds = malloc((size_t)slots * sizeof(*cmds));
	e.slots = slots;
	if (!e.head || !e.cmds) {
		enc_free(&e);
		return sacc_seterr(dev, ENOMEM, "%s: no memory", what);
	}
	memcpy(e.cmds, cmds, (size_t)slots * sizeof(*cmds));
	walk_cmds(cmds, slots, e.head);
	return graph_new(dev, &e, n, flags, true, 0, what, out);
}

static bool graph_ok(const struct sacc_graph *g)
{
	return g && g->magic == SACC_GRAPH_MAGIC;
}

int sacc_graph_destroy(struct sacc_graph *g)
{
	struct sacc_dev *dev;

	if (!g)
		return 0;
	if (!graph_ok(g))
		return sacc_seterr(NULL, EINVAL,
				   "sacc_graph_destroy: not a live graph "
				   "(destroyed twice?)");
	dev = g->dev;
	if (g->inflight)
		return sacc_seterr(dev, EBUSY,
				   "sacc_graph_destroy: %u launch%s of the "
				   "graph outstanding (the device may still "
				   "fetch its segment): reap %s with "
				   "sacc_poll(), or abandon %s with "
				   "sacc_reset(), first",
				   g->inflight,
				   g->inflight == 1 ? " is" : "es are",
				   g->inflight == 1 ? "it" : "them",
				   g->inflight == 1 ? "it" : "them");
	if (dev) {
		pin(g->ops, g->n, -1);
		unlink_graph(dev, g);
		sacc_buf_free_internal(g->seg);
	}
	g->magic = 0;
	free(g->ops);
	free(g->head);
	free(g->cmds);
	free(g);
	return 0;
}

void sacc_graph_orphan_all(struct sacc_dev *dev)
{
	while (dev->graphs) {
		struct sacc_graph *g = dev->graphs;

		pin(g->ops, g->n, -1);
		unlink_graph(dev, g);
		g->dev = NULL;
		g->seg = NULL; /* goes with the handle's buffers */
		g->inflight = 0;
	}
}

/* ---- update ---- */

int sacc_graph_update(struct sacc_graph *g, const struct sacc_op *ops,
		      unsigned int n)
{
	static const char what[] = "sacc_graph_update";
	struct sacc_buf *seg = NULL, *old = NULL;
	struct graph_enc e = {0};
	struct sacc_dev *dev;
	uint32_t slots = 0;
	int ret;

	if (!graph_ok(g))
		return sacc_seterr(NULL, EINVAL, "%s: not a live graph", what);
	dev = g->dev;
	if (!dev)
		return sacc_seterr(NULL, ENODEV,
				   "%s: the graph's handle was closed; "
				   "sacc_graph_destroy() it",
				   what);
	ret = sacc_queue_ready(dev, what);
	if (ret)
		return ret;
	if (g->raw)
		return sacc_seterr(dev, EINVAL,
				   "%s: a raw graph is rewritten by creating "
				   "another",
				   what);
	if (g->inflight)
		return sacc_seterr(dev, EBUSY,
				   "%s: %u launch%s outstanding: a segment "
				   "must not be written from its doorbell to "
				   "its completion (spec section 21); reap "
				   "first",
				   what, g->inflight,
				   g->inflight == 1 ? " is" : "es are");
	ret = check_ops(dev, ops, n, what, &slots);
	if (!ret)
		ret = encode(dev, ops, n, slots, g->tag, &e);
	if (ret)
		return ret;
	/* in place if it fits the segment's pages, else new memory */
	if ((size_t)slots * sizeof(*e.cmds) > g->seg->dma.map_len) {
		ret = seg_alloc(dev, g->flags, (size_t)slots * sizeof(*e.cmds),
				what, &seg);
		if (ret) {
			enc_free(&e);
			return ret;
		}
		old = g->seg;
		g->seg = seg;
	}
	pin(e.ops, n, 1);
	pin(g->ops, g->n, -1);
	free(g->ops);
	free(g->head);
	free(g->cmds);
	g->ops = e.ops;
	g->head = e.head;
	g->cmds = e.cmds;
	g->slots = slots;
	g->n = n;
	seg_write(g);
	sacc_buf_free_internal(old);
	return 0;
}

/* ---- launch ---- */

int sacc_graph_launch(struct sacc_dev *dev, struct sacc_graph *g,
		      uint64_t cookie)
{
	struct sacc_desc d = {.opcode = SACC_OP_SEGMENT};
	uint32_t slot;
	int ret;

	ret = sacc_queue_ready(dev, "sacc_graph_launch");
	if (ret)
		return ret;
	if (!graph_ok(g))
		return sacc_seterr(dev, EINVAL,
				   "sacc_graph_launch: not a live graph");
	if (g->dev != dev)
		return sacc_seterr(dev, EINVAL, "sacc_graph_launch: %s",
				   g->dev ? "the graph was created on another "
					    "handle; launch it there (its "
					    "segment and buffers are that "
					    "handle's)"
					  : "the graph's handle was closed");
	if ((g->flags & SACC_GRAPH_DEVMEM) &&
	    g->epoch != sacc_devmem_epoch(dev))
		seg_write(g); /* an FLR zeroed device memory */
	if (!sacc_sq_space(&dev->sq))
		return 0;
	d.src = sacc_buf_addr(g->seg);
	d.length = g->slots * (uint32_t)sizeof(d);
	d.flags = (g->flags & SACC_GRAPH_DEVMEM ? SACC_DESC_F_SRC_DEV : 0) |
		  (g->flags & SACC_GRAPH_IRQ ? SACC_DESC_F_IRQ : 0);
	d.req_id = sacc_next_req_id(dev);
	if (sacc_sq_push(&dev->sq, &d, &slot))
		return 0; /* cannot happen: space was checked */
	sacc_track_graph(&dev->track[slot], &d, g, cookie);
	dev->stats.submitted++;
	ret = sacc_publish_ring(dev, slot, 1, NULL);
	return ret ? ret : 1;
}

/* ---- accessors ---- */

unsigned int sacc_graph_ops(const struct sacc_graph *g)
{
	return graph_ok(g) ? g->n : 0;
}

size_t sacc_graph_bytes(const struct sacc_graph *g)
{
	return graph_ok(g) ? (size_t)g->slots * sizeof(struct sacc_desc) : 0;
}

const struct sacc_desc *sacc_graph_cmd(const struct sacc_graph *g,
				       uint32_t index)
{
	return graph_ok(g) && index < g->n ? &g->cmds[g->head[index]] : NULL;
}

// SPDX-License-Identifier: MIT
/*
 * queue.c - the data path: submit (one barrier and one doorbell per
 * batch), poll (CQ_HEAD once per batch, every completion checked),
 * wait by interrupt (MSI-X eventfd + poll()), queue state and counters.
 *
 * Ring index arithmetic, the phase bit and the memory ordering live in
 * rings/; this file adds the bookkeeping of what was submitted so that
 * nothing the device writes into the CQ is taken on trust.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sacc_mmio.h"
#include "sacc_priv.h"

int sacc_queue_alloc(struct sacc_dev *dev)
{
	int ret;

	/* For a channel, buf.c prefixes the names with "ch<k>:". */
	ret = sacc_buf_alloc_internal(dev, sacc_sq_bytes(dev->sq_entries),
				      SACC_DMA_DIR_SQ, "sq ring", true,
				      &dev->sq_buf);
	if (ret)
		return ret;
	ret = sacc_buf_alloc_internal(dev, sacc_cq_bytes(dev->cq_entries),
				      SACC_DMA_DIR_CQ, "cq ring", true,
				      &dev->cq_buf);
	if (ret)
		return ret;
	dev->track = calloc(dev->sq_entries, sizeof(*dev->track));
	if (!dev->track)
		return sacc_seterr(dev, ENOMEM, "out of memory");
	return 0;
}

/* After sacc_hw_quiesce(): the device no longer touches the rings. */
void sacc_queue_free(struct sacc_dev *dev)
{
	sacc_queue_abandon(dev);
	sacc_events_free(dev);
	free(dev->track);
	dev->track = NULL;
	/* The ring buffers themselves go with sacc_buf_free_all(). */
	dev->sq_buf = NULL;
	dev->cq_buf = NULL;
	memset(&dev->sq, 0, sizeof(dev->sq));
	memset(&dev->cq, 0, sizeof(dev->cq));
}

static void untrack(struct sacc_track *t)
{
	if (t->src && t->src->inflight)
		t->src->inflight--;
	if (t->dst && t->dst->inflight)
		t->dst->inflight--;
	t->src = t->dst = NULL;
}

/* Forget every outstanding operation (the device was reset). */
void sacc_queue_abandon(struct sacc_dev *dev)
{
	uint32_t i, n, head;

	if (!dev->track || !dev->sq.size)
		return;
	n = sacc_sq_in_flight(&dev->sq);
	head = dev->sq.head;
	for (i = 0; i < n; i++) {
		struct sacc_track *t =
		    &dev->track[sacc_ring_add(head, i, dev->sq.size)];

		dev->stats.abandoned += t->slots ? 1 : 0; /* not payload */
		untrack(t);
	}
	dev->sq.head = dev->sq.tail = dev->sq.published = 0;
	sacc_progress_reset(dev);
}

/* Nothing outstanding is late any more (reaped, abandoned, reset). */
void sacc_progress_reset(struct sacc_dev *dev)
{
	dev->stall_t0 = 0;
	dev->probe_armed_at = 0;
}

int sacc_mark_broken(struct sacc_dev *dev, int err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = sacc_vseterr(dev, err, fmt, ap);
	va_end(ap);
	if (!dev->broken)
		dev->stats.device_errors++;
	dev->broken = true;
	dev->why_broken = dev->err;
	return ret;
}

int sacc_queue_ready(struct sacc_dev *dev, const char *what)
{
	if (!dev)
		return sacc_seterr(NULL, EINVAL, "%s: dev is NULL", what);
	if (dev->gone)
		return sacc_gone_err(dev);
	if (dev->root && __atomic_load_n(&dev->root->gone, __ATOMIC_ACQUIRE))
		return sacc_seterr(dev, ENODEV, "%s", dev->root->why_gone.msg);
	if (dev->flags & SACC_OPEN_NO_INIT)
		return sacc_seterr(dev, ENOTCONN,
				   "%s: %s was opened with SACC_OPEN_NO_INIT "
				   "(no rings)",
				   what, dev->bdf);
	if (!dev->initialised)
		return sacc_seterr(dev, ENOTCONN,
				   "%s: %s is not initialised (a reset "
				   "failed?); call sacc_reset()",
				   what, dev->bdf);
	if (dev->broken)
		return sacc_seterr(dev, EIO, "%s", dev->why_broken.msg);
	return 0;
}

static uint32_t next_req_id(struct sacc_dev *dev)
{
	uint32_t id = dev->next_req_id;

	/* 1..INT32_MAX: never 0 (FAULT_REQ_ID's "no descriptor"), and
	 * representable as sacc_submit_raw()'s positive return value. */
	dev->next_req_id = id >= INT32_MAX ? 1 : id + 1;
	return id;
}

static int ring_doorbell(struct sacc_dev *dev, uint32_t tail)
{
	ssize_t n;

	dev->stats.doorbells++;
	if (dev->doorbell == SACC_DOORBELL_MMAP) {
		/* The channel's word of the doorbell page (channel 0: offset
		 * 0); the write's release fence (sacc_sq_publish() has one
		 * too) orders the descriptors. */
		sacc_mmio_write32(dev->db, dev->db_slot, tail);
		return 0;
	}
	if (dev->doorbell == SACC_DOORBELL_PUT_TOKEN) {
		/* Descriptors, the PUT word, a release barrier, the token
		 * (sacc_mmio_write32()'s fence is that barrier). */
		__atomic_store_n(dev->put, htole32(tail), __ATOMIC_RELAXED);
		sacc_mmio_write32(dev->db,
				  SACC_DOORBELL_TOKEN - SACC_DOORBELL_OFFSET,
				  dev->chan);
		return 0;
	}
	n = pwrite(
	    dev->device_fd, &tail, sizeof(tail),
	    (off_t)(dev->bar0.offset + SACC_DOORBELL_OFFSET + dev->db_slot));
	if (n != (ssize_t)sizeof(tail))
		return sacc_mark_broken(
		    dev, n < 0 ? errno : EIO,
		    "%s: doorbell pwrite failed: %s; "
		    "call sacc_reset()",
		    dev->bdf, n < 0 ? strerror(errno) : "short write");
	return 0;
}

int sacc_doorbell_repeat(struct sacc_dev *dev, unsigned int n)
{
	int ret = sacc_queue_ready(dev, "sacc_doorbell_repeat");

	if (ret)
		return ret;
	if (dev->doorbell != SACC_DOORBELL_MMAP)
		return sacc_seterr(dev, ENOTSUP,
				   "%s: sacc_doorbell_repeat needs the mmapped "
				   "tail doorbell (not token or pwrite)",
				   dev->bdf);
	while (n--)
		sacc_mmio_write32(dev->db, dev->db_slot, dev->sq.published);
	return 0;
}

static bool buf_ok(struct sacc_dev *dev, const struct sacc_buf *b)
{
	return b && b->magic == SACC_BUF_MAGIC && b->dev == dev && !b->internal;
}

static int check_dst(struct sacc_dev *dev, const struct sacc_op *op,
		     unsigned int i, uint32_t len)
{
	if (!buf_ok(dev, op->dst))
		return sacc_seterr(dev, EINVAL,
				   "op %u (%s): dst is not a live buffer of "
				   "this handle (%s channel %u)",
				   i, sacc_opcode_str(op->opcode), dev->bdf,
				   dev->chan);
	if (op->dst_off > op->dst->dma.len ||
	    len > op->dst->dma.len - op->dst_off)
		return sacc_seterr(dev, EINVAL,
				   "op %u: dst '%s' is %llu bytes; offset %zu "
				   "+ length %u runs past its end",
				   i, op->dst->name,
				   (unsigned long long)op->dst->dma.len,
				   op->dst_off, len);
	if (!(op->dst->dma.dir & SACC_DMA_FROM_DEVICE))
		return sacc_seterr(dev, EINVAL,
				   "op %u: dst '%s' is mapped %s: the device "
				   "may not write it",
				   i, op->dst->name,
				   sacc_dma_dir_name(op->dst->dma.dir));
	return 0;
}

/* SACC_OP_WRITE_INLINE, SACC_OP_TIMESTAMP */
static int check_v3_op(struct sacc_dev *dev, const struct sacc_op *op,
		       unsigned int i)
{
	uint64_t slots;

	if (!(dev->mode & SACC_MODE_V3))
		return sacc_seterr(dev, EINVAL,
				   "op %u (%s): needs a MODE.V3 channel: "
				   "sacc_chan_open(), or sacc_open() with "
				   "SACC_OPEN_V3",
				   i, sacc_opcode_str(op->opcode));
	if (op->opcode == SACC_OP_TIMESTAMP)
		return check_dst(dev, op, i, SACC_TIMESTAMP_LEN);
	if (op->len < 1 || op->len > SACC_INLINE_MAX)
		return sacc_seterr(dev, EINVAL,
				   "op %u (write-inline): length %u not in "
				   "1..%u; use memcpy from a buffer for more",
				   i, op->len, SACC_INLINE_MAX);
	if (!op->data)
		return sacc_seterr(dev, EINVAL,
				   "op %u (write-inline): data is NULL", i);
	slots = 1 + SACC_INLINE_SLOTS(op->len);
	if (slots > dev->sq_entries - 1)
		return sacc_seterr(dev, EINVAL,
				   "op %u (write-inline): %u bytes take %llu "
				   "SQ slots, the SQ holds %u; open with a "
				   "larger sq_entries",
				   i, op->len, (unsigned long long)slots,
				   dev->sq_entries - 1);
	return check_dst(dev, op, i, op->len);
}

static int check_op(struct sacc_dev *dev, const struct sacc_op *op,
		    unsigned int i)
{
	if (op->flags & ~SACC_OPF_IRQ)
		return sacc_seterr(dev, EINVAL, "op %u: unknown flags 0x%x", i,
				   op->flags);
	if (op->opcode == SACC_OP_NOP)
		return 0;
	if (op->opcode == SACC_OP_WRITE_INLINE ||
	    op->opcode == SACC_OP_TIMESTAMP)
		return check_v3_op(dev, op, i);
	if (op->opcode != SACC_OP_MEMCPY && op->opcode != SACC_OP_XFORM)
		return sacc_seterr(dev, EINVAL,
				   "op %u: unknown opcode %u (nop, memcpy, "
				   "xform, write-inline, timestamp)",
				   i, op->opcode);
	if (op->len < 1 || op->len > SACC_MAX_XFER)
		return sacc_seterr(
		    dev, EINVAL, "op %u (%s): length %u not in 1..%u", i,
		    sacc_opcode_str(op->opcode), op->len, SACC_MAX_XFER);
	if (!buf_ok(dev, op->src) || !buf_ok(dev, op->dst))
		return sacc_seterr(
		    dev, EINVAL, "op %u (%s): %s is not a live buffer of %s", i,
		    sacc_opcode_str(op->opcode),
		    buf_ok(dev, op->src) ? "dst" : "src", dev->bdf);
	if (op->src_off > op->src->dma.len ||
	    op->len > op->src->dma.len - op->src_off)
		return sacc_seterr(dev, EINVAL,
				   "op %u: src '%s' is %llu bytes; offset %zu "
				   "+ length %u runs past its end",
				   i, op->src->name,
				   (unsigned long long)op->src->dma.len,
				   op->src_off, op->len);
	if (!(op->src->dma.dir & SACC_DMA_TO_DEVICE))
		return sacc_seterr(dev, EINVAL,
				   "op %u: src '%s' is mapped %s: the device "
				   "may not read it",
				   i, op->src->name,
				   sacc_dma_dir_name(op->src->dma.dir));
	return check_dst(dev, op, i, op->len);
}

/* An inline payload into the SQ slots after its descriptor (wrapping
 * with the ring); the caller checked there is room. */
static void push_payload(struct sacc_dev *dev, const void *data, uint32_t len)
{
	const unsigned char *p = data;
	struct sacc_desc chunk;
	uint32_t off, k, slot;

	for (off = 0; off < len; off += k) {
		k = len - off < sizeof(chunk) ? len - off : sizeof(chunk);
		memset(&chunk, 0, sizeof(chunk));
		memcpy(&chunk, p + off, k);
		if (sacc_sq_push(&dev->sq, &chunk, &slot))
			return;
		memset(&dev->track[slot], 0, sizeof(dev->track[slot]));
	}
}

/*
 * The doorbell for the @count operations pushed since the last one,
 * from SQ slot @first on.  With events on (or @t_db), ONE clock read
 * just before the doorbell write stamps the batch: a submit event per
 * operation (from the tracking records), then the doorbell event.  A
 * clock read is the expensive part of an event (about 220 ns on the TCG
 * testbed, docs/telemetry.md), so not one per descriptor.
 */
static int publish_ring(struct sacc_dev *dev, uint32_t first, uint32_t count,
			uint64_t *t_db)
{
	uint32_t tail = sacc_sq_publish(&dev->sq), s = first;
	uint64_t t = dev->ev || t_db ? sacc_monotonic_ns() : 0;
	int ret = ring_doorbell(dev, tail);

	/* Recorded after the doorbell, so a failed (pwrite) doorbell is
	 * not in the stream; stamped before it. */
	if (ret || !dev->ev)
		goto out;
	for (uint32_t k = 0; k < count; k++) {
		const struct sacc_track *tr = &dev->track[s];

		sacc_ev_submit(dev, t, tr->req_id, tr->opcode, tr->len);
		s = sacc_ring_add(s, tr->slots, dev->sq.size);
	}
	sacc_ev_doorbell(dev, t, tail, count);
out:
	if (t_db)
		*t_db = t;
	return ret;
}

/* Push validated @ops (as many as fit), then one doorbell. */
int sacc_queue_push(struct sacc_dev *dev, const struct sacc_op *ops,
		    unsigned int n, uint64_t *t_db)
{
	struct sacc_desc d;
	struct sacc_track *t;
	uint32_t slot, space, need, i, first = dev->sq.tail;
	int ret;

	space = sacc_sq_space(&dev->sq);
	for (i = 0; i < n; i++) {
		const struct sacc_op *op = &ops[i];
		bool nop = op->opcode == SACC_OP_NOP;
		bool inl = op->opcode == SACC_OP_WRITE_INLINE;

		need = inl ? 1 + (uint32_t)SACC_INLINE_SLOTS(op->len) : 1;
		if (need > space)
			break;
		space -= need;
		memset(&d, 0, sizeof(d));
		if (!nop) {
			d.dst = op->dst->dma.iova + op->dst_off;
			if (op->opcode != SACC_OP_TIMESTAMP)
				d.length = op->len;
			if (op->src)
				d.src = op->src->dma.iova + op->src_off;
		}
		d.opcode = op->opcode;
		d.flags = op->flags & SACC_OPF_IRQ ? SACC_DESC_F_IRQ : 0;
		d.req_id = next_req_id(dev);
		if (sacc_sq_push(&dev->sq, &d, &slot))
			break; /* cannot happen: space was checked */
		t = &dev->track[slot];
		t->cookie = op->cookie;
		t->req_id = d.req_id;
		t->len = op->opcode == SACC_OP_TIMESTAMP ? SACC_TIMESTAMP_LEN
							 : d.length;
		t->opcode = d.opcode;
		t->raw = 0;
		t->slots = (uint16_t)need;
		t->irq = !!(d.flags & SACC_DESC_F_IRQ);
		t->src = nop || !op->src ? NULL : op->src;
		t->dst = nop ? NULL : op->dst;
		if (t->src)
			t->src->inflight++;
		if (t->dst)
			t->dst->inflight++;
		if (inl)
			push_payload(dev, op->data, op->len);
	}
	if (i == 0)
		return 0;
	dev->stats.submitted += i;
	ret = publish_ring(dev, first, i, t_db);
	return ret ? ret : (int)i;
}

int sacc_submit(struct sacc_dev *dev, const struct sacc_op *ops, unsigned int n)
{
	uint32_t i;
	int ret;

	ret = sacc_queue_ready(dev, "sacc_submit");
	if (ret)
		return ret;
	if (n && !ops)
		return sacc_seterr(dev, EINVAL, "sacc_submit: ops is NULL");
	for (i = 0; i < n; i++) {
		ret = check_op(dev, &ops[i], i);
		if (ret)
			return ret;
	}
	return sacc_queue_push(dev, ops, n, NULL);
}

static int submit_raw(struct sacc_dev *dev, const struct sacc_desc *d,
		      const void *data, const char *what)
{
	struct sacc_desc copy;
	struct sacc_track *t;
	uint32_t slot, need = 1;
	int ret;

	ret = sacc_queue_ready(dev, what);
	if (ret)
		return ret;
	if (!d)
		return sacc_seterr(dev, EINVAL, "%s: d is NULL", what);
	if (data) {
		if (d->opcode != SACC_OP_WRITE_INLINE || d->length < 1 ||
		    d->length > SACC_INLINE_MAX)
			return sacc_seterr(dev, EINVAL,
					   "%s: a payload needs a write-inline "
					   "descriptor of 1..%u bytes",
					   what, SACC_INLINE_MAX);
		need += (uint32_t)SACC_INLINE_SLOTS(d->length);
	}
	if (sacc_sq_space(&dev->sq) < need)
		return sacc_seterr(dev, EAGAIN, "%s: the SQ is full", what);
	copy = *d;
	copy.req_id = next_req_id(dev);
	if (sacc_sq_push(&dev->sq, &copy, &slot))
		return sacc_seterr(dev, EAGAIN, "%s: the SQ is full", what);
	t = &dev->track[slot];
	memset(t, 0, sizeof(*t));
	t->req_id = copy.req_id;
	t->len = copy.length;
	t->opcode = copy.opcode;
	t->raw = 1;
	t->slots = (uint16_t)need;
	t->irq = !!(copy.flags & SACC_DESC_F_IRQ);
	if (data)
		push_payload(dev, data, copy.length);
	dev->stats.submitted++;
	ret = publish_ring(dev, slot, 1, NULL);
	return ret ? ret : (int)copy.req_id;
}

int sacc_submit_raw(struct sacc_dev *dev, const struct sacc_desc *d)
{
	return submit_raw(dev, d, NULL, "sacc_submit_raw");
}

int sacc_submit_raw_inline(struct sacc_dev *dev, const struct sacc_desc *d,
			   const void *data)
{
	if (!data)
		return sacc_seterr(dev, EINVAL,
				   "sacc_submit_raw_inline: data is NULL");
	return submit_raw(dev, d, data, "sacc_submit_raw_inline");
}

/* Is @req_id anywhere among the outstanding operations? */
static bool outstanding_id(struct sacc_dev *dev, uint32_t req_id)
{
	uint32_t i, n = sacc_sq_in_flight(&dev->sq);

	for (i = 0; i < n; i++)
		if (req_id && /* 0: an inline payload slot */
		    dev->track[sacc_ring_add(dev->sq.head, i, dev->sq.size)]
			    .req_id == req_id)
			return true;
	return false;
}

/* NULL if @c is a believable completion for @t, else what is wrong. */
static const char *judge(const struct sacc_cqe *c, const struct sacc_track *t,
			 char *why, size_t len)
{
	if (c->status > SACC_STS_BAD_LENGTH) {
		snprintf(why, len, "unknown status %u", c->status);
		return why;
	}
	if (c->status != SACC_STS_OK && c->result_len) {
		snprintf(why, len, "status %u (%s) with result_len %u, not 0",
			 c->status, sacc_status_str(c->status), c->result_len);
		return why;
	}
	/* libsacc checked opcode and length: only raw descriptors may
	 * legitimately come back as bad opcode or bad length. */
	if (!t->raw && (c->status == SACC_STS_BAD_OPCODE ||
			c->status == SACC_STS_BAD_LENGTH)) {
		snprintf(why, len,
			 "status %u (%s) for a descriptor libsacc validated",
			 c->status, sacc_status_str(c->status));
		return why;
	}
	if (c->result_len > t->len) {
		snprintf(why, len,
			 "result_len %u is larger than the %u bytes requested",
			 c->result_len, t->len);
		return why;
	}
	if (c->status == SACC_STS_OK && c->result_len != t->len &&
	    t->opcode != SACC_OP_NOP) {
		snprintf(why, len,
			 "status ok but result_len %u of %u bytes requested",
			 c->result_len, t->len);
		return why;
	}
	return NULL;
}

static uint32_t cq_slot(const struct sacc_dev *dev, uint32_t k)
{
	return sacc_ring_add(dev->cq.head, k, dev->cq.size);
}

/*
 * The CQ_HEAD rewind probe, armed by progress_check() when nothing has
 * been reaped for a while with work outstanding.  It tells a device
 * that is stuck one completion behind from one that is merely slow.
 *
 * A completion libsacc took that the device had not posted (forged
 * into the slot the device was to write next) moves CQ_HEAD one past
 * the device's CQ tail: the device then sees a full CQ and stalls for
 * ever, and nothing in the ring says so.  The probe marks the last
 * consumed slot (req_id 0, which no descriptor carries; the phase word
 * is left alone, so the slot stays invalid for the next lap) and moves
 * CQ_HEAD back onto it.  The device may write that slot only if it was
 * behind: an up-to-date device may post at most CQ_SIZE - 2 entries
 * from head now, never into head - 1.  If it writes it, the entry
 * libsacc consumed there was not the device's.  The device posts in
 * ring order, so the probe slot is written before any entry at head:
 * checked whenever an entry appears at head (sacc_poll) and when the
 * probe window ends (@final), where CQ_HEAD is put back.
 */
static int probe_check(struct sacc_dev *dev, bool final)
{
	struct sacc_cqe *e = &dev->cq.entries[dev->probe_slot];
	bool head_valid = sacc_cq_peek(&dev->cq, NULL); /* acquire */
	uint32_t id = __atomic_load_n(&e->req_id, __ATOMIC_RELAXED);

	if (!id && !head_valid && !final)
		return 0;
	dev->probe_armed_at = 0; /* decided, either way */
	if (id)
		return sacc_mark_broken(
		    dev, EIO,
		    "%s: device error: forged completion: after CQ_HEAD was "
		    "moved back one slot, the device posted req_id %u into CQ "
		    "slot %u, which libsacc had already consumed: it was one "
		    "completion behind, so an entry libsacc took (in slot %u "
		    "or before) was not the device's (forged or stale) and "
		    "the device had stalled on a CQ it saw as full; call "
		    "sacc_reset()",
		    dev->bdf, id, dev->probe_slot, dev->probe_slot);
	if (!head_valid) /* else the batch about to be reaped writes it */
		sacc_wr(dev, SACC_REG_CQ_HEAD, dev->cq.head);
	return 0;
}

static void probe_arm(struct sacc_dev *dev, uint64_t now)
{
	uint32_t slot = cq_slot(dev, dev->cq.size - 1);

	__atomic_store_n(&dev->cq.entries[slot].req_id, 0, __ATOMIC_RELAXED);
	dev->probe_slot = slot;
	dev->probe_armed_at = now;
	/* sacc_wr()'s release fence orders the mark before it. */
	sacc_wr(dev, SACC_REG_CQ_HEAD, slot);
}

/*
 * Lost and forged completions the ring itself shows, while the head
 * slot is empty.  The device posts strictly in ring order, one
 * completion per descriptor, and keeps the slot before CQ_HEAD free:
 * a valid entry after an empty head means the head's completion was
 * erased (or never written); a valid entry in the kept-free slot was
 * not posted by a device that follows the full rule.  Reads RAM only:
 * min(outstanding, CQ_SIZE - 1) phase words.
 */
static int cq_scan(struct sacc_dev *dev, uint32_t inflight)
{
	uint32_t n = dev->cq.size, lim, k, want;
	struct sacc_cqe c;

	if (sacc_cq_peek(&dev->cq, NULL))
		return 0;
	lim = inflight < n - 1 ? inflight : n - 1;
	for (k = 1; k < lim; k++) {
		if (!sacc_cq_peek_at(&dev->cq, k, &c))
			continue;
		/* Posted meanwhile, head first: not lost after all. */
		if (sacc_cq_peek(&dev->cq, NULL))
			return 0;
		want = dev->track[dev->sq.head].req_id;
		return sacc_mark_broken(
		    dev, EIO,
		    "%s: device error: completion lost: CQ slot %u holds no "
		    "valid completion (req_id %u expected there) but slot %u, "
		    "%u after it, holds one (req_id %u); the device posts in "
		    "ring order, so the completion in slot %u was erased or "
		    "never written; call sacc_reset()",
		    dev->bdf, dev->cq.head, want, cq_slot(dev, k), k, c.req_id,
		    dev->cq.head);
	}
	if (sacc_cq_peek_at(&dev->cq, n - 1, &c) && !dev->probe_armed_at)
		return sacc_mark_broken(
		    dev, EIO,
		    "%s: device error: CQ slot %u holds a valid completion "
		    "(req_id %u) although the device must keep that slot free "
		    "until CQ_HEAD moves past it (CQ_SIZE %u): a forged or "
		    "stale completion; call sacc_reset()",
		    dev->bdf, cq_slot(dev, n - 1), c.req_id, n);
	return 0;
}

/*
 * No completion with work outstanding: after stall_probe_ms probe the
 * CQ (probe_check), after hang_ms give up on the device.  A clock read
 * per slow-path look; nothing on the hot path but sacc_poll()'s
 * stall_t0 = 0 when it reaps.
 */
static int progress_check(struct sacc_dev *dev, uint32_t inflight)
{
	uint64_t now = sacc_monotonic_ns();
	uint64_t probe = (uint64_t)(dev->stall_probe_ms ? dev->stall_probe_ms
							: SACC_STALL_PROBE_MS) *
			 1000000;
	uint64_t hang =
	    (uint64_t)(dev->hang_ms ? dev->hang_ms : SACC_HANG_MS) * 1000000;
	int ret;

	if (!dev->stall_t0) {
		dev->stall_t0 = now;
		dev->probe_at = now + probe;
		dev->probe_armed_at = 0;
		return 0;
	}
	if (dev->probe_armed_at) {
		if (now - dev->probe_armed_at >= probe / 4) {
			ret = probe_check(dev, true);
			if (ret)
				return ret;
			dev->probe_at = now + probe;
		}
	} else if (now >= dev->probe_at) {
		probe_arm(dev, now);
	}
	if (now - dev->stall_t0 < hang)
		return 0;
	return sacc_mark_broken(
	    dev, EIO,
	    "%s: device error: no completion for %llu ms with %u operation%s "
	    "outstanding although the device reports READY: it hung, or a "
	    "completion was lost (libsacc cannot read the device's CQ tail "
	    "to tell which); call sacc_reset()",
	    dev->bdf, (unsigned long long)((now - dev->stall_t0) / 1000000),
	    inflight, inflight == 1 ? "" : "s");
}

/*
 * The slow path's look at the device: the kernel's device request,
 * then STATUS (one MMIO read), the CQ (cq_scan) and progress, with work
 * outstanding (STATUS always with @status: a sleeping sacc_wait()).
 * Called every SACC_HEALTH_EVERY empty polls and whenever sacc_wait()
 * wakes without a completion.
 */
static int health(struct sacc_dev *dev, bool status)
{
	uint32_t inflight = sacc_sq_in_flight(&dev->sq);
	int ret;

	ret = sacc_req_check(dev);
	if (ret)
		return ret;
	if (!inflight) {
		sacc_progress_reset(dev);
		return status ? sacc_check(dev) : 0;
	}
	ret = sacc_check(dev);
	if (!ret)
		ret = cq_scan(dev, inflight);
	if (!ret)
		ret = progress_check(dev, inflight);
	return ret;
}

int sacc_poll(struct sacc_dev *dev, struct sacc_result *out, unsigned int max)
{
	struct sacc_cqe c;
	struct sacc_track *t;
	uint32_t n = 0, off = 0, inflight, idx;
	uint64_t cnt = 0, t_reap = 0;
	bool irqs = false;
	char why[160];
	int ret;

	ret = sacc_queue_ready(dev, "sacc_poll");
	if (ret)
		return ret;
	if (max && !out)
		return sacc_seterr(dev, EINVAL, "sacc_poll: out is NULL");
	if (dev->probe_armed_at) { /* slow path: a stall is being probed */
		ret = probe_check(dev, false);
		if (ret)
			return ret;
	}
	inflight = sacc_sq_in_flight(&dev->sq);
	/*
	 * Bounded: at most max, and at most CQ_SIZE - 1, which is all the
	 * device may post between two CQ_HEAD writes (it keeps one slot
	 * free): CQ_HEAD is written once per batch.
	 */
	if (max > dev->cq_entries - 1)
		max = dev->cq_entries - 1;
	while (n < max && sacc_cq_peek(&dev->cq, &c)) {
		const char *bad = NULL;

		if (off == inflight) {
			snprintf(why, sizeof(why),
				 "completion with req_id %u while nothing is "
				 "outstanding",
				 c.req_id);
			bad = why;
			t = NULL;
		} else {
			idx = sacc_ring_add(dev->sq.head, off, dev->sq.size);
			t = &dev->track[idx];
			if (c.req_id != t->req_id) {
				snprintf(why, sizeof(why),
					 "completion carries req_id %u, but "
					 "the oldest outstanding is %u (%s)",
					 c.req_id, t->req_id,
					 outstanding_id(dev, c.req_id)
					     ? "out of ring order"
					     : "not outstanding at all");
				bad = why;
			} else {
				bad = judge(&c, t, why, sizeof(why));
			}
		}
		if (bad) {
			if (n)
				break; /* deliver the good ones first */
			sacc_cq_advance(&dev->cq); /* do not see it again */
			sacc_wr(dev, SACC_REG_CQ_HEAD, dev->cq.head);
			dev->stats.cq_head_writes++;
			return sacc_mark_broken(dev, EIO,
						"%s: device error: %s; the "
						"completion is not trusted and "
						"the device needs sacc_reset()",
						dev->bdf, bad);
		}
		if (c.status == SACC_STS_DMA_FAULT) /* slow path only */
			sacc_dev_journal_fault(dev, idx, c.req_id, t->opcode);
		out[n].cookie = t->cookie;
		out[n].req_id = c.req_id;
		out[n].len = t->len;
		out[n].result_len = c.result_len;
		out[n].opcode = t->opcode;
		out[n].status = c.status;
		out[n].raw = t->raw;
		out[n].engine_ns = c.engine_ns;
		if (dev->ev) {
			if (!t_reap) /* one clock read per batch */
				t_reap = sacc_monotonic_ns();
			sacc_ev_reap(dev, t_reap, &out[n]);
		}
		off += t->slots;
		dev->stats.by_status[c.status]++;
		irqs |= t->irq;
		untrack(t);
		sacc_cq_advance(&dev->cq);
		n++;
	}
	if (n) {
		/*
		 * A full batch: the slot after it is the one the device had
		 * to keep free.  A valid entry there is not the device's;
		 * the batch before it is delivered, the device is not
		 * trusted from now on.  One more phase load, only here.
		 */
		if (n == dev->cq_entries - 1 && sacc_cq_peek(&dev->cq, &c))
			sacc_mark_broken(
			    dev, EIO,
			    "%s: device error: CQ slot %u holds a valid "
			    "completion (req_id %u) after %u completions were "
			    "reaped since the last CQ_HEAD write, although "
			    "the device must keep that slot free until CQ_HEAD "
			    "moves (CQ_SIZE %u): a forged or stale completion; "
			    "call sacc_reset()",
			    dev->bdf, dev->cq.head, c.req_id, n,
			    dev->cq_entries);
		/*
		 * A probe still running when entries appeared (they came in
		 * after the check above): decide it now, before CQ_HEAD
		 * moves on and the probe slot becomes one the device may
		 * write in its next lap.  A forgery marks the device; the
		 * batch, the device's own, is delivered.
		 */
		if (dev->probe_armed_at)
			probe_check(dev, true);
		/* Their MSI-X messages are stale now: count and drop them
		 * here so a later sacc_wait() does not wake for nothing. */
		if (irqs && dev->irq_fd >= 0 &&
		    read(dev->irq_fd, &cnt, sizeof(cnt)) == sizeof(cnt))
			dev->stats.interrupts += cnt;
		sacc_sq_complete(&dev->sq, off);
		/* sacc_wr()'s release fence: our reads of the entries happen
		 * before the device may reuse their slots. */
		sacc_wr(dev, SACC_REG_CQ_HEAD, dev->cq.head);
		dev->stats.cq_head_writes++;
		dev->stats.completed += n;
		dev->empty_polls = 0;
		dev->stall_t0 = 0; /* progress */
		/* A process that always finds work still hears the kernel
		 * ask for the device back (one read() per 4096 batches). */
		if (++dev->busy_polls >= SACC_HEALTH_EVERY) {
			dev->busy_polls = 0;
			sacc_req_check(dev); /* results stay valid */
		}
		return (int)n;
	}
	/* Nothing: now and then ask whether the device is still alive. */
	if (++dev->empty_polls >= SACC_HEALTH_EVERY) {
		dev->empty_polls = 0;
		return health(dev, false);
	}
	return 0;
}

int sacc_check(struct sacc_dev *dev)
{
	uint32_t st, ctrl;
	int ret;

	if (!dev)
		return sacc_seterr(NULL, EINVAL, "sacc_check: dev is NULL");
	if (dev->gone)
		return sacc_gone_err(dev);
	ret = sacc_req_check(dev);
	if (ret)
		return ret;
	if (dev->broken)
		return sacc_seterr(dev, EIO, "%s", dev->why_broken.msg);
	st = sacc_rd(dev, SACC_REG_STATUS);
	ret = sacc_reg_check(dev, st);
	if (ret)
		return sacc_mark_broken(dev, ret, "%s; call sacc_reset()",
					dev->err.msg);
	if (dev->initialised &&
	    !(st & (SACC_STATUS_READY | SACC_STATUS_ERROR))) {
		/* libsacc never clears ENABLE while initialised. */
		ctrl = sacc_rd(dev, SACC_REG_CTRL);
		if (!(ctrl & SACC_CTRL_ENABLE)) {
			uint32_t n = sacc_sq_in_flight(&dev->sq);

			return sacc_mark_broken(
			    dev, EIO,
			    "%s: device error: the device was reset or "
			    "disabled behind libsacc's back (STATUS 0x%x, "
			    "CTRL 0x%x, SQ_SIZE %u: power-on values; a write "
			    "to its sysfs reset file, an FLR, or CTRL written "
			    "by another program); its %u outstanding "
			    "operation%s will never complete; call "
			    "sacc_reset()",
			    dev->bdf, st, ctrl, sacc_rd(dev, SACC_REG_SQ_SIZE),
			    n, n == 1 ? "" : "s");
		}
	}
	if ((st & SACC_STATUS_ERROR) ||
	    (dev->initialised && !(st & SACC_STATUS_READY))) {
		if (st & SACC_STATUS_ERROR)
			sacc_dev_journal_fatal(dev);
		ret = sacc_fatal_msg(dev, "fatal device error");
		sacc_mark_broken(dev, ret, "%s", dev->err.msg);
		return ret;
	}
	return 0;
}

/*
 * Consume what the MSI-X eventfd has counted (non-blocking): count the
 * interrupts, acknowledge IRQ_STATUS, report a fatal one.  Returns 1 if
 * there was something, 0 if not, -EIO if the device stopped.
 */
static int take_irq(struct sacc_dev *dev)
{
	uint64_t cnt = 0;
	uint32_t irq;
	bool gone;
	int ret;

	if (read(dev->irq_fd, &cnt, sizeof(cnt)) != sizeof(cnt) || !cnt)
		return 0;
	dev->stats.interrupts += cnt;
	irq = sacc_rd(dev, SACC_REG_IRQ_STATUS);
	gone = sacc_reg_check(dev, irq) < 0; /* sacc_check() tells more */
	if (irq && !gone)
		sacc_wr(dev, SACC_REG_IRQ_ACK, irq);
	if (irq & SACC_IRQ_FATAL || gone) {
		ret = sacc_check(dev);
		if (ret)
			return ret;
		return sacc_mark_broken(dev, EIO,
					"%s: fatal interrupt (IRQ_STATUS 0x%x) "
					"but STATUS says ready; call "
					"sacc_reset()",
					dev->bdf, irq);
	}
	return 1;
}

int sacc_wait(struct sacc_dev *dev, int timeout_ms)
{
	uint64_t deadline = 0, now;
	struct pollfd pfd[2];
	int ret, slice, nfds;

	ret = sacc_queue_ready(dev, "sacc_wait");
	if (ret)
		return ret;
	if (!dev->irq_enabled || dev->irq_fd < 0)
		return sacc_seterr(dev, ENOTSUP,
				   "%s: interrupts are not set up", dev->bdf);
	/* Interrupts that came in since the last call: count and ack. */
	ret = take_irq(dev);
	if (ret < 0)
		return ret;
	if (sacc_cq_peek(&dev->cq, NULL))
		return 1;
	if (timeout_ms >= 0)
		deadline = sacc_monotonic_ns() + (uint64_t)timeout_ms * 1000000;
	/*
	 * Never one unbounded sleep: the device may be reset, hang, lose a
	 * completion or be taken back by the kernel without raising its
	 * interrupt.  Sleep in slices of SACC_WAIT_SLICE_MS and look at it
	 * (health()) between them: a wait costs one STATUS read per slice.
	 */
	for (;;) {
		slice = SACC_WAIT_SLICE_MS;
		if (timeout_ms >= 0) {
			now = sacc_monotonic_ns();
			if (now >= deadline)
				slice = 0;
			else if (deadline - now < (uint64_t)slice * 1000000)
				slice =
				    (int)((deadline - now + 999999) / 1000000);
		}
		nfds = 0;
		pfd[nfds++] =
		    (struct pollfd){.fd = dev->irq_fd, .events = POLLIN};
		if (dev->req_fd >= 0)
			pfd[nfds++] = (struct pollfd){.fd = dev->req_fd,
						      .events = POLLIN};
		ret = poll(pfd, (nfds_t)nfds, slice);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return sacc_seterr(dev, errno, "%s: poll(eventfd): %s",
					   dev->bdf, strerror(errno));
		}
		if (nfds > 1 && pfd[1].revents) {
			ret = sacc_req_check(dev);
			if (ret)
				return ret;
		}
		if (pfd[0].revents) {
			ret = take_irq(dev);
			if (ret < 0)
				return ret;
		}
		if (sacc_cq_peek(&dev->cq, NULL))
			return 1;
		/* A slice passed, or a stale wakeup: is it still alive? */
		ret = health(dev, true);
		if (ret)
			return ret;
		if (timeout_ms >= 0 && sacc_monotonic_ns() >= deadline)
			return 0;
	}
}

/* ---- sacc_write() ---- */

#define SACC_STAGE_BYTES SACC_MAX_XFER

void sacc_set_write_crossover(struct sacc_dev *dev, uint32_t bytes)
{
	if (dev)
		dev->inline_max =
		    bytes > SACC_INLINE_MAX ? SACC_INLINE_MAX : bytes;
}

uint32_t sacc_write_crossover(const struct sacc_dev *dev)
{
	return dev ? dev->inline_max : 0;
}

/* Room for @len bytes in the staging buffer, allocated at first use:
 * used as a ring, restarting at 0 only when nothing staged is in
 * flight, so a write never overwrites bytes the device may still read. */
static int stage(struct sacc_dev *dev, const void *data, uint32_t len,
		 size_t *off)
{
	int ret;

	if (!dev->stage) {
		ret = sacc_buf_alloc_internal(
		    dev, SACC_STAGE_BYTES, SACC_DMA_TO_DEVICE, "write staging",
		    true, &dev->stage);
		if (ret)
			return ret;
		dev->stage_pos = 0;
	}
	if (!dev->stage->inflight)
		dev->stage_pos = 0;
	if (len > SACC_STAGE_BYTES - dev->stage_pos)
		return sacc_seterr(dev, EAGAIN,
				   "sacc_write: the %u KiB staging buffer has "
				   "no room for %u bytes until earlier DMA "
				   "writes are reaped: sacc_poll() and retry",
				   SACC_STAGE_BYTES / 1024, len);
	memcpy((char *)sacc_buf_va(dev->stage) + dev->stage_pos, data, len);
	*off = dev->stage_pos;
	return 0;
}

int sacc_write(struct sacc_dev *dev, struct sacc_buf *dst, size_t dst_off,
	       const void *data, uint32_t len, enum sacc_write_mode mode,
	       uint16_t flags, uint64_t cookie)
{
	struct sacc_op op = {.flags = flags,
			     .len = len,
			     .dst = dst,
			     .dst_off = dst_off,
			     .cookie = cookie,
			     .data = data};
	size_t off = 0;
	int ret;

	ret = sacc_queue_ready(dev, "sacc_write");
	if (ret)
		return ret;
	if (!data)
		return sacc_seterr(dev, EINVAL, "sacc_write: data is NULL");
	if (mode == SACC_WRITE_AUTO)
		mode = (dev->mode & SACC_MODE_V3) && len <= dev->inline_max
			   ? SACC_WRITE_INLINE
			   : SACC_WRITE_DMA;
	if (mode == SACC_WRITE_INLINE) {
		op.opcode = SACC_OP_WRITE_INLINE;
		ret = check_op(dev, &op, 0);
		return ret ? ret : sacc_queue_push(dev, &op, 1, NULL);
	}
	if (mode != SACC_WRITE_DMA)
		return sacc_seterr(dev, EINVAL, "sacc_write: unknown mode %d",
				   (int)mode);
	op.opcode = SACC_OP_MEMCPY;
	op.data = NULL;
	if (len < 1 || len > SACC_MAX_XFER)
		return sacc_seterr(dev, EINVAL,
				   "sacc_write: length %u not in 1..%u", len,
				   SACC_MAX_XFER);
	ret = check_dst(dev, &op, 0, len);
	if (ret)
		return ret;
	if (sacc_sq_space(&dev->sq) == 0)
		return 0;
	ret = stage(dev, data, len, &off);
	if (ret)
		return ret;
	op.src = dev->stage;
	op.src_off = off;
	ret = sacc_queue_push(dev, &op, 1, NULL);
	if (ret == 1)
		dev->stage_pos = off + ((len + 63u) & ~63u);
	return ret;
}

/* ---- queue state and counters ---- */

uint32_t sacc_outstanding(const struct sacc_dev *dev)
{
	return dev && dev->sq.size ? sacc_sq_in_flight(&dev->sq) : 0;
}

uint32_t sacc_sq_free(const struct sacc_dev *dev)
{
	return dev && dev->sq.size && dev->initialised ? sacc_sq_space(&dev->sq)
						       : 0;
}

void sacc_stats(const struct sacc_dev *dev, struct sacc_stats *out)
{
	if (dev && out)
		*out = dev->stats;
}

void sacc_stats_clear(struct sacc_dev *dev)
{
	if (dev)
		memset(&dev->stats, 0, sizeof(dev->stats));
}

/* ---- chains: operations prepared once, launched with one doorbell ---- */

struct sacc_chain {
	struct sacc_dev *dev;
	struct sacc_op *ops;	/* n, for the tracking records */
	uint32_t *head;		/* n: op i's descriptor index in desc[] */
	struct sacc_desc *desc; /* slots: descriptors and inline payloads */
	unsigned int n;
	uint32_t slots;
};

static void chain_unpin(struct sacc_chain *c, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct sacc_op *op = &c->ops[i];

		if (op->opcode == SACC_OP_NOP)
			continue;
		if (op->src && op->src->inflight)
			op->src->inflight--;
		if (op->dst && op->dst->inflight)
			op->dst->inflight--;
	}
}

int sacc_chain_create(struct sacc_dev *dev, const struct sacc_op *ops,
		      unsigned int n, struct sacc_chain **out)
{
	struct sacc_chain *c;
	uint32_t slots = 0, j = 0;
	unsigned int i;
	int ret;

	if (out)
		*out = NULL;
	ret = sacc_queue_ready(dev, "sacc_chain_create");
	if (ret)
		return ret;
	if (!out || !ops || !n)
		return sacc_seterr(
		    dev, EINVAL, "sacc_chain_create: needs ops, n > 0 and out");
	for (i = 0; i < n; i++) {
		ret = check_op(dev, &ops[i], i);
		if (ret)
			return ret;
		slots += ops[i].opcode == SACC_OP_WRITE_INLINE
			     ? 1 + (uint32_t)SACC_INLINE_SLOTS(ops[i].len)
			     : 1;
		if (slots > dev->sq_entries - 1)
			return sacc_seterr(
			    dev, EINVAL,
			    "sacc_chain_create: %u ops take "
			    "more than the %u SQ slots one launch "
			    "may use; open with a larger "
			    "sq_entries or split the chain",
			    i + 1, dev->sq_entries - 1);
	}
	c = calloc(1, sizeof(*c));
	if (c) {
		c->ops = calloc(n, sizeof(*c->ops));
		c->head = calloc(n, sizeof(*c->head));
		c->desc = calloc(slots, sizeof(*c->desc));
	}
	if (!c || !c->ops || !c->head || !c->desc) {
		if (c) {
			free(c->ops);
			free(c->head);
			free(c->desc);
		}
		free(c);
		return sacc_seterr(dev, ENOMEM, "sacc_chain_create: no memory");
	}
	c->dev = dev;
	c->n = n;
	c->slots = slots;
	for (i = 0; i < n; i++) {
		const struct sacc_op *op = &ops[i];
		struct sacc_desc *d = &c->desc[j];

		c->ops[i] = *op;
		c->ops[i].data = NULL; /* copied into the payload slots */
		c->head[i] = j++;
		d->opcode = op->opcode;
		d->flags = op->flags & SACC_OPF_IRQ ? SACC_DESC_F_IRQ : 0;
		if (op->opcode == SACC_OP_NOP) {
			c->ops[i].src = c->ops[i].dst = NULL;
			continue;
		}
		d->dst = op->dst->dma.iova + op->dst_off;
		if (op->opcode != SACC_OP_TIMESTAMP)
			d->length = op->len;
		if (op->src)
			d->src = op->src->dma.iova + op->src_off;
		if (op->opcode == SACC_OP_WRITE_INLINE) {
			memcpy(&c->desc[j], op->data, op->len);
			j += (uint32_t)SACC_INLINE_SLOTS(op->len);
		}
		/* Pinned: sacc_buf_free() says -EBUSY until the chain goes. */
		if (op->src)
			op->src->inflight++;
		op->dst->inflight++;
	}
	*out = c;
	return 0;
}

int sacc_chain_launch(struct sacc_chain *c)
{
	struct sacc_dev *dev = c ? c->dev : NULL;
	unsigned int i;
	uint32_t slot0;
	int ret;

	ret = sacc_queue_ready(dev, "sacc_chain_launch");
	if (ret)
		return ret;
	if (sacc_sq_space(&dev->sq) < c->slots)
		return 0;
	slot0 = dev->sq.tail;
	for (i = 0; i < c->n; i++)
		c->desc[c->head[i]].req_id = next_req_id(dev);
	sacc_sq_push_batch(&dev->sq, c->desc, c->slots); /* room checked */
	for (i = 0; i < c->n; i++) {
		const struct sacc_op *op = &c->ops[i];
		uint32_t at = sacc_ring_add(slot0, c->head[i], dev->sq.size);
		uint32_t end = i + 1 < c->n ? c->head[i + 1] : c->slots;
		struct sacc_track *t = &dev->track[at];

		for (uint32_t k = c->head[i] + 1; k < end; k++)
			memset(
			    &dev->track[sacc_ring_add(slot0, k, dev->sq.size)],
			    0, sizeof(*t));
		t->cookie = op->cookie;
		t->req_id = c->desc[c->head[i]].req_id;
		t->len = op->opcode == SACC_OP_TIMESTAMP
			     ? SACC_TIMESTAMP_LEN
			     : c->desc[c->head[i]].length;
		t->opcode = op->opcode;
		t->raw = 0;
		t->slots = (uint16_t)(end - c->head[i]);
		t->irq = !!(op->flags & SACC_OPF_IRQ);
		t->src = op->src;
		t->dst = op->dst;
		if (t->src)
			t->src->inflight++;
		if (t->dst)
			t->dst->inflight++;
	}
	dev->stats.submitted += c->n;
	ret = publish_ring(dev, slot0, c->n, NULL);
	return ret ? ret : (int)c->n;
}

unsigned int sacc_chain_ops(const struct sacc_chain *c)
{
	return c ? c->n : 0;
}

size_t sacc_chain_bytes(const struct sacc_chain *c)
{
	return c ? (size_t)c->slots * sizeof(struct sacc_desc) : 0;
}

void sacc_chain_free(struct sacc_chain *c)
{
	if (!c)
		return;
	chain_unpin(c, c->n);
	free(c->ops);
	free(c->head);
	free(c->desc);
	free(c);
}

// SPDX-License-Identifier: MIT
/*
 * submit.c - the submission side: every operation checked against the
 * handle's buffers before the device sees it, descriptors pushed with a
 * tracking record each, then one barrier and one doorbell per batch
 * (mmapped tail, token + PUT word, or pwrite).  sacc_submit_raw() skips
 * the checks for the fault-injection tests; the tracking records still
 * say what was submitted, so its completions are checked like any.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sacc_mmio.h"
#include "sacc_track.h"

/*
 * SACC_PAUSE_BEFORE_DOORBELL=SECONDS (docs/debugging.md): stop before
 * every doorbell, the descriptors written and the device not told yet,
 * so the rings can be looked at from QEMU's monitor ("info sacc").  Read
 * once per process; stderr says where the program stands.
 */
static void pause_before_doorbell(struct sacc_dev *dev, uint32_t tail)
{
	static int secs = -1;
	const char *v;

	if (secs < 0) {
		v = getenv("SACC_PAUSE_BEFORE_DOORBELL");
		secs = v ? atoi(v) : 0;
		secs = secs < 0 ? 0 : secs > 3600 ? 3600 : secs;
	}
	if (!secs)
		return;
	fprintf(stderr,
		"libsacc: %s: paused %d s before the doorbell (SQ tail %u): "
		"look at the rings now, e.g. 'info sacc --ring 0' in QEMU's "
		"monitor\n",
		dev->bdf, secs, tail);
	sleep((unsigned int)secs);
	fprintf(stderr, "libsacc: %s: ringing\n", dev->bdf);
}

static int ring_doorbell(struct sacc_dev *dev, uint32_t tail)
{
	ssize_t n;

	pause_before_doorbell(dev, tail);
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

/*
 * Device memory (v0.4) as the @what ("src", "dst") of op @i: a
 * descriptor names it (SACC_DESC_F_SRC_DEV / _DST_DEV) only on a MODE.V3
 * channel of a v0.4 device.
 */
static int check_dev_side(struct sacc_dev *dev, const struct sacc_op *op,
			  unsigned int i, const struct sacc_buf *b,
			  const char *what)
{
	if (!b->is_dev)
		return 0;
	if (dev->version < SACC_VERSION)
		return sacc_seterr(dev, EINVAL,
				   "op %u (%s): %s '%s' is device memory, "
				   "which needs a v0.4 device (VERSION %u or "
				   "later); %s has VERSION %u",
				   i, sacc_opcode_str(op->opcode), what,
				   b->name, SACC_VERSION, dev->bdf,
				   dev->version);
	if (!(dev->mode & SACC_MODE_V3))
		return sacc_seterr(dev, EINVAL,
				   "op %u (%s): %s '%s' is device memory, "
				   "which a descriptor can name only on a "
				   "MODE.V3 handle: sacc_chan_open(), or "
				   "sacc_open() with SACC_OPEN_V3",
				   i, sacc_opcode_str(op->opcode), what,
				   b->name);
	return 0;
}

int sacc_check_dst(struct sacc_dev *dev, const struct sacc_op *op,
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
	if (op->dst->is_dev)
		return check_dev_side(dev, op, i, op->dst, "dst");
	if (!(op->dst->dma.dir & SACC_DMA_FROM_DEVICE))
		return sacc_seterr(dev, EINVAL,
				   "op %u: dst '%s' is mapped %s: the device "
				   "may not write it",
				   i, op->dst->name,
				   sacc_dma_dir_name(op->dst->dma.dir));
	return 0;
}

/* SACC_OP_FILL (v0.4): a pattern, no src */
static int check_fill(struct sacc_dev *dev, const struct sacc_op *op,
		      unsigned int i)
{
	if (dev->version < SACC_VERSION)
		return sacc_seterr(dev, EINVAL,
				   "op %u (fill): needs a v0.4 device "
				   "(VERSION %u or later); %s has VERSION %u",
				   i, SACC_VERSION, dev->bdf, dev->version);
	if (op->len < 1 || op->len > SACC_MAX_XFER)
		return sacc_seterr(dev, EINVAL,
				   "op %u (fill): length %u not in 1..%u", i,
				   op->len, SACC_MAX_XFER);
	if (op->src)
		return sacc_seterr(dev, EINVAL,
				   "op %u (fill): src must be NULL: the bytes "
				   "come from op.pattern",
				   i);
	return sacc_check_dst(dev, op, i, op->len);
}

/* SACC_OP_WRITE_INLINE, SACC_OP_TIMESTAMP, SACC_OP_FILL (@segment: a
 * graph's command, whose payload is not in the SQ) */
static int check_v3_op(struct sacc_dev *dev, const struct sacc_op *op,
		       unsigned int i, bool segment)
{
	uint64_t slots;

	if (!(dev->mode & SACC_MODE_V3))
		return sacc_seterr(dev, EINVAL,
				   "op %u (%s): needs a MODE.V3 channel: "
				   "sacc_chan_open(), or sacc_open() with "
				   "SACC_OPEN_V3",
				   i, sacc_opcode_str(op->opcode));
	if (op->opcode == SACC_OP_TIMESTAMP)
		return sacc_check_dst(dev, op, i, SACC_TIMESTAMP_LEN);
	if (op->opcode == SACC_OP_FILL)
		return check_fill(dev, op, i);
	if (op->len < 1 || op->len > SACC_INLINE_MAX)
		return sacc_seterr(dev, EINVAL,
				   "op %u (write-inline): length %u not in "
				   "1..%u; use memcpy from a buffer for more",
				   i, op->len, SACC_INLINE_MAX);
	if (!op->data)
		return sacc_seterr(dev, EINVAL,
				   "op %u (write-inline): data is NULL", i);
	slots = 1 + SACC_INLINE_SLOTS(op->len);
	if (!segment && slots > dev->sq_entries - 1)
		return sacc_seterr(dev, EINVAL,
				   "op %u (write-inline): %u bytes take %llu "
				   "SQ slots, the SQ holds %u; open with a "
				   "larger sq_entries",
				   i, op->len, (unsigned long long)slots,
				   dev->sq_entries - 1);
	return sacc_check_dst(dev, op, i, op->len);
}

int sacc_check_op(struct sacc_dev *dev, const struct sacc_op *op,
		  unsigned int i)
{
	return sacc_check_op_in(dev, op, i, false);
}

int sacc_check_op_in(struct sacc_dev *dev, const struct sacc_op *op,
		     unsigned int i, bool segment)
{
	if (op->flags & ~SACC_OPF_IRQ)
		return sacc_seterr(dev, EINVAL, "op %u: unknown flags 0x%x", i,
				   op->flags);
	if (op->opcode == SACC_OP_NOP)
		return 0;
	if (op->opcode == SACC_OP_WRITE_INLINE ||
	    op->opcode == SACC_OP_TIMESTAMP || op->opcode == SACC_OP_FILL)
		return check_v3_op(dev, op, i, segment);
	if (op->opcode != SACC_OP_MEMCPY && op->opcode != SACC_OP_XFORM)
		return sacc_seterr(dev, EINVAL,
				   "op %u: unknown opcode %u (nop, memcpy, "
				   "xform, write-inline, timestamp, fill)",
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
	if (op->src->is_dev) {
		int ret = check_dev_side(dev, op, i, op->src, "src");

		if (ret)
			return ret;
	} else if (!(op->src->dma.dir & SACC_DMA_TO_DEVICE))
		return sacc_seterr(dev, EINVAL,
				   "op %u: src '%s' is mapped %s: the device "
				   "may not read it",
				   i, op->src->name,
				   sacc_dma_dir_name(op->src->dma.dir));
	return sacc_check_dst(dev, op, i, op->len);
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
int sacc_publish_ring(struct sacc_dev *dev, uint32_t first, uint32_t count,
		      uint64_t *t_db)
{
	uint32_t tail, s;
	uint64_t t;
	int ret;

	if (dev->unrung) { /* sacc_enqueue()'s, just before these */
		first = dev->unrung_first;
		count += dev->unrung;
		dev->stats.submitted += dev->unrung;
		dev->unrung = 0;
	}
	tail = sacc_sq_publish(&dev->sq);
	s = first;
	t = dev->ev || t_db ? sacc_monotonic_ns() : 0;
	ret = ring_doorbell(dev, tail);

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

void sacc_op_desc(const struct sacc_op *op, struct sacc_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->opcode = op->opcode;
	d->flags = op->flags & SACC_OPF_IRQ ? SACC_DESC_F_IRQ : 0;
	if (op->opcode == SACC_OP_NOP)
		return;
	d->dst = sacc_buf_addr(op->dst) + op->dst_off;
	if (op->dst->is_dev)
		d->flags |= SACC_DESC_F_DST_DEV;
	if (op->opcode != SACC_OP_TIMESTAMP)
		d->length = op->len;
	if (op->opcode == SACC_OP_FILL) {
		d->src = htole64(op->pattern);
	} else if (op->src) {
		d->src = sacc_buf_addr(op->src) + op->src_off;
		if (op->src->is_dev)
			d->flags |= SACC_DESC_F_SRC_DEV;
	}
}

/* Push validated @ops (as many as fit), then one doorbell unless
 * !@ring (sacc_enqueue(): the next doorbell covers them). */
static int queue_push(struct sacc_dev *dev, const struct sacc_op *ops,
		      unsigned int n, uint64_t *t_db, bool ring)
{
	struct sacc_desc d;
	uint32_t slot, space, need, i, first = dev->sq.tail;
	int ret;

	space = sacc_sq_space(&dev->sq);
	for (i = 0; i < n; i++) {
		const struct sacc_op *op = &ops[i];
		bool inl = op->opcode == SACC_OP_WRITE_INLINE;

		need = inl ? 1 + (uint32_t)SACC_INLINE_SLOTS(op->len) : 1;
		if (need > space)
			break;
		space -= need;
		sacc_op_desc(op, &d);
		d.req_id = sacc_next_req_id(dev);
		if (sacc_sq_push(&dev->sq, &d, &slot))
			break; /* cannot happen: space was checked */
		sacc_track_op(&dev->track[slot], &d, need, op);
		if (inl)
			push_payload(dev, op->data, op->len);
	}
	if (i == 0)
		return 0;
	if (!ring) {
		if (!dev->unrung)
			dev->unrung_first = first;
		dev->unrung += i;
		return (int)i;
	}
	dev->stats.submitted += i;
	ret = sacc_publish_ring(dev, first, i, t_db);
	return ret ? ret : (int)i;
}

int sacc_queue_push(struct sacc_dev *dev, const struct sacc_op *ops,
		    unsigned int n, uint64_t *t_db)
{
	return queue_push(dev, ops, n, t_db, true);
}

static int submit(struct sacc_dev *dev, const struct sacc_op *ops,
		  unsigned int n, bool ring, const char *what)
{
	uint32_t i;
	int ret;

	ret = sacc_queue_ready(dev, what);
	if (ret)
		return ret;
	if (n && !ops)
		return sacc_seterr(dev, EINVAL, "%s: ops is NULL", what);
	for (i = 0; i < n; i++) {
		ret = sacc_check_op(dev, &ops[i], i);
		if (ret)
			return ret;
	}
	return queue_push(dev, ops, n, NULL, ring);
}

int sacc_submit(struct sacc_dev *dev, const struct sacc_op *ops, unsigned int n)
{
	return submit(dev, ops, n, true, "sacc_submit");
}

int sacc_enqueue(struct sacc_dev *dev, const struct sacc_op *ops,
		 unsigned int n)
{
	return submit(dev, ops, n, false, "sacc_enqueue");
}

int sacc_doorbell(struct sacc_dev *dev)
{
	int ret = sacc_queue_ready(dev, "sacc_doorbell");

	if (ret)
		return ret;
	if (!dev->unrung)
		return 0;
	return sacc_publish_ring(dev, dev->unrung_first, 0, NULL);
}

/* In SQ slots, as sacc_outstanding() counts: an unrung WRITE_INLINE's
 * payload slots are unrung too, so outstanding - unrung is exactly what
 * the device owes (counting operations here left a reap loop on
 * `outstanding > unrung` waiting forever for an inline payload). */
uint32_t sacc_unrung(const struct sacc_dev *dev)
{
	return dev && dev->sq.size ? sacc_sq_unpublished(&dev->sq) : 0;
}

static int submit_raw(struct sacc_dev *dev, const struct sacc_desc *d,
		      const void *data, const char *what)
{
	struct sacc_desc copy;
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
	copy.req_id = sacc_next_req_id(dev);
	if (sacc_sq_push(&dev->sq, &copy, &slot))
		return sacc_seterr(dev, EAGAIN, "%s: the SQ is full", what);
	sacc_track_op(&dev->track[slot], &copy, need, NULL);
	if (data)
		push_payload(dev, data, copy.length);
	dev->stats.submitted++;
	ret = sacc_publish_ring(dev, slot, 1, NULL);
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

/* Do @cmd_slots[0..@ncmds) walk exactly @nslots slots, each at least 1? */
static int check_walk(struct sacc_dev *dev, uint32_t nslots,
		      const uint32_t *cmd_slots, unsigned int ncmds,
		      const char *what)
{
	uint32_t sum = 0;

	for (unsigned int i = 0; i < ncmds; i++) {
		if (!cmd_slots[i] || cmd_slots[i] > nslots - sum)
			return sacc_seterr(dev, EINVAL,
					   "%s: command %u takes %u slots, "
					   "%u of the %u are left",
					   what, i, cmd_slots[i], nslots - sum,
					   nslots);
		sum += cmd_slots[i];
	}
	if (sum != nslots)
		return sacc_seterr(dev, EINVAL,
				   "%s: the commands take %u of the %u slots",
				   what, sum, nslots);
	return 0;
}

int sacc_submit_raw_slots(struct sacc_dev *dev, const struct sacc_desc *slots,
			  uint32_t nslots, const uint32_t *cmd_slots,
			  unsigned int ncmds, uint32_t *req_ids)
{
	const char *what = "sacc_submit_raw_slots";
	uint32_t first, slot, n = 0;
	struct sacc_desc copy;
	int ret;

	ret = sacc_queue_ready(dev, what);
	if (ret)
		return ret;
	if (!slots || !cmd_slots || !ncmds || ncmds > INT32_MAX)
		return sacc_seterr(dev, EINVAL, "%s: no commands", what);
	ret = check_walk(dev, nslots, cmd_slots, ncmds, what);
	if (ret)
		return ret;
	if (sacc_sq_space(&dev->sq) < nslots)
		return sacc_seterr(dev, EAGAIN,
				   "%s: %u slots, the SQ has room for %u", what,
				   nslots, sacc_sq_space(&dev->sq));
	first = dev->sq.tail;
	for (unsigned int i = 0; i < ncmds; i++) {
		copy = slots[n];
		copy.req_id = sacc_next_req_id(dev);
		if (req_ids)
			req_ids[i] = copy.req_id;
		sacc_sq_push(&dev->sq, &copy, &slot); /* room was checked */
		sacc_track_op(&dev->track[slot], &copy, cmd_slots[i], NULL);
		for (uint32_t k = 1; k < cmd_slots[i]; k++) {
			sacc_sq_push(&dev->sq, &slots[n + k], &slot);
			memset(&dev->track[slot], 0, sizeof(dev->track[slot]));
		}
		n += cmd_slots[i];
	}
	dev->stats.submitted += ncmds;
	ret = sacc_publish_ring(dev, first, ncmds, NULL);
	return ret ? ret : (int)ncmds;
}

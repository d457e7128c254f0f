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
	for (i = 0; i < n; i++)
		untrack(&dev->track[sacc_ring_add(head, i, dev->sq.size)]);
	dev->stats.abandoned += n;
	dev->sq.head = dev->sq.tail = dev->sq.published = 0;
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

static int not_ready(struct sacc_dev *dev, const char *what)
{
	if (!dev)
		return sacc_seterr(NULL, EINVAL, "%s: dev is NULL", what);
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
		/* Offset 0 of the doorbell page; the write's release fence
		 * (sacc_sq_publish() has one too) orders the descriptors. */
		sacc_mmio_write32(dev->db, 0, tail);
		return 0;
	}
	n = pwrite(dev->device_fd, &tail, sizeof(tail),
		   (off_t)(dev->bar0.offset + SACC_DOORBELL_OFFSET));
	if (n != (ssize_t)sizeof(tail))
		return sacc_mark_broken(
		    dev, n < 0 ? errno : EIO,
		    "%s: doorbell pwrite failed: %s; "
		    "call sacc_reset()",
		    dev->bdf, n < 0 ? strerror(errno) : "short write");
	return 0;
}

static bool buf_ok(struct sacc_dev *dev, const struct sacc_buf *b)
{
	return b && b->magic == SACC_BUF_MAGIC && b->dev == dev && !b->internal;
}

static int check_op(struct sacc_dev *dev, const struct sacc_op *op,
		    unsigned int i)
{
	if (op->flags & ~SACC_OPF_IRQ)
		return sacc_seterr(dev, EINVAL, "op %u: unknown flags 0x%x", i,
				   op->flags);
	if (op->opcode == SACC_OP_NOP)
		return 0;
	if (op->opcode != SACC_OP_MEMCPY && op->opcode != SACC_OP_XFORM)
		return sacc_seterr(dev, EINVAL,
				   "op %u: unknown opcode %u (nop, memcpy, "
				   "xform)",
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
	if (op->dst_off > op->dst->dma.len ||
	    op->len > op->dst->dma.len - op->dst_off)
		return sacc_seterr(dev, EINVAL,
				   "op %u: dst '%s' is %llu bytes; offset %zu "
				   "+ length %u runs past its end",
				   i, op->dst->name,
				   (unsigned long long)op->dst->dma.len,
				   op->dst_off, op->len);
	if (!(op->src->dma.dir & SACC_DMA_TO_DEVICE))
		return sacc_seterr(dev, EINVAL,
				   "op %u: src '%s' is mapped %s: the device "
				   "may not read it",
				   i, op->src->name,
				   sacc_dma_dir_name(op->src->dma.dir));
	if (!(op->dst->dma.dir & SACC_DMA_FROM_DEVICE))
		return sacc_seterr(dev, EINVAL,
				   "op %u: dst '%s' is mapped %s: the device "
				   "may not write it",
				   i, op->dst->name,
				   sacc_dma_dir_name(op->dst->dma.dir));
	return 0;
}

int sacc_submit(struct sacc_dev *dev, const struct sacc_op *ops, unsigned int n)
{
	struct sacc_desc d;
	struct sacc_track *t;
	uint32_t slot, space, k, i;
	int ret;

	ret = not_ready(dev, "sacc_submit");
	if (ret)
		return ret;
	if (n && !ops)
		return sacc_seterr(dev, EINVAL, "sacc_submit: ops is NULL");
	for (i = 0; i < n; i++) {
		ret = check_op(dev, &ops[i], i);
		if (ret)
			return ret;
	}
	space = sacc_sq_space(&dev->sq);
	k = n < space ? n : space;
	if (k == 0)
		return 0;
	for (i = 0; i < k; i++) {
		const struct sacc_op *op = &ops[i];
		bool nop = op->opcode == SACC_OP_NOP;

		memset(&d, 0, sizeof(d));
		if (!nop) {
			d.src = op->src->dma.iova + op->src_off;
			d.dst = op->dst->dma.iova + op->dst_off;
			d.length = op->len;
		}
		d.opcode = op->opcode;
		d.flags = op->flags & SACC_OPF_IRQ ? SACC_DESC_F_IRQ : 0;
		d.req_id = next_req_id(dev);
		if (sacc_sq_push(&dev->sq, &d, &slot))
			break; /* cannot happen: space was checked */
		t = &dev->track[slot];
		t->cookie = op->cookie;
		t->req_id = d.req_id;
		t->len = d.length;
		t->opcode = d.opcode;
		t->raw = 0;
		t->irq = !!(d.flags & SACC_DESC_F_IRQ);
		t->src = nop ? NULL : op->src;
		t->dst = nop ? NULL : op->dst;
		if (t->src)
			t->src->inflight++;
		if (t->dst)
			t->dst->inflight++;
	}
	dev->stats.submitted += i;
	ret = ring_doorbell(dev, sacc_sq_publish(&dev->sq));
	return ret ? ret : (int)i;
}

int sacc_submit_raw(struct sacc_dev *dev, const struct sacc_desc *d)
{
	struct sacc_desc copy;
	struct sacc_track *t;
	uint32_t slot;
	int ret;

	ret = not_ready(dev, "sacc_submit_raw");
	if (ret)
		return ret;
	if (!d)
		return sacc_seterr(dev, EINVAL, "sacc_submit_raw: d is NULL");
	if (sacc_sq_space(&dev->sq) == 0)
		return sacc_seterr(dev, EAGAIN,
				   "sacc_submit_raw: the SQ is full");
	copy = *d;
	copy.req_id = next_req_id(dev);
	if (sacc_sq_push(&dev->sq, &copy, &slot))
		return sacc_seterr(dev, EAGAIN,
				   "sacc_submit_raw: the SQ is full");
	t = &dev->track[slot];
	memset(t, 0, sizeof(*t));
	t->req_id = copy.req_id;
	t->len = copy.length;
	t->opcode = copy.opcode;
	t->raw = 1;
	t->irq = !!(copy.flags & SACC_DESC_F_IRQ);
	dev->stats.submitted++;
	ret = ring_doorbell(dev, sacc_sq_publish(&dev->sq));
	return ret ? ret : (int)copy.req_id;
}

/* Is @req_id anywhere among the outstanding operations? */
static bool outstanding_id(struct sacc_dev *dev, uint32_t req_id)
{
	uint32_t i, n = sacc_sq_in_flight(&dev->sq);

	for (i = 0; i < n; i++)
		if (dev->track[sacc_ring_add(dev->sq.head, i, dev->sq.size)]
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
	    (t->opcode == SACC_OP_MEMCPY || t->opcode == SACC_OP_XFORM)) {
		snprintf(why, len,
			 "status ok but result_len %u of %u bytes requested",
			 c->result_len, t->len);
		return why;
	}
	return NULL;
}

int sacc_poll(struct sacc_dev *dev, struct sacc_result *out, unsigned int max)
{
	struct sacc_cqe c;
	struct sacc_track *t;
	uint32_t n = 0, inflight, idx;
	uint64_t cnt = 0;
	bool irqs = false;
	char why[160];
	int ret;

	ret = not_ready(dev, "sacc_poll");
	if (ret)
		return ret;
	if (max && !out)
		return sacc_seterr(dev, EINVAL, "sacc_poll: out is NULL");
	inflight = sacc_sq_in_flight(&dev->sq);
	/* Bounded: at most max, and never more than the CQ holds. */
	if (max > dev->cq_entries)
		max = dev->cq_entries;
	while (n < max && sacc_cq_peek(&dev->cq, &c)) {
		const char *bad = NULL;

		if (n == inflight) {
			snprintf(why, sizeof(why),
				 "completion with req_id %u while nothing is "
				 "outstanding",
				 c.req_id);
			bad = why;
			t = NULL;
		} else {
			idx = sacc_ring_add(dev->sq.head, n, dev->sq.size);
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
		dev->stats.by_status[c.status]++;
		irqs |= t->irq;
		untrack(t);
		sacc_cq_advance(&dev->cq);
		n++;
	}
	if (n) {
		/* Their MSI-X messages are stale now: count and drop them
		 * here so a later sacc_wait() does not wake for nothing. */
		if (irqs && dev->irq_fd >= 0 &&
		    read(dev->irq_fd, &cnt, sizeof(cnt)) == sizeof(cnt))
			dev->stats.interrupts += cnt;
		sacc_sq_complete(&dev->sq, n);
		/* sacc_wr()'s release fence: our reads of the entries happen
		 * before the device may reuse their slots. */
		sacc_wr(dev, SACC_REG_CQ_HEAD, dev->cq.head);
		dev->stats.cq_head_writes++;
		dev->stats.completed += n;
		dev->empty_polls = 0;
		return (int)n;
	}
	/* Nothing: now and then ask whether the device is still alive. */
	if (inflight && ++dev->empty_polls >= SACC_HEALTH_EVERY) {
		dev->empty_polls = 0;
		return sacc_check(dev);
	}
	return 0;
}

int sacc_check(struct sacc_dev *dev)
{
	uint32_t st;
	int ret;

	if (!dev)
		return sacc_seterr(NULL, EINVAL, "sacc_check: dev is NULL");
	if (dev->broken)
		return sacc_seterr(dev, EIO, "%s", dev->why_broken.msg);
	st = sacc_rd(dev, SACC_REG_STATUS);
	ret = sacc_reg_check(dev, st);
	if (ret)
		return sacc_mark_broken(dev, ret, "%s; call sacc_reset()",
					dev->err.msg);
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
	struct pollfd pfd;
	int ret, left;

	ret = not_ready(dev, "sacc_wait");
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
	for (;;) {
		left = -1;
		if (timeout_ms >= 0) {
			now = sacc_monotonic_ns();
			left = now >= deadline
				   ? 0
				   : (int)((deadline - now + 999999) / 1000000);
		}
		pfd.fd = dev->irq_fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		ret = poll(&pfd, 1, left);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return sacc_seterr(dev, errno, "%s: poll(eventfd): %s",
					   dev->bdf, strerror(errno));
		}
		if (ret == 0) {
			if (sacc_cq_peek(&dev->cq, NULL))
				return 1;
			/* Timed out: make sure it is not a dead device. */
			ret = sacc_check(dev);
			return ret ? ret : 0;
		}
		ret = take_irq(dev);
		if (ret < 0)
			return ret;
		if (sacc_cq_peek(&dev->cq, NULL))
			return 1;
		/* A stale wakeup (its completion was already reaped). */
		if (timeout_ms == 0)
			return 0;
	}
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

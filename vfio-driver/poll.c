// SPDX-License-Identifier: MIT
/*
 * poll.c - reaping completions: sacc_poll() reads CQ entries while their
 * phase says they are new, one CQ_HEAD write per batch, and takes
 * nothing the device writes on trust: each entry must carry the oldest
 * outstanding req_id and a status and length that fit what was
 * submitted (the checks sit here, beside the loop).  What the ring
 * cannot show by itself, a stall or a forged entry, is health.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "sacc_mmio.h"
#include "sacc_track.h"

/* Is @req_id anywhere among the outstanding operations? */
static bool outstanding_id(struct sacc_dev *dev, uint32_t req_id)
{
	uint32_t i, n = sacc_sq_published_in_flight(dev);

	for (i = 0; i < n; i++)
		if (req_id && /* 0: an inline payload slot */
		    dev->track[sacc_ring_add(dev->sq.head, i, dev->sq.size)]
			    .req_id == req_id)
			return true;
	return false;
}

/*
 * A SEGMENT entry's completion (spec section 21), @t->len its commands:
 * status 0 with result_len the commands run (all of a graph's; a raw
 * entry's length / 32 is only a bound), or a command's status with
 * result_len that command's index (0 also for a failed fetch).  A
 * graph's commands were validated: bad opcode or length cannot be one
 * of them.  NULL if believable, else what is wrong, in @why.
 */
static const char *judge_segment(const struct sacc_cqe *c,
				 const struct sacc_track *t, char *why,
				 size_t len)
{
	if (c->status == SACC_STS_OK) {
		if (t->raw ? c->result_len <= t->len : c->result_len == t->len)
			return NULL;
		snprintf(why, len,
			 "a segment of %u commands completed ok with "
			 "result_len %u commands run",
			 t->len, c->result_len);
		return why;
	}
	if (c->result_len && c->result_len >= t->len) {
		snprintf(why, len,
			 "a segment of %u commands failed (status %u, %s) at "
			 "command %u, past its last",
			 t->len, c->status, sacc_status_str(c->status),
			 c->result_len);
		return why;
	}
	if (!t->raw && (c->status == SACC_STS_BAD_OPCODE ||
			c->status == SACC_STS_BAD_LENGTH)) {
		snprintf(why, len,
			 "status %u (%s) at command %u of a graph libsacc "
			 "validated",
			 c->status, sacc_status_str(c->status), c->result_len);
		return why;
	}
	return NULL;
}

/* NULL if @c is a believable completion for @t, else what is wrong. */
static const char *judge(const struct sacc_cqe *c, const struct sacc_track *t,
			 char *why, size_t len)
{
	if (c->status > SACC_STS_BAD_LENGTH) {
		snprintf(why, len, "unknown status %u", c->status);
		return why;
	}
	if (t->opcode == SACC_OP_SEGMENT)
		return judge_segment(c, t, why, len);
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

/*
 * Is @c, the next entry in the CQ, the completion of the oldest
 * outstanding operation (@off SQ slots past the SQ head, of @inflight)?
 * NULL if so, with *@t its tracking record; else what is wrong, in @why.
 */
static const char *check_cqe(struct sacc_dev *dev, const struct sacc_cqe *c,
			     uint32_t off, uint32_t inflight,
			     struct sacc_track **t, char *why, size_t len)
{
	if (off == inflight) {
		snprintf(why, len,
			 "completion with req_id %u while nothing is "
			 "outstanding",
			 c->req_id);
		return why;
	}
	*t = &dev->track[sacc_ring_add(dev->sq.head, off, dev->sq.size)];
	if (c->req_id != (*t)->req_id) {
		snprintf(why, len,
			 "completion carries req_id %u, but the oldest "
			 "outstanding is %u (%s)",
			 c->req_id, (*t)->req_id,
			 outstanding_id(dev, c->req_id)
			     ? "out of ring order"
			     : "not outstanding at all");
		return why;
	}
	return judge(c, *t, why, len);
}

/* A believable completion with a failing status (the slow path): the
 * journal's record of a DMA fault, a graph's note of which op failed. */
static void reap_failed(struct sacc_dev *dev, const struct sacc_track *t,
			const struct sacc_cqe *c)
{
	if (t->graph)
		sacc_graph_failed(t->graph, c);
	if (c->status == SACC_STS_DMA_FAULT)
		sacc_dev_journal_fault(dev, (uint32_t)(t - dev->track),
				       c->req_id, t->opcode, t->graph,
				       c->result_len);
}

/*
 * An untrusted completion at the head of a batch: step past it (so no
 * later poll sees it again) and stop trusting the device.
 */
static int reject_cqe(struct sacc_dev *dev, const char *bad)
{
	sacc_cq_advance(&dev->cq);
	sacc_wr(dev, SACC_REG_CQ_HEAD, dev->cq.head);
	dev->stats.cq_head_writes++;
	return sacc_mark_broken(dev, EIO,
				"%s: device error: %s; the completion is not "
				"trusted and the device needs sacc_reset()",
				dev->bdf, bad);
}

/* What the caller gets: what was submitted (@t), what the device says. */
static void fill_result(struct sacc_result *r, const struct sacc_cqe *c,
			const struct sacc_track *t)
{
	r->cookie = t->cookie;
	r->req_id = c->req_id;
	r->len = t->len;
	r->result_len = c->result_len;
	r->opcode = t->opcode;
	r->status = c->status;
	r->raw = t->raw;
	r->engine_ns = c->engine_ns;
}

/*
 * After a batch of @n completions that took @slots SQ slots (@irqs: one
 * of them asked for an interrupt): the checks only a batch's end can
 * make, then the one CQ_HEAD write that hands the slots back.
 */
static int end_batch(struct sacc_dev *dev, uint32_t n, uint32_t slots,
		     bool irqs)
{
	struct sacc_cqe c;
	uint64_t cnt = 0;

	/*
	 * A full batch: the slot after it is the one the device had to
	 * keep free.  A valid entry there is not the device's; the batch
	 * before it is delivered, the device is not trusted from now on.
	 * One more phase load, only here.
	 */
	if (n == dev->cq_entries - 1 && sacc_cq_peek(&dev->cq, &c))
		sacc_mark_broken(
		    dev, EIO,
		    "%s: device error: CQ slot %u holds a valid completion "
		    "(req_id %u) after %u completions were reaped since the "
		    "last CQ_HEAD write, although the device must keep that "
		    "slot free until CQ_HEAD moves (CQ_SIZE %u): a forged or "
		    "stale completion; call sacc_reset()",
		    dev->bdf, dev->cq.head, c.req_id, n, dev->cq_entries);
	/*
	 * A probe still running when entries appeared (they came in after
	 * sacc_poll()'s check): decide it now, before CQ_HEAD moves on and
	 * the probe slot becomes one the device may write in its next lap.
	 * A forgery marks the device; the batch, the device's own, is
	 * delivered.
	 */
	if (dev->probe_armed_at)
		sacc_probe_check(dev, true);
	/* Their MSI-X messages are stale now: count and drop them here so
	 * a later sacc_wait() does not wake for nothing. */
	if (irqs && dev->irq_fd >= 0 &&
	    read(dev->irq_fd, &cnt, sizeof(cnt)) == sizeof(cnt))
		dev->stats.interrupts += cnt;
	sacc_sq_complete(&dev->sq, slots);
	/* sacc_wr()'s release fence: our reads of the entries happen before
	 * the device may reuse their slots. */
	sacc_wr(dev, SACC_REG_CQ_HEAD, dev->cq.head);
	dev->stats.cq_head_writes++;
	dev->stats.completed += n;
	dev->empty_polls = 0;
	dev->stall_t0 = 0; /* progress */
	/* A process that always finds work still hears the kernel ask for
	 * the device back (one read() per 4096 batches). */
	if (++dev->busy_polls >= SACC_HEALTH_EVERY) {
		dev->busy_polls = 0;
		sacc_req_check(dev); /* results stay valid */
	}
	return (int)n;
}

/* Nothing to reap: now and then ask whether the device is still alive. */
static int idle_poll(struct sacc_dev *dev)
{
	if (++dev->empty_polls >= SACC_HEALTH_EVERY) {
		dev->empty_polls = 0;
		return sacc_health(dev, false);
	}
	return 0;
}

int sacc_poll(struct sacc_dev *dev, struct sacc_result *out, unsigned int max)
{
	struct sacc_track *t = NULL;
	struct sacc_cqe c;
	uint32_t n = 0, off = 0, inflight;
	uint64_t t_reap = 0;
	bool irqs = false;
	const char *bad;
	char why[160];
	int ret;

	ret = sacc_queue_ready(dev, "sacc_poll");
	if (ret)
		return ret;
	if (max && !out)
		return sacc_seterr(dev, EINVAL, "sacc_poll: out is NULL");
	if (dev->probe_armed_at) { /* slow path: a stall is being probed */
		ret = sacc_probe_check(dev, false);
		if (ret)
			return ret;
	}
	inflight = sacc_sq_published_in_flight(dev);
	/*
	 * Bounded: at most max, and at most CQ_SIZE - 1, which is all the
	 * device may post between two CQ_HEAD writes (it keeps one slot
	 * free): CQ_HEAD is written once per batch.
	 */
	if (max > dev->cq_entries - 1)
		max = dev->cq_entries - 1;
	while (n < max && sacc_cq_peek(&dev->cq, &c)) {
		bad = check_cqe(dev, &c, off, inflight, &t, why, sizeof(why));
		if (bad) {
			if (n)
				break; /* deliver the good ones first */
			return reject_cqe(dev, bad);
		}
		if (c.status != SACC_STS_OK) /* slow path only */
			reap_failed(dev, t, &c);
		fill_result(&out[n], &c, t);
		if (dev->ev) {
			if (!t_reap) /* one clock read per batch */
				t_reap = sacc_monotonic_ns();
			sacc_ev_reap(dev, t_reap, &out[n]);
		}
		off += t->slots;
		dev->stats.by_status[c.status]++;
		irqs |= t->irq;
		sacc_untrack(t);
		sacc_cq_advance(&dev->cq);
		n++;
	}
	return n ? end_batch(dev, n, off, irqs) : idle_poll(dev);
}

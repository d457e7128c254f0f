// SPDX-License-Identifier: GPL-2.0
/*
 * sacc_dma_chan.c - one SACC channel as one dmaengine channel: its rings,
 * submission, completion, errors and recovery (docs/spec.md sections 4-8,
 * 12-14 and 19).
 *
 * A transaction is one SACC descriptor.  prep allocates it; tx_submit
 * gives it a cookie; issue_pending pushes everything submitted into the
 * SQ with one doorbell (what does not fit waits for room and goes in at
 * the next completion); the channel's MSI-X vector, a polling tx_status
 * or the watchdog reaps the CQ in ring order; the tasklet runs the
 * callbacks with a dmaengine_result.
 *
 * The device is not trusted: a completion must carry the phase the driver
 * expects, the req_id of the oldest transaction in the ring and a known
 * status; anything else, a ring fault or no completion within timeout_ms
 * resets the channel and fails what it held (DMA_TRANS_ABORTED), and the
 * channel goes on with what was still waiting.
 *
 * drivers/dma/dmaengine.h (cookies, callbacks) is private to the kernel
 * tree and not in linux-headers, so the few lines of it needed are here.
 */
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/iommu.h>
#include <linux/slab.h>

#include "sacc_dma.h"

#define SACC_WATCHDOG_PERIOD	(HZ / 4)

static inline void chan_w32(struct sacc_dma_chan *c, u32 reg, u32 v)
{
	writel(v, c->regs + reg);
}

static inline u32 chan_r32(struct sacc_dma_chan *c, u32 reg)
{
	return readl(c->regs + reg);
}

static inline struct sacc_dma_desc *to_sacc_desc(struct dma_async_tx_descriptor *t)
{
	return container_of(t, struct sacc_dma_desc, txd);
}

static const char *sacc_op_name(u16 op)
{
	switch (op) {
	case SACC_OP_NOP:
		return "interrupt";
	case SACC_OP_MEMCPY:
		return "memcpy";
	case SACC_OP_FILL:
		return "memset";
	}
	return "?";
}

static const char *sacc_access_name(u32 access)
{
	static const char *const names[] = {
		"desc_fetch", "src_read", "dst_write", "cq_write", "put_read",
		"inline_read", "dev_read", "dev_write", "segment_read",
	};

	return access < ARRAY_SIZE(names) ? names[access] : "unknown";
}

/* ---- the hardware side: start, stop ------------------------------------ */

/*
 * A channel reset stops the channel: no DMA of it after the write returns
 * (spec section 13).  MMIO writes are posted; the read makes sure the
 * write has reached the device before the caller frees anything.
 */
static void sacc_chan_hw_stop(struct sacc_dma_chan *c)
{
	chan_w32(c, SACC_REG_CTRL, SACC_CTRL_RESET);
	chan_r32(c, SACC_REG_STATUS);
}

/* Fresh rings, enabled as a MODE.V3 channel.  Caller holds c->lock. */
static int sacc_chan_hw_start(struct sacc_dma_chan *c)
{
	u32 st;

	memset(c->cq, 0, c->size * sizeof(*c->cq));
	c->sq_tail = 0;
	c->cq_head = 0;
	c->phase = 1;
	c->n_active = 0;
	clear_bit(0, &c->fatal);
	chan_w32(c, SACC_REG_CTRL, 0);
	lo_hi_writeq(c->sq_dma, c->regs + SACC_REG_SQ_BASE);
	chan_w32(c, SACC_REG_SQ_SIZE, c->size);
	lo_hi_writeq(c->cq_dma, c->regs + SACC_REG_CQ_BASE);
	chan_w32(c, SACC_REG_CQ_SIZE, c->size);
	chan_w32(c, SACC_REG_MODE, SACC_MODE_V3);
	chan_w32(c, SACC_REG_CTRL, SACC_CTRL_ENABLE);
	st = chan_r32(c, SACC_REG_STATUS);
	if (st == ~0u) {
		dev_err(sacc_chan_dev(c), "chan %u: registers read all ones: device gone?\n",
			c->id);
		return -ENODEV;
	}
	if ((st & (SACC_STATUS_READY | SACC_STATUS_ERROR)) != SACC_STATUS_READY) {
		dev_err(sacc_chan_dev(c), "chan %u: enable failed, STATUS %#x ERR_CODE %u\n",
			c->id, st, chan_r32(c, SACC_REG_ERR_CODE));
		return -EIO;
	}
	return 0;
}

/* ---- lists -------------------------------------------------------------- */

/* Caller holds c->lock. */
static void sacc_chan_note_failed(struct sacc_dma_chan *c, dma_cookie_t cookie)
{
	c->failed[c->failed_next] = cookie;
	c->failed_next = (c->failed_next + 1) % SACC_FAILED_COOKIES;
}

/* Fails every transaction on @list with @res.  Caller holds c->lock. */
static void sacc_chan_fail_list(struct sacc_dma_chan *c, struct list_head *list,
				enum dmaengine_tx_result res)
{
	struct sacc_dma_desc *d, *n;

	list_for_each_entry_safe(d, n, list, node) {
		d->result = res;
		c->stats.aborted++;
		sacc_chan_note_failed(c, d->txd.cookie);
		c->dchan.completed_cookie = d->txd.cookie;
		list_move_tail(&d->node, &c->done);
	}
}

/* Everything the channel held, failed.  Caller holds c->lock. */
static void sacc_chan_fail_all(struct sacc_dma_chan *c)
{
	sacc_chan_fail_list(c, &c->active, DMA_TRANS_ABORTED);
	sacc_chan_fail_list(c, &c->issued, DMA_TRANS_ABORTED);
	sacc_chan_fail_list(c, &c->submitted, DMA_TRANS_ABORTED);
	c->n_active = 0;
}

static void sacc_desc_free_list(struct list_head *list)
{
	struct sacc_dma_desc *d, *n;

	list_for_each_entry_safe(d, n, list, node) {
		list_del(&d->node);
		dma_descriptor_unmap(&d->txd);
		kfree(d);
	}
}

/*
 * Runs the callbacks of @done, outside c->lock (a callback may submit
 * more).  The client owns a descriptor it has not acked: it waits on
 * wait_ack until it does.
 */
static void sacc_chan_complete(struct sacc_dma_chan *c, struct list_head *done)
{
	struct sacc_dma_desc *d, *n;
	unsigned long fl;
	LIST_HEAD(freeable);

	list_for_each_entry_safe(d, n, done, node) {
		struct dma_async_tx_descriptor *txd = &d->txd;
		struct dmaengine_result res = {
			.result = d->result,
			.residue = d->result == DMA_TRANS_NOERROR ? 0 : d->len,
		};

		list_del(&d->node);
		dma_descriptor_unmap(txd);
		if (txd->callback_result)
			txd->callback_result(txd->callback_param, &res);
		else if (txd->callback)
			txd->callback(txd->callback_param);
		dma_run_dependencies(txd);
		spin_lock_irqsave(&c->lock, fl);
		list_add_tail(&d->node, &c->wait_ack);
		spin_unlock_irqrestore(&c->lock, fl);
	}
	spin_lock_irqsave(&c->lock, fl);
	list_for_each_entry_safe(d, n, &c->wait_ack, node)
		if (async_tx_test_ack(&d->txd))
			list_move(&d->node, &freeable);
	spin_unlock_irqrestore(&c->lock, fl);
	sacc_desc_free_list(&freeable);
}

/* ---- submission ------------------------------------------------------- */

/*
 * Moves what fits from @issued into the SQ and rings the doorbell once
 * for all of it.  At most size - 1 descriptors are outstanding (spec
 * section 5), so the CQ, as large as the SQ, never fills.  Caller holds
 * c->lock.
 */
static void sacc_chan_push(struct sacc_dma_chan *c)
{
	struct sacc_desc *slot = NULL;
	struct sacc_dma_desc *d;

	if (c->dead || c->resetting || !c->sq)
		return;
	if (!c->n_active)
		c->last_progress = jiffies;
	while (!list_empty(&c->issued) && c->n_active < c->size - 1) {
		d = list_first_entry(&c->issued, struct sacc_dma_desc, node);
		d->req_id = c->next_req_id++;
		slot = &c->sq[c->sq_tail];
		slot->src = (__force u64)cpu_to_le64(d->src);
		slot->dst = (__force u64)cpu_to_le64(d->dst);
		slot->length = (__force u32)cpu_to_le32(d->len);
		slot->opcode = (__force u16)cpu_to_le16(d->opcode);
		slot->flags = (__force u16)cpu_to_le16(d->flags);
		slot->req_id = (__force u32)cpu_to_le32(d->req_id);
		slot->reserved = 0;
		list_move_tail(&d->node, &c->active);
		c->n_active++;
		c->sq_tail = (c->sq_tail + 1) & (c->size - 1);
	}
	if (!slot)
		return;
	/*
	 * The last of a batch always interrupts: its completion is also
	 * every earlier one's (ring order), and it says the ring has room.
	 */
	slot->flags |= (__force u16)cpu_to_le16(SACC_DESC_F_IRQ);
	/* writel() orders the SQ writes above before the doorbell. */
	writel(c->sq_tail, c->doorbell);
	if (!timer_pending(&c->watchdog))
		mod_timer(&c->watchdog, jiffies + SACC_WATCHDOG_PERIOD);
}

static dma_cookie_t sacc_tx_submit(struct dma_async_tx_descriptor *txd)
{
	struct sacc_dma_chan *c = to_sacc_chan(txd->chan);
	struct sacc_dma_desc *d = to_sacc_desc(txd);
	dma_cookie_t cookie;
	unsigned long fl;
	bool dead;

	spin_lock_irqsave(&c->lock, fl);
	cookie = c->dchan.cookie + 1;
	if (cookie < DMA_MIN_COOKIE)
		cookie = DMA_MIN_COOKIE;
	c->dchan.cookie = cookie;
	txd->cookie = cookie;
	c->stats.submitted++;
	dead = c->dead || !c->sq;
	list_add_tail(&d->node, &c->submitted);
	/* A channel whose device is gone fails it, in cookie order. */
	if (dead)
		sacc_chan_fail_all(c);
	spin_unlock_irqrestore(&c->lock, fl);
	if (dead)
		tasklet_schedule(&c->tasklet);
	return cookie;
}

static struct sacc_dma_desc *sacc_desc_new(struct sacc_dma_chan *c, u16 op,
					   u64 src, u64 dst, size_t len,
					   u16 hw_flags, unsigned long flags)
{
	struct sacc_dma_desc *d;

	if (READ_ONCE(c->dead) || !READ_ONCE(c->sq))
		return NULL;
	d = kzalloc(sizeof(*d), GFP_NOWAIT);
	if (!d)
		return NULL;
	dma_async_tx_descriptor_init(&d->txd, &c->dchan);
	d->txd.tx_submit = sacc_tx_submit;
	d->txd.flags = flags;
	d->opcode = op;
	d->src = src;
	d->dst = dst;
	d->len = len;
	d->flags = hw_flags;
	if (flags & DMA_PREP_INTERRUPT)
		d->flags |= SACC_DESC_F_IRQ;
	INIT_LIST_HEAD(&d->node);
	return d;
}

static struct dma_async_tx_descriptor *
sacc_prep_memcpy(struct dma_chan *dchan, dma_addr_t dst, dma_addr_t src,
		 size_t len, unsigned long flags)
{
	struct sacc_dma_chan *c = to_sacc_chan(dchan);
	struct sacc_dma_desc *d;
	u16 hw = 0;
	u64 a;

	if (!len || len > SACC_MAX_XFER)
		return NULL;
	/* Device memory comes as BAR4 bus addresses (sacc_dma_devmem.h). */
	if (sacc_devmem_addr(c->sd, src, len, &a)) {
		src = a;
		hw |= SACC_DESC_F_SRC_DEV;
	}
	if (sacc_devmem_addr(c->sd, dst, len, &a)) {
		dst = a;
		hw |= SACC_DESC_F_DST_DEV;
	}
	d = sacc_desc_new(c, SACC_OP_MEMCPY, src, dst, len, hw, flags);
	return d ? &d->txd : NULL;
}

static struct dma_async_tx_descriptor *
sacc_prep_memset(struct dma_chan *dchan, dma_addr_t dst, int value,
		 size_t len, unsigned long flags)
{
	struct sacc_dma_chan *c = to_sacc_chan(dchan);
	/* dmaengine's memset value is a byte; FILL repeats 8 bytes. */
	u64 pattern = 0x0101010101010101ULL * (u8)value;
	struct sacc_dma_desc *d;
	u16 hw = 0;
	u64 a;

	if (!len || len > SACC_MAX_XFER)
		return NULL;
	if (sacc_devmem_addr(c->sd, dst, len, &a)) {
		dst = a;
		hw |= SACC_DESC_F_DST_DEV;
	}
	d = sacc_desc_new(c, SACC_OP_FILL, pattern, dst, len, hw, flags);
	return d ? &d->txd : NULL;
}

static struct dma_async_tx_descriptor *
sacc_prep_interrupt(struct dma_chan *dchan, unsigned long flags)
{
	struct sacc_dma_desc *d;

	/* A NOP that interrupts: its callback is the whole point. */
	d = sacc_desc_new(to_sacc_chan(dchan), SACC_OP_NOP, 0, 0, 0,
			  SACC_DESC_F_IRQ, flags);
	return d ? &d->txd : NULL;
}

static void sacc_issue_pending(struct dma_chan *dchan)
{
	struct sacc_dma_chan *c = to_sacc_chan(dchan);
	unsigned long fl;

	spin_lock_irqsave(&c->lock, fl);
	list_splice_tail_init(&c->submitted, &c->issued);
	sacc_chan_push(c);
	spin_unlock_irqrestore(&c->lock, fl);
}

/* ---- completion ------------------------------------------------------- */

/*
 * Which side of a faulted transaction failed.  The channel's fault record
 * is the latest fault's: when it names another req_id (a later descriptor
 * faulted before this reap), the IOMMU's page table tells which side the
 * DMA API had not mapped; the device reads all of the source before it
 * writes the destination (spec section 6).
 */
static enum dmaengine_tx_result sacc_fault_result(struct sacc_dma_chan *c,
						  struct sacc_dma_desc *d)
{
	struct iommu_domain *dom = iommu_get_domain_for_dev(sacc_chan_dev(c));
	u32 info = chan_r32(c, SACC_REG_FAULT_INFO);
	u32 rid = chan_r32(c, SACC_REG_FAULT_REQ_ID);
	u64 addr = lo_hi_readq(c->regs + SACC_REG_FAULT_ADDR);
	u32 count = chan_r32(c, SACC_REG_FAULT_COUNT);
	u32 access = info & SACC_FAULT_ACCESS_MASK;
	bool src_dev = d->flags & SACC_DESC_F_SRC_DEV;
	bool dst_dev = d->flags & SACC_DESC_F_DST_DEV;
	const char *mapped = "-";
	enum dmaengine_tx_result res;

	if (rid != d->req_id) {
		bool src_ok = src_dev || !dom || iommu_iova_to_phys(dom, d->src);

		access = d->opcode == SACC_OP_MEMCPY && !src_ok ?
			 SACC_FAULT_SRC_READ : SACC_FAULT_DST_WRITE;
		addr = access == SACC_FAULT_SRC_READ ? d->src : d->dst;
		if (d->opcode == SACC_OP_MEMCPY && src_ok && !dst_dev && dom &&
		    iommu_iova_to_phys(dom, d->dst))
			access = ~0u;	/* both mapped: cannot tell */
	}
	switch (access) {
	case SACC_FAULT_SRC_READ:
	case SACC_FAULT_DEV_READ:
		res = DMA_TRANS_READ_FAILED;
		c->stats.read_failed++;
		break;
	case SACC_FAULT_DST_WRITE:
	case SACC_FAULT_DEV_WRITE:
		res = DMA_TRANS_WRITE_FAILED;
		c->stats.write_failed++;
		break;
	default:
		res = DMA_TRANS_ABORTED;
		c->stats.aborted++;
	}
	if (dom && access < SACC_FAULT_DEV_READ)
		mapped = iommu_iova_to_phys(dom, addr) ? "mapped" : "unmapped";
	/* One line per fault, for people and for faultlog (docs/faults.md). */
	dev_err_ratelimited(sacc_chan_dev(c),
			    "chan %u fault: req_id %u op %s len %u access %s addr %#llx fault_count %u record %s iommu %s\n",
			    c->id, d->req_id, sacc_op_name(d->opcode), d->len,
			    sacc_access_name(access), addr, count,
			    rid == d->req_id ? "own" : "rebuilt", mapped);
	return res;
}

static enum dmaengine_tx_result sacc_cqe_result(struct sacc_dma_chan *c,
						struct sacc_dma_desc *d,
						u16 status, u32 len)
{
	u32 want = d->opcode == SACC_OP_NOP ? 0 : d->len;

	switch (status) {
	case SACC_STS_OK:
		if (len == want) {
			c->stats.completed++;
			return DMA_TRANS_NOERROR;
		}
		c->stats.bad_cqe++;
		dev_warn_ratelimited(sacc_chan_dev(c),
				     "chan %u: req_id %u completed OK with result_len %u, not %u: failed\n",
				     c->id, d->req_id, len, want);
		break;
	case SACC_STS_DMA_FAULT:
		return sacc_fault_result(c, d);
	default:
		/* prep never builds a bad opcode or length */
		dev_warn_ratelimited(sacc_chan_dev(c),
				     "chan %u: req_id %u: status %u for a descriptor the driver built valid\n",
				     c->id, d->req_id, status);
	}
	c->stats.aborted++;
	return DMA_TRANS_ABORTED;
}

/*
 * Reaps the CQ in ring order onto @done.  Returns false when the device
 * posted what the driver cannot believe (a req_id other than the oldest
 * outstanding one's, an unknown status, an entry with nothing
 * outstanding): the channel must then be reset.  Caller holds c->lock.
 */
static bool sacc_chan_reap(struct sacc_dma_chan *c)
{
	unsigned int n = 0;
	bool ok = true;

	for (;;) {
		struct sacc_cqe *e = &c->cq[c->cq_head];
		struct sacc_dma_desc *d;
		u32 req_id, len;
		u16 status;

		if ((le16_to_cpu((__force __le16)READ_ONCE(e->phase)) & SACC_CQE_PHASE) !=
		    c->phase)
			break;
		if (!c->n_active) {
			dev_warn_ratelimited(sacc_chan_dev(c),
					     "chan %u: a completion with nothing outstanding\n",
					     c->id);
			ok = false;
			break;
		}
		/* The device writes the phase last: the body after it. */
		dma_rmb();
		req_id = le32_to_cpu((__force __le32)READ_ONCE(e->req_id));
		len = le32_to_cpu((__force __le32)READ_ONCE(e->result_len));
		status = le16_to_cpu((__force __le16)READ_ONCE(e->status));
		d = list_first_entry(&c->active, struct sacc_dma_desc, node);
		if (req_id != d->req_id || status > SACC_STS_BAD_LENGTH) {
			dev_warn_ratelimited(sacc_chan_dev(c),
					     "chan %u: completion req_id %u status %u, expected req_id %u\n",
					     c->id, req_id, status, d->req_id);
			ok = false;
			break;
		}
		d->result = sacc_cqe_result(c, d, status, len);
		if (d->result != DMA_TRANS_NOERROR)
			sacc_chan_note_failed(c, d->txd.cookie);
		c->dchan.completed_cookie = d->txd.cookie;
		list_move_tail(&d->node, &c->done);
		c->n_active--;
		c->cq_head = (c->cq_head + 1) & (c->size - 1);
		if (!c->cq_head)
			c->phase ^= 1;
		n++;
	}
	if (n) {
		chan_w32(c, SACC_REG_CQ_HEAD, c->cq_head);
		c->last_progress = jiffies;
	}
	if (!ok)
		c->stats.bad_cqe++;
	return ok;
}

/*
 * A channel the driver can no longer trust: reset it, fail what it held,
 * enable it again with fresh rings and go on with what was waiting.
 * Caller holds c->lock.
 */
static void sacc_chan_recover(struct sacc_dma_chan *c, const char *why)
{
	c->stats.recoveries++;
	dev_warn_ratelimited(sacc_chan_dev(c),
			     "chan %u: %s: resetting the channel, failing %u transactions\n",
			     c->id, why, c->n_active);
	sacc_chan_hw_stop(c);
	sacc_chan_fail_list(c, &c->active, DMA_TRANS_ABORTED);
	c->n_active = 0;
	if (sacc_chan_hw_start(c)) {
		/* Not even a fresh enable works: the channel is unusable. */
		sacc_chan_hw_stop(c);
		c->dead = true;
		sacc_chan_fail_all(c);
	}
}

/* Reap, check for a ring fault, push what waits.  Caller holds c->lock. */
static void sacc_chan_service(struct sacc_dma_chan *c)
{
	if (c->dead || c->resetting || !c->sq)
		return;
	if (!sacc_chan_reap(c)) {
		sacc_chan_recover(c, "unexpected completion");
	} else if (test_and_clear_bit(0, &c->fatal)) {
		u32 st = chan_r32(c, SACC_REG_STATUS);

		if (st != ~0u && (st & SACC_STATUS_ERROR)) {
			u32 info = chan_r32(c, SACC_REG_FAULT_INFO);

			dev_err_ratelimited(sacc_chan_dev(c),
					    "chan %u fault: ring access %s addr %#llx fatal\n",
					    c->id,
					    sacc_access_name(info & SACC_FAULT_ACCESS_MASK),
					    lo_hi_readq(c->regs + SACC_REG_FAULT_ADDR));
			sacc_chan_recover(c, "ring fault");
		}
	}
	sacc_chan_push(c);
}

static void sacc_chan_tasklet(struct tasklet_struct *t)
{
	struct sacc_dma_chan *c = from_tasklet(c, t, tasklet);
	unsigned long fl;
	LIST_HEAD(done);

	spin_lock_irqsave(&c->lock, fl);
	sacc_chan_service(c);
	list_splice_tail_init(&c->done, &done);
	spin_unlock_irqrestore(&c->lock, fl);
	sacc_chan_complete(c, &done);
}

irqreturn_t sacc_chan_irq(int irq, void *arg)
{
	struct sacc_dma_chan *c = arg;
	u32 st;

	if (READ_ONCE(c->dead))
		return IRQ_HANDLED;
	st = chan_r32(c, SACC_REG_IRQ_STATUS);
	if (st != ~0u && st) {
		chan_w32(c, SACC_REG_IRQ_ACK, st);
		if (st & SACC_IRQ_FATAL)
			set_bit(0, &c->fatal);
	}
	tasklet_schedule(&c->tasklet);
	return IRQ_HANDLED;
}

/*
 * Every wait is bounded: with work outstanding the watchdog reaps every
 * SACC_WATCHDOG_PERIOD (a lost interrupt costs that much), and a channel
 * that completes nothing for timeout_ms is reset.
 */
static void sacc_chan_watchdog(struct timer_list *t)
{
	struct sacc_dma_chan *c = from_timer(c, t, watchdog);
	unsigned long fl;
	bool done;

	spin_lock_irqsave(&c->lock, fl);
	sacc_chan_service(c);
	if (!c->dead && !c->resetting && c->n_active &&
	    time_after(jiffies, c->last_progress +
		       msecs_to_jiffies(sacc_dma_timeout_ms))) {
		c->stats.timeouts++;
		sacc_chan_recover(c, "no completion within timeout_ms");
		sacc_chan_push(c);
	}
	if (!c->dead && c->n_active)
		mod_timer(&c->watchdog, jiffies + SACC_WATCHDOG_PERIOD);
	done = !list_empty(&c->done);
	spin_unlock_irqrestore(&c->lock, fl);
	if (done)
		tasklet_schedule(&c->tasklet);
}

static enum dma_status sacc_cookie_status(struct dma_chan *dchan,
					  dma_cookie_t cookie,
					  struct dma_tx_state *txstate)
{
	struct sacc_dma_chan *c = to_sacc_chan(dchan);
	dma_cookie_t used, complete;
	enum dma_status st;
	unsigned long fl;
	unsigned int i;

	spin_lock_irqsave(&c->lock, fl);
	used = dchan->cookie;
	complete = dchan->completed_cookie;
	st = dma_async_is_complete(cookie, complete, used);
	/*
	 * Errors come as dmaengine_result; a client that only asks
	 * tx_status (dmatest does) sees its failure here, as long as it is
	 * among the channel's latest SACC_FAILED_COOKIES.
	 */
	for (i = 0; st == DMA_COMPLETE && i < SACC_FAILED_COOKIES; i++)
		if (c->failed[i] == cookie)
			st = DMA_ERROR;
	spin_unlock_irqrestore(&c->lock, fl);
	dma_set_tx_state(txstate, complete, used, 0);
	return st;
}

static enum dma_status sacc_tx_status(struct dma_chan *dchan,
				      dma_cookie_t cookie,
				      struct dma_tx_state *txstate)
{
	struct sacc_dma_chan *c = to_sacc_chan(dchan);
	enum dma_status st;
	unsigned long fl;
	bool done;

	st = sacc_cookie_status(dchan, cookie, txstate);
	if (st != DMA_IN_PROGRESS)
		return st;
	/* A polling client makes progress without interrupts. */
	spin_lock_irqsave(&c->lock, fl);
	sacc_chan_service(c);
	done = !list_empty(&c->done);
	spin_unlock_irqrestore(&c->lock, fl);
	if (done)
		tasklet_schedule(&c->tasklet);
	return sacc_cookie_status(dchan, cookie, txstate);
}

/* ---- channel control -------------------------------------------------- */

/*
 * Aborts everything on the channel: the channel is reset (no DMA of it
 * after this returns) and started again with fresh rings.  No callback
 * runs for what was aborted; device_synchronize frees it.
 */
static int sacc_terminate_all(struct dma_chan *dchan)
{
	struct sacc_dma_chan *c = to_sacc_chan(dchan);
	unsigned long fl;
	int ret = 0;

	spin_lock_irqsave(&c->lock, fl);
	if (!c->dead && c->sq && !c->resetting)
		sacc_chan_hw_stop(c);
	c->stats.terminated += c->n_active;
	list_splice_tail_init(&c->active, &c->terminated);
	list_splice_tail_init(&c->issued, &c->terminated);
	list_splice_tail_init(&c->submitted, &c->terminated);
	c->n_active = 0;
	c->dchan.completed_cookie = c->dchan.cookie;
	if (!c->dead && c->sq && !c->resetting && sacc_chan_hw_start(c)) {
		sacc_chan_hw_stop(c);
		c->dead = true;
		ret = -EIO;
	}
	spin_unlock_irqrestore(&c->lock, fl);
	return ret;
}

static void sacc_synchronize(struct dma_chan *dchan)
{
	struct sacc_dma_chan *c = to_sacc_chan(dchan);
	unsigned long fl;
	LIST_HEAD(gone);

	tasklet_kill(&c->tasklet);
	spin_lock_irqsave(&c->lock, fl);
	list_splice_tail_init(&c->terminated, &gone);
	spin_unlock_irqrestore(&c->lock, fl);
	sacc_desc_free_list(&gone);
}

static int sacc_alloc_chan_resources(struct dma_chan *dchan)
{
	struct sacc_dma_chan *c = to_sacc_chan(dchan);
	struct device *dev = sacc_chan_dev(c);
	size_t sq_bytes = sacc_dma_ring_size * sizeof(struct sacc_desc);
	size_t cq_bytes = sacc_dma_ring_size * sizeof(struct sacc_cqe);
	struct sacc_desc *sq;
	struct sacc_cqe *cq;
	dma_addr_t sq_dma, cq_dma;
	unsigned long fl;
	int ret;

	if (READ_ONCE(c->dead))
		return -ENODEV;
	/* Coherent memory is page aligned: SQ 32-, CQ 16-byte alignment met. */
	sq = dma_alloc_coherent(dev, sq_bytes, &sq_dma, GFP_KERNEL);
	cq = dma_alloc_coherent(dev, cq_bytes, &cq_dma, GFP_KERNEL);
	if (!sq || !cq) {
		ret = -ENOMEM;
		goto err;
	}
	spin_lock_irqsave(&c->lock, fl);
	c->sq = sq;
	c->cq = cq;
	c->sq_dma = sq_dma;
	c->cq_dma = cq_dma;
	c->size = sacc_dma_ring_size;
	c->dchan.cookie = DMA_MIN_COOKIE;
	c->dchan.completed_cookie = DMA_MIN_COOKIE;
	memset(c->failed, 0, sizeof(c->failed));
	ret = c->dead ? -ENODEV : sacc_chan_hw_start(c);
	if (ret) {
		if (!c->dead)
			sacc_chan_hw_stop(c);
		c->sq = NULL;
		c->cq = NULL;
	}
	spin_unlock_irqrestore(&c->lock, fl);
	if (ret)
		goto err;
	return c->size - 1;
err:
	if (sq)
		dma_free_coherent(dev, sq_bytes, sq, sq_dma);
	if (cq)
		dma_free_coherent(dev, cq_bytes, cq, cq_dma);
	return ret;
}

void sacc_chan_free_rings(struct sacc_dma_chan *c)
{
	struct sacc_desc *sq;
	struct sacc_cqe *cq;
	unsigned long fl;

	spin_lock_irqsave(&c->lock, fl);
	if (!c->dead && c->sq)
		sacc_chan_hw_stop(c);
	sq = c->sq;
	cq = c->cq;
	c->sq = NULL;
	c->cq = NULL;
	spin_unlock_irqrestore(&c->lock, fl);
	if (sq)
		dma_free_coherent(sacc_chan_dev(c), c->size * sizeof(*sq), sq, c->sq_dma);
	if (cq)
		dma_free_coherent(sacc_chan_dev(c), c->size * sizeof(*cq), cq, c->cq_dma);
}

static void sacc_free_chan_resources(struct dma_chan *dchan)
{
	struct sacc_dma_chan *c = to_sacc_chan(dchan);
	unsigned long fl;
	LIST_HEAD(gone);

	/* After remove the rings are gone already (sacc_dma_remove). */
	sacc_chan_free_rings(c);
	del_timer_sync(&c->watchdog);
	tasklet_kill(&c->tasklet);
	spin_lock_irqsave(&c->lock, fl);
	list_splice_tail_init(&c->active, &gone);
	list_splice_tail_init(&c->issued, &gone);
	list_splice_tail_init(&c->submitted, &gone);
	list_splice_tail_init(&c->done, &gone);
	list_splice_tail_init(&c->wait_ack, &gone);
	list_splice_tail_init(&c->terminated, &gone);
	c->n_active = 0;
	spin_unlock_irqrestore(&c->lock, fl);
	sacc_desc_free_list(&gone);
}

/* ---- device life: remove, FLR ----------------------------------------- */

/*
 * Remove, first half: the channel is stopped (no DMA of it after this
 * returns) and everything it held fails with DMA_TRANS_ABORTED; from now
 * on prep returns NULL and the driver never touches the device.
 */
void sacc_chan_kill(struct sacc_dma_chan *c)
{
	unsigned long fl;

	spin_lock_irqsave(&c->lock, fl);
	if (!c->dead && c->sq)
		sacc_chan_hw_stop(c);
	c->dead = true;
	sacc_chan_fail_all(c);
	spin_unlock_irqrestore(&c->lock, fl);
}

/* Remove, second half (its IRQ freed): run the failed callbacks now. */
void sacc_chan_drain(struct sacc_dma_chan *c)
{
	unsigned long fl;
	LIST_HEAD(done);

	del_timer_sync(&c->watchdog);
	tasklet_kill(&c->tasklet);
	spin_lock_irqsave(&c->lock, fl);
	list_splice_tail_init(&c->done, &done);
	spin_unlock_irqrestore(&c->lock, fl);
	sacc_chan_complete(c, &done);
}

/*
 * Before a function reset (sysfs reset, VFIO's is not ours): stop, fail
 * what the ring held (the reset abandons it, spec section 9); what was
 * only issued waits for reset_done.
 */
void sacc_chan_reset_prepare(struct sacc_dma_chan *c)
{
	unsigned long fl;
	bool done;

	spin_lock_irqsave(&c->lock, fl);
	if (!c->dead && c->sq)
		sacc_chan_hw_stop(c);
	c->resetting = true;
	sacc_chan_fail_list(c, &c->active, DMA_TRANS_ABORTED);
	c->n_active = 0;
	done = !list_empty(&c->done);
	spin_unlock_irqrestore(&c->lock, fl);
	if (done)
		tasklet_schedule(&c->tasklet);
}

void sacc_chan_reset_done(struct sacc_dma_chan *c)
{
	unsigned long fl;

	spin_lock_irqsave(&c->lock, fl);
	c->resetting = false;
	if (!c->dead && c->sq && sacc_chan_hw_start(c)) {
		sacc_chan_hw_stop(c);
		c->dead = true;
		sacc_chan_fail_all(c);
	}
	sacc_chan_push(c);
	spin_unlock_irqrestore(&c->lock, fl);
	tasklet_schedule(&c->tasklet);
}

/* The last reference is gone (dma_device release). */
void sacc_chan_release(struct sacc_dma_chan *c)
{
	del_timer_sync(&c->watchdog);
	tasklet_kill(&c->tasklet);
}

void sacc_chan_init(struct sacc_dma_dev *sd, unsigned int id)
{
	struct sacc_dma_chan *c = &sd->chan[id];

	c->sd = sd;
	c->id = id;
	c->regs = sd->bar2 + SACC_CHAN_BLOCK(id);
	c->doorbell = sd->regs + SACC_DOORBELL(id);
	spin_lock_init(&c->lock);
	INIT_LIST_HEAD(&c->submitted);
	INIT_LIST_HEAD(&c->issued);
	INIT_LIST_HEAD(&c->active);
	INIT_LIST_HEAD(&c->done);
	INIT_LIST_HEAD(&c->wait_ack);
	INIT_LIST_HEAD(&c->terminated);
	tasklet_setup(&c->tasklet, sacc_chan_tasklet);
	timer_setup(&c->watchdog, sacc_chan_watchdog, 0);
	c->dchan.device = &sd->dma;
	list_add_tail(&c->dchan.device_node, &sd->dma.channels);
}

void sacc_chan_set_ops(struct dma_device *dma, bool memset)
{
	dma->device_alloc_chan_resources = sacc_alloc_chan_resources;
	dma->device_free_chan_resources = sacc_free_chan_resources;
	dma->device_prep_dma_memcpy = sacc_prep_memcpy;
	dma->device_prep_dma_interrupt = sacc_prep_interrupt;
	if (memset)
		dma->device_prep_dma_memset = sacc_prep_memset;
	dma->device_issue_pending = sacc_issue_pending;
	dma->device_tx_status = sacc_tx_status;
	dma->device_terminate_all = sacc_terminate_all;
	dma->device_synchronize = sacc_synchronize;
}

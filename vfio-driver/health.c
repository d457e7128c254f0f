// SPDX-License-Identifier: MIT
/*
 * health.c - the slow path's look at the device, off sacc_poll()'s hot
 * loop: every SACC_HEALTH_EVERY empty polls and whenever sacc_wait()
 * wakes with nothing.  STATUS and the kernel's device request
 * (sacc_check; a stopped device's message names its fault record),
 * lost and forged completions the ring shows (cq_scan),
 * and, when nothing completes with work outstanding, the CQ_HEAD rewind
 * probe and the hang timeout.
 */
#include <errno.h>
#include <string.h>

#include "sacc_mmio.h"
#include "sacc_track.h"

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
int sacc_probe_check(struct sacc_dev *dev, bool final)
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
 * CQ (sacc_probe_check), after hang_ms give up on the device.  A clock read
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
			ret = sacc_probe_check(dev, true);
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
int sacc_health(struct sacc_dev *dev, bool status)
{
	/* unrung operations (sacc_enqueue()) are not late: not the device's */
	uint32_t inflight = sacc_sq_published_in_flight(dev);
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

/* Message for a device in STATUS.ERROR (a fatal ring error). */
int sacc_fatal_msg(struct sacc_dev *dev, const char *what)
{
	struct sacc_iova_lookup lk;
	struct sacc_fault_regs f;
	char where[192] = "";

	sacc_fault_regs_read(dev, &f);
	if (!f.count)
		return sacc_seterr(dev, EIO,
				   "%s: %s: device stopped (STATUS 0x%x, "
				   "ERR_CODE %u: %s); call sacc_reset()",
				   dev->bdf, what, f.status, f.err_code,
				   sacc_err_code_str(f.err_code));
	if (sacc_fault_in_devmem(dev, f.info))
		return sacc_seterr(
		    dev, EIO,
		    "%s: %s: device stopped (STATUS 0x%x, ERR_CODE %u: %s); "
		    "last fault: %s %s at device address 0x%llx (device "
		    "memory, not an IOMMU fault), req_id %u, %u fault%s since "
		    "reset; call sacc_reset()",
		    dev->bdf, what, f.status, f.err_code,
		    sacc_err_code_str(f.err_code),
		    sacc_fault_access_str(f.info),
		    f.info & SACC_FAULT_IS_WRITE ? "(write)" : "(read)",
		    (unsigned long long)f.addr, f.req_id, f.count,
		    f.count == 1 ? "" : "s");
	if (dev->dma && sacc_dma_lookup(dev->dma, f.addr, 0, &lk) == 0) {
		where[0] = ' ';
		where[1] = '(';
		sacc_iova_lookup_format(&lk, where + 2, sizeof(where) - 3);
		strcat(where, ")");
	}
	return sacc_seterr(dev, EIO,
			   "%s: %s: device stopped (STATUS 0x%x, ERR_CODE %u: "
			   "%s); last DMA fault: %s %s at IOVA 0x%llx%s, "
			   "req_id %u, %u fault%s since reset; call "
			   "sacc_reset()",
			   dev->bdf, what, f.status, f.err_code,
			   sacc_err_code_str(f.err_code),
			   sacc_fault_access_str(f.info),
			   f.info & SACC_FAULT_IS_WRITE ? "(write)" : "(read)",
			   (unsigned long long)f.addr, where, f.req_id, f.count,
			   f.count == 1 ? "" : "s");
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

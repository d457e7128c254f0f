// SPDX-License-Identifier: MIT
/*
 * queue.c - a handle's queue pair as a whole: the rings and tracking
 * records allocated and freed, outstanding work forgotten on reset,
 * whether the handle may take work (sacc_queue_ready) or is broken
 * (sacc_mark_broken), and its state and counters.
 *
 * The data path is split by what it does: submit.c (checks, descriptors,
 * doorbell), poll.c (reaping, every completion checked), health.c (the
 * slow path: is the device alive, stuck or lying), wait.c (interrupts),
 * write.c (sacc_write()), chain.c (prepared chains) and graph.c (graphs:
 * one SEGMENT entry a launch).  Ring index
 * arithmetic, the phase bit and the memory ordering live in rings/.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sacc_mmio.h"
#include "sacc_track.h"

int sacc_queue_alloc(struct sacc_dev *dev)
{
	int ret;

	/* For a channel, buf.c prefixes the names with "ch<k>:".
	 * MODE.SQ_DEV: the SQ in device memory (page aligned, so 32-byte
	 * aligned), written through the BAR4 mapping. */
	if (dev->mode & SACC_MODE_SQ_DEV)
		ret = sacc_devmem_alloc_internal(dev,
						 sacc_sq_bytes(dev->sq_entries),
						 "sq ring", true, &dev->sq_buf);
	else
		ret = sacc_buf_alloc_internal(
		    dev, sacc_sq_bytes(dev->sq_entries), SACC_DMA_DIR_SQ,
		    "sq ring", true, &dev->sq_buf);
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

/* After sacc_hw_quiesce(): the device no longer touches the rings.
 * The handle's graphs are let go of next (sacc_graph_orphan_all()),
 * before their buffers go. */
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
		sacc_untrack(t);
	}
	dev->sq.head = dev->sq.tail = dev->sq.published = 0;
	dev->unrung = 0;
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

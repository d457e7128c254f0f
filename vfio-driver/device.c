// SPDX-License-Identifier: MIT
/*
 * device.c - a handle's life: sacc_open(), sacc_close(), sacc_reset()
 * and the sacc_dev_*() accessors.  Each is a sequence of steps made
 * elsewhere: hw.c (BARs, MSI-X, reset, the spec's init sequence,
 * quiesce), vfio.c (container, group, device fd), buf.c (the DMA
 * context), queue.c (the rings), devmem.c, journal.c and unbind.c (the
 * device request IRQ).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sacc_priv.h"

#define SACC_OPEN_FLAGS (SACC_OPEN_NO_INIT | SACC_OPEN_V3 | SACC_OPEN_SQ_DEV)

static int check_opts(const struct sacc_open_opts *o, uint32_t *sq,
		      uint32_t *cq)
{
	*sq = o && o->sq_entries ? o->sq_entries : SACC_DEFAULT_ENTRIES;
	*cq = o && o->cq_entries ? o->cq_entries : *sq;
	if (!sacc_ring_size_valid(*sq) || !sacc_ring_size_valid(*cq))
		return sacc_seterr(NULL, EINVAL,
				   "ring sizes must be powers of two from %u "
				   "to %u (got SQ %u, CQ %u)",
				   SACC_RING_MIN_ENTRIES, SACC_RING_MAX_ENTRIES,
				   *sq, *cq);
	if (o && o->doorbell != SACC_DOORBELL_MMAP &&
	    o->doorbell != SACC_DOORBELL_SYSCALL)
		return sacc_seterr(NULL, EINVAL, "unknown doorbell mode %d",
				   (int)o->doorbell);
	if (o && (o->flags & ~SACC_OPEN_FLAGS))
		return sacc_seterr(NULL, EINVAL, "unknown open flags 0x%x",
				   o->flags & ~SACC_OPEN_FLAGS);
	if (o && (o->flags & SACC_OPEN_SQ_DEV) &&
	    (o->flags & SACC_OPEN_NO_INIT))
		return sacc_seterr(NULL, EINVAL,
				   "SACC_OPEN_SQ_DEV places the rings, which "
				   "SACC_OPEN_NO_INIT has none of: drop one");
	return 0;
}

/*
 * VERSION (for device memory, v0.4), then BAR4 if there is device
 * memory.  With SACC_OPEN_SQ_DEV there must be: its absence fails the
 * open with the reason, which is only noted otherwise.
 */
static int open_devmem(struct sacc_dev *dev)
{
	int ret = sacc_reg_check(dev, sacc_rd(dev, SACC_REG_MAGIC));

	if (ret)
		return ret;
	dev->version = sacc_rd(dev, SACC_REG_VERSION);
	ret = sacc_devmem_open(dev);
	if (ret || !(dev->flags & SACC_OPEN_SQ_DEV) || dev->devmem)
		return ret;
	return sacc_seterr(dev, dev->devmem_why.code,
			   "%s: SACC_OPEN_SQ_DEV puts the SQ in device "
			   "memory, and there is none: %s",
			   dev->bdf, dev->devmem_why.msg);
}

int sacc_open(const char *bdf, const struct sacc_open_opts *opts,
	      struct sacc_dev **out)
{
	struct sacc_dev *dev;
	char norm[SACC_BDF_MAX];
	uint32_t sq, cq;
	int ret;

	if (!out)
		return sacc_seterr(NULL, EINVAL, "sacc_open: out is NULL");
	*out = NULL;
	ret = sacc_bdf_parse(bdf, norm);
	if (ret)
		return ret;
	ret = check_opts(opts, &sq, &cq);
	if (ret)
		return ret;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return sacc_seterr(NULL, ENOMEM, "out of memory");
	memcpy(dev->bdf, norm, sizeof(dev->bdf));
	dev->group = -1;
	dev->container_fd = dev->group_fd = dev->device_fd = -1;
	dev->irq_fd = -1;
	dev->req_fd = -1;
	dev->sq_entries = sq;
	dev->cq_entries = cq;
	dev->doorbell = opts ? opts->doorbell : SACC_DOORBELL_MMAP;
	dev->flags = opts ? opts->flags : 0;
	dev->next_req_id = 1;
	dev->inline_max = SACC_WRITE_INLINE_MAX_DEFAULT;

	ret = sacc_vfio_open(dev);
	if (ret)
		goto fail;
	sacc_req_enable(dev); /* optional: unbind hangs without it */
	ret = sacc_dev_dma_open(dev);
	if (ret)
		goto fail;
	/* Before the rings are mapped, so their mappings are journaled. */
	sacc_dev_journal_open(dev);
	ret = sacc_bar_map(dev);
	if (!ret)
		ret = sacc_bar2_map(dev);
	if (!ret)
		ret = open_devmem(dev);
	if (ret)
		goto fail;
	if (dev->flags & SACC_OPEN_V3) {
		if (!dev->bar2_map) {
			ret = sacc_seterr(
			    dev, ENOTSUP,
			    "%s: SACC_OPEN_V3 needs a v0.3 device "
			    "(BAR2); this one has VERSION %u",
			    dev->bdf, sacc_rd(dev, SACC_REG_VERSION));
			goto fail;
		}
		dev->mode = SACC_MODE_V3;
	}
	if (dev->flags & SACC_OPEN_SQ_DEV)
		dev->mode |= SACC_MODE_SQ_DEV;
	if (dev->flags & SACC_OPEN_NO_INIT) {
		ret = sacc_hw_identity(dev);
		if (ret)
			goto fail;
		*out = dev;
		return 0;
	}
	ret = sacc_queue_alloc(dev);
	if (ret)
		goto fail;
	ret = sacc_irq_enable(dev);
	if (ret)
		goto fail;
	ret = sacc_hw_reset(dev, false);
	if (ret)
		goto fail;
	ret = sacc_hw_init(dev);
	if (ret)
		goto fail;
	*out = dev;
	return 0;
fail:
	/* Keep the message: sacc_close() must not overwrite it. */
	{
		struct sacc_err why = dev->err;

		sacc_close(dev);
		sacc_seterr(NULL, ret, "%s", why.msg);
	}
	return ret;
}

void sacc_close(struct sacc_dev *dev)
{
	if (!dev)
		return;
	if (dev->root) { /* a channel */
		sacc_chan_release(dev);
		return;
	}
	sacc_chan_close_all(dev);
	/* 1. No more DMA: disable, reset, interrupts off, bus master off. */
	sacc_hw_quiesce(dev);
	if (dev->device_fd >= 0)
		sacc_disable_bus_master(dev);
	/* 2. Only now unmap what the device could have written. */
	sacc_queue_free(dev);
	sacc_graph_orphan_all(dev); /* before their buffers go */
	sacc_buf_free_all(dev);
	sacc_devmem_close(dev); /* after its last buffer */
	sacc_dev_dma_close(dev);
	sacc_dev_journal_close(dev);
	/* 3. Close everything. */
	sacc_bar_unmap(dev);
	sacc_bar2_unmap(dev);
	sacc_req_disable(dev);
	if (dev->irq_fd >= 0)
		close(dev->irq_fd);
	dev->irq_fd = -1;
	sacc_vfio_close(dev);
	free(dev);
}

/* After a reset: drain any interrupt left over from before it, then the
 * spec's init sequence again. */
static int reinit_after_reset(struct sacc_dev *dev)
{
	uint64_t v;
	int ret;

	if (dev->irq_fd >= 0 && read(dev->irq_fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing pending */
	}
	ret = sacc_hw_init(dev);
	if (ret)
		return ret;
	dev->stats.resets++;
	return 0;
}

int sacc_reset(struct sacc_dev *dev)
{
	int ret;

	if (!dev)
		return sacc_seterr(NULL, EINVAL, "sacc_reset: dev is NULL");
	if (dev->gone)
		return sacc_gone_err(dev);
	if (dev->root && __atomic_load_n(&dev->root->gone, __ATOMIC_ACQUIRE))
		return sacc_seterr(dev, ENODEV, "%s", dev->root->why_gone.msg);
	if (dev->root || dev->nchans) {
		/* One channel only (its block's CTRL.RESET): the others
		 * keep running.  Interrupts and the journal stay. */
		ret = sacc_chan_hw_reset(dev);
		return ret ? ret : reinit_after_reset(dev);
	}
	if (dev->flags & SACC_OPEN_NO_INIT) {
		sacc_wr(dev, SACC_REG_CTRL, 0);
		ret = sacc_hw_reset(dev, true);
		if (!ret) {
			dev->stats.resets++;
			sacc_dev_journal_reset(dev);
		}
		return ret;
	}
	/* Stop DMA first; outstanding descriptors are abandoned. */
	sacc_wr(dev, SACC_REG_CTRL, 0);
	ret = sacc_hw_reset(dev, true);
	if (ret)
		return ret;
	sacc_dev_journal_reset(dev); /* FAULT_COUNT restarts */
	if (!dev->irq_enabled) {
		ret = sacc_irq_enable(dev);
		if (ret)
			return ret;
	}
	return reinit_after_reset(dev);
}

/* ---- accessors ---- */

const char *sacc_dev_bdf(const struct sacc_dev *dev)
{
	return dev ? dev->bdf : "";
}

int sacc_dev_group(const struct sacc_dev *dev)
{
	return dev ? dev->group : -1;
}

enum sacc_doorbell sacc_dev_doorbell(const struct sacc_dev *dev)
{
	return dev ? dev->doorbell : SACC_DOORBELL_MMAP;
}

uint32_t sacc_dev_sq_entries(const struct sacc_dev *dev)
{
	return dev ? dev->sq_entries : 0;
}

uint32_t sacc_dev_cq_entries(const struct sacc_dev *dev)
{
	return dev ? dev->cq_entries : 0;
}

int sacc_dev_container_fd(const struct sacc_dev *dev)
{
	return dev ? dev->container_fd : -1;
}

uint64_t sacc_dev_sq_iova(const struct sacc_dev *dev)
{
	return dev ? sacc_buf_iova(dev->sq_buf) : 0;
}

struct sacc_desc *sacc_dev_sq_va(const struct sacc_dev *dev)
{
	return dev && dev->sq_buf ? sacc_buf_va(dev->sq_buf) : NULL;
}

uint64_t sacc_dev_cq_iova(const struct sacc_dev *dev)
{
	return dev ? sacc_buf_iova(dev->cq_buf) : 0;
}

volatile void *sacc_dev_doorbell_page(const struct sacc_dev *dev)
{
	return dev ? dev->db : NULL;
}

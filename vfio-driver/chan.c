// SPDX-License-Identifier: MIT
/*
 * chan.c - v0.3 channels: a sacc_dev handle per extra channel
 * (sacc_chan_open()), on its block of BAR2 (which hw.c maps once per
 * device), its MSI-X vector and its block's reset.
 *
 * A channel handle shares the device's VFIO fds, DMA context, fault
 * journal, BAR mappings and device memory (v0.4: the root's allocator,
 * locked), and owns everything the data path touches:
 * its rings, buffers, eventfd (MSI-X vector k), counters, error message
 * and its register block (regs points at BAR2 block k, where the v0.2
 * registers sit at the offsets of page 0).  So the data path (queue.c,
 * submit.c, poll.c and the rest) runs on it unchanged, and one thread
 * per channel needs no locks: the shared parts are read-only after
 * open, or locked (DMA context), or one write(2) each (journal).
 */
#include <errno.h>
#include <linux/vfio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "sacc_mmio.h"
#include "sacc_priv.h"

/* @dev's own channel block: BAR2 block k (channel 0: block 0). */
static volatile uint32_t *block(struct sacc_dev *dev)
{
	struct sacc_dev *root = dev->root ? dev->root : dev;

	if (!root->bar2_map)
		return NULL;
	return root->bar2_map + SACC_CHAN_BLOCK(dev->chan) / 4;
}

int sacc_chan_hw_reset(struct sacc_dev *dev)
{
	volatile uint32_t *b = block(dev);
	uint64_t deadline;
	struct timespec ts = {0, 1000};

	if (!b)
		return sacc_seterr(dev, ENOTSUP, "%s: no BAR2", dev->bdf);
	dev->initialised = false;
	sacc_mmio_write32(b, SACC_REG_CTRL, 0);
	sacc_mmio_write32(b, SACC_REG_CTRL, SACC_CTRL_RESET);
	deadline = sacc_monotonic_ns() + SACC_READY_TIMEOUT_MS * 1000000ull;
	while (sacc_mmio_read32(b, SACC_REG_CTRL) & SACC_CTRL_RESET) {
		if (sacc_monotonic_ns() > deadline)
			return sacc_seterr(dev, ETIMEDOUT,
					   "%s: channel %u: CTRL.RESET did not "
					   "clear within %d ms",
					   dev->bdf, dev->chan,
					   SACC_READY_TIMEOUT_MS);
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* MSI-X vector k -> @fd (-1: none). */
static int set_vector(struct sacc_dev *root, unsigned int k, int32_t fd)
{
	union {
		struct vfio_irq_set set;
		char buf[sizeof(struct vfio_irq_set) + sizeof(int32_t)];
	} u;

	memset(&u, 0, sizeof(u));
	u.set.argsz = sizeof(u.buf);
	u.set.flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
	u.set.index = VFIO_PCI_MSIX_IRQ_INDEX;
	u.set.start = k;
	u.set.count = 1;
	memcpy(u.set.data, &fd, sizeof(fd));
	return ioctl(root->device_fd, VFIO_DEVICE_SET_IRQS, &u.set) ? -errno
								    : 0;
}

void sacc_chan_release(struct sacc_dev *ch)
{
	struct sacc_dev *root = ch->root;

	if (!root->gone && root->device_fd >= 0) {
		sacc_chan_hw_reset(ch); /* no DMA for it after this */
		if (root->irq_enabled)
			set_vector(root, ch->chan, -1);
	}
	ch->initialised = false;
	sacc_queue_free(ch);
	sacc_graph_orphan_all(ch); /* before their buffers go */
	sacc_buf_free_all(ch);
	if (ch->irq_fd >= 0)
		close(ch->irq_fd);
	root->chans[ch->chan] = NULL;
	root->nchans--;
	free(ch);
}

void sacc_chan_close_all(struct sacc_dev *dev)
{
	for (unsigned int k = 1; k < SACC_CHANNELS_MAX && dev->nchans; k++)
		if (dev->chans[k])
			sacc_chan_release(dev->chans[k]);
}

/* May @dev open channel @chan with @opts?  0, or the error on @dev. */
static int chan_open_check(struct sacc_dev *dev, unsigned int chan,
			   const struct sacc_open_opts *opts)
{
	if (dev->root)
		return sacc_seterr(dev, EINVAL,
				   "sacc_chan_open: pass the sacc_open() "
				   "handle, not a channel's");
	if (dev->gone)
		return sacc_gone_err(dev);
	if ((dev->flags & SACC_OPEN_NO_INIT) || !dev->irq_enabled)
		return sacc_seterr(dev, ENOTCONN,
				   "sacc_chan_open: %s was opened with "
				   "SACC_OPEN_NO_INIT; open it without",
				   dev->bdf);
	if (!dev->bar2_map)
		return sacc_seterr(dev, ENOTSUP,
				   "sacc_chan_open: %s has no channels (no "
				   "mappable BAR2: a device before v0.3, "
				   "VERSION %u)",
				   dev->bdf, sacc_rd(dev, SACC_REG_VERSION));
	if (chan == 0 || chan >= dev->channels)
		return sacc_seterr(dev, EINVAL,
				   "sacc_chan_open: channel %u: %s has "
				   "channels 1..%u besides channel 0, which "
				   "is the sacc_open() handle itself",
				   chan, dev->bdf, dev->channels - 1);
	if (dev->chans[chan])
		return sacc_seterr(dev, EBUSY,
				   "sacc_chan_open: channel %u of %s is "
				   "already open; sacc_close() it first",
				   chan, dev->bdf);
	if (opts && (opts->flags & ~(SACC_OPEN_V3 | SACC_OPEN_SQ_DEV)))
		return sacc_seterr(dev, EINVAL,
				   "sacc_chan_open: flags 0x%x: only "
				   "SACC_OPEN_V3 (implied) and "
				   "SACC_OPEN_SQ_DEV are allowed",
				   opts->flags);
	if (opts && (opts->flags & SACC_OPEN_SQ_DEV) && !dev->devmem)
		return sacc_seterr(dev, dev->devmem_why.code,
				   "sacc_chan_open: SACC_OPEN_SQ_DEV puts "
				   "channel %u's SQ in device memory, and %s "
				   "has none: %s",
				   chan, dev->bdf, dev->devmem_why.msg);
	if (opts && opts->doorbell != SACC_DOORBELL_MMAP &&
	    opts->doorbell != SACC_DOORBELL_SYSCALL &&
	    opts->doorbell != SACC_DOORBELL_PUT_TOKEN)
		return sacc_seterr(dev, EINVAL,
				   "sacc_chan_open: unknown doorbell mode %d",
				   (int)opts->doorbell);
	return 0;
}

/*
 * The handle of channel @chan: the device's fds, DMA context, journal
 * and mappings shared, its own register block and doorbell word.
 * Registered in @dev->chans at once, so sacc_chan_release() undoes a
 * half-started one.
 */
static struct sacc_dev *chan_new(struct sacc_dev *dev, unsigned int chan,
				 const struct sacc_open_opts *opts)
{
	struct sacc_dev *ch = calloc(1, sizeof(*ch));

	if (!ch)
		return NULL;
	memcpy(ch->bdf, dev->bdf, sizeof(ch->bdf));
	ch->group = dev->group;
	ch->container_fd = dev->container_fd;
	ch->group_fd = dev->group_fd;
	ch->device_fd = dev->device_fd;
	ch->req_fd = -1; /* the device's: its sacc_check() looks */
	ch->irq_fd = -1;
	ch->has_flr = false;
	ch->bar0 = dev->bar0;
	ch->cfg = dev->cfg;
	ch->version = dev->version;
	ch->dma = dev->dma;
	ch->journal = dev->journal;
	ch->root = dev;
	ch->chan = chan;
	ch->db_slot = chan * SACC_DOORBELL_STRIDE;
	ch->regs = block(ch);
	ch->db = dev->db;
	ch->doorbell = opts ? opts->doorbell : SACC_DOORBELL_MMAP;
	ch->mode =
	    SACC_MODE_V3 |
	    (ch->doorbell == SACC_DOORBELL_PUT_TOKEN ? SACC_MODE_TOKEN : 0) |
	    (opts && (opts->flags & SACC_OPEN_SQ_DEV) ? SACC_MODE_SQ_DEV : 0);
	ch->sq_entries =
	    opts && opts->sq_entries ? opts->sq_entries : SACC_DEFAULT_ENTRIES;
	ch->cq_entries =
	    opts && opts->cq_entries ? opts->cq_entries : ch->sq_entries;
	ch->next_req_id = 1;
	ch->inline_max = dev->inline_max;
	dev->chans[chan] = ch;
	dev->nchans++;
	return ch;
}

/* Rings, PUT word and MSI-X vector for @ch, then its block's reset and
 * init: 0, or the error on @ch. */
static int chan_start(struct sacc_dev *ch)
{
	struct sacc_dev *dev = ch->root;
	char name[32];
	int ret;

	if (!sacc_ring_size_valid(ch->sq_entries) ||
	    !sacc_ring_size_valid(ch->cq_entries))
		return sacc_seterr(ch, EINVAL,
				   "ring sizes must be powers of two from %u "
				   "to %u (got SQ %u, CQ %u)",
				   SACC_RING_MIN_ENTRIES, SACC_RING_MAX_ENTRIES,
				   ch->sq_entries, ch->cq_entries);
	if ((ch->doorbell == SACC_DOORBELL_MMAP ||
	     ch->doorbell == SACC_DOORBELL_PUT_TOKEN) &&
	    !ch->db)
		return sacc_seterr(ch, ENOTSUP,
				   "%s: the doorbell page is not mmapped; "
				   "open channel %u with the syscall doorbell",
				   ch->bdf, ch->chan);
	ret = sacc_queue_alloc(ch);
	if (ret)
		return ret;
	if (ch->mode & SACC_MODE_TOKEN) {
		/* MODE.SQ_DEV: PUT_ADDR is a device address too */
		snprintf(name, sizeof(name), "put word");
		if (ch->mode & SACC_MODE_SQ_DEV)
			ret = sacc_devmem_alloc_internal(
			    ch, SACC_PUT_ALIGN, name, true, &ch->put_buf);
		else
			ret = sacc_buf_alloc_internal(ch, SACC_PUT_ALIGN,
						      SACC_DMA_TO_DEVICE, name,
						      true, &ch->put_buf);
		if (ret)
			return ret;
		ch->put = sacc_buf_va(ch->put_buf);
	}
	ch->irq_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ch->irq_fd < 0)
		return sacc_seterr(ch, errno, "eventfd: %s", strerror(errno));
	ret = set_vector(dev, ch->chan, ch->irq_fd);
	if (ret) {
		sacc_seterr(ch, -ret,
			    "%s: VFIO_DEVICE_SET_IRQS(MSI-X vector %u -> "
			    "eventfd): %s",
			    ch->bdf, ch->chan, strerror(-ret));
		return ret;
	}
	ch->irq_enabled = true;
	ret = sacc_chan_hw_reset(ch);
	if (!ret)
		ret = sacc_hw_init(ch);
	return ret;
}

int sacc_chan_open(struct sacc_dev *dev, unsigned int chan,
		   const struct sacc_open_opts *opts, struct sacc_dev **out)
{
	struct sacc_dev *ch;
	struct sacc_err why;
	int ret;

	if (!out)
		return sacc_seterr(dev, EINVAL, "sacc_chan_open: out is NULL");
	*out = NULL;
	if (!dev)
		return sacc_seterr(NULL, EINVAL, "sacc_chan_open: dev is NULL");
	ret = chan_open_check(dev, chan, opts);
	if (ret)
		return ret;
	ch = chan_new(dev, chan, opts);
	if (!ch)
		return sacc_seterr(dev, ENOMEM, "out of memory");
	ret = chan_start(ch);
	if (!ret) {
		*out = ch;
		return 0;
	}
	/* The error is on the channel's handle, which goes: move it to dev. */
	why = ch->err;
	sacc_chan_release(ch);
	return sacc_seterr(dev, ret, "%s", why.msg);
}

unsigned int sacc_dev_channel(const struct sacc_dev *dev)
{
	return dev ? dev->chan : 0;
}

unsigned int sacc_dev_channels(const struct sacc_dev *dev)
{
	if (!dev)
		return 0;
	return dev->root ? dev->root->channels : dev->channels;
}

uint64_t sacc_dev_put_iova(const struct sacc_dev *dev)
{
	return dev && dev->put_buf ? sacc_buf_iova(dev->put_buf) : 0;
}

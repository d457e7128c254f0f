// SPDX-License-Identifier: MIT
/*
 * hw.c - the device under a handle, as the spec brings it up and down:
 * the BAR mappings, MSI-X vector 0 on an eventfd, reset (CTRL.RESET or
 * FLR), the spec's init sequence and quiesce.  sacc_open(), sacc_reset()
 * and sacc_close() (device.c), channels (chan.c) and the release on
 * unbind (unbind.c) are made of these.  Register access is regs.c.
 *
 * BAR0 is mapped as two separate 4 KiB mappings: the register page
 * (offset 0) and the doorbell page (offset 0x1000), so the submission
 * path only ever touches the doorbell mapping (reaping writes
 * CQ_HEAD in the register page once per batch).  BAR2 (v0.3's channel
 * blocks) is mapped once per device; BAR4 (device memory) is devmem.c's.
 */
#include <errno.h>
#include <linux/vfio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "sacc_mmio.h"
#include "sacc_priv.h"

/* ---- BAR0 and BAR2 ---- */

int sacc_bar_map(struct sacc_dev *dev)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *p;

	dev->regs = NULL;
	dev->db = NULL;
	if (!(dev->bar0.flags & VFIO_REGION_INFO_FLAG_MMAP) ||
	    pg != SACC_PAGE_SIZE) {
		if (dev->doorbell == SACC_DOORBELL_MMAP)
			return sacc_seterr(
			    dev, ENOTSUP,
			    "%s: BAR0 cannot be mmapped in 4 KiB "
			    "pages here (VFIO region flags 0x%x, "
			    "page size %ld); open it with the "
			    "syscall doorbell",
			    dev->bdf, dev->bar0.flags, pg);
		return 0; /* registers through pread/pwrite */
	}
	p = mmap(NULL, SACC_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 dev->device_fd, (off_t)dev->bar0.offset);
	if (p == MAP_FAILED)
		return sacc_seterr(dev, errno,
				   "%s: mmap of the BAR0 register page: %s",
				   dev->bdf, strerror(errno));
	dev->regs = p;
	p = mmap(NULL, SACC_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 dev->device_fd,
		 (off_t)(dev->bar0.offset + SACC_DOORBELL_OFFSET));
	if (p == MAP_FAILED)
		return sacc_seterr(dev, errno,
				   "%s: mmap of the BAR0 doorbell page: %s",
				   dev->bdf, strerror(errno));
	dev->db = p;
	return 0;
}

void sacc_bar_unmap(struct sacc_dev *dev)
{
	if (dev->db)
		munmap((void *)dev->db, SACC_PAGE_SIZE);
	if (dev->regs)
		munmap((void *)dev->regs, SACC_PAGE_SIZE);
	dev->db = NULL;
	dev->regs = NULL;
}

int sacc_bar2_map(struct sacc_dev *dev)
{
	void *p;
	uint32_t n;

	dev->channels = 1;
	dev->bar2_map = NULL;
	if (!dev->bar2.valid || dev->bar2.size < SACC_BAR2_SIZE ||
	    !(dev->bar2.flags & VFIO_REGION_INFO_FLAG_MMAP))
		return 0; /* a v0.2 device: channel 0 only */
	p = mmap(NULL, SACC_BAR2_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 dev->device_fd, (off_t)dev->bar2.offset);
	if (p == MAP_FAILED)
		return sacc_seterr(dev, errno, "%s: mmap of BAR2: %s", dev->bdf,
				   strerror(errno));
	dev->bar2_map = p;
	n = sacc_mmio_read32(p, SACC_DEV_CHANNELS);
	dev->channels = n >= 1 && n <= SACC_CHANNELS_MAX ? n : 1;
	return 0;
}

void sacc_bar2_unmap(struct sacc_dev *dev)
{
	if (dev->bar2_map)
		munmap((void *)dev->bar2_map, SACC_BAR2_SIZE);
	dev->bar2_map = NULL;
}

/* ---- MSI-X vector 0 -> eventfd ---- */

int sacc_irq_enable(struct sacc_dev *dev)
{
	struct vfio_irq_info ii = {.argsz = sizeof(ii),
				   .index = VFIO_PCI_MSIX_IRQ_INDEX};
	union {
		struct vfio_irq_set set;
		char buf[sizeof(struct vfio_irq_set) +
			 SACC_CHANNELS_MAX * sizeof(int32_t)];
	} u;
	int32_t fd[SACC_CHANNELS_MAX];
	uint32_t n;

	if (dev->irq_enabled)
		return 0;
	if (ioctl(dev->device_fd, VFIO_DEVICE_GET_IRQ_INFO, &ii))
		return sacc_seterr(dev, errno,
				   "%s: VFIO_DEVICE_GET_IRQ_INFO(MSI-X): %s",
				   dev->bdf, strerror(errno));
	if (ii.count < 1 || !(ii.flags & VFIO_IRQ_INFO_EVENTFD))
		return sacc_seterr(dev, ENOTSUP,
				   "%s: no MSI-X vector usable with an eventfd "
				   "(count %u, flags 0x%x)",
				   dev->bdf, ii.count, ii.flags);
	if (dev->irq_fd < 0) {
		dev->irq_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (dev->irq_fd < 0)
			return sacc_seterr(dev, errno, "eventfd: %s",
					   strerror(errno));
	}
	/*
	 * v0.3: vector k is channel k's.  Enable one vector per channel
	 * now (vfio-pci before Linux 6.5 cannot add vectors to enabled
	 * MSI-X), channel 0's and those of open channels with an eventfd.
	 */
	n = dev->channels > 1 && dev->channels <= ii.count ? dev->channels : 1;
	fd[0] = dev->irq_fd;
	for (uint32_t k = 1; k < n; k++)
		fd[k] = dev->chans[k] ? dev->chans[k]->irq_fd : -1;
	memset(&u, 0, sizeof(u));
	u.set.argsz =
	    (uint32_t)(sizeof(struct vfio_irq_set) + n * sizeof(int32_t));
	u.set.flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
	u.set.index = VFIO_PCI_MSIX_IRQ_INDEX;
	u.set.start = 0;
	u.set.count = n;
	memcpy(u.set.data, fd, n * sizeof(int32_t));
	if (ioctl(dev->device_fd, VFIO_DEVICE_SET_IRQS, &u.set))
		return sacc_seterr(dev, errno,
				   "%s: VFIO_DEVICE_SET_IRQS(MSI-X vector 0 -> "
				   "eventfd): %s",
				   dev->bdf, strerror(errno));
	dev->irq_enabled = true;
	return 0;
}

void sacc_irq_disable(struct sacc_dev *dev)
{
	struct vfio_irq_set set = {
	    .argsz = sizeof(set),
	    .flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER,
	    .index = VFIO_PCI_MSIX_IRQ_INDEX,
	    .start = 0,
	    .count = 0,
	};

	if (dev->irq_enabled)
		ioctl(dev->device_fd, VFIO_DEVICE_SET_IRQS, &set);
	dev->irq_enabled = false;
}

/* ---- reset and init ---- */

/* MAGIC and VERSION: 0 if this is a SACC device libsacc can drive. */
int sacc_hw_identity(struct sacc_dev *dev)
{
	uint32_t magic = sacc_rd(dev, SACC_REG_MAGIC);
	uint32_t ver = sacc_rd(dev, SACC_REG_VERSION);
	int ret = sacc_reg_check(dev, magic);

	if (ret)
		return ret;
	dev->version = ver;
	if (magic != SACC_MAGIC)
		return sacc_seterr(dev, ENODEV,
				   "%s: MAGIC reads 0x%08x, a SACC device has "
				   "0x%08x",
				   dev->bdf, magic, SACC_MAGIC);
	/* libsacc drives channel 0 with v0.2's interface, which every
	 * later version keeps (spec section 10): a lower VERSION is refused,
	 * a higher one is not. */
	if (ver < SACC_VERSION_V02)
		return sacc_seterr(dev, ENOTSUP,
				   "%s: device VERSION %u, libsacc needs %u or "
				   "later",
				   dev->bdf, ver, SACC_VERSION_V02);
	return 0;
}

static void short_sleep(unsigned int iter)
{
	struct timespec ts = {0, iter < 10 ? 1000 : 100000};

	nanosleep(&ts, NULL);
}

/*
 * Reset the device.  With @flr: VFIO_DEVICE_RESET (PCIe FLR, which also
 * resets MSI-X, so interrupts are torn down around it and bus mastering
 * is re-enabled after it), falling back to CTRL.RESET.  Without: only
 * CTRL.RESET, which the spec defines to the same register effect and
 * "no DMA after it returns", minus the 100 ms an FLR costs.  (vfio-pci
 * itself FLRs the function when the device fd is opened and released.)
 */
int sacc_hw_reset(struct sacc_dev *dev, bool flr)
{
	bool had_irq = dev->irq_enabled;
	bool done = false;
	uint64_t deadline;
	unsigned int i;
	int ret;

	dev->initialised = false;
	if (flr && dev->has_flr) {
		sacc_irq_disable(dev);
		if (ioctl(dev->device_fd, VFIO_DEVICE_RESET) == 0)
			done = true;
		/* An FLR zeroes device memory (spec section 18), even one
		 * that failed part way: graphs write their segments again. */
		sacc_devmem_scrubbed(dev);
	}
	if (!done) {
		sacc_wr(dev, SACC_REG_CTRL, SACC_CTRL_RESET);
		deadline =
		    sacc_monotonic_ns() + SACC_READY_TIMEOUT_MS * 1000000ull;
		for (i = 0; sacc_rd(dev, SACC_REG_CTRL) & SACC_CTRL_RESET;
		     i++) {
			if (sacc_monotonic_ns() > deadline)
				return sacc_seterr(dev, ETIMEDOUT,
						   "%s: CTRL.RESET did not "
						   "clear within %d ms",
						   dev->bdf,
						   SACC_READY_TIMEOUT_MS);
			short_sleep(i);
		}
	}
	ret = sacc_enable_bus_master(dev);
	if (ret)
		return ret;
	ret = sacc_hw_identity(dev);
	if (ret)
		return ret;
	if (had_irq && !dev->irq_enabled)
		return sacc_irq_enable(dev);
	return 0;
}

/*
 * The spec's init sequence, on a freshly reset device: check identity,
 * program the ring registers (rings zeroed), set CTRL.ENABLE, wait for
 * STATUS.READY (bounded), fail with ERR_CODE decoded on STATUS.ERROR.
 */
int sacc_hw_init(struct sacc_dev *dev)
{
	/* MODE.SQ_DEV: SQ_BASE (and PUT_ADDR) are device addresses */
	uint64_t sq = sacc_buf_addr(dev->sq_buf);
	uint64_t cq = sacc_buf_iova(dev->cq_buf);
	uint64_t deadline;
	uint32_t st;
	unsigned int i;
	int ret;

	if (!dev->root) { /* a channel block has no MAGIC */
		ret = sacc_hw_identity(dev);
		if (ret)
			return ret;
	}
	st = sacc_rd(dev, SACC_REG_STATUS);
	if (st & SACC_STATUS_READY)
		return sacc_seterr(dev, EIO,
				   "%s: device is READY right after reset "
				   "(STATUS 0x%x)",
				   dev->bdf, st);
	/* Whatever was outstanding is gone with the reset. */
	sacc_queue_abandon(dev);
	ret = sacc_sq_init(&dev->sq, sacc_buf_va(dev->sq_buf), dev->sq_entries);
	if (!ret)
		ret = sacc_cq_init(&dev->cq, sacc_buf_va(dev->cq_buf),
				   dev->cq_entries);
	if (ret)
		return sacc_seterr(dev, ret, "%s: ring init failed", dev->bdf);
	dev->empty_polls = 0;

	sacc_wr64(dev, SACC_REG_SQ_BASE, sq);
	sacc_wr(dev, SACC_REG_SQ_SIZE, dev->sq_entries);
	sacc_wr64(dev, SACC_REG_CQ_BASE, cq);
	sacc_wr(dev, SACC_REG_CQ_SIZE, dev->cq_entries);
	if (sacc_rd64(dev, SACC_REG_SQ_BASE) != sq ||
	    sacc_rd(dev, SACC_REG_SQ_SIZE) != dev->sq_entries ||
	    sacc_rd64(dev, SACC_REG_CQ_BASE) != cq ||
	    sacc_rd(dev, SACC_REG_CQ_SIZE) != dev->cq_entries)
		return sacc_seterr(dev, EIO,
				   "%s: ring registers did not take the "
				   "values written",
				   dev->bdf);

	if (dev->root) {
		sacc_wr(dev, SACC_REG_MODE, dev->mode);
		if (dev->put_buf) {
			*dev->put = 0;
			sacc_wr64(dev, SACC_REG_PUT_ADDR,
				  sacc_buf_addr(dev->put_buf));
		}
	} else if (dev->mode && dev->bar2_map) {
		/* Channel 0's MODE is in its block only. */
		sacc_mmio_write32(dev->bar2_map,
				  SACC_CHAN_BLOCK(0) + SACC_REG_MODE,
				  dev->mode);
	}
	sacc_wr(dev, SACC_REG_CTRL, SACC_CTRL_ENABLE);
	deadline = sacc_monotonic_ns() + SACC_READY_TIMEOUT_MS * 1000000ull;
	for (i = 0;; i++) {
		st = sacc_rd(dev, SACC_REG_STATUS);
		if (st & SACC_STATUS_ERROR) {
			uint32_t code = sacc_rd(dev, SACC_REG_ERR_CODE);

			return sacc_seterr(
			    dev, EIO,
			    "%s: enable failed: STATUS 0x%x, "
			    "ERR_CODE %u (%s); SQ %s0x%llx x %u, "
			    "CQ 0x%llx x %u",
			    dev->bdf, st, code, sacc_err_code_str(code),
			    dev->mode & SACC_MODE_SQ_DEV ? "(device address) "
							 : "",
			    (unsigned long long)sq, dev->sq_entries,
			    (unsigned long long)cq, dev->cq_entries);
		}
		if (st & SACC_STATUS_READY)
			break;
		if (sacc_monotonic_ns() > deadline)
			return sacc_seterr(dev, ETIMEDOUT,
					   "%s: not READY %d ms after enable "
					   "(STATUS 0x%x)",
					   dev->bdf, SACC_READY_TIMEOUT_MS, st);
		short_sleep(i);
	}
	dev->initialised = true;
	dev->broken = false;
	sacc_progress_reset(dev);
	return 0;
}

/*
 * Stop all device DMA: clear ENABLE, then reset (the spec guarantees no
 * DMA once reset returns).  Called before anything it could DMA into is
 * unmapped.
 */
void sacc_hw_quiesce(struct sacc_dev *dev)
{
	if (dev->device_fd < 0)
		return;
	sacc_wr(dev, SACC_REG_CTRL, 0);
	if (sacc_hw_reset(dev, false))
		sacc_hw_reset(dev, true); /* not answering: FLR it */
	sacc_irq_disable(dev);
	dev->initialised = false;
}

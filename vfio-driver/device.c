// SPDX-License-Identifier: MIT
/*
 * device.c - BAR0 mapping, MSI-X, reset and the spec's init sequence;
 * sacc_open(), sacc_close(), sacc_reset() and the sacc_dev_*()
 * accessors.  Register access is regs.c.
 *
 * BAR0 is mapped as two separate 4 KiB mappings: the register page
 * (offset 0) and the doorbell page (offset 0x1000), so the submission
 * path only ever touches the doorbell mapping (reaping writes
 * CQ_HEAD in the register page once per batch).
 */
#include <errno.h>
#include <linux/vfio.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "sacc_mmio.h"
#include "sacc_priv.h"

/* ---- BAR0 ---- */

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

static int check_identity(struct sacc_dev *dev)
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

/* ---- device request: the kernel wants the device back ---- */

/*
 * vfio-pci signals the device request eventfd when the kernel needs the
 * device released (unbind, hot unplug) and waits, re-signalling every
 * 10 s, until every fd of the device is closed; without one registered
 * it logs "No device request channel registered, blocked until released
 * by user" and the unbind hangs.  libsacc has no thread: the eventfd is
 * looked at where libsacc already sleeps or makes slow-path calls
 * (sacc_wait() polls it, sacc_poll() reads it every SACC_HEALTH_EVERY
 * polls, sacc_check()).  A process that never calls into libsacc keeps
 * the device until it does, or exits.  Optional: a kernel without the
 * request IRQ leaves req_fd at -1.
 */
void sacc_req_enable(struct sacc_dev *dev)
{
	struct vfio_irq_info ii = {.argsz = sizeof(ii),
				   .index = VFIO_PCI_REQ_IRQ_INDEX};
	union {
		struct vfio_irq_set set;
		char buf[sizeof(struct vfio_irq_set) + sizeof(int32_t)];
	} u;
	int32_t fd;

	if (dev->req_fd >= 0 || dev->device_fd < 0)
		return;
	if (ioctl(dev->device_fd, VFIO_DEVICE_GET_IRQ_INFO, &ii) ||
	    ii.count < 1 || !(ii.flags & VFIO_IRQ_INFO_EVENTFD))
		return;
	fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (fd < 0)
		return;
	memset(&u, 0, sizeof(u));
	u.set.argsz = sizeof(u.buf);
	u.set.flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
	u.set.index = VFIO_PCI_REQ_IRQ_INDEX;
	u.set.start = 0;
	u.set.count = 1;
	memcpy(u.set.data, &fd, sizeof(fd));
	if (ioctl(dev->device_fd, VFIO_DEVICE_SET_IRQS, &u.set)) {
		close(fd);
		return;
	}
	dev->req_fd = fd;
}

void sacc_req_disable(struct sacc_dev *dev)
{
	struct vfio_irq_set set = {
	    .argsz = sizeof(set),
	    .flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER,
	    .index = VFIO_PCI_REQ_IRQ_INDEX,
	    .start = 0,
	    .count = 0,
	};

	if (dev->req_fd < 0)
		return;
	if (dev->device_fd >= 0)
		ioctl(dev->device_fd, VFIO_DEVICE_SET_IRQS, &set);
	close(dev->req_fd);
	dev->req_fd = -1;
}

int sacc_gone_err(struct sacc_dev *dev)
{
	return sacc_seterr(dev, ENODEV, "%s", dev->why_gone.msg);
}

/*
 * Let go of the device so the kernel can unbind it: stop its DMA
 * (disable, reset, bus master off), drop what was outstanding, then
 * give back everything that holds the VFIO device open: the BAR
 * mappings, the interrupt eventfds, the device fd.  The container and
 * the DMA mappings stay, so buffers stay valid memory until
 * sacc_buf_free() or sacc_close().
 */
static void release_device(struct sacc_dev *dev)
{
	uint32_t lost = dev->sq.size ? sacc_sq_in_flight(&dev->sq) : 0;

	sacc_hw_quiesce(dev);
	if (dev->device_fd >= 0)
		sacc_disable_bus_master(dev);
	sacc_queue_abandon(dev);
	dev->initialised = false;
	sacc_req_disable(dev);
	sacc_irq_disable(dev);
	if (dev->irq_fd >= 0)
		close(dev->irq_fd);
	dev->irq_fd = -1;
	/* Open channels still point into the BAR pages: sacc_close(). */
	if (!dev->nchans) {
		sacc_bar_unmap(dev);
		sacc_bar2_unmap(dev);
		sacc_devmem_release(dev); /* device buffers stay memory */
		if (dev->device_fd >= 0)
			close(dev->device_fd);
		dev->device_fd = -1;
	}
	sacc_err_set(&dev->why_gone, ENODEV,
		     "%s: the kernel asked for the device back (unbind or "
		     "removal), so libsacc stopped it and let go of it (%u "
		     "outstanding operation%s abandoned); call sacc_close() "
		     "and reopen it once it is bound to vfio-pci again",
		     dev->bdf, lost, lost == 1 ? "" : "s");
	__atomic_store_n(&dev->gone, true, __ATOMIC_RELEASE);
}

int sacc_req_check(struct sacc_dev *dev)
{
	uint64_t cnt = 0;

	if (dev->gone)
		return sacc_gone_err(dev);
	if (dev->req_fd < 0 ||
	    read(dev->req_fd, &cnt, sizeof(cnt)) != sizeof(cnt) || !cnt)
		return 0;
	release_device(dev);
	return sacc_gone_err(dev);
}

/* ---- reset and init ---- */

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
	ret = check_identity(dev);
	if (ret)
		return ret;
	if (had_irq && !dev->irq_enabled)
		return sacc_irq_enable(dev);
	return 0;
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
		ret = check_identity(dev);
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

/* ---- open / close / reset ---- */

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
		ret = check_identity(dev);
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

int sacc_dev_iova_ranges(const struct sacc_dev *dev,
			 struct sacc_iova_range *out, unsigned int max,
			 uint64_t *pgsizes)
{
	const struct sacc_iommu_info *info;
	unsigned int i;

	if (!dev || !dev->dma)
		return sacc_seterr(NULL, EBADF, "device is not open");
	info = sacc_dma_ctx_info(dev->dma);
	if (pgsizes)
		*pgsizes = info->pgsizes;
	if (!info->has_iova_ranges) {
		/* No CAP_IOVA_RANGE: what iommu/ falls back to. */
		if (out && max) {
			out[0].start = SACC_IOVA_FALLBACK_START;
			out[0].end = SACC_IOVA_FALLBACK_END;
		}
		return 1;
	}
	for (i = 0; out && i < max && i < info->nr_ranges; i++)
		out[i] = info->ranges[i];
	return (int)info->nr_ranges;
}

struct sacc_dma_ctx *sacc_dev_dma(struct sacc_dev *dev)
{
	return dev ? dev->dma : NULL;
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

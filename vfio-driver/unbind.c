// SPDX-License-Identifier: MIT
/*
 * unbind.c - letting go of the device when the kernel asks for it back:
 * the VFIO device request IRQ on an eventfd, and the release.
 *
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
#include <errno.h>
#include <linux/vfio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sacc_priv.h"

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

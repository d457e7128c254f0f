// SPDX-License-Identifier: MIT
/*
 * vfio.c - VFIO container, group and device file descriptors, region
 * info and PCI config space access through the config region.
 *
 * One container per sacc_dev: two devices in one process get two
 * containers, each with its own IOVA space.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/pci_regs.h>
#include <linux/vfio.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sacc_priv.h"

static int region_info(struct sacc_dev *dev, uint32_t index,
		       struct sacc_region *r)
{
	struct vfio_region_info info = {.argsz = sizeof(info), .index = index};

	memset(r, 0, sizeof(*r));
	if (ioctl(dev->device_fd, VFIO_DEVICE_GET_REGION_INFO, &info))
		return sacc_seterr(dev, errno,
				   "%s: VFIO_DEVICE_GET_REGION_INFO(%u): %s",
				   dev->bdf, index, strerror(errno));
	r->offset = info.offset;
	r->size = info.size;
	r->flags = info.flags;
	r->valid = true;
	return 0;
}

int sacc_cfg_read(struct sacc_dev *dev, uint32_t off, void *buf, size_t len)
{
	ssize_t n;

	n = pread(dev->device_fd, buf, len, (off_t)(dev->cfg.offset + off));
	if (n != (ssize_t)len)
		return sacc_seterr(dev, n < 0 ? errno : EIO,
				   "%s: config space read at 0x%x failed: %s",
				   dev->bdf, off,
				   n < 0 ? strerror(errno) : "short read");
	return 0;
}

int sacc_cfg_write(struct sacc_dev *dev, uint32_t off, const void *buf,
		   size_t len)
{
	ssize_t n;

	n = pwrite(dev->device_fd, buf, len, (off_t)(dev->cfg.offset + off));
	if (n != (ssize_t)len)
		return sacc_seterr(dev, n < 0 ? errno : EIO,
				   "%s: config space write at 0x%x failed: %s",
				   dev->bdf, off,
				   n < 0 ? strerror(errno) : "short write");
	return 0;
}

int sacc_enable_bus_master(struct sacc_dev *dev)
{
	uint16_t cmd, want;
	int ret;

	ret = sacc_cfg_read(dev, PCI_COMMAND, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	want = cmd | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
	if (want == cmd)
		return 0;
	ret = sacc_cfg_write(dev, PCI_COMMAND, &want, sizeof(want));
	if (ret)
		return ret;
	ret = sacc_cfg_read(dev, PCI_COMMAND, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if ((cmd & want) != want)
		return sacc_seterr(dev, EIO,
				   "%s: cannot enable memory space and bus "
				   "mastering (PCI command reads 0x%04x)",
				   dev->bdf, cmd);
	return 0;
}

/*
 * Clear bus mastering: the device can then issue no DMA at all, whatever
 * state it is in.  The last step before unmapping anything at close, in
 * case both resets failed on a device that stopped answering.
 */
void sacc_disable_bus_master(struct sacc_dev *dev)
{
	uint16_t cmd;

	if (sacc_cfg_read(dev, PCI_COMMAND, &cmd, sizeof(cmd)))
		return;
	cmd &= ~PCI_COMMAND_MASTER;
	sacc_cfg_write(dev, PCI_COMMAND, &cmd, sizeof(cmd));
}

static int open_container(struct sacc_dev *dev)
{
	int fd, v;

	fd = open("/dev/vfio/vfio", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		if (e == ENOENT)
			return sacc_seterr(
			    dev, e,
			    "/dev/vfio/vfio does not exist: load "
			    "VFIO with 'modprobe vfio-pci'");
		if (e == EACCES || e == EPERM)
			return sacc_seterr(
			    dev, e,
			    "cannot open /dev/vfio/vfio: %s; run "
			    "as root",
			    strerror(e));
		return sacc_seterr(dev, e, "cannot open /dev/vfio/vfio: %s",
				   strerror(e));
	}
	dev->container_fd = fd;
	v = ioctl(fd, VFIO_GET_API_VERSION);
	if (v != VFIO_API_VERSION)
		return sacc_seterr(dev, EINVAL,
				   "VFIO API version %d, libsacc needs %d", v,
				   VFIO_API_VERSION);
	if (ioctl(fd, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU) <= 0)
		return sacc_seterr(dev, ENOTSUP,
				   "the VFIO container does not support the "
				   "Type1v2 IOMMU (is vfio_iommu_type1 "
				   "loaded and the IOMMU on?)");
	return 0;
}

static int open_group(struct sacc_dev *dev)
{
	struct vfio_group_status st = {.argsz = sizeof(st)};
	char path[64], why[768];
	int fd, e;

	snprintf(path, sizeof(path), "/dev/vfio/%d", dev->group);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		if (e == EBUSY)
			return sacc_seterr(
			    dev, e,
			    "%s (IOMMU group %d of %s) is busy: "
			    "the device is already open (in this or "
			    "another process)",
			    path, dev->group, dev->bdf);
		if (e == ENOENT)
			return sacc_seterr(
			    dev, e,
			    "%s does not exist although %s is in "
			    "IOMMU group %d: is %s bound to "
			    "vfio-pci? run 'saccctl bind %s'",
			    path, dev->bdf, dev->group, dev->bdf, dev->bdf);
		if (e == EACCES || e == EPERM)
			return sacc_seterr(
			    dev, e,
			    "cannot open %s: %s; run as root (or "
			    "give your user that file)",
			    path, strerror(e));
		return sacc_seterr(dev, e, "cannot open %s: %s", path,
				   strerror(e));
	}
	dev->group_fd = fd;
	if (ioctl(fd, VFIO_GROUP_GET_STATUS, &st))
		return sacc_seterr(dev, errno,
				   "VFIO_GROUP_GET_STATUS on %s: %s", path,
				   strerror(errno));
	if (!(st.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		if (sacc_group_viable(dev->group, dev->bdf, why, sizeof(why)) !=
			0 ||
		    !why[0])
			snprintf(
			    why, sizeof(why),
			    "a device in %s/kernel/iommu_groups/%d/devices "
			    "is bound to a non-vfio driver; bind it to "
			    "vfio-pci or unbind it",
			    sacc_sysfs_root(), dev->group);
		return sacc_seterr(dev, EPERM, "group %d is not viable: %s",
				   dev->group, why);
	}
	if (ioctl(fd, VFIO_GROUP_SET_CONTAINER, &dev->container_fd))
		return sacc_seterr(dev, errno,
				   "VFIO_GROUP_SET_CONTAINER for group %d: %s",
				   dev->group, strerror(errno));
	if (ioctl(dev->container_fd, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU))
		return sacc_seterr(dev, errno,
				   "VFIO_SET_IOMMU(Type1v2) for group %d: %s",
				   dev->group, strerror(errno));
	return 0;
}

static int open_device(struct sacc_dev *dev)
{
	struct vfio_device_info info = {.argsz = sizeof(info)};
	int fd, ret;

	fd = ioctl(dev->group_fd, VFIO_GROUP_GET_DEVICE_FD, dev->bdf);
	if (fd < 0)
		return sacc_seterr(dev, errno,
				   "VFIO_GROUP_GET_DEVICE_FD(%s): %s", dev->bdf,
				   strerror(errno));
	dev->device_fd = fd;
	if (ioctl(fd, VFIO_DEVICE_GET_INFO, &info))
		return sacc_seterr(dev, errno, "%s: VFIO_DEVICE_GET_INFO: %s",
				   dev->bdf, strerror(errno));
	if (!(info.flags & VFIO_DEVICE_FLAGS_PCI) ||
	    info.num_regions <= VFIO_PCI_CONFIG_REGION_INDEX)
		return sacc_seterr(dev, ENODEV,
				   "%s is not a vfio-pci device (flags 0x%x, "
				   "%u regions)",
				   dev->bdf, info.flags, info.num_regions);
	dev->has_flr = info.flags & VFIO_DEVICE_FLAGS_RESET;
	ret = region_info(dev, VFIO_PCI_CONFIG_REGION_INDEX, &dev->cfg);
	if (ret)
		return ret;
	ret = region_info(dev, VFIO_PCI_BAR0_REGION_INDEX, &dev->bar0);
	if (ret)
		return ret;
	/* v0.3 channels; a v0.2 device has no BAR2 (size 0). */
	if (region_info(dev, VFIO_PCI_BAR2_REGION_INDEX, &dev->bar2))
		memset(&dev->bar2, 0, sizeof(dev->bar2));
	/* v0.4 device memory; none before v0.4, or with DEVMEM_SIZE 0. */
	if (region_info(dev, VFIO_PCI_BAR4_REGION_INDEX, &dev->bar4))
		memset(&dev->bar4, 0, sizeof(dev->bar4));
	if (dev->bar0.size < SACC_BAR0_SIZE ||
	    !(dev->bar0.flags & VFIO_REGION_INFO_FLAG_READ) ||
	    !(dev->bar0.flags & VFIO_REGION_INFO_FLAG_WRITE))
		return sacc_seterr(dev, ENODEV,
				   "%s: BAR0 is 0x%llx bytes (flags 0x%x); a "
				   "SACC BAR0 is 0x%x bytes, readable and "
				   "writable",
				   dev->bdf, (unsigned long long)dev->bar0.size,
				   dev->bar0.flags, SACC_BAR0_SIZE);
	return 0;
}

int sacc_vfio_open(struct sacc_dev *dev)
{
	struct sacc_pci_dev pd;
	int ret;

	ret = sacc_pci_get(dev->bdf, &pd);
	if (ret)
		return sacc_seterr(dev, ret, "%s", sacc_errmsg(NULL));
	if (!pd.is_sacc)
		return sacc_seterr(
		    dev, ENODEV,
		    "%s is not a SACC device (vendor %04x device "
		    "%04x, want %04x:%04x)",
		    dev->bdf, pd.vendor, pd.device, SACC_PCI_VENDOR_ID,
		    SACC_PCI_DEVICE_ID);
	if (pd.iommu_group < 0)
		return sacc_seterr(
		    dev, ENODEV, "%s has no IOMMU group: %s", dev->bdf,
		    sacc_iommu_enabled() ? "VFIO cannot isolate it"
					 : "the IOMMU is off; boot with "
					   "intel_iommu=on");
	dev->group = pd.iommu_group;
	if (!pd.driver[0])
		return sacc_seterr(
		    dev, ENODEV,
		    "%s is not bound to any driver: run 'saccctl "
		    "bind %s' to give it to vfio-pci",
		    dev->bdf, dev->bdf);
	if (strcmp(pd.driver, "vfio-pci"))
		return sacc_seterr(dev, ENODEV,
				   "%s is bound to %s, not vfio-pci: run "
				   "'saccctl bind %s'",
				   dev->bdf, pd.driver, dev->bdf);
	ret = open_container(dev);
	if (ret)
		return ret;
	ret = open_group(dev);
	if (ret)
		return ret;
	ret = open_device(dev);
	if (ret)
		return ret;
	return sacc_enable_bus_master(dev);
}

void sacc_vfio_close(struct sacc_dev *dev)
{
	if (dev->device_fd >= 0)
		close(dev->device_fd);
	dev->device_fd = -1;
	if (dev->group_fd >= 0) {
		/* Fails harmlessly if the container was never set. */
		ioctl(dev->group_fd, VFIO_GROUP_UNSET_CONTAINER);
		close(dev->group_fd);
	}
	dev->group_fd = -1;
	if (dev->container_fd >= 0)
		close(dev->container_fd);
	dev->container_fd = -1;
}

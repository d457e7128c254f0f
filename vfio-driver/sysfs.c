// SPDX-License-Identifier: MIT
/*
 * sysfs.c - PCI addresses, device discovery and driver binding via sysfs.
 *
 * Everything here reads or writes /sys (or $SACC_SYSFS_ROOT, so the logic
 * can be exercised against a fake tree).  No VFIO ioctls.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sacc_priv.h"

const char *sacc_sysfs_root(void)
{
	const char *root = getenv("SACC_SYSFS_ROOT");

	return root && *root ? root : "/sys";
}

int sacc_bdf_parse(const char *in, char out[SACC_BDF_MAX])
{
	struct sacc_err e;
	uint32_t dom;
	uint16_t sid;

	/* base/'s one rule (sacc_base.h), its message as libsacc's */
	if (sacc_bdf_to_sid(in, &dom, &sid, &e))
		return sacc_seterr(NULL, e.code, "%s", e.msg);
	sacc_bdf_format(dom, sid, out, SACC_BDF_MAX);
	return 0;
}

static int read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return (int)n;
}

static int read_hex(const char *path, unsigned long *val)
{
	char buf[64], *end;
	int ret;

	ret = read_file(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	errno = 0;
	*val = strtoul(buf, &end, 16);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

static int write_file(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	return (size_t)n == len ? 0 : -EIO;
}

static void dev_path(char *buf, size_t len, const char *bdf, const char *attr)
{
	snprintf(buf, len, "%s/bus/pci/devices/%s%s%s", sacc_sysfs_root(), bdf,
		 attr ? "/" : "", attr ? attr : "");
}

/* Basename of the symlink target, or "" when the link does not exist. */
static int link_basename(const char *path, char *out, size_t len)
{
	char target[PATH_MAX];
	const char *base;
	ssize_t n;

	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0) {
		out[0] = '\0';
		return errno == ENOENT ? 0 : -errno;
	}
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	snprintf(out, len, "%s", base);
	return 1;
}

int sacc_pci_driver(const char *bdf, char *out, size_t len)
{
	char path[PATH_MAX];

	dev_path(path, sizeof(path), bdf, "driver");
	return link_basename(path, out, len);
}

static int group_of_path(const char *path)
{
	char name[64], *end;
	long g;
	int ret;

	ret = link_basename(path, name, sizeof(name));
	if (ret <= 0)
		return ret < 0 ? ret : -ENOENT;
	errno = 0;
	g = strtol(name, &end, 10);
	if (errno || *end || g < 0 || g > INT_MAX)
		return -EINVAL;
	return (int)g;
}

int sacc_pci_iommu_group(const char *bdf)
{
	char path[PATH_MAX];

	dev_path(path, sizeof(path), bdf, "iommu_group");
	return group_of_path(path);
}

bool sacc_pci_exists(const char *bdf)
{
	char path[PATH_MAX];
	struct stat st;

	dev_path(path, sizeof(path), bdf, NULL);
	return stat(path, &st) == 0;
}

bool sacc_iommu_enabled(void)
{
	char path[PATH_MAX];
	struct dirent *de;
	bool any = false;
	DIR *d;

	snprintf(path, sizeof(path), "%s/kernel/iommu_groups",
		 sacc_sysfs_root());
	d = opendir(path);
	if (!d)
		return false;
	while ((de = readdir(d))) {
		if (de->d_name[0] != '.') {
			any = true;
			break;
		}
	}
	closedir(d);
	return any;
}

bool sacc_vfio_pci_loaded(void)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/bus/pci/drivers/vfio-pci",
		 sacc_sysfs_root());
	return stat(path, &st) == 0;
}

int sacc_pci_get(const char *bdf_in, struct sacc_pci_dev *out)
{
	char bdf[SACC_BDF_MAX], path[PATH_MAX];
	unsigned long v;
	int ret;

	ret = sacc_bdf_parse(bdf_in, bdf);
	if (ret)
		return ret;
	memset(out, 0, sizeof(*out));
	memcpy(out->bdf, bdf, sizeof(out->bdf));
	if (!sacc_pci_exists(bdf))
		return sacc_seterr(
		    NULL, ENODEV,
		    "no PCI device %s (no %s/bus/pci/devices/%s); "
		    "run 'saccctl list' to see SACC devices",
		    bdf, sacc_sysfs_root(), bdf);
#define RD(attr, field)                                                        \
	do {                                                                   \
		dev_path(path, sizeof(path), bdf, attr);                       \
		if (read_hex(path, &v) == 0)                                   \
			out->field = (__typeof__(out->field))v;                \
	} while (0)
	RD("vendor", vendor);
	RD("device", device);
	RD("subsystem_vendor", subsys_vendor);
	RD("subsystem_device", subsys_device);
	RD("revision", revision);
	RD("class", class_code);
#undef RD
	out->is_sacc = out->vendor == SACC_PCI_VENDOR_ID &&
		       out->device == SACC_PCI_DEVICE_ID;
	ret = sacc_pci_driver(bdf, out->driver, sizeof(out->driver));
	if (ret < 0)
		return sacc_seterr(NULL, ret,
				   "cannot read the driver of %s: %s", bdf,
				   strerror(-ret));
	ret = sacc_pci_iommu_group(bdf);
	out->iommu_group = ret >= 0 ? ret : -1;
	return 0;
}

static int bdf_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sacc_pci_dev *)a)->bdf,
		      ((const struct sacc_pci_dev *)b)->bdf);
}

int sacc_pci_list(struct sacc_pci_dev *out, unsigned int max)
{
	char path[PATH_MAX], bdf[SACC_BDF_MAX];
	struct sacc_pci_dev pd;
	struct dirent *de;
	unsigned int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/bus/pci/devices", sacc_sysfs_root());
	d = opendir(path);
	if (!d) {
		if (errno == ENOENT)
			return 0; /* no PCI bus at all: no SACC device */
		return sacc_seterr(NULL, errno, "cannot list %s: %s", path,
				   strerror(errno));
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (sacc_bdf_parse(de->d_name, bdf))
			continue;
		if (sacc_pci_get(bdf, &pd) || !pd.is_sacc)
			continue;
		if (n < max)
			out[n] = pd;
		n++;
	}
	closedir(d);
	if (out && n)
		qsort(out, n < max ? n : max, sizeof(*out), bdf_cmp);
	return (int)n;
}

int sacc_pci_bars(const char *bdf_in, struct sacc_pci_bar bars[6])
{
	char bdf[SACC_BDF_MAX], path[PATH_MAX], line[256];
	unsigned long long s, e, f;
	FILE *fp;
	int i, ret;

	ret = sacc_bdf_parse(bdf_in, bdf);
	if (ret)
		return ret;
	memset(bars, 0, 6 * sizeof(*bars));
	dev_path(path, sizeof(path), bdf, "resource");
	fp = fopen(path, "re");
	if (!fp)
		return sacc_seterr(NULL, errno, "cannot read %s: %s", path,
				   strerror(errno));
	for (i = 0; i < 6 && fgets(line, sizeof(line), fp); i++) {
		if (sscanf(line, "%llx %llx %llx", &s, &e, &f) != 3)
			break;
		bars[i].start = s;
		bars[i].size = (e > s || (s && e == s)) ? e - s + 1 : 0;
		bars[i].flags = f;
	}
	fclose(fp);
	return 0;
}

static bool driver_ok_for_vfio(const char *drv)
{
	/*
	 * What the kernel's group viability check accepts: no driver, or a
	 * driver that does not use the DMA API on the device
	 * (driver_managed_dma: vfio-pci and its variants, pci-stub, and
	 * pcieport, so an endpoint sharing a group with its bridge is fine).
	 */
	return !*drv || !strncmp(drv, "vfio", 4) || !strcmp(drv, "pci-stub") ||
	       !strcmp(drv, "pcieport");
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int sacc_group_viable(int group, const char *self, char *why, size_t len)
{
	char path[PATH_MAX], drv[64], dpath[PATH_MAX + 300];
	char *names[256];
	struct dirent *de;
	size_t off = 0;
	int bad = 0, n = 0;
	DIR *d;

	if (why && len)
		why[0] = '\0';
	snprintf(path, sizeof(path), "%s/kernel/iommu_groups/%d/devices",
		 sacc_sysfs_root(), group);
	d = opendir(path);
	if (!d)
		return sacc_seterr(NULL, errno, "cannot list %s: %s", path,
				   strerror(errno));
	while ((de = readdir(d)) && n < 256) {
		if (de->d_name[0] == '.')
			continue;
		if (self && !strcmp(de->d_name, self))
			continue;
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	/* Sorted, so the message is the same on every run. */
	qsort(names, n, sizeof(names[0]), cmp_names);
	for (int i = 0; i < n; i++) {
		snprintf(dpath, sizeof(dpath), "%s/%s/driver", path, names[i]);
		if (link_basename(dpath, drv, sizeof(drv)) >= 0 &&
		    !driver_ok_for_vfio(drv)) {
			if (why && off < len)
				off += (size_t)snprintf(
				    why + off, len - off, "%s%s is bound to %s",
				    bad ? ", " : "", names[i], drv);
			bad++;
		}
		free(names[i]);
	}
	if (bad && why && off < len)
		snprintf(why + off, len - off,
			 "; bind %s to vfio-pci or unbind %s",
			 bad > 1 ? "them" : "it", bad > 1 ? "them" : "it");
	return bad ? 0 : 1;
}

/* The error for a failed sysfs write of @path (@ret is -errno). */
static int sysfs_write_error(const char *path, int ret)
{
	if (ret == -EACCES || ret == -EPERM)
		return sacc_seterr(NULL, -ret,
				   "permission denied writing %s: run saccctl "
				   "as root",
				   path);
	return sacc_seterr(NULL, -ret, "writing %s failed: %s", path,
			   strerror(-ret));
}

int sacc_pci_bind_vfio(const char *bdf_in)
{
	char bdf[SACC_BDF_MAX], path[PATH_MAX], drv[64];
	struct sacc_pci_dev pd;
	int ret;

	ret = sacc_pci_get(bdf_in, &pd);
	if (ret)
		return ret;
	memcpy(bdf, pd.bdf, sizeof(bdf));
	if (!pd.is_sacc)
		return sacc_seterr(
		    NULL, EINVAL,
		    "%s is not a SACC device (vendor %04x device "
		    "%04x, want %04x:%04x); refusing to bind it",
		    bdf, pd.vendor, pd.device, SACC_PCI_VENDOR_ID,
		    SACC_PCI_DEVICE_ID);
	if (pd.iommu_group < 0) {
		if (!sacc_iommu_enabled())
			return sacc_seterr(
			    NULL, ENODEV,
			    "the IOMMU is off (%s/kernel/iommu_groups is "
			    "empty): boot the kernel with intel_iommu=on "
			    "(and give QEMU -device intel-iommu)",
			    sacc_sysfs_root());
		return sacc_seterr(NULL, ENODEV,
				   "%s has no IOMMU group although the IOMMU "
				   "is on; VFIO cannot isolate it",
				   bdf);
	}
	if (!sacc_vfio_pci_loaded())
		return sacc_seterr(NULL, ENOENT,
				   "the vfio-pci driver is not loaded: run "
				   "'modprobe vfio-pci' and try again");
	if (!strcmp(pd.driver, "vfio-pci"))
		return 0;

	dev_path(path, sizeof(path), bdf, "driver_override");
	ret = write_file(path, "vfio-pci");
	if (ret)
		goto werr;
	if (pd.driver[0]) {
		dev_path(path, sizeof(path), bdf, "driver/unbind");
		ret = write_file(path, bdf);
		if (ret)
			goto werr;
	}
	snprintf(path, sizeof(path), "%s/bus/pci/drivers_probe",
		 sacc_sysfs_root());
	ret = write_file(path, bdf);
	if (ret && ret != -EINVAL && ret != -ENODEV)
		goto werr;
	ret = sacc_pci_driver(bdf, drv, sizeof(drv));
	if (ret < 0 || strcmp(drv, "vfio-pci"))
		return sacc_seterr(NULL, EIO,
				   "%s did not bind to vfio-pci (driver now: "
				   "%s); see dmesg for why",
				   bdf, drv[0] ? drv : "none");
	return 0;
werr:
	return sysfs_write_error(path, ret);
}

int sacc_pci_unbind(const char *bdf_in)
{
	char bdf[SACC_BDF_MAX], path[PATH_MAX];
	struct sacc_pci_dev pd;
	int ret;

	ret = sacc_pci_get(bdf_in, &pd);
	if (ret)
		return ret;
	memcpy(bdf, pd.bdf, sizeof(bdf));
	/* An empty line clears driver_override. */
	dev_path(path, sizeof(path), bdf, "driver_override");
	ret = write_file(path, "\n");
	if (ret && ret != -ENOENT)
		goto werr;
	if (pd.driver[0]) {
		dev_path(path, sizeof(path), bdf, "driver/unbind");
		ret = write_file(path, bdf);
		if (ret)
			goto werr;
	}
	return 0;
werr:
	return sysfs_write_error(path, ret);
}

// SPDX-License-Identifier: MIT
/*
 * sysfs.c - sysfs against a fake tree: drivers, IOMMU groups, binding,
 * and the messages
 */
#include <ftw.h>
#include <sys/stat.h>

#include "fake_dev.h"

static char root[64];

static void wr(const char *rel, const char *s)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(s, f);
	fclose(f);
}

static void md(const char *rel)
{
	char p[256], *q;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (q = p + strlen(root) + 1; (q = strchr(q, '/')); q++) {
		*q = '\0';
		mkdir(p, 0755);
		*q = '/';
	}
	mkdir(p, 0755);
}

static void ln(const char *target, const char *rel)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	ck_assert_int_eq(symlink(target, p), 0);
}

static void add_dev(const char *bdf, const char *ven, const char *devid,
		    int group, const char *drv)
{
	char d[128], x[256], t[256];

	snprintf(d, sizeof(d), "devices/pci0000:00/%s", bdf);
	md(d);
	snprintf(x, sizeof(x), "%s/vendor", d);
	wr(x, ven);
	snprintf(x, sizeof(x), "%s/device", d);
	wr(x, devid);
	snprintf(x, sizeof(x), "%s/driver_override", d);
	wr(x, "(null)\n");
	snprintf(t, sizeof(t), "../../../devices/pci0000:00/%s", bdf);
	snprintf(x, sizeof(x), "bus/pci/devices/%s", bdf);
	ln(t, x);
	snprintf(x, sizeof(x), "kernel/iommu_groups/%d/devices", group);
	md(x);
	snprintf(t, sizeof(t), "../../../../devices/pci0000:00/%s", bdf);
	snprintf(x, sizeof(x), "kernel/iommu_groups/%d/devices/%s", group, bdf);
	ln(t, x);
	snprintf(t, sizeof(t), "../../../kernel/iommu_groups/%d", group);
	snprintf(x, sizeof(x), "%s/iommu_group", d);
	ln(t, x);
	if (drv) {
		snprintf(x, sizeof(x), "bus/pci/drivers/%s", drv);
		md(x);
		snprintf(t, sizeof(t), "../../../bus/pci/drivers/%s", drv);
		snprintf(x, sizeof(x), "%s/driver", d);
		ln(t, x);
	}
}

static int rm_one(const char *p, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(p);
}

START_TEST(test_sysfs)
{
	struct sacc_pci_dev devs[4];
	char why[256];

	snprintf(root, sizeof(root), "/tmp/sacc-sysfs.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	setenv("SACC_SYSFS_ROOT", root, 1);
	md("bus/pci/devices");
	add_dev("0000:00:03.0", "0x1b36", "0x1092", 7, "vfio-pci");
	add_dev("0000:00:03.1", "0x8086", "0x2922", 7, "ahci");
	add_dev("0000:00:04.0", "0x1b36", "0x1092", 8, NULL);

	ck_assert_int_eq(sacc_pci_list(devs, 4), 2);
	ck_assert_str_eq(devs[0].bdf, "0000:00:03.0");
	ck_assert_str_eq(devs[0].driver, "vfio-pci");
	ck_assert_int_eq(devs[0].iommu_group, 7);
	ck_assert_str_eq(devs[1].driver, "");
	ck_assert_int_eq(devs[1].iommu_group, 8);

	ck_assert_int_eq(sacc_group_viable(7, "0000:00:03.0", why, sizeof(why)),
			 0);
	ck_assert_str_eq(why, "0000:00:03.1 is bound to ahci; bind it to "
			      "vfio-pci or unbind it");
	ck_assert_int_eq(sacc_group_viable(8, "0000:00:04.0", why, sizeof(why)),
			 1);

	/* bind: refuses non-SACC devices, wants vfio-pci loaded */
	ck_assert_int_eq(sacc_pci_bind_vfio("0000:00:03.1"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(NULL), "not a SACC device"));
	ck_assert_int_eq(sacc_pci_bind_vfio("0000:00:03.0"), 0); /* already */
	ck_assert_int_eq(sacc_pci_bind_vfio("0000:00:09.0"), -ENODEV);
	/* no vfio-pci driver directory: says what to do */
	{
		char p[256];

		snprintf(p, sizeof(p), "%s/bus/pci/drivers/vfio-pci", root);
		ck_assert_int_eq(rmdir(p), 0);
		ck_assert_int_eq(sacc_pci_bind_vfio("0000:00:04.0"), -ENOENT);
		ck_assert_ptr_nonnull(
		    strstr(sacc_errmsg(NULL), "modprobe vfio-pci"));
		ck_assert_int_eq(mkdir(p, 0755), 0);
	}
	/* unbind clears driver_override */
	ck_assert_int_eq(sacc_pci_unbind("0000:00:04.0"), 0);
	ck_assert_int_eq(sacc_pci_iommu_group("0000:00:04.0"), 8);
	ck_assert_int_eq(sacc_pci_iommu_group("0000:00:09.0"), -ENOENT);
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
END_TEST

void sysfs_tests(Suite *s)
{
	TCase *tc = tcase_create("sysfs");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_sysfs);
	suite_add_tcase(s, tc);
}

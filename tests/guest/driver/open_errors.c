// SPDX-License-Identifier: MIT
/*
 * open_errors.c - what sacc_open() refuses, and says why: malformed, absent and
 * non-SACC PCI addresses, a device open twice, bad options,
 * SACC_OPEN_NO_INIT; an IOMMU group that is not viable (a fake sysfs)
 */
#include <sys/stat.h>

#include "driver.h"

START_TEST(bad_bdf)
{
	static const char *const bad[] = {
	    "",		     "0000:00:03",	 "00:03",
	    "0000:00:03.8",  "0000:00:20.0",	 "g000:00:03.0",
	    "0000:00:03.0 ", "0000:00:03.00",	 "00000:01:00.0",
	    "0000:001:00.0", "0000::00.0",	 "../../../etc",
	    "0000:01:00.0/", "1:2:3:4.5",	 "0x00:03.0",
	    "0000:01:00.0aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
	char shortform[SACC_BDF_MAX];
	struct sacc_open_opts o = {0};
	struct sacc_dev *dev = (struct sacc_dev *)1;
	int fds0 = guest_count_fds();
	int ret;

	BEGIN();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		dev = (struct sacc_dev *)1;
		ret = sacc_open(bad[i], NULL, &dev);
		ck_assert_msg(ret == -EINVAL, "sacc_open(\"%s\"): %d", bad[i],
			      ret);
		ck_assert_ptr_null(dev);
		if (*bad[i]) {
			char head[24];

			snprintf(head, sizeof(head), "'%.20s", bad[i]);
			assert_msg_has(sacc_errmsg(NULL), head);
			assert_msg_has(sacc_errmsg(NULL), "is not a PCI address");
		}
		assert_msg_has(sacc_errmsg(NULL), "DDDD:BB:DD.F");
	}
	ck_assert_int_eq(sacc_open(NULL, NULL, &dev), -EINVAL);
	ck_assert_int_eq(sacc_open(guest_bdf_at(0), NULL, NULL), -EINVAL);

	/* Well formed, but absent: normalised in the message. */
	ck_assert_int_eq(sacc_open("7f:00.0", NULL, &dev), -ENODEV);
	ck_assert_ptr_null(dev);
	assert_msg_has(sacc_errmsg(NULL), "no PCI device 0000:7f:00.0");
	ck_assert_int_eq(sacc_open("0000:00:1e.7", NULL, &dev), -ENODEV);
	assert_msg_has(sacc_errmsg(NULL), "0000:00:1e.7");
	/* Present, but not a SACC device (the q35 host bridge). */
	ck_assert_int_eq(sacc_open("0000:00:00.0", NULL, &dev), -ENODEV);
	assert_msg_has(sacc_errmsg(NULL), "0000:00:00.0 is not a SACC device");

	/* Short form and upper case of a real device work. */
	snprintf(shortform, sizeof(shortform), "%s", guest_bdf_at(0) + 5);
	for (char *p = shortform; *p; p++)
		if (*p >= 'a' && *p <= 'f')
			*p = (char)(*p - 'a' + 'A');
	dev = guest_open(0, NULL);
	sacc_close(dev);
	ck_assert_int_eq(sacc_open(shortform, NULL, &dev), 0);
	ck_assert_str_eq(sacc_dev_bdf(dev), guest_bdf_at(0));

	/* The same device twice: busy, with a message saying so. */
	{
		struct sacc_dev *again = (struct sacc_dev *)1;

		ret = sacc_open(guest_bdf_at(0), NULL, &again);
		ck_assert_int_eq(ret, -EBUSY);
		ck_assert_ptr_null(again);
		assert_msg_has(sacc_errmsg(NULL), "busy");
		assert_msg_has(sacc_errmsg(NULL), guest_bdf_at(0));
	}
	sacc_close(dev);

	/* Bad options. */
	o.sq_entries = 3;
	ck_assert_int_eq(sacc_open(guest_bdf_at(0), &o, &dev), -EINVAL);
	assert_msg_has(sacc_errmsg(NULL), "powers of two");
	o.sq_entries = 131072;
	ck_assert_int_eq(sacc_open(guest_bdf_at(0), &o, &dev), -EINVAL);
	o = (struct sacc_open_opts){.doorbell = (enum sacc_doorbell)7};
	ck_assert_int_eq(sacc_open(guest_bdf_at(0), &o, &dev), -EINVAL);
	assert_msg_has(sacc_errmsg(NULL), "doorbell");
	o = (struct sacc_open_opts){.flags = 0x80};
	ck_assert_int_eq(sacc_open(guest_bdf_at(0), &o, &dev), -EINVAL);
	assert_msg_has(sacc_errmsg(NULL), "flags");

	/* SACC_OPEN_NO_INIT: registers only, the data path says so. */
	o = (struct sacc_open_opts){.flags = SACC_OPEN_NO_INIT};
	dev = guest_open(0, &o);
	ck_assert_uint_eq(reg(dev, SACC_REG_MAGIC), SACC_MAGIC);
	{
		struct sacc_op nop = {.opcode = SACC_OP_NOP};
		struct sacc_result r;

		ck_assert_int_eq(sacc_submit(dev, &nop, 1), -ENOTCONN);
		assert_msg_has(sacc_errmsg(dev), "SACC_OPEN_NO_INIT");
		ck_assert_int_eq(sacc_poll(dev, &r, 1), -ENOTCONN);
	}
	ck_assert_int_eq(sacc_reg_read(dev, 0x2000, &(uint32_t){0}), -EINVAL);
	ck_assert_int_eq(sacc_reg_read(dev, 0x3, &(uint32_t){0}), -EINVAL);
	sacc_close(dev);

	/* Failures leave nothing behind. */
	ck_assert_int_eq(guest_count_fds(), fds0);
	ck_assert_int_eq(vmlck_kb(), 0);
}
END_TEST

/* ---- non-viable group: a fake sysfs tree ---- */

static char fake_root[64];

static void fake_dev(int group, const char *bdf, const char *driver)
{
	char path[512], target[256];

	snprintf(path, sizeof(path), "%s/kernel/iommu_groups/%d/devices/%s",
		 fake_root, group, bdf);
	for (char *p = path + strlen(fake_root) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	ck_assert_int_eq(mkdir(path, 0755), 0);
	if (!driver)
		return;
	snprintf(target, sizeof(target),
		 "../../../../../../bus/pci/drivers/%s", driver);
	strncat(path, "/driver", sizeof(path) - strlen(path) - 1);
	ck_assert_int_eq(symlink(target, path), 0);
}

START_TEST(non_viable_group)
{
	char why[512];
	int g, ret;

	BEGIN();
	snprintf(fake_root, sizeof(fake_root), "/tmp/sacc-fake-sysfs.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fake_root));
	fake_dev(7, "0000:00:03.0", "vfio-pci");
	fake_dev(7, "0000:00:03.1", "ahci");
	fake_dev(8, "0000:00:04.0", "vfio-pci");
	fake_dev(8, "0000:00:04.1", NULL);
	fake_dev(8, "0000:00:04.2", "pci-stub");
	fake_dev(8, "0000:00:04.3", "vfio-pci");
	fake_dev(9, "0000:00:05.0", "vfio-pci");
	fake_dev(9, "0000:00:05.1", "ahci");
	fake_dev(9, "0000:00:05.2", "e1000e");
	ck_assert_int_eq(setenv("SACC_SYSFS_ROOT", fake_root, 1), 0);

	ret = sacc_group_viable(7, "0000:00:03.0", why, sizeof(why));
	ck_assert_int_eq(ret, 0);
	ck_assert_str_eq(why, "0000:00:03.1 is bound to ahci; bind it to "
			      "vfio-pci or unbind it");
	/* sacc_open() prefixes this with "group 7 is not viable: " when
	 * VFIO_GROUP_GET_STATUS lacks VIABLE; every IOMMU group in the
	 * guest is viable to the kernel, so that path cannot run here. */
	ck_assert_int_eq(sacc_group_viable(7, NULL, why, sizeof(why)), 0);
	/* The offender itself is ignored when it is @self. */
	ck_assert_int_eq(sacc_group_viable(7, "0000:00:03.1", why, sizeof(why)),
			 1);
	/* vfio-pci, pci-stub and no driver are all fine. */
	ck_assert_int_eq(sacc_group_viable(8, "0000:00:04.0", why, sizeof(why)),
			 1);
	ck_assert_str_eq(why, "");
	/* Two offenders: both named, plural advice. */
	ck_assert_int_eq(sacc_group_viable(9, "0000:00:05.0", why, sizeof(why)),
			 0);
	ck_assert_msg(
	    !strcmp(why, "0000:00:05.1 is bound to ahci, 0000:00:05.2 is "
			 "bound to e1000e; bind them to vfio-pci or unbind "
			 "them") ||
		!strcmp(why, "0000:00:05.2 is bound to e1000e, 0000:00:05.1 "
			     "is bound to ahci; bind them to vfio-pci or "
			     "unbind them"),
	    "why: \"%s\"", why);
	/* A short buffer is never overrun. */
	memset(why, 'x', sizeof(why));
	ck_assert_int_eq(sacc_group_viable(9, NULL, why, 16), 0);
	ck_assert_uint_lt(strlen(why), 16);
	/* A group that does not exist: an error, not "viable". */
	ret = sacc_group_viable(42, NULL, why, sizeof(why));
	ck_assert_int_eq(ret, -ENOENT);
	assert_msg_has(sacc_errmsg(NULL), "iommu_groups/42");

	/* The real guest: every SACC group is viable. */
	ck_assert_int_eq(unsetenv("SACC_SYSFS_ROOT"), 0);
	for (unsigned int i = 0; i < guest_nr_devices(); i++) {
		g = sacc_pci_iommu_group(guest_bdf_at(i));
		ck_assert_int_ge(g, 0);
		ck_assert_int_eq(sacc_group_viable(g, guest_bdf_at(i), why,
						   sizeof(why)),
				 1);
	}
}
END_TEST

void open_error_tests(Suite *s)
{
	TCase *tc = driver_tcase(s, "open errors");

	tcase_add_test(tc, bad_bdf);
	tcase_add_test(tc, non_viable_group);
}

// SPDX-License-Identifier: MIT
/*
 * pci.c - saccctl list, bind, unbind.
 */
#include <string.h>

#include "saccctl.h"

#define MAX_DEVS 256

void usage_list(FILE *f)
{
	fputs(
	    "usage: saccctl list [--json]\n\n"
	    "List every SACC device (PCI 1b36:1092) with its address, bound\n"
	    "driver, IOMMU group and whether VFIO can use that group (every\n"
	    "other member bound to vfio-pci or to no driver).\n\n"
	    "  --json   one JSON object: {\"devices\": [{\"bdf\", \"driver\",\n"
	    "           \"iommu_group\", \"viable\", \"reason\"}]}\n"
	    "  -h, --help\n",
	    f);
}

void usage_bind(FILE *f)
{
	fputs(
	    "usage: saccctl bind BDF...\n"
	    "       saccctl bind --all\n\n"
	    "Give SACC devices to vfio-pci (driver_override + drivers_probe).\n"
	    "Checks first that the IOMMU is on, that vfio-pci is loaded and\n"
	    "that the device is a SACC device; warns if another member of its\n"
	    "IOMMU group keeps the group from being viable.\n\n"
	    "  --all    every SACC device present\n"
	    "  -h, --help\n",
	    f);
}

void usage_unbind(FILE *f)
{
	fputs("usage: saccctl unbind BDF...\n\n"
	      "Clear the driver_override of SACC devices and unbind them from\n"
	      "their driver (vfio-pci), leaving them unbound.\n\n"
	      "  -h, --help\n",
	      f);
}

/* "yes", or "no: <why>" into @why.  Returns 1 viable, 0 not, -1 unknown. */
static int viability(const struct sacc_pci_dev *d, char *why, size_t len)
{
	int v;

	if (d->iommu_group < 0) {
		snprintf(why, len, "no IOMMU group (IOMMU off?)");
		return 0;
	}
	v = sacc_group_viable(d->iommu_group, d->bdf, why, len);
	if (v < 0) {
		snprintf(why, len, "%s", sacc_errmsg(NULL));
		return -1;
	}
	if (v == 1)
		snprintf(why, len, "%s",
			 strcmp(d->driver, "vfio-pci")
			     ? "group ok; device not bound to vfio-pci"
			     : "ok");
	return v;
}

int cmd_list(int argc, char **argv)
{
	static const struct option lo[] = {{"json", no_argument, NULL, 'j'},
					   {"help", no_argument, NULL, 'h'},
					   {NULL, 0, NULL, 0}};
	static struct sacc_pci_dev devs[MAX_DEVS];
	bool json = false;
	char why[512];
	int c, n, i, v;

	while ((c = cmd_getopt(argc, argv, "jh", lo, usage_list)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			usage_list(stdout);
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return usage_error(usage_list, "list",
				   "unexpected argument '%s'", argv[optind]);
	n = sacc_pci_list(devs, MAX_DEVS);
	if (n < 0)
		return fail("%s", sacc_errmsg(NULL));
	if (n > MAX_DEVS)
		n = MAX_DEVS;
	if (json) {
		struct json_object *o = jobj(), *a = jarr();

		jset(o, "devices", a);
		for (i = 0; i < n; i++) {
			struct json_object *d = jobj();

			v = viability(&devs[i], why, sizeof(why));
			jset_str(d, "bdf", devs[i].bdf);
			jset_str(d, "driver",
				 devs[i].driver[0] ? devs[i].driver : NULL);
			if (devs[i].iommu_group >= 0)
				jset_int(d, "iommu_group", devs[i].iommu_group);
			else
				jset_null(d, "iommu_group");
			jset_bool(d, "viable", v == 1);
			jset_str(d, "reason", why);
			jpush(a, d);
		}
		/* one member per line: a line-oriented reader (ci/demo-guest's
		 * sed) finds each device's "bdf" */
		return jprint(o, JSON_PRETTY);
	}
	if (n == 0) {
		printf("No SACC device (PCI %04x:%04x) is present on this "
		       "machine.\n",
		       SACC_PCI_VENDOR_ID, SACC_PCI_DEVICE_ID);
		printf("SACC devices exist in the test guest: try "
		       "'ci/vm -- saccctl list'.\n");
		return EXIT_OK;
	}
	printf("%-13s %-10s %-6s %s\n", "BDF", "DRIVER", "GROUP", "VIABLE");
	for (i = 0; i < n; i++) {
		char grp[16];

		v = viability(&devs[i], why, sizeof(why));
		if (devs[i].iommu_group >= 0)
			snprintf(grp, sizeof(grp), "%d", devs[i].iommu_group);
		else
			snprintf(grp, sizeof(grp), "-");
		printf("%-13s %-10s %-6s %s%s%s\n", devs[i].bdf,
		       devs[i].driver[0] ? devs[i].driver : "(none)", grp,
		       v == 1 ? "yes" : "no",
		       v == 1 && !strcmp(why, "ok") ? "" : ": ",
		       v == 1 && !strcmp(why, "ok") ? "" : why);
	}
	return EXIT_OK;
}

static int bind_one(const char *bdf)
{
	struct sacc_pci_dev d;
	char why[512];
	bool was;

	if (sacc_pci_get(bdf, &d))
		return fail("%s", sacc_errmsg(NULL));
	was = !strcmp(d.driver, "vfio-pci");
	if (sacc_pci_bind_vfio(d.bdf))
		return fail("%s", sacc_errmsg(NULL));
	if (sacc_pci_get(d.bdf, &d))
		return fail("%s", sacc_errmsg(NULL));
	if (was)
		printf("%s: already bound to vfio-pci (IOMMU group %d)\n",
		       d.bdf, d.iommu_group);
	else
		printf("%s: bound to vfio-pci (IOMMU group %d, /dev/vfio/%d)\n",
		       d.bdf, d.iommu_group, d.iommu_group);
	if (sacc_group_viable(d.iommu_group, d.bdf, why, sizeof(why)) == 0)
		fprintf(stderr,
			"saccctl: warning: group %d is not viable: %s\n",
			d.iommu_group, why);
	return EXIT_OK;
}

int cmd_bind(int argc, char **argv)
{
	static const struct option lo[] = {{"all", no_argument, NULL, 'a'},
					   {"help", no_argument, NULL, 'h'},
					   {NULL, 0, NULL, 0}};
	static struct sacc_pci_dev devs[MAX_DEVS];
	char bdf[SACC_BDF_MAX];
	bool all = false;
	int c, n, i, rc = EXIT_OK;

	while ((c = cmd_getopt(argc, argv, "ah", lo, usage_bind)) != -1) {
		switch (c) {
		case 'a':
			all = true;
			break;
		case 'h':
			usage_bind(stdout);
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (all && optind < argc)
		return usage_error(usage_bind, "bind",
				   "give either --all or addresses, not both");
	if (!all && optind >= argc)
		return usage_error(usage_bind, "bind",
				   "which device? give a PCI address "
				   "(saccctl list shows them) or --all");
	for (i = optind; i < argc; i++)
		if (sacc_bdf_parse(argv[i], bdf))
			return usage_error(usage_bind, "bind", "%s",
					   sacc_errmsg(NULL));
	/* Machine-wide preconditions once, not once per device. */
	if (!sacc_iommu_enabled())
		return fail("the IOMMU is off (/sys/kernel/iommu_groups is "
			    "empty): boot the kernel with intel_iommu=on (and "
			    "give QEMU -device intel-iommu)");
	if (!sacc_vfio_pci_loaded())
		return fail("the vfio-pci driver is not loaded: run 'modprobe "
			    "vfio-pci' and try again");
	if (!all) {
		for (i = optind; i < argc; i++)
			if (bind_one(argv[i]))
				rc = EXIT_FAIL;
		return rc;
	}
	n = sacc_pci_list(devs, MAX_DEVS);
	if (n < 0)
		return fail("%s", sacc_errmsg(NULL));
	if (n == 0)
		return fail("no SACC device (PCI %04x:%04x) is present; "
			    "nothing to bind",
			    SACC_PCI_VENDOR_ID, SACC_PCI_DEVICE_ID);
	for (i = 0; i < n && i < MAX_DEVS; i++)
		if (bind_one(devs[i].bdf))
			rc = EXIT_FAIL;
	return rc;
}

int cmd_unbind(int argc, char **argv)
{
	static const struct option lo[] = {{"help", no_argument, NULL, 'h'},
					   {NULL, 0, NULL, 0}};
	char bdf[SACC_BDF_MAX];
	struct sacc_pci_dev d;
	int c, i, rc = EXIT_OK;

	while ((c = cmd_getopt(argc, argv, "h", lo, usage_unbind)) != -1) {
		switch (c) {
		case 'h':
			usage_unbind(stdout);
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return usage_error(usage_unbind, "unbind",
				   "which device? give a PCI address "
				   "(saccctl list shows them)");
	for (i = optind; i < argc; i++)
		if (sacc_bdf_parse(argv[i], bdf))
			return usage_error(usage_unbind, "unbind", "%s",
					   sacc_errmsg(NULL));
	for (i = optind; i < argc; i++) {
		if (sacc_pci_get(argv[i], &d)) {
			rc = fail("%s", sacc_errmsg(NULL));
			continue;
		}
		if (!d.is_sacc) {
			rc = fail("%s is not a SACC device (vendor %04x device "
				  "%04x); saccctl only unbinds SACC devices",
				  d.bdf, d.vendor, d.device);
			continue;
		}
		if (sacc_pci_unbind(d.bdf)) {
			rc = fail("%s", sacc_errmsg(NULL));
			continue;
		}
		if (d.driver[0])
			printf("%s: unbound from %s, driver_override cleared\n",
			       d.bdf, d.driver);
		else
			printf("%s: was not bound to a driver; "
			       "driver_override cleared\n",
			       d.bdf);
	}
	return rc;
}

// SPDX-License-Identifier: MIT
/*
 * info.c - saccctl info: identity (config space via sysfs), BARs,
 * IOMMU group, usable IOVA ranges (from the VFIO container) and a
 * register dump.
 */
#include <string.h>

#include "saccctl.h"

void usage_info(FILE *f)
{
	fputs(
	    "usage: saccctl info BDF [--json]\n\n"
	    "Show a SACC device: PCI identity, BARs, driver, IOMMU group and\n"
	    "its viability, and, when it is bound to vfio-pci, the usable\n"
	    "IOVA ranges of its VFIO container and a dump of its registers.\n"
	    "Opening the device through VFIO resets it (vfio-pci does an FLR\n"
	    "on open), so registers show the state after that reset. Also\n"
	    "says where libsacc journals the device's faults (saccctl\n"
	    "faults), or why it cannot, and the device memory (v0.4, BAR4):\n"
	    "its size and what this process has allocated of it (none:\n"
	    "allocations are per process, and the FLR at open zeroes it).\n\n"
	    "  --json   one JSON object\n"
	    "  -h, --help\n",
	    f);
}

struct reg {
	const char *name;
	uint32_t off;
	bool wide;
};

static const struct reg regs[] = {
    {"MAGIC", SACC_REG_MAGIC, false},
    {"VERSION", SACC_REG_VERSION, false},
    {"CTRL", SACC_REG_CTRL, false},
    {"STATUS", SACC_REG_STATUS, false},
    {"SQ_BASE", SACC_REG_SQ_BASE, true},
    {"SQ_SIZE", SACC_REG_SQ_SIZE, false},
    {"CQ_BASE", SACC_REG_CQ_BASE, true},
    {"CQ_SIZE", SACC_REG_CQ_SIZE, false},
    {"IRQ_STATUS", SACC_REG_IRQ_STATUS, false},
    {"ERR_CODE", SACC_REG_ERR_CODE, false},
    {"SCRATCH", SACC_REG_SCRATCH, false},
    {"FAULT_ADDR", SACC_REG_FAULT_ADDR, true},
    {"FAULT_INFO", SACC_REG_FAULT_INFO, false},
    {"FAULT_REQ_ID", SACC_REG_FAULT_REQ_ID, false},
    {"FAULT_COUNT", SACC_REG_FAULT_COUNT, false},
};

#define NREGS (sizeof(regs) / sizeof(regs[0]))

static void decode(const struct reg *r, uint64_t v, char *buf, size_t len)
{
	buf[0] = '\0';
	if (r->off == SACC_REG_MAGIC)
		snprintf(buf, len, "%s", v == SACC_MAGIC ? "ok" : "WRONG");
	else if (r->off == SACC_REG_CTRL)
		snprintf(buf, len, "%s", v & SACC_CTRL_ENABLE ? "ENABLE" : "");
	else if (r->off == SACC_REG_STATUS)
		snprintf(
		    buf, len, "%s%s%s", v & SACC_STATUS_READY ? "READY" : "",
		    (v & SACC_STATUS_READY) && (v & SACC_STATUS_ERROR) ? " "
								       : "",
		    v & SACC_STATUS_ERROR ? "ERROR" : "");
	else if (r->off == SACC_REG_IRQ_STATUS)
		snprintf(buf, len, "%s%s%s",
			 v & SACC_IRQ_COMPLETION ? "COMPLETION" : "",
			 (v & SACC_IRQ_COMPLETION) && (v & SACC_IRQ_FATAL) ? " "
									   : "",
			 v & SACC_IRQ_FATAL ? "FATAL" : "");
	else if (r->off == SACC_REG_ERR_CODE)
		snprintf(buf, len, "%s", sacc_err_code_str((uint32_t)v));
	else if (r->off == SACC_REG_FAULT_INFO && v)
		snprintf(buf, len, "%s, %s", sacc_fault_access_str((uint32_t)v),
			 v & SACC_FAULT_IS_WRITE ? "write" : "read");
}

static const char *class_name(uint32_t cls)
{
	if (cls >> 8 == 0x1200)
		return "processing accelerator";
	return "";
}

/* What saccctl info found out about one device. */
struct info {
	struct sacc_pci_dev d;
	struct sacc_pci_bar bars[6];
	int viable; /* sacc_group_viable(): 1 viable, else why says */
	char why[512];
	const char *open_err; /* NULL: opened through VFIO, the rest read */
	struct sacc_iova_range ranges[SACC_IOMMU_MAX_RANGES];
	int nr;
	uint64_t pgsizes;
	uint64_t vals[NREGS];
	char journal[PATH_MAX], journal_why[512];
	struct sacc_devmem_info dm; /* v0.4 device memory */
	char dm_why[512];
};

/* 0 with the device in @bdf, -1 after --help, else the exit status. */
static int parse_info_args(int argc, char **argv, char *bdf, bool *json)
{
	static const struct option lo[] = {{"json", no_argument, NULL, 'j'},
					   {"help", no_argument, NULL, 'h'},
					   {NULL, 0, NULL, 0}};
	int c;

	while ((c = cmd_getopt(argc, argv, "jh", lo, usage_info)) != -1) {
		switch (c) {
		case 'j':
			*json = true;
			break;
		case 'h':
			usage_info(stdout);
			return -1;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return usage_error(usage_info, "info",
				   "which device? give a PCI address "
				   "(saccctl list shows them)");
	if (optind + 1 < argc)
		return usage_error(usage_info, "info",
				   "unexpected argument '%s'",
				   argv[optind + 1]);
	if (sacc_bdf_parse(argv[optind], bdf))
		return usage_error(usage_info, "info", "%s", sacc_errmsg(NULL));
	return 0;
}

/* What sysfs says without opening the device: BARs, group viability. */
static void read_platform(const char *bdf, struct info *in)
{
	if (sacc_pci_bars(bdf, in->bars))
		memset(in->bars, 0, sizeof(in->bars));
	in->viable = in->d.iommu_group >= 0
			 ? sacc_group_viable(in->d.iommu_group, bdf, in->why,
					     sizeof(in->why))
			 : 0;
	if (in->d.iommu_group < 0)
		snprintf(in->why, sizeof(in->why),
			 "no IOMMU group (IOMMU off?)");
	else if (in->viable < 0)
		snprintf(in->why, sizeof(in->why), "%s", sacc_errmsg(NULL));
}

/* What only VFIO shows (IOVA ranges, registers, the journal): EXIT_OK,
 * or EXIT_FAIL with in->open_err if the device cannot be opened. */
static int read_device(const char *bdf, struct info *in)
{
	struct sacc_open_opts opts = {.flags = SACC_OPEN_NO_INIT};
	struct sacc_dev *dev = NULL;
	const char *jp, *jwhy = NULL;

	if (sacc_open(bdf, &opts, &dev)) {
		in->open_err = sacc_errmsg(NULL);
		return EXIT_FAIL;
	}
	in->nr = sacc_dev_iova_ranges(dev, in->ranges, SACC_IOMMU_MAX_RANGES,
				      &in->pgsizes);
	if (in->nr > SACC_IOMMU_MAX_RANGES)
		in->nr = SACC_IOMMU_MAX_RANGES;
	for (int i = 0; i < (int)NREGS; i++) {
		uint32_t lo32 = 0, hi32 = 0;

		sacc_reg_read(dev, regs[i].off, &lo32);
		if (regs[i].wide)
			sacc_reg_read(dev, regs[i].off + 4, &hi32);
		in->vals[i] = lo32 | (uint64_t)hi32 << 32;
	}
	sacc_devmem_info(dev, &in->dm);
	snprintf(in->dm_why, sizeof(in->dm_why), "%s",
		 in->dm.why ? in->dm.why : "");
	in->dm.why = NULL; /* dev's, which goes */
	jp = sacc_dev_journal(dev, &jwhy);
	snprintf(in->journal, sizeof(in->journal), "%s", jp ? jp : "");
	snprintf(in->journal_why, sizeof(in->journal_why), "%s",
		 jwhy ? jwhy : "");
	sacc_close(dev);
	return EXIT_OK;
}

static int print_info_json(const struct info *in, int rc)
{
	const struct sacc_pci_dev *d = &in->d;
	struct json_object *o = jobj(), *a;
	int i;

	jset_str(o, "bdf", d->bdf);
	jset_fmt(o, "vendor", "%04x", d->vendor);
	jset_fmt(o, "device", "%04x", d->device);
	jset_fmt(o, "subsystem_vendor", "%04x", d->subsys_vendor);
	jset_fmt(o, "subsystem_device", "%04x", d->subsys_device);
	jset_fmt(o, "revision", "%02x", d->revision);
	jset_fmt(o, "class", "%06x", d->class_code);
	jset_str(o, "driver", d->driver[0] ? d->driver : NULL);
	if (d->iommu_group >= 0)
		jset_int(o, "iommu_group", d->iommu_group);
	else
		jset_null(o, "iommu_group");
	jset_bool(o, "viable", in->viable == 1);
	jset_str(o, "viable_reason", in->viable == 1 ? "ok" : in->why);
	a = jarr();
	for (i = 0; i < 6; i++) {
		struct json_object *b;

		if (!in->bars[i].size)
			continue;
		b = jobj();
		jset_int(b, "index", i);
		jset_hex(b, "start", in->bars[i].start);
		jset_u64(b, "size", in->bars[i].size);
		jset_hex(b, "flags", in->bars[i].flags);
		jpush(a, b);
	}
	jset(o, "bars", a);
	if (in->open_err) {
		jset_str(o, "error", in->open_err);
		return jprint(o, JSON_SPACED) ? EXIT_FAIL : rc;
	}
	jset_hex(o, "iova_pgsizes", in->pgsizes);
	a = jarr();
	for (i = 0; i < in->nr; i++) {
		struct json_object *r = jobj();

		jset_hex(r, "start", in->ranges[i].start);
		jset_hex(r, "end", in->ranges[i].end);
		jpush(a, r);
	}
	jset(o, "iova_ranges", a);
	jset_str(o, "journal", in->journal[0] ? in->journal : NULL);
	jset_str(o, "journal_error",
		 in->journal_why[0] ? in->journal_why : NULL);
	a = jobj();
	for (i = 0; i < (int)NREGS; i++)
		jset_hex(a, regs[i].name, in->vals[i]);
	jset(o, "registers", a);
	a = jobj();
	jset_u64(a, "size", in->dm.size);
	jset_bool(a, "mapped", in->dm.mapped);
	jset_u64(a, "used", in->dm.used);
	jset_u64(a, "buffers", in->dm.buffers);
	jset_u64(a, "largest_free", in->dm.largest_free);
	jset_str(a, "error", in->dm_why[0] ? in->dm_why : NULL);
	jset(o, "devmem", a);
	return jprint(o, JSON_SPACED) ? EXIT_FAIL : rc;
}

/* Device memory (v0.4): its size, and how much of it this process's
 * libsacc has allocated (allocations are per process: saccctl info's
 * own handle has none). */
static void print_devmem(const struct info *in)
{
	char sz[32], used[32];

	if (!in->dm.mapped && !in->dm.size) {
		printf("  device mem   none: %s\n", in->dm_why);
		return;
	}
	if (!in->dm.mapped) {
		printf("  device mem   %s, not usable here: %s\n",
		       sacc_fmt_bytes(in->dm.size, sz, sizeof(sz)), in->dm_why);
		return;
	}
	printf("  device mem   %s in BAR4, %s in use (%u buffer%s) by this "
	       "process\n",
	       sacc_fmt_bytes(in->dm.size, sz, sizeof(sz)),
	       sacc_fmt_bytes(in->dm.used, used, sizeof(used)), in->dm.buffers,
	       in->dm.buffers == 1 ? "" : "s");
}

/* Identity, group and BARs: what sysfs shows, opened or not. */
static void print_identity(const struct info *in)
{
	const struct sacc_pci_dev *d = &in->d;
	char sz[32];

	printf("%s  SACC accelerator\n", d->bdf);
	printf("  identity     vendor %04x device %04x subsystem %04x:%04x "
	       "revision %02x\n",
	       d->vendor, d->device, d->subsys_vendor, d->subsys_device,
	       d->revision);
	printf("  class        %06x %s\n", d->class_code,
	       class_name(d->class_code));
	printf("  driver       %s\n", d->driver[0] ? d->driver : "(none)");
	if (d->iommu_group >= 0)
		printf("  IOMMU group  %d (%s%s%s)\n", d->iommu_group,
		       in->viable == 1 ? "viable" : "not viable",
		       in->viable == 1 ? "" : ": ",
		       in->viable == 1 ? "" : in->why);
	else
		printf("  IOMMU group  none: %s\n", in->why);
	for (int i = 0; i < 6; i++) {
		if (!in->bars[i].size)
			continue;
		printf("  BAR%d         0x%010llx  %-8s %s%s\n", i,
		       (unsigned long long)in->bars[i].start,
		       sacc_fmt_bytes(in->bars[i].size, sz, sizeof(sz)),
		       in->bars[i].flags & 0x100 ? "io" : "memory",
		       i == SACC_BAR_REGS
			   ? " (page 0 registers, page 1 doorbell)"
		       : i == SACC_BAR_MSIX   ? " (MSI-X table and PBA)"
		       : i == SACC_BAR_CHAN   ? " (device page, channel blocks)"
		       : i == SACC_BAR_DEVMEM ? " (device memory)"
					      : "");
	}
}

static int print_info_text(const struct info *in, int rc)
{
	char sz[32], dec[96];
	int i;

	print_identity(in);
	if (in->open_err) {
		fprintf(stderr,
			"saccctl: cannot open %s through VFIO, so no IOVA "
			"ranges or registers: %s\n",
			in->d.bdf, in->open_err);
		return rc;
	}
	printf("  IOVA ranges ");
	for (i = 0; i < in->nr; i++)
		printf(" 0x%llx-0x%llx",
		       (unsigned long long)in->ranges[i].start,
		       (unsigned long long)in->ranges[i].end);
	printf("\n  IOMMU pages ");
	for (i = 0; i < 64; i++)
		if (in->pgsizes & (1ull << i))
			printf(" %s",
			       sacc_fmt_bytes(1ull << i, sz, sizeof(sz)));
	if (!in->journal[0])
		printf("\n  journal      none: %s\n", in->journal_why);
	else if (in->journal_why[0])
		printf("\n  journal      %s (%s)\n", in->journal,
		       in->journal_why);
	else
		printf("\n  journal      %s\n", in->journal);
	print_devmem(in);
	printf("  registers\n");
	for (i = 0; i < (int)NREGS; i++) {
		decode(&regs[i], in->vals[i], dec, sizeof(dec));
		if (regs[i].wide)
			printf("    0x%02x %-13s 0x%016llx%s%s\n", regs[i].off,
			       regs[i].name, (unsigned long long)in->vals[i],
			       dec[0] ? " " : "", dec);
		else
			printf("    0x%02x %-13s 0x%08llx%s%s\n", regs[i].off,
			       regs[i].name, (unsigned long long)in->vals[i],
			       dec[0] ? "         " : "", dec);
	}
	return rc;
}

int cmd_info(int argc, char **argv)
{
	struct info in;
	char bdf[SACC_BDF_MAX];
	bool json = false;
	int rc;

	rc = parse_info_args(argc, argv, bdf, &json);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	memset(&in, 0, sizeof(in));
	if (sacc_pci_get(bdf, &in.d))
		return fail("%s", sacc_errmsg(NULL));
	if (!in.d.is_sacc)
		return fail("%s is not a SACC device (vendor %04x device %04x, "
			    "want %04x:%04x); saccctl list shows SACC devices",
			    in.d.bdf, in.d.vendor, in.d.device,
			    SACC_PCI_VENDOR_ID, SACC_PCI_DEVICE_ID);
	read_platform(bdf, &in);
	rc = read_device(bdf, &in);
	return json ? print_info_json(&in, rc) : print_info_text(&in, rc);
}

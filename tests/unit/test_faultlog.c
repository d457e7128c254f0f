// SPDX-License-Identifier: MIT
/*
 * test_faultlog.c - host unit tests for faultlog/: the kernel, journal
 * and QEMU trace parsers on real-format lines (tests/fixtures/faults/),
 * truncated and mutated copies of every fixture line, the journal
 * writer, the join and its attribution, the loss arithmetic of a
 * 1000-fault burst, and the JSON output read back.
 *
 * Fixtures come from $SACC_FIXTURES (meson sets it), else tests/fixtures.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fl_priv.h"
#include "sacc_faultlog.h"
#include "sacc_hw.h"

/* ---- helpers ---- */

static const char *fixture(const char *name)
{
	static char path[4096];
	const char *dir = getenv("SACC_FIXTURES");

	snprintf(path, sizeof(path), "%s/faults/%s",
		 dir && *dir ? dir : "tests/fixtures", name);
	return path;
}

struct lines {
	char **v;
	size_t n;
};

static struct lines read_lines(const char *path)
{
	struct lines l = { NULL, 0 };
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	ck_assert_msg(f, "cannot open fixture %s (set SACC_FIXTURES)", path);
	while ((len = getline(&line, &cap, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			line[len - 1] = '\0';
		l.v = realloc(l.v, (l.n + 1) * sizeof(*l.v));
		ck_assert_ptr_nonnull(l.v);
		l.v[l.n++] = strdup(line);
	}
	free(line);
	fclose(f);
	ck_assert_uint_gt(l.n, 0);
	return l;
}

static void free_lines(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* The fixture line containing @needle (exactly one). */
static const char *line_with(const struct lines *l, const char *needle)
{
	const char *hit = NULL;

	for (size_t i = 0; i < l->n; i++) {
		if (strstr(l->v[i], needle)) {
			ck_assert_msg(!hit, "'%s' is not unique", needle);
			hit = l->v[i];
		}
	}
	ck_assert_msg(hit, "no fixture line with '%s'", needle);
	return hit;
}

static struct sacc_faultlog *load_fixtures(bool with_trace)
{
	struct sacc_faultlog *fl = sacc_faultlog_new();
	struct sacc_err err = { 0 };

	ck_assert_ptr_nonnull(fl);
	ck_assert_int_gt(sacc_faultlog_add_file(fl, SACC_FAULTLOG_KMSG,
						fixture("kmsg_6.1.txt"), &err),
			 0);
	ck_assert_int_eq(sacc_faultlog_add_file(fl, SACC_FAULTLOG_JOURNAL,
						fixture("journal.jsonl"), &err),
			 26);
	if (with_trace)
		ck_assert_int_gt(sacc_faultlog_add_file(fl,
							SACC_FAULTLOG_QEMU_TRACE,
							fixture("qemu_trace.log"),
							&err),
				 0);
	return fl;
}

static const struct sacc_fault *by_req(const struct sacc_faultlog *fl,
				       const char *bdf, uint32_t req_id)
{
	const struct sacc_fault *hit = NULL;

	for (size_t i = 0; i < sacc_faultlog_count(fl); i++) {
		const struct sacc_fault *f = sacc_faultlog_get(fl, i);

		if (f->has_req && f->req_id == req_id && !strcmp(f->bdf, bdf)) {
			ck_assert_msg(!hit, "req_id %u twice", req_id);
			hit = f;
		}
	}
	ck_assert_msg(hit, "no record for %s req_id %u", bdf, req_id);
	return hit;
}

/* The only record of @bdf at page @page without a device source. */
static const struct sacc_fault *by_page(const struct sacc_faultlog *fl,
					const char *bdf, uint64_t page)
{
	const struct sacc_fault *hit = NULL;

	for (size_t i = 0; i < sacc_faultlog_count(fl); i++) {
		const struct sacc_fault *f = sacc_faultlog_get(fl, i);

		if (!(f->sources & SACC_FSRC_DEVICE) && f->has_iova &&
		    f->page == page && !strcmp(f->bdf, bdf)) {
			ck_assert_msg(!hit, "page 0x%" PRIx64 " twice", page);
			hit = f;
		}
	}
	ck_assert_msg(hit, "no record for %s page 0x%" PRIx64, bdf, page);
	return hit;
}

#define ck_assert_has(hay, needle)                                        \
	ck_assert_msg(strstr((hay), (needle)), "'%s' lacks '%s'", (hay), \
		      (needle))

/* ---- names and PCI addresses ---- */

START_TEST(test_names)
{
	unsigned int a;

	ck_assert_str_eq(sacc_fault_access_name(SACC_FAULT_DESC_FETCH),
			 "desc_fetch");
	ck_assert_str_eq(sacc_fault_access_name(SACC_FAULT_CQ_WRITE),
			 "cq_write");
	ck_assert_ptr_null(sacc_fault_access_name(200));
	ck_assert_int_eq(sacc_fault_access_parse("src_read", &a), 0);
	ck_assert_uint_eq(a, SACC_FAULT_SRC_READ);
	ck_assert_int_eq(sacc_fault_access_parse("read", &a), -EINVAL);
	ck_assert_str_eq(sacc_op_name(SACC_OP_MEMCPY), "memcpy");
	ck_assert_ptr_null(sacc_op_name(9));
	ck_assert_str_eq(sacc_dmar_reason_text(5),
			 "PTE Write access is not set");
	ck_assert_str_eq(sacc_dmar_reason_text(0x25),
			 "Blocked a compatibility format interrupt request");
	ck_assert_ptr_null(sacc_dmar_reason_text(0xe));
	ck_assert_ptr_null(sacc_dmar_reason_text(0x27));
	ck_assert_str_eq(sacc_fault_attr_name(SACC_ATTR_GUARD), "guard");
	ck_assert_str_eq(sacc_fault_attr_name(SACC_ATTR_UNATTRIBUTED),
			 "unattributed");
	ck_assert_str_eq(sacc_journal_kind_name(SACC_JEV_RANGES), "ranges");
	ck_assert_ptr_null(sacc_journal_kind_name(0));
}
END_TEST

/* ---- kernel lines: 6.1 ---- */

START_TEST(test_kmsg_v61_dma)
{
	struct lines l = read_lines(fixture("kmsg_6.1.txt"));
	struct sacc_kmsg_event e;

	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "0x40000000"), &e),
			 1);
	ck_assert_int_eq(e.kind, SACC_KMSG_DMA_FAULT);
	ck_assert_int_eq(e.format, SACC_KMSG_FMT_V61);
	ck_assert(e.has_seq);
	ck_assert_uint_eq(e.seq, 301);
	ck_assert(e.has_time);
	ck_assert_uint_eq(e.t_ns, 10099995000ull);
	ck_assert_int_eq(e.facility, 0);
	ck_assert_uint_eq(e.sid, 0x100);
	ck_assert(e.write);
	ck_assert(!e.has_pasid);
	ck_assert_uint_eq(e.addr, 0x40000000);
	ck_assert(e.has_reason);
	ck_assert_uint_eq(e.reason, 5);
	ck_assert_str_eq(e.reason_text, "PTE Write access is not set");

	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "addr 0xf000"), &e),
			 1);
	ck_assert(!e.write);
	ck_assert_uint_eq(e.reason, 6);
	ck_assert_uint_eq(e.addr, 0xf000);
	ck_assert_str_eq(e.reason_text, "PTE Read access is not set");

	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "MGAW"), &e), 1);
	ck_assert_uint_eq(e.addr, 0x8000000000ull);
	ck_assert_uint_eq(e.reason, 4);
	ck_assert_str_eq(e.reason_text, "Access beyond MGAW");

	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "PASID 0x1"), &e),
			 1);
	ck_assert_int_eq(e.format, SACC_KMSG_FMT_V61);
	ck_assert(e.has_pasid);
	ck_assert_uint_eq(e.pasid, 1);
	ck_assert(!e.write);
	ck_assert_uint_eq(e.addr, 0x90000000);

	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "[00:1f.2]"), &e),
			 1);
	ck_assert_uint_eq(e.sid, 0xfa); /* 1f << 3 | 2 */
	free_lines(&l);
}
END_TEST

START_TEST(test_kmsg_prefixes)
{
	static const char msg[] =
		"DMAR: [DMA Write NO_PASID] Request device [01:00.0] fault addr 0x40000000 [fault reason 0x05] PTE Write access is not set";
	static const char *const pre[] = {
		"",
		"[   10.099995] ",
		"[   10.099995] [  T123] ",
		"[   10.099995][ T123] ",
		"[   10.099995] [    C1] ",
		"<3>[   10.099995] ",
		"3,301,10099995,-;",
		"3,301,10099995,-,caller=T123;",
		"Nov 29 10:00:00 guest kernel: ",
		"Nov 29 10:00:00 guest kernel: [   10.099995] ",
	};
	struct sacc_kmsg_event e;
	char line[512];

	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
		snprintf(line, sizeof(line), "%s%s", pre[i], msg);
		ck_assert_int_eq(sacc_kmsg_parse_line(line, &e), 1);
		ck_assert_int_eq(e.kind, SACC_KMSG_DMA_FAULT);
		ck_assert_uint_eq(e.addr, 0x40000000);
		ck_assert_uint_eq(e.reason, 5);
		ck_assert_str_eq(e.reason_text, "PTE Write access is not set");
		if (strchr(pre[i], '.') || strchr(pre[i], ',')) {
			ck_assert_msg(e.has_time, "no time from '%s'", pre[i]);
			ck_assert_uint_eq(e.t_ns, 10099995000ull);
		} else {
			ck_assert(!e.has_time);
		}
	}
	/* trailing newline and CR */
	snprintf(line, sizeof(line), "%s\r\n", msg);
	ck_assert_int_eq(sacc_kmsg_parse_line(line, &e), 1);
	ck_assert_str_eq(e.reason_text, "PTE Write access is not set");
	/* dmesg -T: a wall clock, not a timestamp we can use */
	snprintf(line, sizeof(line), "[Sat Nov 29 10:00:00 2025] %s", msg);
	ck_assert_int_eq(sacc_kmsg_parse_line(line, &e), 1);
	ck_assert(!e.has_time);
	ck_assert_uint_eq(e.addr, 0x40000000);
}
END_TEST

START_TEST(test_kmsg_intr_status_suppressed)
{
	struct lines l = read_lines(fixture("kmsg_6.1.txt"));
	struct sacc_kmsg_event e;

	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "INTR-REMAP]"),
					      &e),
			 1);
	ck_assert_int_eq(e.kind, SACC_KMSG_INTR_FAULT);
	ck_assert_int_eq(e.format, SACC_KMSG_FMT_V61);
	ck_assert_uint_eq(e.sid, 0x100);
	ck_assert_uint_eq(e.addr, 0x12);
	ck_assert_uint_eq(e.reason, 0x25);
	ck_assert_str_eq(e.reason_text,
			 "Blocked a compatibility format interrupt request");

	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "reg 2"), &e), 1);
	ck_assert_int_eq(e.kind, SACC_KMSG_FAULT_STATUS);
	ck_assert_uint_eq(e.fault_status, 2);
	ck_assert(!(e.fault_status & SACC_DMA_FSTS_PFO));
	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "reg 3"), &e), 1);
	ck_assert_uint_eq(e.fault_status, 3);
	ck_assert(e.fault_status & SACC_DMA_FSTS_PFO);
	ck_assert(e.fault_status & SACC_DMA_FSTS_PPF);

	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "callbacks"), &e),
			 1);
	ck_assert_int_eq(e.kind, SACC_KMSG_SUPPRESSED);
	ck_assert_uint_eq(e.suppressed, 5);
	ck_assert_uint_eq(e.seq, 308);
	free_lines(&l);
}
END_TEST

START_TEST(test_kmsg_noise)
{
	static const char *const noise[] = {
		"6,100,1000000,-;DMAR: IOMMU enabled",
		"DMAR: Host address width 39",
		"DMAR: DRHD base: 0x000000fed90000 flags: 0x1",
		"DMAR-IR: Enabled IRQ remapping in x2apic mode",
		" SUBSYSTEM=pci",
		" DEVICE=+pci:0000:01:00.0",
		"4,314,10900000,-;DMAR: [Firmware Bug]: No firmware reserved region can cover this RMRR [0x0-0x1], contact BIOS vendor for fixes",
		"[    0.000000] Linux version 6.1.0-57-amd64",
		"net_ratelimit: 3 callbacks suppressed",
		"",
		"\x01\x02\xff",
	};
	struct sacc_kmsg_event e;

	for (size_t i = 0; i < sizeof(noise) / sizeof(noise[0]); i++)
		ck_assert_msg(sacc_kmsg_parse_line(noise[i], &e) == 0,
			      "'%s' not ignored", noise[i]);
	ck_assert_int_eq(sacc_kmsg_parse_line(NULL, &e), -EINVAL);
}
END_TEST

START_TEST(test_kmsg_forged)
{
	struct lines l = read_lines(fixture("kmsg_6.1.txt"));
	struct sacc_kmsg_event e;

	/* priority 12 = facility 1 (user): written to /dev/kmsg by a process */
	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "12,313,"), &e), 0);
	ck_assert(e.user_forged);
	ck_assert_int_eq(e.facility, 1);
	free_lines(&l);
}
END_TEST

START_TEST(test_kmsg_malformed)
{
	static const char *const bad[] = {
		/* 6.1 forms are one line: a missing reason is truncation */
		"DMAR: [DMA Write NO_PASID] Request device [01:00.0] fault addr 0x40000000",
		"DMAR: [DMA Write NO_PASID] Request device [01:00.0] fault addr 0x40000000 [fault reason 0x05",
		"DMAR: [DMA Write NO_PASID] Request device [01:00",
		"DMAR: [DMA Write NO_PASID",
		"DMAR: [DMA Write NO_PASID] Request device [01:20.0] fault addr 0x1000 [fault reason 0x05] x",
		"DMAR: [DMA Write NO_PASID] Request device [01:00.8] fault addr 0x1000 [fault reason 0x05] x",
		"DMAR: [DMA Write NO_PASID] Request device [01:00.0] fault addr 0x1000 [fault reason 0x100] x",
		"DMAR: [DMA Write NO_PASID] Request device [01:00.0] fault addr 0x10000000000000000 [fault reason 0x05] x",
		"DMAR: [DMA Write NO_PASID] Request device [01:00.0] fault addr zz [fault reason 0x05] x",
		"DMAR: [DMA Write NO_PASID] Request device [01:00.0] fault index 0x1 [fault reason 0x05] x",
		"DMAR: [DMA Write BOGUS] Request device [01:00.0] fault addr 0x1000 [fault reason 0x05] x",
		"DMAR: [DMA Read PASID zz] Request device [01:00.0] fault addr 0x1000 [fault reason 0x06] x",
		"DMAR: [DMA Write] Request device [01:00.0] PASID ffffffff fault addr 900000",
		"DMAR: [DMA Write] Request device [01:00.0] fault addr 900000 [fault reason 1a] x",
		"DMAR: [INTR-REMAP] Request device [01:00.0] fault index 0x12",
		"DMAR: [INTR-REMAP",
		"DMAR: DRHD: handling fault status reg zz",
		"DMAR: DRHD: handling fault status reg 3 extra",
		"dmar_fault: x callbacks suppressed",
		"dmar_fault: 5 callbacks",
		"DMAR:[fault reason 5",
	};
	struct sacc_kmsg_event e;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(sacc_kmsg_parse_line(bad[i], &e) == -EINVAL,
			      "'%s' not rejected", bad[i]);
}
END_TEST

/* ---- kernel lines: older formats ---- */

START_TEST(test_kmsg_old_formats)
{
	struct lines l = read_lines(fixture("dmesg_old_formats.txt"));
	struct sacc_kmsg_event e;

	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "ffffffff"), &e), 1);
	ck_assert_int_eq(e.kind, SACC_KMSG_DMA_FAULT);
	ck_assert_int_eq(e.format, SACC_KMSG_FMT_PASID_OLD);
	ck_assert(!e.has_pasid); /* ffffffff = INVALID_IOASID */
	ck_assert(e.write);
	ck_assert_uint_eq(e.sid, 0x18);
	ck_assert_uint_eq(e.addr, 0x900000);
	ck_assert_uint_eq(e.reason, 5);
	ck_assert_uint_eq(e.t_ns, 20000001000ull);
	ck_assert_str_eq(e.reason_text, "PTE Write access is not set");

	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "PASID 1 "), &e), 1);
	ck_assert_int_eq(e.format, SACC_KMSG_FMT_PASID_OLD);
	ck_assert(e.has_pasid);
	ck_assert_uint_eq(e.pasid, 1);
	ck_assert(!e.write);
	ck_assert_uint_eq(e.addr, 0x901000);

	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "902000"), &e), 1);
	ck_assert_int_eq(e.format, SACC_KMSG_FMT_ONELINE_OLD);
	ck_assert_uint_eq(e.reason, 6);

	/* pre-4.7 split form: head and tail are separate lines */
	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "903000"), &e), 1);
	ck_assert_int_eq(e.kind, SACC_KMSG_DMA_FAULT_HEAD);
	ck_assert_int_eq(e.format, SACC_KMSG_FMT_SPLIT_OLD);
	ck_assert_uint_eq(e.addr, 0x903000);
	ck_assert(!e.has_reason);
	ck_assert_int_eq(sacc_kmsg_parse_line(
				 "[   20.300004] DMAR:[fault reason 05] PTE Write access is not set",
				 &e),
			 1);
	ck_assert_int_eq(e.kind, SACC_KMSG_REASON_TAIL);
	ck_assert_uint_eq(e.reason, 5);

	/* ... and the same printk read from /dev/kmsg is one record */
	ck_assert_int_eq(sacc_kmsg_parse_line(
				 "3,50,20300004,-;DMAR:[DMA Write] Request device [00:03.0] fault addr 903000 \\x0aDMAR:[fault reason 05] PTE Write access is not set",
				 &e),
			 1);
	ck_assert_int_eq(e.kind, SACC_KMSG_DMA_FAULT);
	ck_assert_int_eq(e.format, SACC_KMSG_FMT_SPLIT_OLD);
	ck_assert_uint_eq(e.reason, 5);
	ck_assert_str_eq(e.reason_text, "PTE Write access is not set");

	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "[[00:03.0]"), &e),
			 1);
	ck_assert_int_eq(e.kind, SACC_KMSG_INTR_FAULT_HEAD);
	ck_assert_uint_eq(e.addr, 0x12);
	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "reason 37"), &e),
			 1);
	ck_assert_int_eq(e.kind, SACC_KMSG_REASON_TAIL);
	ck_assert_uint_eq(e.reason, 37); /* %02d: decimal */

	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "index 13"), &e),
			 1);
	ck_assert_int_eq(e.kind, SACC_KMSG_INTR_FAULT);
	ck_assert_int_eq(e.format, SACC_KMSG_FMT_ONELINE_OLD);
	ck_assert_uint_eq(e.addr, 0x13);
	ck_assert_uint_eq(e.reason, 34);

	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "DMAR: DMAR:"), &e),
			 1);
	ck_assert_int_eq(e.kind, SACC_KMSG_DMA_FAULT_HEAD);
	ck_assert_uint_eq(e.addr, 0x904000);

	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "kernel:"), &e), 1);
	ck_assert_int_eq(e.kind, SACC_KMSG_DMA_FAULT);
	ck_assert_uint_eq(e.addr, 0x905000);
	ck_assert_uint_eq(e.t_ns, 20900010000ull);

	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "callbacks"), &e),
			 1);
	ck_assert_uint_eq(e.suppressed, 12);

	/* intermediate patch styles: "w/o PASID", "%02xh", 0x in the BDF */
	ck_assert_int_eq(sacc_kmsg_parse_line(
				 "DMAR: [DMA Write w/o PASID] Request device [00:03.0] fault addr 903000 [fault reason 25h] x",
				 &e),
			 1);
	ck_assert_uint_eq(e.reason, 0x25);
	ck_assert_int_eq(sacc_kmsg_parse_line(
				 "DMAR: [DMA Read NO_PASID] Request device [0x00:0x03.0] fault addr 0x903000 [fault reason 0x06] x",
				 &e),
			 1);
	ck_assert_uint_eq(e.sid, 0x18);
	free_lines(&l);
}
END_TEST

START_TEST(test_faultlog_split_join)
{
	struct sacc_faultlog *fl = sacc_faultlog_new();
	const struct sacc_fault *f;
	struct sacc_faultlog_summary s;

	ck_assert_int_eq(sacc_faultlog_add_kmsg_line(fl,
			"[   20.300004] DMAR:[DMA Write] Request device [00:03.0] fault addr 903000 "),
			 1);
	/* noise in between does not break the pair */
	ck_assert_int_eq(sacc_faultlog_add_kmsg_line(fl, "[   20.300004] e1000e: link up"),
			 0);
	ck_assert_int_eq(sacc_faultlog_add_kmsg_line(fl,
			"[   20.300004] DMAR:[fault reason 05] PTE Write access is not set"),
			 1);
	/* a head whose tail comes after a join */
	ck_assert_int_eq(sacc_faultlog_add_kmsg_line(fl,
			"[   20.400000] DMAR:[DMA Read] Request device [00:03.0] fault addr 904000 "),
			 1);
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 2);
	f = sacc_faultlog_get(fl, 0);
	ck_assert_uint_eq(f->iova, 0x903000);
	ck_assert(f->has_kernel_reason);
	ck_assert_uint_eq(f->kernel_reason, 5);
	ck_assert_str_eq(f->kernel_reason_text, "PTE Write access is not set");
	ck_assert(f->has_write && f->write);
	ck_assert_str_eq(f->bdf, "0000:00:03.0");
	f = sacc_faultlog_get(fl, 1);
	ck_assert_uint_eq(f->iova, 0x904000);
	ck_assert(!f->has_kernel_reason);
	ck_assert_int_eq(sacc_faultlog_add_kmsg_line(fl,
			"[   20.400000] DMAR:[fault reason 06] PTE Read access is not set"),
			 1);
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 2);
	f = sacc_faultlog_get(fl, 1);
	ck_assert(f->has_kernel_reason);
	ck_assert_uint_eq(f->kernel_reason, 6);
	ck_assert(!f->write);
	/* an orphan tail is rejected and counted */
	ck_assert_int_eq(sacc_faultlog_add_kmsg_line(fl,
			"DMAR:[fault reason 05] PTE Write access is not set"),
			 -EINVAL);
	/* a forged userspace line is counted, not used */
	ck_assert_int_eq(sacc_faultlog_add_kmsg_line(fl,
			"12,1,1,-;DMAR: [DMA Write NO_PASID] Request device [00:03.0] fault addr 0x1000 [fault reason 0x05] x"),
			 0);
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 2);
	sacc_faultlog_summary(fl, &s);
	ck_assert_uint_eq(s.bad_kmsg, 1);
	ck_assert_uint_eq(s.kmsg_user_ignored, 1);
	ck_assert_uint_eq(s.total.kernel_printed, 2);
	sacc_faultlog_free(fl);
}
END_TEST

/* kernel/sacc_dma's fault lines (tests/fixtures/faults/kmsg_sacc_dma.txt,
 * from a ci/guest-kernel fault run): parsed as the device's record, joined
 * to their DMAR lines, attributed to the driver's channel. */
START_TEST(test_kernel_driver_faults)
{
	struct lines l = read_lines(fixture("kmsg_sacc_dma.txt"));
	struct sacc_faultlog *fl = sacc_faultlog_new();
	struct sacc_kmsg_event e;
	const struct sacc_fault *f;

	ck_assert_int_eq(sacc_kmsg_parse_line(line_with(&l, "src_read"), &e), 1);
	ck_assert_int_eq(e.kind, SACC_KMSG_DRIVER_FAULT);
	ck_assert_uint_eq(e.sid, 0x100);
	ck_assert_uint_eq(e.drv.chan, 3);
	ck_assert_uint_eq(e.drv.req_id, 1);
	ck_assert_uint_eq(e.drv.access, SACC_FAULT_SRC_READ);
	ck_assert(!e.write);
	ck_assert_uint_eq(e.addr, 0x10000000);
	ck_assert(e.drv.iommu_known && !e.drv.iommu_mapped);
	ck_assert_uint_eq(e.drv.fault_count, 2);
	/* other sacc_dma lines are not faults; a mangled fault line is bad */
	ck_assert_int_eq(sacc_kmsg_parse_line("[ 1.0] sacc_dma 0000:01:00.0: SACC v0.4: 8 dmaengine channels", &e), 0);
	ck_assert_int_eq(sacc_kmsg_parse_line("[ 1.0] sacc_dma 0000:01:00.0: chan x fault: req_id 1", &e), -EINVAL);
	ck_assert_int_eq(sacc_kmsg_parse_line("12,1,1,-;sacc_dma 0000:01:00.0: chan 3 fault: req_id 0 op memcpy len 4096 access dst_write addr 0x10000000 fault_count 1 record own iommu unmapped", &e), 0);

	for (size_t i = 0; i < l.n; i++)
		ck_assert_int_ge(sacc_faultlog_add_kmsg_line(fl, l.v[i]), 0);
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 3);
	for (size_t i = 0; i < 3; i++) {
		f = sacc_faultlog_get(fl, i);
		ck_assert_uint_eq(f->sources, SACC_FSRC_DEVICE | SACC_FSRC_KERNEL);
		ck_assert(f->has_chan);
		ck_assert_uint_eq(f->chan, 3);
		ck_assert_uint_eq(f->req_id, i);
		ck_assert_int_eq(f->attr, SACC_ATTR_KERNEL_DRIVER);
		ck_assert_msg(strstr(f->attr_text, "channel 3") &&
				      strstr(f->attr_text, "never mapped"),
			      "%s", f->attr_text);
	}
	f = sacc_faultlog_get(fl, 1);
	ck_assert(f->has_kernel_reason && f->kernel_reason == 6);
	sacc_faultlog_free(fl);
	free_lines(&l);
}
END_TEST

START_TEST(test_old_formats_file)
{
	struct sacc_faultlog *fl = sacc_faultlog_new();
	struct sacc_faultlog_summary s;
	size_t intr = 0;

	ck_assert_int_eq(sacc_faultlog_add_file(fl, SACC_FAULTLOG_KMSG,
						fixture("dmesg_old_formats.txt"),
						NULL),
			 13);
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 8);
	for (size_t i = 0; i < sacc_faultlog_count(fl); i++) {
		const struct sacc_fault *f = sacc_faultlog_get(fl, i);

		ck_assert_uint_eq(f->sources, SACC_FSRC_KERNEL);
		ck_assert_str_eq(f->bdf, "0000:00:03.0");
		ck_assert_int_eq(f->attr, SACC_ATTR_UNATTRIBUTED);
		ck_assert_str_eq(f->attr_text,
				 "no SACC journal for 0000:00:03.0");
		ck_assert_msg(f->has_kernel_reason, "record %zu: no reason", i);
		if (f->kernel_intr) {
			intr++;
			ck_assert(!f->has_iova);
		}
		if (f->has_iova && f->iova == 0x903000) {
			ck_assert_uint_eq(f->kernel_reason, 5);
			ck_assert_str_eq(f->kernel_reason_text,
					 "PTE Write access is not set");
		}
		if (f->kernel_intr && f->intr_index == 0x12) {
			ck_assert_uint_eq(f->kernel_reason, 37);
			ck_assert_str_eq(f->kernel_reason_text,
					 "Blocked a compatibility format interrupt request");
		}
	}
	ck_assert_uint_eq(intr, 2);
	sacc_faultlog_summary(fl, &s);
	ck_assert_uint_eq(s.kernel_suppressed, 12);
	ck_assert_uint_eq(s.drhd_lines, 1);
	ck_assert_uint_eq(s.overflow_events, 0);
	ck_assert_uint_eq(s.bad_kmsg, 0);
	sacc_faultlog_free(fl);
}
END_TEST

/* ---- QEMU trace lines ---- */

START_TEST(test_trace)
{
	struct lines l = read_lines(fixture("qemu_trace.log"));
	struct sacc_trace_event e;
	size_t faults = 0, frr = 0;

	ck_assert_int_eq(sacc_trace_parse_line(line_with(&l, "0x40000000 write"),
					       &e),
			 1);
	ck_assert_int_eq(e.kind, SACC_TRACE_DMAR_FAULT);
	ck_assert(e.has_time);
	ck_assert_uint_eq(e.tid, 4242);
	ck_assert_uint_eq(e.wall_ns, 1700000010099990000ull);
	ck_assert_uint_eq(e.sid, 0x100);
	ck_assert_uint_eq(e.reason, 5);
	ck_assert_uint_eq(e.addr, 0x40000000);
	ck_assert(e.write);

	ck_assert_int_eq(sacc_trace_parse_line(
				 "vtd_dmar_fault sid 0x0100 fault 5 addr 0x900000 write 1",
				 &e),
			 1);
	ck_assert(!e.has_time);
	ck_assert_uint_eq(e.sid, 0x100);
	ck_assert_uint_eq(e.addr, 0x900000);

	ck_assert_int_eq(sacc_trace_parse_line(line_with(&l, "0x4000010680000100"),
					       &e),
			 1);
	ck_assert_int_eq(e.kind, SACC_TRACE_FRR_NEW);
	ck_assert_uint_eq(e.sid, 0x100);
	ck_assert_uint_eq(e.reason, 6);
	ck_assert(!e.write);
	ck_assert_uint_eq(e.addr, 0x90000000);

	for (size_t i = 0; i < l.n; i++) {
		int r = sacc_trace_parse_line(l.v[i], &e);

		ck_assert_int_ge(r, 0);
		faults += r == 1 && e.kind == SACC_TRACE_DMAR_FAULT;
		frr += r == 1 && e.kind == SACC_TRACE_FRR_NEW;
	}
	ck_assert_uint_eq(faults, 11);
	ck_assert_uint_eq(frr, 9);

	ck_assert_int_eq(sacc_trace_parse_line("vtd_fsts_ppf FSTS PPF bit set to 1",
					       &e),
			 0);
	ck_assert_int_eq(sacc_trace_parse_line("qemu-system-x86_64: warning: x", &e),
			 0);
	ck_assert_int_eq(sacc_trace_parse_line("", &e), 0);
	ck_assert_int_eq(sacc_trace_parse_line("vtd_dmar_fault sid 0x100 fault 5 addr",
					       &e),
			 -EINVAL);
	ck_assert_int_eq(sacc_trace_parse_line(
				 "vtd_dmar_fault sid 0x100 fault 5 addr 0x1000 write 2",
				 &e),
			 -EINVAL);
	ck_assert_int_eq(sacc_trace_parse_line(
				 "vtd_dmar_fault sid 0x10000 fault 5 addr 0x1000 write 1",
				 &e),
			 -EINVAL);
	ck_assert_int_eq(sacc_trace_parse_line(
				 "42@17.x:vtd_dmar_fault sid 0x100 fault 5 addr 0x1000 write 1",
				 &e),
			 -EINVAL);
	ck_assert_int_eq(sacc_trace_parse_line("vtd_frr_new index 0 high 0x5", &e),
			 -EINVAL);
	ck_assert_int_eq(sacc_trace_parse_line(NULL, &e), -EINVAL);
	free_lines(&l);
}
END_TEST

/*
 * "key value ..." of an expectation line: the value of @key as a
 * number (strtoull base 0: "0x100" or "5"), or @key's text into @str.
 */
static bool want_field(const char *want, const char *key, uint64_t *v,
		       char *str, size_t size)
{
	char pat[32];
	const char *p;
	size_t n;

	snprintf(pat, sizeof(pat), " %s ", key);
	p = strstr(want, pat);
	if (!p)
		return false;
	p += strlen(pat);
	n = strcspn(p, " ");
	if (str)
		snprintf(str, size, "%.*s", (int)n, p);
	if (v)
		*v = strtoull(p, NULL, 0);
	return true;
}

/*
 * tests/fixtures/qemu_trace/lines.txt: each trace line and the fields
 * every reader must take from it.  telemetry/tests/test_qemu_trace.py
 * checks telemetry/tools/qemu_trace.py on the same file; here the C
 * reader, for the two events it reads.
 */
START_TEST(test_trace_shared)
{
	const char *dir = getenv("SACC_FIXTURES");
	char path[4096], event[64];
	struct sacc_trace_event e;
	struct lines l;
	size_t checked = 0, vtd = 0;

	snprintf(path, sizeof(path), "%s/qemu_trace/lines.txt",
		 dir && *dir ? dir : "tests/fixtures");
	l = read_lines(path);
	for (size_t i = 0; i + 1 < l.n; i++) {
		const char *line = l.v[i], *want = l.v[i + 1];
		uint64_t tid, t_us, a, b, c, d;
		char w[1024];
		int r;

		if (line[0] == '#' || line[0] == '=' || !line[0])
			continue;
		ck_assert_msg(want[0] == '=', "no '=' line after '%s'", line);
		snprintf(w, sizeof(w), "%s ", want); /* every key " k v " */
		r = sacc_trace_parse_line(line, &e);
		checked++;
		if (!strcmp(want, "= none")) {
			ck_assert_msg(r == 0, "'%s': %d", line, r);
			continue;
		}
		ck_assert(want_field(w, "tid", &tid, NULL, 0));
		ck_assert(want_field(w, "t_us", &t_us, NULL, 0));
		ck_assert(want_field(w, "event", NULL, event, sizeof(event)));
		if (strcmp(event, "vtd_dmar_fault") &&
		    strcmp(event, "vtd_frr_new")) {
			ck_assert_msg(r == 0, "'%s': %d", line, r);
			continue;
		}
		ck_assert_msg(r == 1, "'%s': %d", line, r);
		ck_assert(e.has_time);
		ck_assert_uint_eq(e.tid, tid);
		ck_assert_uint_eq(e.wall_ns, t_us * 1000);
		if (!strcmp(event, "vtd_dmar_fault")) {
			ck_assert_int_eq(e.kind, SACC_TRACE_DMAR_FAULT);
			ck_assert(want_field(w, "sid", &a, NULL, 0));
			ck_assert(want_field(w, "fault", &b, NULL, 0));
			ck_assert(want_field(w, "addr", &c, NULL, 0));
			ck_assert(want_field(w, "write", &d, NULL, 0));
			ck_assert_uint_eq(e.sid, a);
			ck_assert_uint_eq(e.reason, b);
			ck_assert_uint_eq(e.addr, c);
			ck_assert_uint_eq(e.write, d);
		} else {
			ck_assert_int_eq(e.kind, SACC_TRACE_FRR_NEW);
			ck_assert(want_field(w, "index", &a, NULL, 0));
			ck_assert(want_field(w, "high", &b, NULL, 0));
			ck_assert(want_field(w, "low", &c, NULL, 0));
			ck_assert_uint_eq(e.frr_index, a);
			ck_assert_uint_eq(e.sid, b & 0xffff);
			ck_assert_uint_eq(e.reason, (b >> 32) & 0xff);
			ck_assert_uint_eq(e.write, !(b & (1ull << 62)));
			ck_assert_uint_eq(e.addr, c & ~0xfffull);
		}
		vtd++;
	}
	ck_assert_uint_ge(checked, 10);
	ck_assert_uint_ge(vtd, 5);
	free_lines(&l);
}
END_TEST

/* ---- journal ---- */

START_TEST(test_journal_parse_fixture)
{
	struct lines l = read_lines(fixture("journal.jsonl"));
	struct sacc_journal_event e;
	size_t kinds[SACC_JEV_RESET + 1] = { 0 };

	for (size_t i = 0; i < l.n; i++) {
		ck_assert_msg(sacc_journal_parse_line(l.v[i], &e) == 1,
			      "line %zu rejected: %s", i + 1, l.v[i]);
		kinds[e.ev]++;
	}
	ck_assert_uint_eq(kinds[SACC_JEV_MAP], 8);
	ck_assert_uint_eq(kinds[SACC_JEV_UNMAP], 5);
	ck_assert_uint_eq(kinds[SACC_JEV_RANGES], 2);
	ck_assert_uint_eq(kinds[SACC_JEV_FAULT], 9);
	ck_assert_uint_eq(kinds[SACC_JEV_RESET], 2);

	ck_assert_int_eq(sacc_journal_parse_line(line_with(&l, "\"req_id\":4,"),
						 &e),
			 1);
	ck_assert_int_eq(e.ev, SACC_JEV_FAULT);
	ck_assert_uint_eq(e.t_ns, 10500000000ull);
	ck_assert_uint_eq(e.pid, 321);
	ck_assert_str_eq(e.bdf, "0000:01:00.0");
	ck_assert_uint_eq(e.sid, 0x100);
	ck_assert_uint_eq(e.req_id, 4);
	ck_assert_uint_eq(e.opcode, SACC_OP_XFORM);
	ck_assert_uint_eq(e.status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(e.addr, 0x7100);
	ck_assert_uint_eq(e.access, SACC_FAULT_DST_WRITE);
	ck_assert(e.write);
	ck_assert(!e.fatal);
	ck_assert(e.has_fault_count);
	ck_assert_uint_eq(e.fault_count, 4);

	ck_assert_int_eq(sacc_journal_parse_line(line_with(&l, "\"cq_write\""),
						 &e),
			 1);
	ck_assert(e.fatal);
	ck_assert_uint_eq(e.access, SACC_FAULT_CQ_WRITE);

	ck_assert_int_eq(sacc_journal_parse_line(line_with(&l, "\"ev\":\"map\",\"t_ns\":10000300000"),
						 &e),
			 1);
	ck_assert_int_eq(e.ev, SACC_JEV_MAP);
	ck_assert_str_eq(e.name, "src");
	ck_assert_uint_eq(e.iova, 0x7000);
	ck_assert_uint_eq(e.len, 8192);
	ck_assert_uint_eq(e.perm, SACC_JOURNAL_PERM_READ);

	ck_assert_int_eq(sacc_journal_parse_line(l.v[1], &e), 1);
	ck_assert_int_eq(e.ev, SACC_JEV_RANGES);
	ck_assert_uint_eq(e.nr_ranges, 2);
	ck_assert_uint_eq(e.ranges[0].start, 0);
	ck_assert_uint_eq(e.ranges[0].end, 0xfedfffff);
	ck_assert_uint_eq(e.ranges[1].start, 0xfef00000);
	ck_assert_uint_eq(e.ranges[1].end, 0x7fffffffffull);
	free_lines(&l);
}
END_TEST

START_TEST(test_journal_tolerant)
{
	struct sacc_journal_event e;

	/* any key order, whitespace, unknown keys (nested), numbers for
	 * addresses, a short BDF, no "write" (derived from access) */
	ck_assert_int_eq(sacc_journal_parse_line(
				 " { \"access\" : \"dst_write\", \"extra\": {\"a\":[1,2,{\"b\":null}]},"
				 " \"addr\": 4096, \"bdf\": \"01:00.0\", \"t_ns\": 5, \"ev\": \"fault\" }\r\n",
				 &e),
			 1);
	ck_assert_str_eq(e.bdf, "0000:01:00.0");
	ck_assert_uint_eq(e.addr, 4096);
	ck_assert(e.write);
	ck_assert(!e.has_fault_count);
	ck_assert_int_eq(sacc_journal_parse_line(
				 "{\"ev\":\"map\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"name\":\"a\\\"b\\\\c\\u00e9\\n\",\"iova\":\"0X1000\",\"len\":\"0x1000\",\"perm\":\"rw\"}",
				 &e),
			 1);
	ck_assert_str_eq(e.name, "a\"b\\c\xc3\xa9\n");
	ck_assert_uint_eq(e.iova, 0x1000);
	ck_assert_uint_eq(e.perm, 3);
	/* a newer writer's event, and blank lines, are not errors */
	ck_assert_int_eq(sacc_journal_parse_line(
				 "{\"ev\":\"note\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"text\":\"hi\"}",
				 &e),
			 0);
	ck_assert_int_eq(sacc_journal_parse_line("", &e), 0);
	ck_assert_int_eq(sacc_journal_parse_line("  \n", &e), 0);
	/* unmap without perm */
	ck_assert_int_eq(sacc_journal_parse_line(
				 "{\"ev\":\"unmap\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"iova\":\"0x1000\",\"len\":4096}",
				 &e),
			 1);
	ck_assert_uint_eq(e.perm, 0);
}
END_TEST

START_TEST(test_journal_malformed)
{
	static const char *const bad[] = {
		"not json",
		"{",
		"{}",
		"[1,2]",
		"{\"ev\":\"map\"}",
		"{\"ev\":\"map\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"iova\":\"0x1000\",\"len\":4096}",
		"{\"ev\":\"map\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"iova\":\"0x1000\",\"len\":4096,\"perm\":\"x\"}",
		"{\"ev\":\"map\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"iova\":\"0x1000\",\"len\":0,\"perm\":\"r\"}",
		"{\"ev\":\"map\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"iova\":\"0xfffffffffffff000\",\"len\":8192,\"perm\":\"r\"}",
		"{\"ev\":\"fault\",\"t_ns\":-1,\"bdf\":\"0000:01:00.0\",\"addr\":\"0x1\",\"access\":\"src_read\"}",
		"{\"ev\":\"fault\",\"t_ns\":1.5,\"bdf\":\"0000:01:00.0\",\"addr\":\"0x1\",\"access\":\"src_read\"}",
		"{\"ev\":\"fault\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"addr\":\"0x1\",\"access\":\"sideways\"}",
		"{\"ev\":\"fault\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"addr\":\"0x1\",\"access\":200}",
		"{\"ev\":\"fault\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"addr\":\"0x1\",\"access\":\"src_read\",\"write\":1}",
		"{\"ev\":\"fault\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"addr\":\"0x1\",\"access\":\"src_read\",\"req_id\":4294967296}",
		"{\"ev\":\"fault\",\"t_ns\":99999999999999999999,\"bdf\":\"0000:01:00.0\",\"addr\":\"0x1\",\"access\":\"src_read\"}",
		"{\"ev\":\"fault\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"access\":\"src_read\"}",
		"{\"ev\":\"ranges\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"ranges\":[[\"0x2\",\"0x1\"]]}",
		"{\"ev\":\"ranges\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"ranges\":[[\"0x1\"]]}",
		"{\"ev\":\"ranges\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"ranges\":[\"0x1\"]}",
		"{\"ev\":\"reset\",\"t_ns\":1,\"bdf\":\"0000:01:20.0\"}",
		"{\"ev\":\"reset\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\"} x",
		"{\"ev\":\"reset\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",}",
		"{\"ev\":\"reset\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\"",
		"{\"ev\":\"reset\" \"t_ns\":1}",
		"{\"ev\":\"reset\",\"t_ns\":1,\"bdf\":\"bad\\q\"}",
		"{\"ev\":\"reset\",\"t_ns\":01,\"bdf\":\"0000:01:00.0\"}",
		"{\"ev\":7,\"t_ns\":1,\"bdf\":\"0000:01:00.0\"}",
	};
	struct sacc_journal_event e;
	char deep[400];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(sacc_journal_parse_line(bad[i], &e) == -EINVAL,
			      "'%s' not rejected", bad[i]);
	/* nesting beyond the depth limit is refused, not recursed into */
	n += (size_t)snprintf(deep, sizeof(deep), "{\"ev\":\"reset\",\"x\":");
	for (int i = 0; i < 100; i++)
		deep[n++] = '[';
	for (int i = 0; i < 100; i++)
		deep[n++] = ']';
	snprintf(deep + n, sizeof(deep) - n, "}");
	ck_assert_int_eq(sacc_journal_parse_line(deep, &e), -EINVAL);
	ck_assert_int_eq(sacc_journal_parse_line(NULL, &e), -EINVAL);
}
END_TEST

START_TEST(test_journal_format_roundtrip)
{
	struct sacc_journal_event in, out;
	char buf[4096];
	int n;

	memset(&in, 0, sizeof(in));
	in.ev = SACC_JEV_MAP;
	in.t_ns = UINT64_MAX;
	in.pid = 7;
	snprintf(in.bdf, sizeof(in.bdf), "0000:02:00.0");
	snprintf(in.name, sizeof(in.name), "we\"ird\\name\t\x01");
	in.iova = 0xfffff000;
	in.len = 4096;
	in.perm = SACC_JOURNAL_PERM_WRITE;
	n = sacc_journal_format(&in, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	ck_assert_uint_eq(strlen(buf), (size_t)n);
	ck_assert_int_eq(buf[n - 1], '\n');
	ck_assert_int_eq(sacc_journal_parse_line(buf, &out), 1);
	ck_assert_str_eq(out.name, in.name);
	ck_assert_uint_eq(out.t_ns, UINT64_MAX);
	ck_assert_uint_eq(out.iova, in.iova);
	ck_assert_uint_eq(out.perm, in.perm);
	ck_assert_uint_eq(out.pid, 7);
	ck_assert_str_eq(out.bdf, "0000:02:00.0");

	in.ev = SACC_JEV_RANGES;
	in.nr_ranges = SACC_IOMMU_MAX_RANGES;
	for (uint32_t i = 0; i < in.nr_ranges; i++) {
		in.ranges[i].start = (uint64_t)i << 32;
		in.ranges[i].end = ((uint64_t)i << 32) | 0xffffffffu;
	}
	ck_assert_int_gt(sacc_journal_format(&in, buf, sizeof(buf)), 0);
	ck_assert_int_eq(sacc_journal_parse_line(buf, &out), 1);
	ck_assert_uint_eq(out.nr_ranges, SACC_IOMMU_MAX_RANGES);
	ck_assert_uint_eq(out.ranges[63].end, (63ull << 32) | 0xffffffffu);
	ck_assert_int_eq(sacc_journal_format(&in, buf, 100), -EMSGSIZE);
	in.nr_ranges = SACC_IOMMU_MAX_RANGES + 1;
	ck_assert_int_eq(sacc_journal_format(&in, buf, sizeof(buf)), -EINVAL);

	in.ev = SACC_JEV_FAULT;
	in.access = 9;
	ck_assert_int_eq(sacc_journal_format(&in, buf, sizeof(buf)), -EINVAL);
	in.access = SACC_FAULT_DESC_FETCH;
	in.fatal = true;
	in.addr = 0x1230;
	ck_assert_int_gt(sacc_journal_format(&in, buf, sizeof(buf)), 0);
	ck_assert_int_eq(sacc_journal_parse_line(buf, &out), 1);
	ck_assert(out.fatal);
	ck_assert(!out.write);
	ck_assert(!out.has_fault_count);
	ck_assert_uint_eq(out.addr, 0x1230);

	in.ev = SACC_JEV_MAP;
	in.perm = 0;
	ck_assert_int_eq(sacc_journal_format(&in, buf, sizeof(buf)), -EINVAL);
	in.ev = 0;
	ck_assert_int_eq(sacc_journal_format(&in, buf, sizeof(buf)), -EINVAL);
}
END_TEST

/*
 * The reference for journal/format.c: the json-c code that wrote journal
 * lines before the writer left faultlog/ (same members, same flags).
 * Journals written by either must be the same bytes.
 */
static int json_c_line(const struct sacc_journal_event *ev, char *buf,
		       size_t len)
{
	static const char *const perms[] = {NULL, "r", "w", "rw"};
	struct json_object *o = json_object_new_object(), *ranges;
	int ret = 0;

	ret |= fl_json_str(o, "ev", sacc_journal_kind_name(ev->ev));
	ret |= fl_json_u64(o, "t_ns", true, ev->t_ns);
	if (ev->pid)
		ret |= fl_json_u64(o, "pid", true, ev->pid);
	ret |= fl_json_str(o, "bdf", ev->bdf);
	switch (ev->ev) {
	case SACC_JEV_MAP:
	case SACC_JEV_UNMAP:
		ret |= fl_json_str(o, "name", ev->name);
		ret |= fl_json_hex(o, "iova", true, ev->iova);
		ret |= fl_json_u64(o, "len", true, ev->len);
		if (ev->perm)
			ret |= fl_json_str(o, "perm", perms[ev->perm]);
		break;
	case SACC_JEV_RANGES:
		ranges = json_object_new_array();
		ret |= fl_json_add(o, "ranges", ranges);
		for (uint32_t i = 0; i < ev->nr_ranges; i++) {
			struct json_object *pair = json_object_new_array();

			ret |= fl_json_push(ranges, pair);
			ret |= fl_json_push(pair,
					    fl_json_hexval(ev->ranges[i].start));
			ret |= fl_json_push(pair,
					    fl_json_hexval(ev->ranges[i].end));
		}
		break;
	case SACC_JEV_FAULT:
		ret |= fl_json_u64(o, "req_id", true, ev->req_id);
		ret |= fl_json_u64(o, "opcode", true, ev->opcode);
		ret |= fl_json_u64(o, "status", true, ev->status);
		ret |= fl_json_hex(o, "addr", true, ev->addr);
		ret |= fl_json_str(o, "access",
				   sacc_fault_access_name(ev->access));
		ret |= fl_json_bool(o, "write", true, ev->write);
		ret |= fl_json_bool(o, "fatal", true, ev->fatal);
		if (ev->has_fault_count)
			ret |= fl_json_u64(o, "fault_count", true,
					   ev->fault_count);
		if (ev->has_length)
			ret |= fl_json_u64(o, "length", true, ev->length);
		if (ev->has_chan)
			ret |= fl_json_u64(o, "chan", true, ev->chan);
		break;
	case SACC_JEV_RESET:
		break;
	case SACC_JEV_ROTATED:
		ret |= fl_json_u64(o, "rotations", true, ev->rotations);
		ret |= fl_json_u64(o, "faults", true, ev->rotated_faults);
		ret |= fl_json_u64(o, "bytes", true, ev->rotated_bytes);
		break;
	}
	ck_assert_int_eq(ret, 0);
	ret = fl_json_format(o, "\n", buf, len);
	json_object_put(o);
	return ret;
}

static uint64_t rnd(uint64_t *x)
{
	/* xorshift64: the same events on every run */
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A number of every width, small ones often (json-c prints them all
 * the same way, but the edges are where a hand writer slips). */
static uint64_t rnd_num(uint64_t *x)
{
	uint64_t v = rnd(x);

	switch (v & 3) {
	case 0:
		return v >> 60;
	case 1:
		return v >> (rnd(x) & 63);
	case 2:
		return (v & 4) ? UINT64_MAX : 0;
	}
	return v;
}

START_TEST(test_journal_format_is_json_c)
{
	static const uint32_t kinds[] = {SACC_JEV_MAP,	 SACC_JEV_UNMAP,
					 SACC_JEV_RANGES, SACC_JEV_FAULT,
					 SACC_JEV_RESET,  SACC_JEV_ROTATED};
	static const char *const bdfs[] = {"0000:01:00.0", "ffff:ff:1f.7",
					   "0000:00:03.0"};
	char mine[4096], ref[4096];
	uint64_t x = 0x5acc5acc5acc5accull;
	struct sacc_journal_event ev;

	for (int n = 0; n < 20000; n++) {
		size_t nlen;

		memset(&ev, 0, sizeof(ev));
		ev.ev = kinds[rnd(&x) % 6];
		ev.t_ns = rnd_num(&x);
		ev.pid = (uint32_t)rnd_num(&x);
		snprintf(ev.bdf, sizeof(ev.bdf), "%s", bdfs[rnd(&x) % 3]);
		/* every byte value in names: escapes, DEL, UTF-8 and not */
		nlen = rnd(&x) % SACC_DMA_NAME_MAX;
		for (size_t i = 0; i < nlen; i++)
			ev.name[i] = (char)(1 + rnd(&x) % 255);
		ev.iova = rnd_num(&x);
		ev.len = rnd_num(&x);
		ev.perm = (uint32_t)(rnd(&x) % 4);
		if (ev.ev == SACC_JEV_MAP && !ev.perm)
			ev.perm = SACC_JOURNAL_PERM_READ;
		ev.nr_ranges = (uint32_t)(rnd(&x) % (SACC_IOMMU_MAX_RANGES + 1));
		for (uint32_t i = 0; i < ev.nr_ranges; i++) {
			ev.ranges[i].start = rnd_num(&x);
			ev.ranges[i].end = rnd_num(&x);
		}
		ev.req_id = (uint32_t)rnd_num(&x);
		ev.opcode = (uint32_t)rnd_num(&x);
		ev.status = (uint32_t)rnd_num(&x);
		ev.addr = rnd_num(&x);
		ev.access = (uint32_t)(rnd(&x) % 4);
		ev.write = rnd(&x) & 1;
		ev.fatal = rnd(&x) & 1;
		ev.has_fault_count = rnd(&x) & 1;
		ev.fault_count = (uint32_t)rnd_num(&x);
		ev.has_length = rnd(&x) & 1;
		ev.length = (uint32_t)rnd_num(&x);
		ev.has_chan = rnd(&x) & 1;
		ev.chan = (uint32_t)rnd_num(&x);
		ev.rotations = rnd_num(&x);
		ev.rotated_faults = rnd_num(&x);
		ev.rotated_bytes = rnd_num(&x);

		ck_assert_int_eq(sacc_journal_format(&ev, mine, sizeof(mine)),
				 json_c_line(&ev, ref, sizeof(ref)));
		ck_assert_msg(!strcmp(mine, ref), "event %d:\n%s\n%s", n,
			      mine, ref);
	}
	/* too small by one byte (the NUL): both refuse */
	{
		int len = json_c_line(&ev, ref, sizeof(ref));

		ck_assert_int_gt(len, 0);
		ck_assert_int_eq(json_c_line(&ev, ref, (size_t)len),
				 -EMSGSIZE);
		ck_assert_int_eq(sacc_journal_format(&ev, mine, (size_t)len),
				 -EMSGSIZE);
		ck_assert_int_eq(
		    sacc_journal_format(&ev, mine, (size_t)len + 1), len);
	}
}
END_TEST

static uint64_t fake_ns;

static uint64_t fake_clock(void *ctx)
{
	(void)ctx;
	return fake_ns;
}

static char *make_tmpdir(void)
{
	char *d = strdup("/tmp/test_faultlog.XXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static void rm_tmpdir(char *d)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	ck_assert_int_eq(system(cmd), 0);
	free(d);
}

START_TEST(test_journal_writer)
{
	static const struct sacc_iova_range r[] = { { 0, 0xfedfffff },
						    { 0xfef00000,
						      0x7fffffffff } };
	struct sacc_journal *j;
	struct sacc_journal_fault f = {
		.req_id = 7,
		.opcode = SACC_OP_MEMCPY,
		.status = SACC_STS_DMA_FAULT,
		.addr = 0x9010,
		.info = SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE,
		.fault_count = 3,
		.has_chan = true,
		.chan = 2,
	};
	struct sacc_err err = { 0 };
	struct sacc_journal_event e;
	struct lines l;
	char *dir = make_tmpdir(), path[600];

	setenv(SACC_JOURNAL_DIR_ENV, dir, 1);
	ck_assert_int_eq(sacc_journal_open(&j, "01:00.0", &err), 0);
	snprintf(path, sizeof(path), "%s/0000:01:00.0.jsonl", dir);
	ck_assert_str_eq(sacc_journal_path(j), path);
	sacc_journal_set_clock(j, fake_clock, NULL);
	fake_ns = 100;
	ck_assert_int_eq(sacc_journal_ranges(j, r, 2, &err), 0);
	fake_ns = 200;
	ck_assert_int_eq(sacc_journal_map(j, "dst", 0x9000, 4096,
					  SACC_JOURNAL_PERM_WRITE, &err),
			 0);
	fake_ns = 300;
	ck_assert_int_eq(sacc_journal_fault(j, &f, &err), 0);
	fake_ns = 400;
	ck_assert_int_eq(sacc_journal_unmap(j, "dst", 0x9000, 4096,
					    SACC_JOURNAL_PERM_WRITE, &err),
			 0);
	fake_ns = 500;
	ck_assert_int_eq(sacc_journal_reset(j, &err), 0);

	/* bad arguments: refused with a message, nothing written */
	ck_assert_int_eq(sacc_journal_map(j, "x", 0x1000, 0, 1, &err), -EINVAL);
	ck_assert_int_eq(err.code, -EINVAL);
	ck_assert_int_eq(sacc_journal_map(j, "x", 0x1000, 4096, 0, &err),
			 -EINVAL);
	ck_assert_int_eq(sacc_journal_map(j, "x", 0x1000, 4096, 4, &err),
			 -EINVAL);
	f.info = 200; /* no such access (7 is v0.4's dev_write) */
	ck_assert_int_eq(sacc_journal_fault(j, &f, &err), -EINVAL);
	ck_assert_int_eq(sacc_journal_ranges(j, NULL, 1, &err), -EINVAL);
	sacc_journal_close(j);
	sacc_journal_close(NULL);

	l = read_lines(path);
	ck_assert_uint_eq(l.n, 5);
	ck_assert_int_eq(sacc_journal_parse_line(l.v[0], &e), 1);
	ck_assert_int_eq(e.ev, SACC_JEV_RANGES);
	ck_assert_uint_eq(e.t_ns, 100);
	ck_assert_uint_eq(e.pid, (uint32_t)getpid());
	ck_assert_uint_eq(e.nr_ranges, 2);
	ck_assert_int_eq(sacc_journal_parse_line(l.v[1], &e), 1);
	ck_assert_int_eq(e.ev, SACC_JEV_MAP);
	ck_assert_str_eq(e.name, "dst");
	ck_assert_uint_eq(e.perm, SACC_JOURNAL_PERM_WRITE);
	ck_assert_int_eq(sacc_journal_parse_line(l.v[2], &e), 1);
	ck_assert_int_eq(e.ev, SACC_JEV_FAULT);
	ck_assert_uint_eq(e.access, SACC_FAULT_DST_WRITE);
	ck_assert(e.write);
	ck_assert_uint_eq(e.req_id, 7);
	ck_assert_uint_eq(e.fault_count, 3);
	ck_assert(e.has_chan);
	ck_assert_uint_eq(e.chan, 2);
	ck_assert_uint_eq(e.addr, 0x9010);
	ck_assert_int_eq(sacc_journal_parse_line(l.v[3], &e), 1);
	ck_assert_int_eq(e.ev, SACC_JEV_UNMAP);
	ck_assert_int_eq(sacc_journal_parse_line(l.v[4], &e), 1);
	ck_assert_int_eq(e.ev, SACC_JEV_RESET);
	ck_assert_uint_eq(e.t_ns, 500);
	free_lines(&l);

	/* the directory is the fault log's input */
	{
		struct sacc_faultlog *fl = sacc_faultlog_new();

		ck_assert_int_eq(sacc_faultlog_add_journal_dir(fl, NULL, &err),
				 5);
		ck_assert_int_eq(sacc_faultlog_join(fl, &err), 1);
		ck_assert_int_eq(sacc_faultlog_get(fl, 0)->attr,
				 SACC_ATTR_MAPPED);
		ck_assert_has(sacc_faultlog_get(fl, 0)->attr_text,
			      "inside buffer 'dst' at offset 0x10");
		sacc_faultlog_free(fl);
	}
	ck_assert_int_eq(sacc_journal_open(&j, "nonsense", &err), -EINVAL);
	ck_assert_int_eq(sacc_journal_open_path(&j, "/nonexistent/dir/x.jsonl",
						"0000:01:00.0", &err),
			 -ENOENT);
	ck_assert_has(err.msg, "/nonexistent/dir/x.jsonl");
	unsetenv(SACC_JOURNAL_DIR_ENV);
	rm_tmpdir(dir);
}
END_TEST

struct writer_arg {
	const char *path;
	int id;
};

static void *writer(void *p)
{
	struct writer_arg *a = p;
	struct sacc_journal *j;
	char name[64];

	if (sacc_journal_open_path(&j, a->path, "0000:01:00.0", NULL))
		return (void *)1;
	for (int i = 0; i < 250; i++) {
		snprintf(name, sizeof(name), "t%d_buffer_%d_padding_padding",
			 a->id, i);
		if (sacc_journal_map(j, name, 0x1000 * (uint64_t)(i + 1), 4096,
				     3, NULL))
			return (void *)1;
	}
	sacc_journal_close(j);
	return NULL;
}

START_TEST(test_journal_concurrent)
{
	char *dir = make_tmpdir(), path[600];
	struct writer_arg args[4];
	pthread_t t[4];
	struct sacc_journal_event e;
	struct lines l;

	snprintf(path, sizeof(path), "%s/j.jsonl", dir);
	for (int i = 0; i < 4; i++) {
		args[i] = (struct writer_arg){ path, i };
		ck_assert_int_eq(pthread_create(&t[i], NULL, writer, &args[i]),
				 0);
	}
	for (int i = 0; i < 4; i++) {
		void *ret;

		pthread_join(t[i], &ret);
		ck_assert_ptr_null(ret);
	}
	l = read_lines(path);
	ck_assert_uint_eq(l.n, 1000);
	for (size_t i = 0; i < l.n; i++)
		ck_assert_msg(sacc_journal_parse_line(l.v[i], &e) == 1,
			      "torn line %zu: %s", i, l.v[i]);
	free_lines(&l);
	rm_tmpdir(dir);
}
END_TEST

/* ---- the size cap: rotation ---- */

/* A journal's fault lines, and the largest "faults" of its rotated lines
 * (also which of them is first). */
static void journal_tally(const char *path, uint64_t *faults,
			  uint64_t *rotated, uint64_t *rotations,
			  bool *rotated_first)
{
	struct sacc_journal_event e;
	struct lines l = read_lines(path);

	*faults = *rotated = *rotations = 0;
	*rotated_first = false;
	for (size_t i = 0; i < l.n; i++) {
		ck_assert_msg(sacc_journal_parse_line(l.v[i], &e) == 1,
			      "torn line %zu: %s", i, l.v[i]);
		if (e.ev == SACC_JEV_FAULT)
			(*faults)++;
		if (e.ev == SACC_JEV_ROTATED) {
			*rotated_first |= i == 0;
			if (e.rotated_faults > *rotated)
				*rotated = e.rotated_faults;
			if (e.rotations > *rotations)
				*rotations = e.rotations;
		}
	}
	free_lines(&l);
}

static int hook_calls;

static void on_rotated(void *ctx, struct sacc_journal *j)
{
	hook_calls++;
	/* what libsacc does: the live mappings again; these never rotate */
	for (int i = 0; i < 64; i++)
		ck_assert_int_eq(sacc_journal_map(j, (const char *)ctx,
						  0x100000, 4096,
						  SACC_JOURNAL_PERM_WRITE,
						  NULL),
				 0);
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	return (uint64_t)st.st_size;
}

START_TEST(test_journal_rotation)
{
	struct sacc_journal_fault f = {
		.req_id = 1,
		.opcode = SACC_OP_MEMCPY,
		.status = SACC_STS_DMA_FAULT,
		.addr = 0x200010,
		.info = SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE,
		.fault_count = 1,
	};
	struct sacc_faultlog *fl = sacc_faultlog_new();
	struct sacc_faultlog_summary sum;
	struct sacc_faultlog_src *src;
	struct sacc_journal *j;
	struct sacc_err err = { 0 };
	struct sacc_journal_event e;
	char *dir = make_tmpdir(), path[600], old[610], *text = NULL;
	uint64_t max, faults, rotated, rotations, old_faults, old_rot, size1;
	bool first;
	size_t tlen = 0;
	FILE *out;
	int written = 0, n;

	/* the cap: default, environment, refused */
	unsetenv(SACC_JOURNAL_MAX_ENV);
	ck_assert_int_eq(sacc_journal_max_bytes(&max, &err), 0);
	ck_assert_uint_eq(max, 8u << 20);
	setenv(SACC_JOURNAL_MAX_ENV, "0", 1);
	ck_assert_int_eq(sacc_journal_max_bytes(&max, &err), 0);
	ck_assert_uint_eq(max, 0);
	setenv(SACC_JOURNAL_MAX_ENV, "64KiB", 1);
	ck_assert_int_eq(sacc_journal_max_bytes(&max, &err), 0);
	ck_assert_uint_eq(max, 64 << 10);
	setenv(SACC_JOURNAL_MAX_ENV, "lots", 1);
	setenv(SACC_JOURNAL_DIR_ENV, dir, 1);
	ck_assert_int_eq(sacc_journal_open(&j, "01:00.0", &err), -EINVAL);
	ck_assert_has(err.msg, "SACC_JOURNAL_MAX='lots' is not a size");
	setenv(SACC_JOURNAL_MAX_ENV, "4K", 1);
	ck_assert_int_eq(sacc_journal_open(&j, "01:00.0", &err), 0);
	unsetenv(SACC_JOURNAL_MAX_ENV);
	ck_assert_uint_eq(sacc_journal_get_max(j), 4096);
	sacc_journal_set_rotate_hook(j, on_rotated, "dst");
	snprintf(path, sizeof(path), "%s/0000:01:00.0.jsonl", dir);
	snprintf(old, sizeof(old), "%s.1", path);

	/* a directory reader, there before anything was written */
	ck_assert_int_eq(sacc_faultlog_src_open(&src, SACC_FAULTLOG_JOURNAL,
						dir, 0, &err),
			 0);
	ck_assert_int_eq(sacc_journal_map(j, "dst", 0x200000, 4096,
					  SACC_JOURNAL_PERM_WRITE, &err),
			 0);
	/* up to the cap nothing rotates; the line that goes past it does */
	while (access(old, F_OK)) {
		ck_assert_uint_le(file_size(path), 4096);
		ck_assert_int_eq(hook_calls, 0);
		ck_assert_int_eq(sacc_journal_fault(j, &f, &err), 0);
		if (++written == 5) /* the reader has read some of it */
			ck_assert_int_eq(sacc_faultlog_src_read(src, NULL, NULL,
								NULL, &err),
					 6);
	}
	ck_assert_int_eq(hook_calls, 1);
	size1 = file_size(old);
	ck_assert_uint_gt(size1, 4096);
	journal_tally(old, &old_faults, &old_rot, &rotations, &first);
	ck_assert_uint_eq(old_faults, written);
	ck_assert_uint_eq(rotations, 0);
	journal_tally(path, &faults, &rotated, &rotations, &first);
	ck_assert(first);
	ck_assert_uint_eq(rotated, written);
	ck_assert_uint_eq(rotations, 1);
	ck_assert_uint_eq(faults, 0);
	{
		struct lines l = read_lines(path);

		ck_assert_int_eq(sacc_journal_parse_line(l.v[0], &e), 1);
		ck_assert_int_eq(e.ev, SACC_JEV_ROTATED);
		ck_assert_uint_eq(e.rotated_bytes, size1);
		ck_assert_uint_eq(e.pid, (uint32_t)getpid());
		ck_assert_str_eq(e.bdf, "0000:01:00.0");
		/* the hook's 64 maps are past the cap, yet did not rotate */
		ck_assert_uint_eq(l.n, 65);
		ck_assert_uint_gt(file_size(path), 4096);
		ck_assert_int_eq(sacc_journal_parse_line(l.v[1], &e), 1);
		ck_assert_int_eq(e.ev, SACC_JEV_MAP);
		ck_assert_str_eq(e.name, "dst");
		free_lines(&l);
	}
	/* the reader finishes the old file (now .1) where it stopped, then
	 * reads the new one from its start, though it is larger than what
	 * had been read of the old one */
	n = sacc_faultlog_src_read(src, fl, NULL, NULL, &err);
	ck_assert_int_eq(n, written - 5 + 65);

	/* more: a second rotation; the count carries over */
	sacc_journal_set_rotate_hook(j, NULL, NULL);
	for (int i = 0; i < 100; i++, written++)
		ck_assert_int_eq(sacc_journal_fault(j, &f, &err), 0);
	journal_tally(path, &faults, &rotated, &rotations, &first);
	ck_assert(first);
	ck_assert_uint_ge(rotations, 2);
	ck_assert_uint_eq(rotated + faults, written);
	ck_assert_int_eq(hook_calls, 1);

	/* the fault log counts what was rotated away (the .1 is not read) */
	sacc_faultlog_free(fl);
	fl = sacc_faultlog_new();
	ck_assert_int_eq(sacc_faultlog_add_journal_dir(fl, dir, &err),
			 (int)(faults + 1));
	ck_assert_int_eq(sacc_faultlog_join(fl, &err), (int)faults);
	sacc_faultlog_summary(fl, &sum);
	ck_assert_uint_eq(sum.total.journal_rotated, rotated);
	ck_assert_uint_eq(sum.journal_rotations, rotations);
	ck_assert_uint_eq(sum.total.device_journal, faults);
	ck_assert_uint_eq(sum.total.device, faults + rotated);
	ck_assert_has(sum.text, "rotated away");
	ck_assert_has(sum.text, "(journal size cap)");
	out = open_memstream(&text, &tlen);
	ck_assert_int_eq(sacc_faultlog_print_summary(fl, out), 0);
	fclose(out);
	ck_assert_has(text, "faults rotated away with the journal past its "
			    "size cap (0000:01:00.0.jsonl.1)");
	free(text);
	text = NULL;
	out = open_memstream(&text, &tlen);
	ck_assert_int_eq(sacc_faultlog_print_json_summary(fl, out), 0);
	fclose(out);
	ck_assert_has(text, "\"journal_rotations\":");
	ck_assert_has(text, "\"journal_rotated\":");
	free(text);

	/* a removed journal is created again */
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(sacc_journal_reset(j, &err), 0);
	ck_assert_uint_gt(file_size(path), 0);
	ck_assert_int_eq(access(path, F_OK), 0);

	sacc_faultlog_src_close(src);
	sacc_journal_close(j);
	sacc_faultlog_free(fl);
	unsetenv(SACC_JOURNAL_DIR_ENV);
	rm_tmpdir(dir);
}
END_TEST

struct rot_arg {
	const char *path;
	int faults;
};

static void *rot_writer(void *p)
{
	struct rot_arg *a = p;
	struct sacc_journal_fault f = {
		.req_id = 9,
		.addr = 0x1000,
		.info = SACC_FAULT_SRC_READ,
		.fault_count = 1,
	};
	struct sacc_journal *j;

	if (sacc_journal_open_path(&j, a->path, "0000:01:00.0", NULL))
		return (void *)1;
	sacc_journal_set_max(j, 8192);
	for (int i = 0; i < a->faults; i++) {
		if (sacc_journal_fault(j, &f, NULL) ||
		    sacc_journal_map(j, "padding_padding_padding", 0x1000, 4096,
				     SACC_JOURNAL_PERM_READ, NULL))
			return (void *)1;
	}
	sacc_journal_close(j);
	return NULL;
}

/* Writers sharing a journal (each its own descriptor, as processes
 * have): it rotates once per fill, no line is torn or lost from the
 * count, and every writer follows the path to the new file. */
START_TEST(test_journal_rotation_concurrent)
{
	char *dir = make_tmpdir(), path[600];
	struct rot_arg a = { path, 300 };
	uint64_t faults, rotated, rotations;
	pthread_t t[4];
	bool first;

	snprintf(path, sizeof(path), "%s/0000:01:00.0.jsonl", dir);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, rot_writer, &a),
				 0);
	for (int i = 0; i < 4; i++) {
		void *ret;

		pthread_join(t[i], &ret);
		ck_assert_ptr_null(ret);
	}
	journal_tally(path, &faults, &rotated, &rotations, &first);
	ck_assert_uint_gt(rotations, 10);
	ck_assert_uint_eq(rotated + faults, 4 * 300);
	ck_assert_uint_le(file_size(path), 8192 + 4096);
	rm_tmpdir(dir);
}
END_TEST

/* ---- join and attribution on the fixtures ---- */

START_TEST(test_join_fixtures)
{
	struct sacc_faultlog *fl = load_fixtures(true);
	const struct sacc_fault *f;
	struct sacc_err err = { 0 };
	uint64_t last = 0;

	ck_assert_int_eq(sacc_faultlog_join(fl, &err), 13);
	ck_assert_uint_eq(sacc_faultlog_count(fl), 13);

	/* unmapped destination write, seen by all three */
	f = by_req(fl, "0000:01:00.0", 1);
	ck_assert_uint_eq(f->sources,
			  SACC_FSRC_DEVICE | SACC_FSRC_KERNEL | SACC_FSRC_QEMU);
	ck_assert_int_eq(f->attr, SACC_ATTR_NEVER_MAPPED);
	ck_assert_str_eq(f->attr_text, "never mapped");
	ck_assert(f->iova_exact);
	ck_assert_uint_eq(f->iova, 0x40000000);
	ck_assert_uint_eq(f->access, SACC_FAULT_DST_WRITE);
	ck_assert_uint_eq(f->kernel_reason, 5);
	ck_assert_str_eq(f->kernel_reason_text, "PTE Write access is not set");
	ck_assert_uint_eq(f->kernel_t_ns, 10099995000ull);
	ck_assert_int_eq(f->t_from, SACC_TSRC_DEVICE);
	ck_assert_uint_eq(f->t_ns, 10100000000ull);
	ck_assert(f->has_viommu_recorded && f->viommu_recorded);
	ck_assert_uint_eq(f->qemu_reason, 5);
	ck_assert_uint_eq(f->pid, 321);

	/* straddles the end of 'dst' into its guard page */
	f = by_req(fl, "0000:01:00.0", 2);
	ck_assert_int_eq(f->attr, SACC_ATTR_GUARD);
	ck_assert_has(f->attr_text, "guard page between 'dst' and 'old'");
	ck_assert(f->sources & SACC_FSRC_KERNEL);

	/* use after unmap */
	f = by_req(fl, "0000:01:00.0", 3);
	ck_assert_int_eq(f->attr, SACC_ATTR_UNMAPPED_EARLIER);
	ck_assert_has(f->attr_text,
		      "belonged to buffer 'old', unmapped 100.0 ms earlier");
	ck_assert(f->has_buffer);
	ck_assert_str_eq(f->buffer, "old");
	ck_assert_uint_eq(f->buffer_offset, 0x10);
	ck_assert_uint_eq(f->kernel_reason, 6);
	ck_assert(!f->write);

	/* a write into a read-only mapping */
	f = by_req(fl, "0000:01:00.0", 4);
	ck_assert_int_eq(f->attr, SACC_ATTR_MAPPED);
	ck_assert_has(f->attr_text, "inside buffer 'src' at offset 0x100");
	ck_assert_has(f->attr_text, "a device write to a mapping it may only read");
	ck_assert_str_eq(f->buffer, "src");
	ck_assert_uint_eq(f->buffer_offset, 0x100);
	ck_assert_uint_eq(f->buffer_perm, SACC_JOURNAL_PERM_READ);
	ck_assert_uint_eq(f->opcode, SACC_OP_XFORM);

	/* beyond the address width */
	f = by_req(fl, "0000:01:00.0", 5);
	ck_assert_int_eq(f->attr, SACC_ATTR_BEYOND_RANGES);
	ck_assert_has(f->attr_text, "beyond the usable IOVA ranges");
	ck_assert_uint_eq(f->kernel_reason, 4);

	/* the interrupt window: an INTR-REMAP line, no DMAR trace */
	f = by_req(fl, "0000:01:00.0", 8);
	ck_assert_uint_eq(f->sources, SACC_FSRC_DEVICE | SACC_FSRC_KERNEL);
	ck_assert(f->kernel_intr);
	ck_assert_uint_eq(f->intr_index, 0x12);
	ck_assert_uint_eq(f->kernel_reason, 0x25);
	ck_assert_int_eq(f->attr, SACC_ATTR_BEYOND_RANGES);
	ck_assert_has(f->attr_text, "(x86 interrupt window)");

	/* ratelimited away by the kernel, dropped by the vIOMMU */
	f = by_req(fl, "0000:01:00.0", 6);
	ck_assert_uint_eq(f->sources, SACC_FSRC_DEVICE | SACC_FSRC_QEMU);
	ck_assert_int_eq(f->attr, SACC_ATTR_NEVER_MAPPED);
	ck_assert(f->has_viommu_recorded && !f->viommu_recorded);

	/* fatal ring fault after a reset: completion ring mapped read-only */
	f = by_req(fl, "0000:01:00.0", 7);
	ck_assert(f->fatal);
	ck_assert_uint_eq(f->access, SACC_FAULT_CQ_WRITE);
	ck_assert_uint_eq(f->status, 0);
	ck_assert_uint_eq(f->fault_count, 1);
	ck_assert_int_eq(f->attr, SACC_ATTR_MAPPED);
	ck_assert_str_eq(f->buffer, "cq_ro");
	ck_assert_has(f->attr_text, "a device write to a mapping it may only read");
	ck_assert_uint_eq(f->kernel_t_ns, 11099995000ull);

	/* isolation: B faults at an IOVA only A maps */
	f = by_req(fl, "0000:02:00.0", 9);
	ck_assert_uint_eq(f->sources,
			  SACC_FSRC_DEVICE | SACC_FSRC_KERNEL | SACC_FSRC_QEMU);
	ck_assert_int_eq(f->attr, SACC_ATTR_NEVER_MAPPED);
	ck_assert_uint_eq(f->sid, 0x200);

	/* kernel + trace without a device record (another process) */
	f = by_page(fl, "0000:01:00.0", 0x60000000);
	ck_assert_uint_eq(f->sources, SACC_FSRC_KERNEL | SACC_FSRC_QEMU);
	ck_assert(f->iova_exact); /* the trace has the address */
	ck_assert_int_eq(f->t_from, SACC_TSRC_KERNEL);
	ck_assert_int_eq(f->attr, SACC_ATTR_NEVER_MAPPED);
	ck_assert(!f->has_req);
	f = by_page(fl, "0000:01:00.0", 0x90000000);
	ck_assert(f->has_pasid);
	ck_assert_uint_eq(f->pasid, 1);

	/* a device nobody journals */
	f = by_page(fl, "0000:00:1f.2", 0x3000);
	ck_assert_uint_eq(f->sources, SACC_FSRC_KERNEL);
	ck_assert_int_eq(f->attr, SACC_ATTR_UNATTRIBUTED);
	ck_assert_str_eq(f->attr_text, "no SACC journal for 0000:00:1f.2");
	ck_assert(!f->iova_exact);

	/* only the trace saw it; its time is estimated from a neighbour */
	f = by_page(fl, "0000:01:00.0", 0x70000000);
	ck_assert_uint_eq(f->sources, SACC_FSRC_QEMU);
	ck_assert_int_eq(f->t_from, SACC_TSRC_QEMU);
	ck_assert_uint_eq(f->t_ns, 10770010000ull);
	ck_assert_int_eq(f->attr, SACC_ATTR_NEVER_MAPPED);
	ck_assert(f->has_viommu_recorded && !f->viommu_recorded);

	/* time order */
	for (size_t i = 0; i < sacc_faultlog_count(fl); i++) {
		f = sacc_faultlog_get(fl, i);
		ck_assert_int_ne(f->t_from, SACC_TSRC_NONE);
		ck_assert_uint_ge(f->t_ns, last);
		last = f->t_ns;
	}
	ck_assert_ptr_null(sacc_faultlog_get(fl, 13));
	sacc_faultlog_free(fl);
}
END_TEST

START_TEST(test_summary_fixtures)
{
	struct sacc_faultlog *fl = load_fixtures(true);
	struct sacc_faultlog_summary s;
	const struct sacc_faultlog_counts *a;

	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 13);
	sacc_faultlog_summary(fl, &s);
	ck_assert_uint_eq(s.total.device, 9);
	ck_assert_uint_eq(s.total.device_journal, 9);
	ck_assert_uint_eq(s.total.device_counter, 9); /* 7 + 1 after reset, + B */
	ck_assert_uint_eq(s.total.faults, 13);
	ck_assert_uint_eq(s.total.kernel_printed, 11);
	ck_assert_uint_eq(s.total.matched_kernel, 8);
	ck_assert_uint_eq(s.total.qemu_seen, 11);
	ck_assert_uint_eq(s.total.viommu_recorded, 9);
	ck_assert_uint_eq(s.total.matched_qemu, 8);
	ck_assert_uint_eq(s.total.records, 13);
	ck_assert_uint_eq(s.total.unattributed, 1);
	ck_assert_uint_eq(s.kernel_suppressed, 5);
	ck_assert_uint_eq(s.kernel_suppressed_lines, 1);
	ck_assert_uint_eq(s.drhd_lines, 2);
	ck_assert_uint_eq(s.overflow_events, 1);
	ck_assert(s.have_qemu);
	ck_assert(s.have_frr);
	/* 01:00.0: 11 faults, the kernel learned of 9: the two the vIOMMU
	 * dropped (0x50000000, 0x70000000) are lost */
	ck_assert(s.lost_exact);
	ck_assert_uint_eq(s.lost, 2);
	ck_assert_has(s.lost_reason, "one fault recording register");
	ck_assert_uint_eq(s.bad_kmsg, 0);
	ck_assert_uint_eq(s.bad_journal, 0);
	ck_assert_uint_eq(s.bad_trace, 0);
	ck_assert_uint_eq(s.kmsg_user_ignored, 1);
	ck_assert_str_eq(s.text,
			 "device 9 (13 faults in all sources), qemu saw 11, vIOMMU recorded 9, kernel printed 11 (suppressed 5), overflow events 1, lost 2 (single fault recording register overflow)");
	ck_assert_uint_eq(s.nr_devices, 3);
	ck_assert_str_eq(s.devices[0].bdf, "0000:00:1f.2");
	ck_assert_str_eq(s.devices[1].bdf, "0000:01:00.0");
	ck_assert_str_eq(s.devices[2].bdf, "0000:02:00.0");
	a = &s.devices[1];
	ck_assert_uint_eq(a->device, 8);
	ck_assert_uint_eq(a->device_counter, 8);
	ck_assert_uint_eq(a->faults, 11);
	ck_assert_uint_eq(a->kernel_printed, 9);
	ck_assert_uint_eq(a->matched_kernel, 7);
	ck_assert_uint_eq(a->qemu_seen, 10);
	ck_assert_uint_eq(a->viommu_recorded, 8);
	ck_assert_uint_eq(a->records, 11);
	sacc_faultlog_free(fl);

	/* without the trace: kernel and journal only, lost is an estimate */
	fl = load_fixtures(false);
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 12);
	sacc_faultlog_summary(fl, &s);
	ck_assert(!s.have_qemu);
	ck_assert(!s.lost_exact);
	ck_assert_uint_eq(s.total.faults, 12);
	ck_assert_uint_eq(s.lost, 0); /* 12 - (11 printed + 5 suppressed) */
	ck_assert_str_eq(s.text,
			 "device 9 (12 faults in all sources), vIOMMU/kernel saw 16 (printed 11, suppressed 5), overflow events 1, lost 0");
	sacc_faultlog_free(fl);
}
END_TEST

START_TEST(test_join_window_and_rejoin)
{
	struct sacc_faultlog *fl = load_fixtures(false);
	char a[4096], b[4096];

	/* 5 us between each DMAR line and its journal event */
	sacc_faultlog_set_match_window(fl, 1000);
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 20);
	ck_assert(!(by_req(fl, "0000:01:00.0", 1)->sources & SACC_FSRC_KERNEL));
	ck_assert_int_eq(by_page(fl, "0000:01:00.0", 0x40000000)->attr,
			 SACC_ATTR_NEVER_MAPPED);
	sacc_faultlog_set_match_window(fl, 10000);
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 12);
	ck_assert_int_gt(sacc_fault_format_json(sacc_faultlog_get(fl, 3), 3, a,
						sizeof(a)),
			 0);
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 12);
	ck_assert_int_gt(sacc_fault_format_json(sacc_faultlog_get(fl, 3), 3, b,
						sizeof(b)),
			 0);
	ck_assert_str_eq(a, b);
	ck_assert_int_eq(sacc_fault_format_json(sacc_faultlog_get(fl, 3), 3, a,
						10),
			 -EMSGSIZE);
	sacc_faultlog_free(fl);
}
END_TEST

START_TEST(test_join_nearest)
{
	struct sacc_faultlog *fl = sacc_faultlog_new();
	const struct sacc_fault *f;
	char line[512];

	ck_assert_int_eq(sacc_faultlog_add_journal_line(fl,
			"{\"ev\":\"map\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"name\":\"a\",\"iova\":\"0x1000\",\"len\":4096,\"perm\":\"r\"}"),
			 1);
	/* the same page faulted at 1 s and 2 s; one DMAR line at 1.9 s */
	for (int i = 1; i <= 2; i++) {
		snprintf(line, sizeof(line),
			 "{\"ev\":\"fault\",\"t_ns\":%d000000000,\"bdf\":\"0000:01:00.0\",\"req_id\":%d,\"addr\":\"0x2010\",\"access\":\"dst_write\"}",
			 i, i);
		ck_assert_int_eq(sacc_faultlog_add_journal_line(fl, line), 1);
	}
	ck_assert_int_eq(sacc_faultlog_add_kmsg_line(fl,
			"[    1.900000] DMAR: [DMA Write NO_PASID] Request device [01:00.0] fault addr 0x2000 [fault reason 0x05] PTE Write access is not set"),
			 1);
	/* a read of that page and another device's write never join */
	ck_assert_int_eq(sacc_faultlog_add_kmsg_line(fl,
			"[    1.000000] DMAR: [DMA Read NO_PASID] Request device [01:00.0] fault addr 0x2000 [fault reason 0x06] PTE Read access is not set"),
			 1);
	ck_assert_int_eq(sacc_faultlog_add_kmsg_line(fl,
			"[    1.000000] DMAR: [DMA Write NO_PASID] Request device [01:00.1] fault addr 0x2000 [fault reason 0x05] PTE Write access is not set"),
			 1);
	/* an interrupt remapping fault nobody else saw */
	ck_assert_int_eq(sacc_faultlog_add_kmsg_line(fl,
			"[    3.000000] DMAR: [INTR-REMAP] Request device [01:00.0] fault index 0x7 [fault reason 0x22] Present field in the IRTE entry is clear"),
			 1);
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 5);
	ck_assert(!(by_req(fl, "0000:01:00.0", 1)->sources & SACC_FSRC_KERNEL));
	f = by_req(fl, "0000:01:00.0", 2);
	ck_assert(f->sources & SACC_FSRC_KERNEL);
	ck_assert_int_eq(f->attr, SACC_ATTR_GUARD); /* 0x2010: 'a' + 2 pages */
	f = sacc_faultlog_get(fl, 4);
	ck_assert(f->kernel_intr);
	ck_assert_int_eq(f->attr, SACC_ATTR_UNATTRIBUTED);
	ck_assert_str_eq(f->attr_text,
			 "interrupt remapping fault (index 0x7): no DMA address to attribute");
	ck_assert_str_eq(f->kernel_reason_text,
			 "Present field in the IRTE entry is clear");
	sacc_faultlog_free(fl);

	/* 5000 faults on one page, 5000 DMAR lines: each joins once */
	fl = sacc_faultlog_new();
	for (int i = 0; i < 5000; i++) {
		snprintf(line, sizeof(line),
			 "{\"ev\":\"fault\",\"t_ns\":%d,\"bdf\":\"0000:01:00.0\",\"req_id\":%d,\"addr\":\"0x5000\",\"access\":\"src_read\"}",
			 1000000 + i * 1000, i);
		ck_assert_int_eq(sacc_faultlog_add_journal_line(fl, line), 1);
		snprintf(line, sizeof(line),
			 "3,%d,%d,-;DMAR: [DMA Read NO_PASID] Request device [01:00.0] fault addr 0x5000 [fault reason 0x06] PTE Read access is not set",
			 i, 1000 + i);
		ck_assert_int_eq(sacc_faultlog_add_kmsg_line(fl, line), 1);
	}
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 5000);
	for (size_t i = 0; i < 5000; i++) {
		f = sacc_faultlog_get(fl, i);
		ck_assert_uint_eq(f->sources, SACC_FSRC_DEVICE | SACC_FSRC_KERNEL);
		ck_assert_uint_eq(f->kernel_t_ns, f->t_ns);
	}
	sacc_faultlog_free(fl);
}
END_TEST

/* ---- the 1000-fault burst ---- */

static struct sacc_faultlog *burst(unsigned int journaled, unsigned int total)
{
	struct sacc_faultlog *fl = sacc_faultlog_new();
	char line[512];

	ck_assert_int_eq(sacc_faultlog_add_journal_line(fl,
			"{\"ev\":\"ranges\",\"t_ns\":1000,\"bdf\":\"0000:01:00.0\",\"ranges\":[[\"0x0\",\"0xfedfffff\"]]}"),
			 1);
	ck_assert_int_eq(sacc_faultlog_add_journal_line(fl,
			"{\"ev\":\"map\",\"t_ns\":2000,\"bdf\":\"0000:01:00.0\",\"name\":\"src\",\"iova\":\"0x1000\",\"len\":4096,\"perm\":\"r\"}"),
			 1);
	/* the device counts every fault; the journal only those of
	 * libsacc users: the first total - journaled were someone else's */
	for (unsigned int i = total - journaled; i < total; i++) {
		snprintf(line, sizeof(line),
			 "{\"ev\":\"fault\",\"t_ns\":%" PRIu64
			 ",\"bdf\":\"0000:01:00.0\",\"req_id\":%u,\"opcode\":1,\"status\":2,\"addr\":\"0x%" PRIx64
			 "\",\"access\":\"dst_write\",\"write\":true,\"fatal\":false,\"fault_count\":%u}",
			 (uint64_t)20000000000ull + i * 10000u, i,
			 (uint64_t)0x40000000u + i * 0x1000u, i + 1);
		ck_assert_int_eq(sacc_faultlog_add_journal_line(fl, line), 1);
	}
	return fl;
}

static void burst_kernel(struct sacc_faultlog *fl, unsigned int printed,
			 unsigned int suppressed)
{
	char line[512];

	for (unsigned int i = 0; i < printed; i++) {
		snprintf(line, sizeof(line),
			 "3,%u,%" PRIu64
			 ",-;DMAR: [DMA Write NO_PASID] Request device [01:00.0] fault addr 0x%" PRIx64
			 " [fault reason 0x05] PTE Write access is not set",
			 1000 + i, (uint64_t)20000000u + i * 10u,
			 (uint64_t)0x40000000u + i * 0x1000u);
		ck_assert_int_eq(sacc_faultlog_add_kmsg_line(fl, line), 1);
	}
	ck_assert_int_eq(sacc_faultlog_add_kmsg_line(fl,
			"3,999,19999999,-;DMAR: DRHD: handling fault status reg 2"),
			 1);
	snprintf(line, sizeof(line),
		 "4,2000,26000000,-;dmar_fault: %u callbacks suppressed",
		 suppressed);
	ck_assert_int_eq(sacc_faultlog_add_kmsg_line(fl, line), 1);
}

/* v0.4: a fault past the end of the device's own memory (dev_write) is
 * no IOMMU fault: never joined to a DMAR line at the same address, never
 * attributed to the IOVA mapping there, never counted as lost. */
START_TEST(test_devmem_fault)
{
	static const char *const lines[] = {
		"{\"ev\":\"ranges\",\"t_ns\":1000,\"pid\":5,\"bdf\":\"0000:01:00.0\",\"ranges\":[[\"0x0\",\"0x7fffffffff\"]]}",
		"{\"ev\":\"map\",\"t_ns\":2000,\"pid\":5,\"bdf\":\"0000:01:00.0\",\"name\":\"hd\",\"iova\":\"0x40000000\",\"len\":4096,\"perm\":\"w\"}",
		"{\"ev\":\"fault\",\"t_ns\":3000,\"pid\":5,\"bdf\":\"0000:01:00.0\",\"req_id\":1,\"opcode\":5,\"status\":2,\"addr\":\"0x40000000\",\"access\":\"dev_write\",\"fatal\":false,\"fault_count\":1,\"length\":64,\"chan\":1}",
	};
	struct sacc_faultlog *fl = sacc_faultlog_new();
	struct sacc_faultlog_summary s;
	const struct sacc_fault *f, *k;
	char json[4096];

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		ck_assert_int_eq(sacc_faultlog_add_journal_line(fl, lines[i]), 1);
	/* an IOMMU fault of something else at the same address */
	ck_assert_int_eq(
	    sacc_faultlog_add_kmsg_line(
		fl, "3,10,3,-;DMAR: [DMA Write NO_PASID] Request device "
		    "[01:00.0] fault addr 0x40000000 [fault reason 0x05] PTE "
		    "Write access is not set"),
	    1);
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 2);
	f = sacc_faultlog_get(fl, 0);
	k = sacc_faultlog_get(fl, 1);
	if (!(f->sources & SACC_FSRC_DEVICE)) {
		const struct sacc_fault *t = f;

		f = k;
		k = t;
	}
	ck_assert(!f->has_kernel);
	ck_assert(f->write); /* dev_write, with no "write" key */
	ck_assert_int_eq(f->attr, SACC_ATTR_DEVMEM);
	ck_assert_has(f->attr_text, "device address 0x40000000");
	ck_assert(!f->has_buffer);
	ck_assert_int_eq(f->unlogged, SACC_UNLOGGED_DEVMEM);
	ck_assert_str_eq(sacc_fault_attr_name(f->attr), "device_memory");
	ck_assert_str_eq(sacc_fault_unlogged_name(f->unlogged),
			 "device_memory");
	ck_assert(k->has_kernel && !(k->sources & SACC_FSRC_DEVICE));
	ck_assert_int_gt(sacc_fault_format_json(f, 0, json, sizeof(json)), 0);
	ck_assert_has(json, "\"access\":\"dev_write\"");
	ck_assert_has(json, "\"unlogged\":\"device_memory\"");
	sacc_faultlog_summary(fl, &s);
	ck_assert_uint_eq(s.unreported_devmem, 1);
	ck_assert_uint_eq(s.total.unreported, 1);
	ck_assert_has(s.text, "never reported 1 (device memory 1)");
	sacc_faultlog_free(fl);
}
END_TEST

/* v0.4: a SEGMENT entry's fetch fault (segment_read) is an IOMMU read:
 * joined to the kernel's DMAR read line at its page, attributed to what
 * is mapped there (the guard page after the segment's buffer); one
 * without a DMAR line is an IOMMU fault the kernel did not print. */
START_TEST(test_segment_fetch_fault)
{
	static const char *const lines[] = {
		"{\"ev\":\"ranges\",\"t_ns\":1000,\"pid\":5,\"bdf\":\"0000:01:00.0\",\"ranges\":[[\"0x0\",\"0x7fffffffff\"]]}",
		"{\"ev\":\"map\",\"t_ns\":2000,\"pid\":5,\"bdf\":\"0000:01:00.0\",\"name\":\"seg\",\"iova\":\"0x40000000\",\"len\":4096,\"perm\":\"r\"}",
		"{\"ev\":\"map\",\"t_ns\":2100,\"pid\":5,\"bdf\":\"0000:01:00.0\",\"name\":\"next\",\"iova\":\"0x40002000\",\"len\":4096,\"perm\":\"w\"}",
		/* straddles the end of 'seg': the second page faults */
		"{\"ev\":\"fault\",\"t_ns\":3000,\"pid\":5,\"bdf\":\"0000:01:00.0\",\"req_id\":7,\"opcode\":6,\"status\":2,\"addr\":\"0x40001000\",\"access\":\"segment_read\",\"fatal\":false,\"fault_count\":1,\"length\":4096,\"chan\":0}",
		/* a segment in write-only 'next', the kernel silent */
		"{\"ev\":\"fault\",\"t_ns\":4000,\"pid\":5,\"bdf\":\"0000:01:00.0\",\"req_id\":8,\"opcode\":6,\"status\":2,\"addr\":\"0x40002000\",\"access\":\"segment_read\",\"fatal\":false,\"fault_count\":2,\"length\":64,\"chan\":0}",
	};
	struct sacc_faultlog *fl = sacc_faultlog_new();
	struct sacc_faultlog_summary s;
	const struct sacc_fault *f, *w;
	char json[4096];

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		ck_assert_int_eq(sacc_faultlog_add_journal_line(fl, lines[i]), 1);
	ck_assert_int_eq(
	    sacc_faultlog_add_kmsg_line(
		fl, "3,10,3,-;DMAR: [DMA Read NO_PASID] Request device "
		    "[01:00.0] fault addr 0x40001000 [fault reason 0x06] PTE "
		    "Read access is not set"),
	    1);
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 2);
	f = sacc_faultlog_get(fl, 0);
	w = sacc_faultlog_get(fl, 1);
	ck_assert_uint_eq(f->req_id, 7);
	ck_assert(f->sources & SACC_FSRC_DEVICE);
	ck_assert(f->has_kernel);
	ck_assert(!f->write);
	ck_assert_uint_eq(f->access, SACC_FAULT_SEGMENT_READ);
	ck_assert_int_eq(f->attr, SACC_ATTR_GUARD);
	ck_assert_has(f->attr_text, "'seg'");
	ck_assert_int_eq(f->unlogged, SACC_UNLOGGED_NONE);
	ck_assert_int_gt(sacc_fault_format_json(f, 0, json, sizeof(json)), 0);
	ck_assert_has(json, "\"access\":\"segment_read\"");
	ck_assert_has(json, "\"op\":\"segment\"");
	ck_assert_uint_eq(w->req_id, 8);
	ck_assert(!w->has_kernel);
	ck_assert_int_eq(w->attr, SACC_ATTR_MAPPED);
	ck_assert_str_eq(w->buffer, "next");
	ck_assert_has(w->attr_text, "a device read from a mapping it may only "
				    "write");
	ck_assert_int_eq(w->unlogged, SACC_UNLOGGED_DROPPED);
	sacc_faultlog_summary(fl, &s);
	ck_assert_uint_eq(s.total.unreported, 0);
	ck_assert_uint_eq(s.total.matched_kernel, 1);
	sacc_faultlog_free(fl);
}
END_TEST

/* Device faults no DMAR line can show, and why. */
START_TEST(test_unlogged_reasons)
{
	static const char *const lines[] = {
		"{\"ev\":\"ranges\",\"t_ns\":1000,\"pid\":5,\"bdf\":\"0000:01:00.0\",\"ranges\":[[\"0x0\",\"0xfedfffff\"],[\"0xfef00000\",\"0x7fffffffff\"]]}",
		"{\"ev\":\"map\",\"t_ns\":2000,\"pid\":5,\"bdf\":\"0000:01:00.0\",\"name\":\"src\",\"iova\":\"0x6000\",\"len\":8192,\"perm\":\"r\"}",
		"{\"ev\":\"map\",\"t_ns\":2100,\"pid\":5,\"bdf\":\"0000:01:00.0\",\"name\":\"own BAR\",\"iova\":\"0x9000\",\"len\":4096,\"perm\":\"rw\"}",
		/* wraps past 2^64: refused without DMA */
		"{\"ev\":\"fault\",\"t_ns\":3000,\"pid\":5,\"bdf\":\"0000:01:00.0\",\"req_id\":1,\"opcode\":1,\"status\":2,\"addr\":\"0xfffffffffffff000\",\"access\":\"src_read\",\"write\":false,\"fatal\":false,\"fault_count\":1,\"length\":8192}",
		/* the interrupt window */
		"{\"ev\":\"fault\",\"t_ns\":4000,\"pid\":5,\"bdf\":\"0000:01:00.0\",\"req_id\":2,\"opcode\":1,\"status\":2,\"addr\":\"0xfee00000\",\"access\":\"dst_write\",\"write\":true,\"fatal\":false,\"fault_count\":2,\"length\":4}",
		/* a permitted mapping whose target refused (own BAR) */
		"{\"ev\":\"fault\",\"t_ns\":5000,\"pid\":5,\"bdf\":\"0000:01:00.0\",\"req_id\":3,\"opcode\":1,\"status\":2,\"addr\":\"0x9000\",\"access\":\"dst_write\",\"write\":true,\"fatal\":false,\"fault_count\":3,\"length\":4}",
		/* an IOMMU fault without a line; and one with */
		"{\"ev\":\"fault\",\"t_ns\":6000,\"pid\":5,\"bdf\":\"0000:01:00.0\",\"req_id\":4,\"opcode\":1,\"status\":2,\"addr\":\"0x40000000\",\"access\":\"dst_write\",\"write\":true,\"fatal\":false,\"fault_count\":4,\"length\":64,\"chan\":3}",
		"{\"ev\":\"fault\",\"t_ns\":7000,\"pid\":5,\"bdf\":\"0000:01:00.0\",\"req_id\":5,\"opcode\":1,\"status\":2,\"addr\":\"0x41000000\",\"access\":\"dst_write\",\"write\":true,\"fatal\":false,\"fault_count\":5}",
	};
	struct sacc_faultlog *fl = sacc_faultlog_new();
	struct sacc_faultlog_summary s;
	const struct sacc_fault *f;
	char json[4096];

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		ck_assert_int_eq(sacc_faultlog_add_journal_line(fl, lines[i]), 1);
	ck_assert_int_eq(
	    sacc_faultlog_add_kmsg_line(
		fl, "3,10,7,-;DMAR: [DMA Write NO_PASID] Request device "
		    "[01:00.0] fault addr 0x41000000 [fault reason 0x05] PTE "
		    "Write access is not set"),
	    1);
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 5);
	f = sacc_faultlog_get(fl, 0);
	ck_assert(f->has_length);
	ck_assert_uint_eq(f->length, 8192);
	ck_assert_int_eq(f->unlogged, SACC_UNLOGGED_NO_DMA);
	/* the interrupt window is IOMMU territory (SACC's QEMU reports
	 * interrupt remapping faults): an unprinted one was dropped */
	ck_assert_int_eq(sacc_faultlog_get(fl, 1)->unlogged,
			 SACC_UNLOGGED_DROPPED);
	f = sacc_faultlog_get(fl, 2);
	ck_assert_int_eq(f->attr, SACC_ATTR_MAPPED);
	ck_assert_int_eq(f->unlogged, SACC_UNLOGGED_NOT_IOMMU);
	ck_assert_int_eq(sacc_faultlog_get(fl, 3)->unlogged,
			 SACC_UNLOGGED_DROPPED);
	ck_assert(sacc_faultlog_get(fl, 3)->has_chan);
	ck_assert_uint_eq(sacc_faultlog_get(fl, 3)->chan, 3);
	ck_assert(!sacc_faultlog_get(fl, 0)->has_chan);
	f = sacc_faultlog_get(fl, 4);
	ck_assert(f->has_kernel && !f->has_length);
	ck_assert_int_eq(f->unlogged, SACC_UNLOGGED_NONE);
	ck_assert_ptr_null(sacc_fault_unlogged_name(f->unlogged));
	ck_assert_str_eq(sacc_fault_unlogged_name(SACC_UNLOGGED_NO_DMA),
			 "no_dma");
	ck_assert_has(sacc_fault_unlogged_text(SACC_UNLOGGED_NOT_IOMMU),
		      "re-entrancy");

	ck_assert_int_gt(sacc_fault_format_json(sacc_faultlog_get(fl, 0), 0,
						json, sizeof(json)),
			 0);
	ck_assert_has(json, "\"length\":8192");
	ck_assert_has(json, "\"unlogged\":\"no_dma\"");
	ck_assert_has(json, "\"chan\":null");
	ck_assert_int_gt(sacc_fault_format_json(sacc_faultlog_get(fl, 3), 3,
						json, sizeof(json)),
			 0);
	ck_assert_has(json, "\"chan\":3");
	ck_assert_int_gt(sacc_fault_format_json(sacc_faultlog_get(fl, 4), 4,
						json, sizeof(json)),
			 0);
	ck_assert_has(json, "\"unlogged\":null");
	ck_assert_int_gt(sacc_fault_format_row(sacc_faultlog_get(fl, 2), json,
					       sizeof(json)),
			 0);
	ck_assert_has(json, "no: not_iommu");
	ck_assert_has(json, "mapped: inside buffer 'own BAR'");
	ck_assert_int_gt(sacc_fault_format_row(sacc_faultlog_get(fl, 4), json,
					       sizeof(json)),
			 0);
	ck_assert_has(json, "device+kernel");
	ck_assert_has(json, "reason 0x05");

	/* faults = printed + suppressed + never reported + lost */
	sacc_faultlog_summary(fl, &s);
	ck_assert_uint_eq(s.total.faults, 5);
	ck_assert_uint_eq(s.total.kernel_printed, 1);
	ck_assert_uint_eq(s.total.unreported, 2);
	ck_assert_uint_eq(s.unreported_no_dma, 1);
	ck_assert_uint_eq(s.unreported_not_iommu, 1);
	ck_assert_uint_eq(s.lost, 2);
	ck_assert_str_eq(s.text,
			 "device 5, vIOMMU/kernel saw 1 (printed 1, suppressed 0), never reported 2 (target refused 1, wraps past 2^64 1), lost 2 (estimate; DMAR ratelimit or single fault recording register)");
	sacc_faultlog_free(fl);
}
END_TEST

/* QEMU retries a failed translation per 4-byte chunk: one fault. */
START_TEST(test_trace_chunks)
{
	struct sacc_faultlog *fl = sacc_faultlog_new();
	struct sacc_faultlog_summary s;
	const struct sacc_fault *f;
	char line[160];

	ck_assert_int_eq(
	    sacc_faultlog_add_journal_line(
		fl, "{\"ev\":\"fault\",\"t_ns\":5000,\"pid\":5,\"bdf\":"
		    "\"0000:01:00.0\",\"req_id\":1,\"opcode\":1,"
		    "\"status\":2,\"addr\":\"0x40000000\",\"access\":"
		    "\"dst_write\",\"write\":true,\"fault_count\":1}"),
	    1);
	for (unsigned int i = 0; i < 16; i++) {
		snprintf(line, sizeof(line),
			 "vtd_dmar_fault sid 0x100 fault 5 addr 0x%x write 1",
			 0x40000000u + 4 * i);
		ck_assert_int_eq(sacc_faultlog_add_trace_line(fl, line), 1);
		if (!i)
			ck_assert_int_eq(
			    sacc_faultlog_add_trace_line(
				fl, "vtd_frr_new index 0 high "
				    "0xffff0500000100 low 0x40000000"),
			    1);
	}
	/* a new access on the same page (not a few bytes on): its own */
	ck_assert_int_eq(
	    sacc_faultlog_add_trace_line(
		fl, "vtd_dmar_fault sid 0x100 fault 5 addr 0x40000000 write 1"),
	    1);
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 2);
	sacc_faultlog_summary(fl, &s);
	ck_assert_uint_eq(s.total.qemu_seen, 2);
	ck_assert_uint_eq(s.trace_chunk_lines, 15);
	ck_assert_uint_eq(s.total.viommu_recorded, 1);
	f = sacc_faultlog_get(fl, 0);
	ck_assert(f->sources & SACC_FSRC_DEVICE);
	ck_assert(f->has_qemu && f->viommu_recorded);
	f = sacc_faultlog_get(fl, 1);
	ck_assert_uint_eq(f->sources, SACC_FSRC_QEMU);
	ck_assert(!f->viommu_recorded);
	sacc_faultlog_free(fl);
}
END_TEST

/* Interrupt remapping faults join the interrupt-window write they
 * describe: compatibility format (0x25, no index) or the IRTE index. */
START_TEST(test_intr_remap_join)
{
	struct sacc_faultlog *fl = sacc_faultlog_new();
	const struct sacc_fault *f;

	/* compat write at t=1 s, remappable (IRTE 0x7fff) at t=1.001 s */
	ck_assert_int_eq(
	    sacc_faultlog_add_journal_line(
		fl, "{\"ev\":\"fault\",\"t_ns\":1000000000,\"pid\":5,"
		    "\"bdf\":\"0000:01:00.0\",\"req_id\":1,\"opcode\":1,"
		    "\"status\":2,\"addr\":\"0xfee00000\",\"access\":"
		    "\"dst_write\",\"fault_count\":1,\"length\":4}"),
	    1);
	ck_assert_int_eq(
	    sacc_faultlog_add_journal_line(
		fl, "{\"ev\":\"fault\",\"t_ns\":1001000000,\"pid\":5,"
		    "\"bdf\":\"0000:01:00.0\",\"req_id\":2,\"opcode\":1,"
		    "\"status\":2,\"addr\":\"0xfeeffff0\",\"access\":"
		    "\"dst_write\",\"fault_count\":2,\"length\":4}"),
	    1);
	/* the kernel prints the compat one late, nearer to req_id 2 */
	ck_assert_int_eq(
	    sacc_faultlog_add_kmsg_line(
		fl, "3,20,1001500,-;DMAR: [INTR-REMAP] Request device "
		    "[01:00.0] fault index 0x0 [fault reason 0x25] Blocked a "
		    "compatibility format interrupt request"),
	    1);
	ck_assert_int_eq(
	    sacc_faultlog_add_trace_line(
		fl, "vtd_dmar_fault sid 0x100 fault 37 addr 0x0 write 1"),
	    1);
	ck_assert_int_eq(
	    sacc_faultlog_add_trace_line(
		fl, "vtd_dmar_fault sid 0x100 fault 34 addr "
		    "0x7fff000000000000 write 1"),
	    1);
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 2);
	f = sacc_faultlog_get(fl, 0);
	ck_assert_uint_eq(f->req_id, 1);
	ck_assert(f->has_kernel && f->kernel_intr);
	ck_assert_uint_eq(f->kernel_reason, 0x25);
	ck_assert(f->has_qemu);
	ck_assert_uint_eq(f->qemu_reason, 0x25);
	f = sacc_faultlog_get(fl, 1);
	ck_assert_uint_eq(f->req_id, 2);
	ck_assert(!f->has_kernel);
	ck_assert(f->has_qemu && f->has_intr_index);
	ck_assert_uint_eq(f->intr_index, 0x7fff);
	ck_assert_int_eq(f->unlogged, SACC_UNLOGGED_DROPPED);
	sacc_faultlog_free(fl);
}
END_TEST

START_TEST(test_burst_1000)
{
	struct sacc_faultlog *fl = burst(1000, 1000);
	struct sacc_faultlog_summary s;
	char line[256];

	burst_kernel(fl, 3, 996);
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 1000);
	sacc_faultlog_summary(fl, &s);
	ck_assert_uint_eq(s.total.device, 1000);
	ck_assert_uint_eq(s.total.device_journal, 1000);
	ck_assert_uint_eq(s.total.device_counter, 1000);
	ck_assert_uint_eq(s.total.faults, 1000);
	ck_assert_uint_eq(s.total.kernel_printed, 3);
	ck_assert_uint_eq(s.total.matched_kernel, 3);
	ck_assert_uint_eq(s.kernel_suppressed, 996);
	/* 1000 - (3 printed + 996 suppressed): an estimate (suppressed
	 * counts ratelimited calls, an upper bound on faults) */
	ck_assert_uint_eq(s.lost, 1);
	ck_assert(!s.lost_exact);
	ck_assert_str_eq(s.text,
			 "device 1000, vIOMMU/kernel saw 999 (printed 3, suppressed 996), lost 1 (estimate; DMAR ratelimit or single fault recording register)");
	/* every fault is a record of its own, attributed */
	for (size_t i = 0; i < sacc_faultlog_count(fl); i++) {
		const struct sacc_fault *f = sacc_faultlog_get(fl, i);

		ck_assert(f->sources & SACC_FSRC_DEVICE);
		ck_assert_uint_eq(f->req_id, i);
		ck_assert_int_eq(f->attr, SACC_ATTR_NEVER_MAPPED);
		ck_assert_uint_eq(!!(f->sources & SACC_FSRC_KERNEL), i < 3);
	}
	ck_assert_uint_eq(s.total.unattributed, 0);

	/* the QEMU trace: all 1000 reached the vIOMMU, it recorded 4 */
	for (unsigned int i = 0; i < 1000; i++) {
		snprintf(line, sizeof(line),
			 "7@1700000020.%06u:vtd_dmar_fault sid 0x100 fault 5 addr 0x%" PRIx64
			 " write 1",
			 i * 10, (uint64_t)0x40000000u + i * 0x1000u);
		ck_assert_int_eq(sacc_faultlog_add_trace_line(fl, line), 1);
		if (i < 4) {
			snprintf(line, sizeof(line),
				 "vtd_frr_new index 0 high 0x500000100 low 0x%" PRIx64,
				 (uint64_t)0x40000000u + i * 0x1000u);
			ck_assert_int_eq(sacc_faultlog_add_trace_line(fl, line),
					 1);
		}
	}
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 1000);
	sacc_faultlog_summary(fl, &s);
	ck_assert_uint_eq(s.total.qemu_seen, 1000);
	ck_assert_uint_eq(s.total.matched_qemu, 1000);
	ck_assert_uint_eq(s.total.viommu_recorded, 4);
	ck_assert(s.lost_exact);
	ck_assert_uint_eq(s.lost, 996);
	ck_assert_str_eq(s.text,
			 "device 1000, qemu saw 1000, vIOMMU recorded 4, kernel printed 3 (suppressed 996), lost 996 (single fault recording register overflow)");
	for (size_t i = 0; i < sacc_faultlog_count(fl); i++) {
		const struct sacc_fault *f = sacc_faultlog_get(fl, i);

		ck_assert(f->sources & SACC_FSRC_QEMU);
		ck_assert(f->has_viommu_recorded);
		ck_assert_uint_eq(f->viommu_recorded, i < 4);
	}
	sacc_faultlog_free(fl);

	/* 1000 faults, only 3 printed and no suppression reported yet */
	fl = burst(1000, 1000);
	burst_kernel(fl, 3, 0);
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 1000);
	sacc_faultlog_summary(fl, &s);
	ck_assert_uint_eq(s.lost, 997);
	sacc_faultlog_free(fl);

	/* another process caused 100 faults nobody journaled */
	fl = burst(900, 1000);
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 900);
	sacc_faultlog_summary(fl, &s);
	ck_assert_uint_eq(s.total.device_journal, 900);
	ck_assert_uint_eq(s.total.device_counter, 1000);
	ck_assert_uint_eq(s.total.device, 1000);
	ck_assert_uint_eq(s.total.faults, 1000);
	ck_assert_uint_eq(s.lost, 1000);
	sacc_faultlog_free(fl);
}
END_TEST

START_TEST(test_reset_epochs)
{
	struct sacc_faultlog *fl = sacc_faultlog_new();
	struct sacc_faultlog_summary s;
	char line[512];
	uint64_t t = 1000;

	/* 10 faults, a journaled reset, 5 faults, an unjournaled reset
	 * (the counter drops), 3 faults */
	static const unsigned int counts[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
					       0, 1, 2, 3, 4, 5, 1, 2, 3 };

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		if (!counts[i])
			snprintf(line, sizeof(line),
				 "{\"ev\":\"reset\",\"t_ns\":%" PRIu64
				 ",\"bdf\":\"0000:01:00.0\"}",
				 t++);
		else
			snprintf(line, sizeof(line),
				 "{\"ev\":\"fault\",\"t_ns\":%" PRIu64
				 ",\"bdf\":\"0000:01:00.0\",\"addr\":\"0x1000\",\"access\":\"src_read\",\"fault_count\":%u}",
				 t++, counts[i]);
		ck_assert_int_eq(sacc_faultlog_add_journal_line(fl, line), 1);
	}
	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 18);
	sacc_faultlog_summary(fl, &s);
	ck_assert_uint_eq(s.total.device_counter, 18);
	ck_assert_uint_eq(s.total.device_journal, 18);
	/* no map events at all: nothing to attribute against */
	ck_assert_uint_eq(s.total.unattributed, 18);
	ck_assert_has(sacc_faultlog_get(fl, 0)->attr_text,
		      "records no mappings");
	sacc_faultlog_free(fl);
}
END_TEST

/* ---- output ---- */

/* Braces and brackets balance outside strings; 0 if fine. */
static int balanced(const char *s)
{
	int depth = 0;
	bool str = false;

	for (; *s; s++) {
		if (str) {
			if (*s == '\\' && s[1])
				s++;
			else if (*s == '"')
				str = false;
			continue;
		}
		if (*s == '"')
			str = true;
		else if (*s == '{' || *s == '[')
			depth++;
		else if ((*s == '}' || *s == ']') && --depth < 0)
			return -1;
	}
	return str ? -1 : depth;
}

struct keyset {
	const char *const *want;
	size_t n;
	unsigned long long seen; /* bit per wanted key */
	bool has_summary;
	char attribution[64];
};

/* One output line read back with json-c (strictly, as journal lines are
 * read): 0, or -EINVAL for bad JSON or a bad "sources". */
static int collect(struct keyset *k, struct json_object *o)
{
	if (!json_object_is_type(o, json_type_object))
		return -EINVAL;
	json_object_object_foreach(o, key, v)
	{
		for (size_t i = 0; i < k->n; i++)
			if (!strcmp(key, k->want[i]))
				k->seen |= 1ull << i;
		if (!strcmp(key, "summary"))
			k->has_summary = json_object_is_type(v, json_type_object);
		if (!strcmp(key, "attribution") &&
		    json_object_is_type(v, json_type_string))
			fl_strlcpy(k->attribution, json_object_get_string(v),
				   sizeof(k->attribution));
		if (!strcmp(key, "sources") &&
		    (!json_object_is_type(v, json_type_array) ||
		     !json_object_array_length(v)))
			return -EINVAL;
	}
	return 0;
}

/* collect() on @line's member @outer (NULL: the line), then its @inner. */
static int collect_line(struct keyset *k, const char *line, const char *outer,
			const char *inner)
{
	struct json_object *o, *v;
	int ret = fl_json_parse(line, strlen(line), &o);

	if (ret)
		return ret;
	v = o;
	if (outer && !json_object_object_get_ex(v, outer, &v))
		v = NULL;
	if (v && inner && !json_object_object_get_ex(v, inner, &v))
		v = NULL;
	ret = v ? collect(k, v) : -EINVAL;
	json_object_put(o);
	return ret;
}

static const char *const fault_keys[] = {
	"n",		  "sources",	     "bdf",
	"sid",		  "t_ns",	     "t_from",
	"iova",		  "iova_exact",	     "page",
	"access",	  "write",	     "req_id",
	"opcode",	  "op",		     "status",
	"fatal",	  "fault_count",     "pid",
	"kernel_kind",	  "kernel_reason",   "kernel_reason_text",
	"kernel_t_ns",	  "pasid",	     "intr_index",
	"qemu_reason",	  "viommu_recorded", "attribution",
	"attribution_text", "buffer",	     "buffer_offset",
	"buffer_perm",
};

static const char *const summary_keys[] = {
	"text",		  "total",	     "kernel_suppressed",
	"kernel_suppressed_lines", "drhd_lines", "overflow_events",
	"have_qemu",	  "have_frr",	     "lost",
	"lost_exact",	  "lost_reason",     "bad_kmsg",
	"bad_journal",	  "bad_trace",	     "kmsg_user_ignored",
	"kmsg_overruns",  "devices",
};

static const char *const count_keys[] = {
	"device", "device_journal", "device_counter", "faults",
	"kernel_printed", "matched_kernel", "qemu_seen", "viommu_recorded",
	"matched_qemu", "records", "unattributed",
};

START_TEST(test_json_output)
{
	static const char *const attrs[] = { "mapped",	       "guard",
					     "unmapped_earlier", "never_mapped",
					     "beyond_ranges", "unattributed" };
	struct sacc_faultlog *fl = load_fixtures(true);
	char *buf = NULL, *save, *line;
	size_t len = 0, n = 0;
	FILE *out = open_memstream(&buf, &len);

	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 13);
	ck_assert_int_eq(sacc_faultlog_print_json(fl, out), 0);
	fclose(out);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), n++) {
		struct keyset k = { .seen = 0 };
		bool found = false;

		ck_assert_msg(balanced(line) == 0, "unbalanced: %s", line);
		ck_assert_int_eq(line[0], '{');
		ck_assert_int_eq(line[strlen(line) - 1], '}');
		if (n < 13) {
			k.want = fault_keys;
			k.n = sizeof(fault_keys) / sizeof(fault_keys[0]);
			ck_assert_int_eq(collect_line(&k, line, NULL, NULL), 0);
			ck_assert_msg(k.seen == (1ull << k.n) - 1,
				      "missing keys (0x%llx): %s", k.seen, line);
			for (size_t i = 0; i < 6; i++)
				found |= !strcmp(k.attribution, attrs[i]);
			ck_assert_msg(found, "attribution '%s'", k.attribution);
		} else {
			k.want = summary_keys;
			k.n = sizeof(summary_keys) / sizeof(summary_keys[0]);
			ck_assert_int_eq(collect_line(&k, line, "summary",
						      NULL),
					 0);
			ck_assert_msg(k.seen == (1ull << k.n) - 1,
				      "summary keys (0x%llx): %s", k.seen,
				      line);
			k.want = count_keys;
			k.n = sizeof(count_keys) / sizeof(count_keys[0]);
			k.seen = 0;
			ck_assert_int_eq(collect_line(&k, line, "summary",
						      "total"),
					 0);
			ck_assert_msg(k.seen == (1ull << k.n) - 1,
				      "total keys (0x%llx)", k.seen);
			ck_assert_has(line, "\"text\":\"device 9 (13 faults");
			ck_assert_has(line, "\"bdf\":\"0000:02:00.0\"");
		}
	}
	ck_assert_uint_eq(n, 14);
	free(buf);

	/* the table */
	buf = NULL;
	out = open_memstream(&buf, &len);
	ck_assert_int_eq(sacc_faultlog_print_table(fl, out), 0);
	fclose(out);
	ck_assert_has(buf, "TIME(s)");
	ck_assert_has(buf, "ATTRIBUTION");
	ck_assert_has(buf, "device+kernel+qemu");
	ck_assert_has(buf, "guard: guard page between 'dst' and 'old'");
	ck_assert_has(buf, "~10.770010");
	ck_assert_has(buf, "0x3000/pg");
	ck_assert_has(buf, "summary: device 9 (13 faults in all sources)");
	ck_assert_has(buf, "  0000:01:00.0: device 8 (journal 8, counter 8)");
	ck_assert_has(buf, "lost: vIOMMU has one fault recording register");
	ck_assert_has(buf, "1 forged (userspace) DMAR lines ignored");
	free(buf);
	sacc_faultlog_free(fl);
}
END_TEST

START_TEST(test_empty_and_errors)
{
	struct sacc_faultlog *fl = sacc_faultlog_new();
	struct sacc_faultlog_summary s;
	struct sacc_err err = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	ck_assert_int_eq(sacc_faultlog_join(fl, &err), 0);
	sacc_faultlog_summary(fl, &s);
	ck_assert_str_eq(s.text,
			 "device 0, vIOMMU/kernel saw 0 (printed 0, suppressed 0), lost 0");
	out = open_memstream(&buf, &len);
	ck_assert_int_eq(sacc_faultlog_print_json(fl, out), 0);
	fclose(out);
	ck_assert_int_eq(strncmp(buf, "{\"summary\":{", 12), 0);
	free(buf);
	ck_assert_int_eq(sacc_faultlog_add_file(fl, SACC_FAULTLOG_KMSG,
						"/nonexistent/kmsg", &err),
			 -ENOENT);
	ck_assert_has(err.msg, "/nonexistent/kmsg");
	ck_assert_int_eq(sacc_faultlog_add_file(fl, SACC_FAULTLOG_KMSG,
						"/dev/null", &err),
			 0);
	ck_assert_int_eq(sacc_faultlog_add_file(fl, 0, "/dev/null", &err),
			 -EINVAL);
	ck_assert_int_eq(sacc_faultlog_add_journal_dir(fl, "/nonexistent",
						       &err),
			 0);
	ck_assert_int_eq(sacc_faultlog_add_kmsg_line(NULL, "x"), -EINVAL);
	ck_assert_int_eq(sacc_faultlog_add_journal_line(fl, NULL), -EINVAL);
	ck_assert_uint_eq(sacc_faultlog_count(NULL), 0);
	ck_assert_ptr_null(sacc_faultlog_get(NULL, 0));
	ck_assert_int_eq(sacc_faultlog_join(NULL, &err), -EINVAL);
	sacc_faultlog_free(fl);
	sacc_faultlog_free(NULL);
}
END_TEST

/* ---- truncated and mutated fixture lines ---- */

static void feed_all(struct sacc_faultlog *fl, const char *s)
{
	struct sacc_kmsg_event k;
	struct sacc_journal_event j;
	struct sacc_trace_event t;
	int r;

	r = sacc_kmsg_parse_line(s, &k);
	ck_assert(r == -EINVAL || r == 0 || r == 1);
	r = sacc_journal_parse_line(s, &j);
	ck_assert(r == -EINVAL || r == 0 || r == 1);
	r = sacc_trace_parse_line(s, &t);
	ck_assert(r == -EINVAL || r == 0 || r == 1);
	sacc_faultlog_add_kmsg_line(fl, s);
	sacc_faultlog_add_journal_line(fl, s);
	sacc_faultlog_add_trace_line(fl, s);
}

START_TEST(test_fuzz_truncated)
{
	static const char *const files[] = { "kmsg_6.1.txt",
					     "dmesg_old_formats.txt",
					     "journal.jsonl", "qemu_trace.log" };
	struct sacc_faultlog *fl = sacc_faultlog_new();
	struct sacc_faultlog_summary s;
	char buf[1024];

	for (size_t fi = 0; fi < sizeof(files) / sizeof(files[0]); fi++) {
		struct lines l = read_lines(fixture(files[fi]));

		for (size_t i = 0; i < l.n; i++) {
			const char *full = l.v[i];
			size_t len = strlen(full);
			const char *close = strstr(full, "[fault reason 0x");

			if (close)
				close = strchr(close, ']');
			for (size_t cut = 0; cut <= len; cut++) {
				memcpy(buf, full, cut);
				buf[cut] = '\0';
				feed_all(fl, buf);
				/* a 6.1 line is one printk: cut before its
				 * reason's ']' it is never accepted */
				if (close && cut <= (size_t)(close - full)) {
					struct sacc_kmsg_event e;

					ck_assert_msg(sacc_kmsg_parse_line(buf, &e) != 1 ||
						      e.kind == SACC_KMSG_FAULT_STATUS,
						      "accepted: %s", buf);
				}
				/* a journal line is one object: any cut of it
				 * is rejected (or blank) */
				if (fi == 2 && cut < len) {
					struct sacc_journal_event e;

					ck_assert_int_le(sacc_journal_parse_line(buf, &e),
							 0);
				}
				/* a vtd_dmar_fault line ends in its write
				 * flag: cut short it is rejected */
				if (strstr(full, "vtd_dmar_fault") && cut < len &&
				    strstr(buf, "vtd_dmar_fault ")) {
					struct sacc_trace_event e;

					ck_assert_int_eq(sacc_trace_parse_line(buf, &e),
							 -EINVAL);
				}
			}
		}
		free_lines(&l);
	}
	ck_assert_int_ge(sacc_faultlog_join(fl, NULL), 0);
	sacc_faultlog_summary(fl, &s);
	ck_assert_uint_gt(strlen(s.text), 0);
	ck_assert_uint_gt(s.bad_kmsg + s.bad_journal + s.bad_trace, 100);
	sacc_faultlog_free(fl);
}
END_TEST

START_TEST(test_fuzz_mutated)
{
	static const char *const files[] = { "kmsg_6.1.txt",
					     "dmesg_old_formats.txt",
					     "journal.jsonl", "qemu_trace.log" };
	static const char alphabet[] = "0123456789abcdefx:.[]{}\",\\ \n\x01\xff";
	struct sacc_faultlog *fl = sacc_faultlog_new();
	uint32_t seed = 12345;
	char buf[1100];
	char *out = NULL;
	size_t outlen = 0;
	FILE *f;

	for (size_t fi = 0; fi < sizeof(files) / sizeof(files[0]); fi++) {
		struct lines l = read_lines(fixture(files[fi]));

		for (size_t i = 0; i < l.n; i++) {
			for (int round = 0; round < 60; round++) {
				size_t len;

				snprintf(buf, 1024, "%s", l.v[i]);
				len = strlen(buf);
				for (int m = 0; m < 1 + round % 4 && len; m++) {
					seed = seed * 1103515245u + 12345u;
					buf[(seed >> 8) % len] =
						alphabet[(seed >> 20) %
							 (sizeof(alphabet) - 1)];
				}
				feed_all(fl, buf);
			}
		}
		free_lines(&l);
	}
	ck_assert_int_ge(sacc_faultlog_join(fl, NULL), 0);
	f = open_memstream(&out, &outlen);
	ck_assert_int_eq(sacc_faultlog_print_json(fl, f), 0);
	ck_assert_int_eq(sacc_faultlog_print_table(fl, f), 0);
	fclose(f);
	/* every JSON line we print is well formed, whatever came in */
	for (char *save, *line = strtok_r(out, "\n", &save);
	     line && line[0] == '{'; line = strtok_r(NULL, "\n", &save))
		ck_assert_msg(balanced(line) == 0 &&
				      collect_line(&(struct keyset){ 0 }, line,
						   NULL, NULL) == 0,
			      "bad JSON out: %s", line);
	free(out);
	sacc_faultlog_free(fl);
}
END_TEST

/* ---- accounting queries ---- */

START_TEST(test_tally_account)
{
	struct sacc_faultlog *fl = load_fixtures(false);
	struct sacc_fault_match m = { .bdf = "0000:01:00.0",
				      .pid = 321,
				      .by_req = true,
				      .req_lo = 1,
				      .req_hi = 8,
				      .fatal = -1 };
	struct sacc_fault_tally t;
	struct sacc_faultlog_account a;
	const struct sacc_fault *f;

	ck_assert_int_eq(sacc_faultlog_join(fl, NULL), 12);
	ck_assert_int_eq(sacc_faultlog_tally(fl, &m, &t), 8);
	ck_assert_uint_eq(t.logged, 7);
	ck_assert_uint_eq(t.unaccounted, 0);
	ck_assert_int_ge(t.first, 0);
	ck_assert_uint_eq(sacc_faultlog_get(fl, (size_t)t.first)->req_id, 1);

	/* the one the kernel never printed, with its reason */
	m.req_lo = m.req_hi = 6;
	ck_assert_int_eq(sacc_faultlog_tally(fl, &m, &t), 1);
	ck_assert_uint_eq(t.logged, 0);
	f = sacc_faultlog_get(fl, (size_t)t.first);
	ck_assert_uint_eq(f->req_id, 6);
	ck_assert_int_eq(f->unlogged, SACC_UNLOGGED_DROPPED);
	m.fatal = 1;
	ck_assert_int_eq(sacc_faultlog_tally(fl, &m, &t), 0);
	ck_assert_int_eq(t.first, -1);
	m = (struct sacc_fault_match){ .pid = 999, .fatal = -1 };
	ck_assert_int_eq(sacc_faultlog_tally(fl, &m, &t), 0);
	m = (struct sacc_fault_match){ .fatal = -1 };
	ck_assert_int_eq(sacc_faultlog_tally(fl, &m, &t), 9);
	ck_assert_int_eq(sacc_faultlog_tally(fl, NULL, &t), -EINVAL);

	/* faults = logged + not logged; suppressed is capped by the latter */
	ck_assert_int_eq(sacc_faultlog_account(fl, "0000:01:00.0", &a), 0);
	ck_assert_uint_eq(a.faults, 10);
	ck_assert_uint_eq(a.logged, 7);
	ck_assert_uint_eq(a.not_logged, 3);
	ck_assert_uint_eq(a.suppressed, 3);
	ck_assert_uint_eq(a.unattributed, 0);
	ck_assert_uint_eq(a.lost, 0);
	ck_assert_str_eq(a.lost_reason, "");
	ck_assert_int_eq(sacc_faultlog_account(fl, "0000:00:1f.2", &a), 0);
	ck_assert_uint_eq(a.unattributed, 1);
	ck_assert_int_eq(sacc_faultlog_account(fl, "0000:09:00.0", &a),
			 -ENOENT);
	ck_assert_uint_eq(a.faults, 0);
	ck_assert_str_eq(a.lost_reason, "");
	sacc_faultlog_free(fl);
}
END_TEST

/* ---- inputs: format detection and incremental sources ---- */

static void append(const char *path, const char *text)
{
	FILE *f = fopen(path, "a");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(test_detect_mixed)
{
	static const char *const files[] = { "kmsg_6.1.txt", "journal.jsonl",
					     "qemu_trace.log" };
	struct sacc_faultlog *a = load_fixtures(true), *b = sacc_faultlog_new();
	char *dir = make_tmpdir(), path[600], ra[4096], rb[4096];

	ck_assert_int_eq(sacc_faultlog_detect("  {\"ev\":\"reset\"}"),
			 SACC_FAULTLOG_JOURNAL);
	ck_assert_int_eq(sacc_faultlog_detect(
				 "1@2.000003:vtd_dmar_fault sid 0x100 fault 5 "
				 "addr 0x1000 write 1"),
			 SACC_FAULTLOG_QEMU_TRACE);
	ck_assert_int_eq(sacc_faultlog_detect("vtd_dmar_fault sid"),
			 SACC_FAULTLOG_KMSG);
	ck_assert_int_eq(sacc_faultlog_detect("3,1,2,-;DMAR: x"),
			 SACC_FAULTLOG_KMSG);
	ck_assert_int_eq(sacc_faultlog_add_line(b, SACC_FAULTLOG_MIXED, NULL),
			 -EINVAL);

	/* the three fixtures in one file, CRLF line ends, are the same log */
	snprintf(path, sizeof(path), "%s/mixed.log", dir);
	for (size_t fi = 0; fi < 3; fi++) {
		struct lines l = read_lines(fixture(files[fi]));

		for (size_t i = 0; i < l.n; i++) {
			append(path, l.v[i]);
			append(path, "\r\n");
		}
		free_lines(&l);
	}
	ck_assert_int_gt(sacc_faultlog_add_file(b, SACC_FAULTLOG_MIXED, path,
						NULL),
			 26);
	ck_assert_int_eq(sacc_faultlog_join(a, NULL), 13);
	ck_assert_int_eq(sacc_faultlog_join(b, NULL), 13);
	for (size_t i = 0; i < 13; i++) {
		ck_assert_int_gt(sacc_fault_format_json(sacc_faultlog_get(a, i),
							i, ra, sizeof(ra)),
				 0);
		ck_assert_int_gt(sacc_fault_format_json(sacc_faultlog_get(b, i),
							i, rb, sizeof(rb)),
				 0);
		ck_assert_str_eq(ra, rb);
	}
	sacc_faultlog_free(a);
	sacc_faultlog_free(b);
	rm_tmpdir(dir);
}
END_TEST

struct seen_lines {
	int n[SACC_FAULTLOG_MIXED + 1];
	char last[256];
};

static void note_line(void *ctx, enum sacc_faultlog_input kind,
		      const char *line)
{
	struct seen_lines *s = ctx;

	s->n[kind]++;
	snprintf(s->last, sizeof(s->last), "%s", line);
}

#define JLINE(t) \
	"{\"ev\":\"reset\",\"t_ns\":" #t ",\"bdf\":\"0000:01:00.0\"}"

START_TEST(test_source_journal_dir)
{
	struct sacc_faultlog *fl = sacc_faultlog_new();
	struct sacc_faultlog_src *all, *late, *file;
	struct seen_lines s;
	struct sacc_err err = { 0 };
	char *dir = make_tmpdir(), a[600], b[600];

	memset(&s, 0, sizeof(s));
	snprintf(a, sizeof(a), "%s/0000:01:00.0.jsonl", dir);
	snprintf(b, sizeof(b), "%s/0000:02:00.0.jsonl", dir);
	append(a, JLINE(1) "\n" JLINE(2) "\n");
	ck_assert_int_eq(sacc_faultlog_src_open(&all, SACC_FAULTLOG_JOURNAL,
						dir, 0, &err),
			 0);
	ck_assert_int_eq(sacc_faultlog_src_open(&late, SACC_FAULTLOG_JOURNAL,
						dir, SACC_FAULTLOG_SRC_AT_END,
						&err),
			 0);
	ck_assert_int_eq(sacc_faultlog_src_fd(all), -1);
	ck_assert_str_eq(sacc_faultlog_src_path(all), dir);
	ck_assert_int_eq(sacc_faultlog_src_read(all, fl, note_line, &s, &err),
			 2);
	ck_assert_int_eq(s.n[SACC_FAULTLOG_JOURNAL], 2);
	ck_assert_str_eq(s.last, JLINE(2));
	ck_assert_int_eq(sacc_faultlog_src_read(all, fl, NULL, NULL, &err), 0);
	ck_assert_int_eq(sacc_faultlog_src_read(late, NULL, NULL, NULL, &err),
			 0);

	/* half a line waits for its newline; a new file is found */
	append(a, "{\"ev\":\"reset\",");
	ck_assert_int_eq(sacc_faultlog_src_read(all, fl, NULL, NULL, &err), 0);
	append(a, "\"t_ns\":3,\"bdf\":\"0000:01:00.0\"}\r\n");
	append(b, JLINE(4) "\n");
	ck_assert_int_eq(sacc_faultlog_src_read(all, fl, note_line, &s, &err),
			 2);
	ck_assert_str_eq(s.last, JLINE(4));
	ck_assert_int_eq(sacc_faultlog_src_read(late, NULL, note_line, &s,
						&err),
			 2);
	ck_assert_int_eq(s.n[SACC_FAULTLOG_JOURNAL], 6);

	/* a journal that was replaced by a shorter one: read from its start */
	ck_assert_int_eq(truncate(a, 0), 0);
	append(a, JLINE(5) "\n");
	ck_assert_int_eq(sacc_faultlog_src_read(all, fl, NULL, NULL, &err), 1);
	ck_assert_int_eq(sacc_faultlog_join(fl, &err), 0);
	{
		struct sacc_faultlog_summary sum;

		sacc_faultlog_summary(fl, &sum);
		ck_assert_uint_eq(sum.bad_journal, 0);
		ck_assert_uint_eq(sum.total.device_journal, 0);
	}

	/* one file, read once: its unterminated last line counts */
	append(b, JLINE(6));
	ck_assert_int_eq(sacc_faultlog_src_open(&file, SACC_FAULTLOG_MIXED, b,
						SACC_FAULTLOG_SRC_WHOLE, &err),
			 0);
	ck_assert_int_eq(sacc_faultlog_src_read(file, NULL, note_line, &s,
						&err),
			 2);
	ck_assert_str_eq(s.last, JLINE(6));
	sacc_faultlog_src_close(file);
	ck_assert_int_eq(sacc_faultlog_add_file(fl, SACC_FAULTLOG_JOURNAL, dir,
						&err),
			 3);

	sacc_faultlog_src_close(all);
	sacc_faultlog_src_close(late);
	sacc_faultlog_src_close(NULL);
	sacc_faultlog_free(fl);
	rm_tmpdir(dir);
}
END_TEST

/*
 * A journal path that is not a regular file: the writer's open returns
 * at once with a message (a blocking open of a FIFO waits for a reader
 * forever), and a reader skips it, says so, and reads the others.
 */
START_TEST(test_journal_not_regular)
{
	struct sacc_faultlog *fl = sacc_faultlog_new();
	struct sacc_journal *j = NULL;
	struct sacc_faultlog_src *src;
	struct sacc_err err = { 0 };
	char *dir = make_tmpdir(), fifo[600], target[600], link[600], b[600];
	const char *why = NULL;
	uint64_t t0 = sacc_monotonic_ns();
	int rfd, wfd;

	snprintf(fifo, sizeof(fifo), "%s/0000:01:00.0.jsonl", dir);
	ck_assert_int_eq(mkfifo(fifo, 0644), 0);
	setenv(SACC_JOURNAL_DIR_ENV, dir, 1);
	/* no reader: open(O_NONBLOCK) fails with ENXIO instead of waiting */
	ck_assert_int_eq(sacc_journal_open(&j, "01:00.0", &err), -ENXIO);
	ck_assert_ptr_null(j);
	ck_assert_has(err.msg, fifo);
	ck_assert_has(err.msg, "is a FIFO, not a regular file: remove it");
	/* a reader there: the open succeeds, fstat() refuses the FIFO */
	rfd = open(fifo, O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(rfd, 0);
	ck_assert_int_eq(sacc_journal_open(&j, "01:00.0", &err), -EINVAL);
	ck_assert_ptr_null(j);
	ck_assert_has(err.msg, "is a FIFO, not a regular file");
	close(rfd);
	/* a symbolic link, even to a regular file (O_NOFOLLOW) */
	snprintf(target, sizeof(target), "%s/elsewhere", dir);
	snprintf(link, sizeof(link), "%s/0000:02:00.0.jsonl", dir);
	append(target, "");
	ck_assert_int_eq(symlink(target, link), 0);
	ck_assert_int_eq(sacc_journal_open(&j, "02:00.0", &err), -ELOOP);
	ck_assert_has(err.msg, "is a symbolic link, not a regular file");
	ck_assert_int_eq(sacc_journal_open_path(&j, "/dev/null",
						"0000:01:00.0", &err),
			 -EINVAL);
	ck_assert_has(err.msg, "/dev/null is a character device");
	ck_assert_uint_lt(sacc_monotonic_ns() - t0, 2000000000ull);

	/* readers: the FIFO is skipped, even with a writer holding it open
	 * (a blocking read would wait for its data forever) */
	wfd = open(fifo, O_RDWR | O_NONBLOCK);
	ck_assert_int_ge(wfd, 0);
	snprintf(b, sizeof(b), "%s/0000:04:00.0.jsonl", dir);
	append(b, JLINE(1) "\n");
	ck_assert_int_eq(sacc_faultlog_src_open(&src, SACC_FAULTLOG_JOURNAL,
						dir, 0, &err),
			 0);
	ck_assert_uint_eq(sacc_faultlog_src_skipped(src, &why), 0);
	ck_assert_ptr_null(why);
	ck_assert_int_eq(sacc_faultlog_src_read(src, fl, NULL, NULL, &err), 1);
	ck_assert_uint_eq(sacc_faultlog_src_skipped(src, &why), 1);
	ck_assert_has(why, fifo);
	ck_assert_has(why, "is a FIFO, not a regular file: skipped");
	ck_assert_int_eq(sacc_faultlog_src_read(src, fl, NULL, NULL, &err), 0);
	ck_assert_uint_eq(sacc_faultlog_src_skipped(src, NULL), 1);
	/* replaced by a real journal: read from its start */
	ck_assert_int_eq(unlink(fifo), 0);
	append(fifo, JLINE(2) "\n");
	ck_assert_int_eq(sacc_faultlog_src_read(src, fl, NULL, NULL, &err), 1);
	ck_assert_uint_eq(sacc_faultlog_src_skipped(src, &why), 0);
	ck_assert_ptr_null(why);
	sacc_faultlog_src_close(src);
	ck_assert_int_eq(unlink(fifo), 0);
	ck_assert_int_eq(mkfifo(fifo, 0644), 0);
	ck_assert_int_eq(sacc_faultlog_add_journal_dir(fl, dir, &err), 1);
	ck_assert_uint_lt(sacc_monotonic_ns() - t0, 2000000000ull);
	close(wfd);
	unsetenv(SACC_JOURNAL_DIR_ENV);
	sacc_faultlog_free(fl);
	rm_tmpdir(dir);
}
END_TEST

START_TEST(test_source_errors)
{
	struct sacc_faultlog_src *src;
	struct sacc_err err = { 0 };
	char *dir = make_tmpdir(), path[600];

	/* a journal directory nobody created yet is empty, then not */
	snprintf(path, sizeof(path), "%s/later", dir);
	ck_assert_int_eq(sacc_faultlog_src_open(&src, SACC_FAULTLOG_JOURNAL,
						path, SACC_FAULTLOG_SRC_AT_END,
						&err),
			 0);
	ck_assert_int_eq(sacc_faultlog_src_read(src, NULL, NULL, NULL, &err),
			 0);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path + strlen(path), sizeof(path) - strlen(path),
		 "/0000:01:00.0.jsonl");
	append(path, JLINE(1) "\n");
	ck_assert_int_eq(sacc_faultlog_src_read(src, NULL, NULL, NULL, &err),
			 1);
	sacc_faultlog_src_close(src);

	ck_assert_int_eq(sacc_faultlog_src_open(&src, SACC_FAULTLOG_KMSG,
						"/nonexistent/kmsg", 0, &err),
			 -ENOENT);
	ck_assert_ptr_null(src);
	ck_assert_has(err.msg, "/nonexistent/kmsg");
	ck_assert_int_eq(sacc_faultlog_src_open(&src, SACC_FAULTLOG_KMSG, dir,
						0, &err),
			 -EISDIR);
	ck_assert_int_eq(sacc_faultlog_src_open(&src, 0, dir, 0, &err),
			 -EINVAL);
	ck_assert_int_eq(sacc_faultlog_src_read(NULL, NULL, NULL, NULL, &err),
			 -EINVAL);
	/* a character device is read record by record, and can be polled */
	ck_assert_int_eq(sacc_faultlog_src_open(&src, SACC_FAULTLOG_KMSG,
						"/dev/null",
						SACC_FAULTLOG_SRC_AT_END, &err),
			 0);
	ck_assert_int_ge(sacc_faultlog_src_fd(src), 0);
	ck_assert_int_eq(sacc_faultlog_src_read(src, NULL, NULL, NULL, &err),
			 0);
	sacc_faultlog_src_close(src);
	rm_tmpdir(dir);
}
END_TEST

static Suite *faultlog_suite(void)
{
	Suite *s = suite_create("faultlog");
	TCase *tc = tcase_create("parse");

	/* Check's default is 4 s per test; slow or loaded CI needs more */
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_kmsg_v61_dma);
	tcase_add_test(tc, test_kernel_driver_faults);
	tcase_add_test(tc, test_kmsg_prefixes);
	tcase_add_test(tc, test_kmsg_intr_status_suppressed);
	tcase_add_test(tc, test_kmsg_noise);
	tcase_add_test(tc, test_kmsg_forged);
	tcase_add_test(tc, test_kmsg_malformed);
	tcase_add_test(tc, test_kmsg_old_formats);
	tcase_add_test(tc, test_trace);
	tcase_add_test(tc, test_trace_shared);
	suite_add_tcase(s, tc);

	tc = tcase_create("journal");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_journal_parse_fixture);
	tcase_add_test(tc, test_journal_tolerant);
	tcase_add_test(tc, test_journal_malformed);
	tcase_add_test(tc, test_journal_format_roundtrip);
	tcase_add_test(tc, test_journal_format_is_json_c);
	tcase_add_test(tc, test_journal_writer);
	tcase_add_test(tc, test_journal_concurrent);
	tcase_add_test(tc, test_journal_rotation);
	tcase_add_test(tc, test_journal_rotation_concurrent);
	suite_add_tcase(s, tc);

	tc = tcase_create("join");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_faultlog_split_join);
	tcase_add_test(tc, test_old_formats_file);
	tcase_add_test(tc, test_join_fixtures);
	tcase_add_test(tc, test_summary_fixtures);
	tcase_add_test(tc, test_join_window_and_rejoin);
	tcase_add_test(tc, test_join_nearest);
	tcase_add_test(tc, test_unlogged_reasons);
	tcase_add_test(tc, test_devmem_fault);
	tcase_add_test(tc, test_segment_fetch_fault);
	tcase_add_test(tc, test_trace_chunks);
	tcase_add_test(tc, test_intr_remap_join);
	tcase_add_test(tc, test_burst_1000);
	tcase_add_test(tc, test_reset_epochs);
	tcase_add_test(tc, test_json_output);
	tcase_add_test(tc, test_empty_and_errors);
	tcase_add_test(tc, test_tally_account);
	suite_add_tcase(s, tc);

	tc = tcase_create("input");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_detect_mixed);
	tcase_add_test(tc, test_source_journal_dir);
	tcase_add_test(tc, test_source_errors);
	tcase_add_test(tc, test_journal_not_regular);
	suite_add_tcase(s, tc);

	tc = tcase_create("fuzz");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_fuzz_truncated);
	tcase_add_test(tc, test_fuzz_mutated);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(faultlog_suite());
	int failed;

	srunner_run_all(sr, CK_ENV); /* CK_VERBOSITY=verbose lists each test */
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

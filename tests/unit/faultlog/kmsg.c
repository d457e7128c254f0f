// SPDX-License-Identifier: MIT
/*
 * kmsg.c - the kernel's DMAR lines on real-format lines (6.1 and older
 * formats): DMA and interrupt faults, prefixes, what is suppressed,
 * noise, forged and malformed lines
 */
#include "faultlog_test.h"

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

void kmsg_tests(Suite *s)
{
	TCase *tc = tcase_create("kmsg");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_kmsg_v61_dma);
	tcase_add_test(tc, test_kmsg_prefixes);
	tcase_add_test(tc, test_kmsg_intr_status_suppressed);
	tcase_add_test(tc, test_kmsg_noise);
	tcase_add_test(tc, test_kmsg_forged);
	tcase_add_test(tc, test_kmsg_malformed);
	tcase_add_test(tc, test_kmsg_old_formats);
	suite_add_tcase(s, tc);
}

// SPDX-License-Identifier: MIT
/*
 * join.c - the join on the fixtures: kernel, journal and QEMU trace
 * records of one fault joined and attributed to a buffer, a guard page
 * or nothing; the summary; the join window and nearest match
 */
#include "faultlog_test.h"

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

void join_tests(Suite *s)
{
	TCase *tc = tcase_create("join");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_faultlog_split_join);
	tcase_add_test(tc, test_old_formats_file);
	tcase_add_test(tc, test_join_fixtures);
	tcase_add_test(tc, test_summary_fixtures);
	tcase_add_test(tc, test_join_window_and_rejoin);
	tcase_add_test(tc, test_join_nearest);
	suite_add_tcase(s, tc);
}

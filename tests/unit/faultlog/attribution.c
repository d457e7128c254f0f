// SPDX-License-Identifier: MIT
/*
 * attribution.c - faults no DMAR line shows, and why; device memory and
 * segment fetch faults; QEMU's per-chunk retries; interrupt remapping
 * faults
 */
#include "faultlog_test.h"

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

void attribution_tests(Suite *s)
{
	TCase *tc = tcase_create("attribution");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_unlogged_reasons);
	tcase_add_test(tc, test_devmem_fault);
	tcase_add_test(tc, test_segment_fetch_fault);
	tcase_add_test(tc, test_trace_chunks);
	tcase_add_test(tc, test_intr_remap_join);
	tcase_add_test(tc, test_kernel_driver_faults);
	suite_add_tcase(s, tc);
}

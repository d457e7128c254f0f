// SPDX-License-Identifier: MIT
/*
 * accounting.c - the loss arithmetic of a 1000-fault burst, reset epochs,
 * and the accounting queries
 */
#include "faultlog_test.h"

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

void accounting_tests(Suite *s)
{
	TCase *tc = tcase_create("accounting");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_burst_1000);
	tcase_add_test(tc, test_reset_epochs);
	tcase_add_test(tc, test_tally_account);
	suite_add_tcase(s, tc);
}

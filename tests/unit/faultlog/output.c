// SPDX-License-Identifier: MIT
/*
 * output.c - the JSON and table output read back (every key, strictly
 * with json-c), an empty log and the errors
 */
#include "faultlog_test.h"

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

void output_tests(Suite *s)
{
	TCase *tc = tcase_create("output");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_json_output);
	tcase_add_test(tc, test_empty_and_errors);
	suite_add_tcase(s, tc);
}

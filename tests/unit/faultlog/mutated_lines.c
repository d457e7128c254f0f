// SPDX-License-Identifier: MIT
/*
 * mutated_lines.c - truncated and mutated copies of every fixture line through
 * every parser: no crash, and every JSON line printed afterwards is well
 * formed
 */
#include "faultlog_test.h"

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

void mutated_line_tests(Suite *s)
{
	TCase *tc = tcase_create("mutated lines");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_fuzz_truncated);
	tcase_add_test(tc, test_fuzz_mutated);
	suite_add_tcase(s, tc);
}

// SPDX-License-Identifier: MIT
/*
 * inputs.c - inputs: format detection in a mixed file, journal
 * directories read incrementally (rotation included), files that are not
 * regular, and the errors
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "faultlog_test.h"

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

void input_tests(Suite *s)
{
	TCase *tc = tcase_create("input");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_detect_mixed);
	tcase_add_test(tc, test_source_journal_dir);
	tcase_add_test(tc, test_source_errors);
	tcase_add_test(tc, test_journal_not_regular);
	suite_add_tcase(s, tc);
}

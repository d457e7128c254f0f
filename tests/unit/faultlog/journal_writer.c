// SPDX-License-Identifier: MIT
/*
 * journal_writer.c - the journal writer: what it writes, and writers in
 * several threads without a torn line
 */
#include <pthread.h>

#include "faultlog_test.h"

static uint64_t fake_ns;

static uint64_t fake_clock(void *ctx)
{
	(void)ctx;
	return fake_ns;
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

void journal_writer_tests(Suite *s)
{
	TCase *tc = tcase_create("journal writer");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_journal_writer);
	tcase_add_test(tc, test_journal_concurrent);
	suite_add_tcase(s, tc);
}

// SPDX-License-Identifier: MIT
/*
 * journal_rotation.c - the journal's size cap: rotation, the "rotated" line and
 * the live mappings written again, under concurrent writers
 */
#include <pthread.h>
#include <sys/stat.h>

#include "faultlog_test.h"

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

void journal_rotation_tests(Suite *s)
{
	TCase *tc = tcase_create("journal rotation");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_journal_rotation);
	tcase_add_test(tc, test_journal_rotation_concurrent);
	suite_add_tcase(s, tc);
}

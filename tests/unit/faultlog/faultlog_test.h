/* SPDX-License-Identifier: MIT */
/*
 * faultlog_test.h - what faultlog/'s unit tests share (helpers.c): the
 * fixtures and their lines, records found by req_id or page, scratch
 * directories, JSON output read back; and each file's test cases (added
 * to the suite by main.c, in its order).
 *
 * Fixtures come from $SACC_FIXTURES (meson sets it), else tests/fixtures.
 */
#ifndef SACC_TEST_FAULTLOG_H
#define SACC_TEST_FAULTLOG_H

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fl_priv.h"
#include "sacc_faultlog.h"
#include "sacc_hw.h"

/* The path of fixture @name (tests/fixtures/faults/). */
const char *fixture(const char *name);
struct lines {
	char **v;
	size_t n;
};

/* Every line of @path (the test fails if there is none). */
struct lines read_lines(const char *path);
void free_lines(struct lines *l);
/* The fixture line containing @needle (exactly one). */
const char *line_with(const struct lines *l, const char *needle);
/* The kernel and journal fixtures (and the QEMU trace) loaded. */
struct sacc_faultlog *load_fixtures(bool with_trace);
/* The only record of @bdf with @req_id. */
const struct sacc_fault *by_req(const struct sacc_faultlog *fl,
				const char *bdf, uint32_t req_id);
/* The only record of @bdf at page @page without a device source. */
const struct sacc_fault *by_page(const struct sacc_faultlog *fl,
				 const char *bdf, uint64_t page);
#define ck_assert_has(hay, needle)                                        \
	ck_assert_msg(strstr((hay), (needle)), "'%s' lacks '%s'", (hay), \
		      (needle))

/* A scratch directory under /tmp, and its removal (frees @d). */
char *make_tmpdir(void);
void rm_tmpdir(char *d);

/* Braces and brackets balance outside strings; 0 if fine. */
int balanced(const char *s);
struct keyset {
	const char *const *want;
	size_t n;
	unsigned long long seen; /* bit per wanted key */
	bool has_summary;
	char attribution[64];
};

/* collect() on @line's member @outer (NULL: the line), then its @inner:
 * the keys seen, strictly read with json-c; 0 or -EINVAL. */
int collect_line(struct keyset *k, const char *line, const char *outer,
		 const char *inner);

/* Each file's test cases, in the order main.c runs them. */
void name_tests(Suite *s);
void kmsg_tests(Suite *s);
void trace_tests(Suite *s);
void journal_line_tests(Suite *s);
void journal_writer_tests(Suite *s);
void journal_rotation_tests(Suite *s);
void join_tests(Suite *s);
void attribution_tests(Suite *s);
void accounting_tests(Suite *s);
void output_tests(Suite *s);
void input_tests(Suite *s);
void mutated_line_tests(Suite *s);

#endif /* SACC_TEST_FAULTLOG_H */

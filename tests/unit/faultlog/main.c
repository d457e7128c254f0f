// SPDX-License-Identifier: MIT
/*
 * main.c - test_faultlog: host unit tests for faultlog/: the kernel, journal
 * and QEMU trace parsers on real-format lines (tests/fixtures/faults/),
 * truncated and mutated copies of every fixture line, the journal
 * writer, the join and its attribution, the loss arithmetic of a
 * 1000-fault burst, and the JSON output read back.
 *
 * One file a subject; this one runs them in order.
 */
#include "faultlog_test.h"

static Suite *faultlog_suite(void)
{
	Suite *s = suite_create("faultlog");

	name_tests(s);
	kmsg_tests(s);
	trace_tests(s);
	journal_line_tests(s);
	journal_writer_tests(s);
	journal_rotation_tests(s);
	join_tests(s);
	attribution_tests(s);
	accounting_tests(s);
	output_tests(s);
	input_tests(s);
	mutated_line_tests(s);
	return s;
}
int main(void)
{
	SRunner *sr = srunner_create(faultlog_suite());
	int failed;

	srunner_run_all(sr, CK_ENV); /* CK_VERBOSITY=verbose lists each test */
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

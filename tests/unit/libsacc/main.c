// SPDX-License-Identifier: MIT
/*
 * main.c - test_libsacc: host unit tests for libsacc's data path and
 * sysfs logic, no VFIO: the device is an in-process stand-in
 * (fake_dev.c).  One file a subject; this one runs them in order.
 *
 * What runs against the real device behind intel-iommu is the guest
 * suite; this covers the bookkeeping: validation, batching, doorbells,
 * CQ_HEAD writes, untrusted completions, busy buffers, sysfs messages.
 */
#include "fake_dev.h"

static Suite *libsacc_suite(void)
{
	Suite *s = suite_create("libsacc");

	name_tests(s);
	submit_tests(s);
	untrusted_tests(s);
	hang_tests(s);
	event_tests(s);
	journal_tests(s);
	sysfs_tests(s);
	devmem_tests(s);
	devmem_submit_tests(s);
	graph_tests(s);
	graph_failure_tests(s);
	enqueue_tests(s);
	return s;
}
int main(void)
{
	SRunner *sr = srunner_create(libsacc_suite());
	int failed;

	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

// SPDX-License-Identifier: MIT
/*
 * main.c - sacc-guest-driver: in-guest Check suite for libsacc against
 * the real SACC device (QEMU model) behind QEMU's intel-iommu, through
 * vfio-pci.  One file a subject (open_close.c, data_path.c, ...); this
 * one puts them in order and runs them.
 *
 * Run by ci/test as `ci/vm --devices 2 -- /opt/sacc/tests/sacc-guest-driver`.
 * Every test runs in its own process (CK_FORK), opens what it needs and
 * checks behaviour, not just return codes: data is verified byte for
 * byte (with canaries around every destination), counters are compared
 * with what the test did, faults with the device's fault record and the
 * mapping registry, pinned memory with the kernel's VmLck.
 *
 * Reproduce a random run with SACC_TEST_SEED=<seed> (printed at start).
 */
#include "driver.h"

static Suite *driver_suite(void)
{
	Suite *s = suite_create("libsacc (guest)");

	open_close_tests(s);
	data_path_tests(s);
	interrupt_tests(s);
	doorbell_tests(s);
	privilege_tests(s);
	untrusted_device_tests(s);
	reset_tests(s);
	channel_tests(s);
	devmem_tests(s);
	event_tests(s);
	chain_tests(s);
	graph_tests(s);
	open_error_tests(s);
	memory_limit_tests(s);
	/* Last: it unbinds a device (its teardown binds it again). */
	unbind_tests(s);
	return s;
}
int main(void)
{
	const char *env = getenv("SACC_TEST_SEED");
	uint64_t t0 = sacc_monotonic_ns();
	SRunner *sr;
	int failed;

	if (env && *env)
		seed = strtoull(env, NULL, 0);
	setvbuf(stderr, NULL, _IONBF, 0);
	/* Scan once, before any test unbinds anything. */
	if (guest_nr_devices() == 0) {
		fprintf(stderr, "sacc-guest-driver: no SACC device bound to "
				"vfio-pci (run it through ci/vm)\n");
		return 1;
	}
	fprintf(stderr, "sacc-guest-driver: %u device(s), first %s, seed 0x%" PRIx64
			"\n",
		guest_nr_devices(), guest_bdf(0), seed);
	sr = srunner_create(driver_suite()); /* CK_FORK: one process a test */
	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	fprintf(stderr, "sacc-guest-driver: %.1f s\n",
		(double)(sacc_monotonic_ns() - t0) / 1e9);
	return failed ? 1 : 0;
}

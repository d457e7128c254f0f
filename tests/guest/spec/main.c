// SPDX-License-Identifier: MIT
/*
 * main.c - sacc-guest-spec: docs/spec.md, point by point, against the
 * real SACC device behind vfio-pci and the guest's intel-iommu.  One
 * file a subject of the spec (identity.c, registers.c, ...); this one
 * puts them in order and runs them.
 *
 * Deliberately independent of libsacc: a small raw-VFIO fixture
 * (spec_vfio.c: container, group, VFIO_IOMMU_MAP_DMA at IOVAs we choose
 * and with the permissions we choose, BAR0 mmap, MSI-X on an eventfd,
 * VFIO_DEVICE_RESET) drives the device at the register level, the way
 * an outside reviewer's program would.  guest_util.c only finds the
 * devices and reads /dev/kmsg.
 *
 * Runs in the guest: ci/vm --devices 2 -- /opt/sacc/tests/sacc-guest-spec
 * (one test case: CK_RUN_CASE=dma-faults; SACC_GARBAGE_SEED/_ROUNDS
 * replay or lengthen the garbage test).  Each test runs in its own
 * process (Check's fork mode), so a failing test cannot leave a
 * container or a mapping behind for the next one.
 */
#include "spec.h"

TCase *spec_tc(Suite *s, const char *name)
{
	TCase *t = tcase_create(name);

	tcase_set_timeout(t, GUEST_TEST_TIMEOUT);
	tcase_add_checked_fixture(t, setup, teardown);
	suite_add_tcase(s, t);
	return t;
}

static Suite *spec_suite(void)
{
	Suite *s = suite_create("sacc-spec");

	identity_tests(s);
	register_tests(s);
	enable_tests(s);
	op_tests(s);
	ring_tests(s);
	dma_fault_tests(s);
	ring_fault_tests(s);
	msix_tests(s);
	reset_tests(s);
	two_device_tests(s);
	/* Device memory, FILL, MODE.SQ_DEV (spec 18-20). */
	devmem_tests(s);
	devmem_range_tests(s);
	devmem_compat_tests(s);
	devmem_sq_tests(s);
	devmem_reset_tests(s);
	/* Pushbuffer segments (spec 21). */
	segment_tests(s);
	segment_error_tests(s);
	garbage_tests(s);
	return s;
}
int main(void)
{
	SRunner *sr;
	int failed;

	if (dmar_init()) {
		perror("mmap");
		return 1;
	}
	if (!guest_nr_devices()) {
		fprintf(stderr, "sacc-guest-spec: no SACC device bound to "
				"vfio-pci (run it through ci/vm)\n");
		return 1;
	}
	sr = srunner_create(spec_suite());
	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

// SPDX-License-Identifier: MIT
/*
 * main.c - test_iommu: host unit tests for iommu/: capability-chain
 * parser, IOVA allocator, permissions, limits, registry and the DMA
 * context (through a fake map/unmap backend; no VFIO needed).  One file
 * a subject; this one runs them in order.
 */
#include "iommu_test.h"

static Suite *iommu_suite(void)
{
	Suite *s = suite_create("iommu");

	info_tests(s);
	alloc_tests(s);
	limit_tests(s);
	registry_tests(s);
	dma_ctx_tests(s);
	quarantine_tests(s);
	return s;
}
int main(void)
{
	SRunner *sr = srunner_create(iommu_suite());
	int failed;

	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

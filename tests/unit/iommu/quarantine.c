// SPDX-License-Identifier: MIT
/*
 * quarantine.c - freed IOVA in quarantine: not handed out again for many
 * allocations, bounded in bytes, released under pressure; through the
 * DMA context
 */
#include "iommu_test.h"
START_TEST(test_alloc_quarantine_allocs)
{
	struct sacc_iova_range r = {0, 64 * MiB - 1};
	struct sacc_iova_alloc *a;
	uint64_t stale, iova, got[70];

	ck_assert_int_eq(sacc_iova_alloc_create(&a, &r, 1, PG, NULL), 0);
	sacc_iova_alloc_set_quarantine(a, 8, 64 * MiB);
	ck_assert_int_eq(sacc_iova_alloc(a, PG, &stale, NULL), 0);
	ck_assert_int_eq(sacc_iova_free(a, stale, NULL), 0);
	ck_assert_uint_eq(sacc_iova_quarantine_bytes(a), 3 * PG);
	/* the stale IOVA (and its guards) stays out for 8 allocations */
	for (int i = 0; i < 8; i++) {
		ck_assert_int_eq(sacc_iova_alloc(a, PG, &got[i], NULL), 0);
		ck_assert_uint_ne(got[i], stale);
		ck_assert(got[i] > stale + PG);
	}
	ck_assert_uint_eq(sacc_iova_quarantine_bytes(a), 3 * PG);
	/* the 9th finds it again: first fit */
	ck_assert_int_eq(sacc_iova_alloc(a, PG, &iova, NULL), 0);
	ck_assert_uint_eq(iova, stale);
	ck_assert_uint_eq(sacc_iova_quarantine_bytes(a), 0);
	/* release(): never quarantined (no device held it) */
	ck_assert_int_eq(sacc_iova_release(a, iova, NULL), 0);
	ck_assert_uint_eq(sacc_iova_quarantine_bytes(a), 0);
	ck_assert_int_eq(sacc_iova_alloc(a, PG, &iova, NULL), 0);
	ck_assert_uint_eq(iova, stale);
	ck_assert_int_eq(sacc_iova_free(a, stale, &(struct sacc_err){0}), 0);
	ck_assert_int_eq(sacc_iova_free(a, stale, NULL), -ENOENT);
	/* off: released at once, everything back */
	sacc_iova_alloc_set_quarantine(a, 0, 0);
	ck_assert_uint_eq(sacc_iova_quarantine_bytes(a), 0);
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(sacc_iova_free(a, got[i], NULL), 0);
	ck_assert_uint_eq(sacc_iova_free_bytes(a), 64 * MiB);
	sacc_iova_alloc_destroy(a);
}
END_TEST

START_TEST(test_alloc_quarantine_bytes_and_pressure)
{
	struct sacc_iova_range r = {0, 32 * PG - 1};
	struct sacc_iova_alloc *a;
	uint64_t x[8], y, z;

	ck_assert_int_eq(sacc_iova_alloc_create(&a, &r, 1, PG, NULL), 0);
	/* at most 6 pages held: the oldest leaves first */
	sacc_iova_alloc_set_quarantine(a, 1000, 6 * PG);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(sacc_iova_alloc(a, PG, &x[i], NULL), 0);
	ck_assert_int_eq(sacc_iova_free(a, x[0], NULL), 0);
	ck_assert_int_eq(sacc_iova_free(a, x[1], NULL), 0);
	ck_assert_uint_eq(sacc_iova_quarantine_bytes(a), 6 * PG);
	ck_assert_int_eq(sacc_iova_free(a, x[2], NULL), 0);
	ck_assert_uint_eq(sacc_iova_quarantine_bytes(a), 6 * PG); /* x0 out */
	ck_assert_int_eq(sacc_iova_alloc(a, PG, &y, NULL), 0);
	ck_assert_uint_eq(y, x[0]);
	/* pressure: nothing else fits, so quarantined space is used
	 * rather than failing (23 free pages, 6 quarantined) */
	ck_assert_int_eq(sacc_iova_alloc(a, 21 * PG, &z, NULL), 0);
	ck_assert_uint_eq(sacc_iova_free_bytes(a), 0);
	ck_assert_int_eq(sacc_iova_alloc(a, PG, &z, NULL), 0);
	ck_assert_uint_eq(z, x[1]);
	ck_assert_int_eq(sacc_iova_alloc(a, PG, &z, NULL), 0);
	ck_assert_uint_eq(z, x[2]);
	ck_assert_int_eq(sacc_iova_alloc(a, PG, &z, NULL), -ENOSPC);
	sacc_iova_alloc_destroy(a);
}
END_TEST

/* The DMA context quarantines what it unmaps: use-after-unmap keeps
 * hitting an unmapped IOVA for the next 64 maps. */
START_TEST(test_ctx_quarantine)
{
	struct fake_vfio f = {0};
	struct sacc_dma_ctx *ctx = mkctx(&f, UINT64_MAX, 0);
	struct sacc_iova_lookup lk;
	struct sacc_dma_buf a, b[SACC_IOVA_QUARANTINE_ALLOCS];
	struct sacc_err err = {0};
	uint64_t stale;

	ck_assert_int_eq(
	    sacc_dma_buf_alloc(ctx, PG, SACC_DMA_FROM_DEVICE, "a", &a, &err),
	    0);
	stale = a.iova;
	ck_assert_int_eq(sacc_dma_buf_free(ctx, &a, &err), 0);
	for (unsigned int i = 0; i < SACC_IOVA_QUARANTINE_ALLOCS; i++) {
		ck_assert_int_eq(sacc_dma_buf_alloc(ctx, PG,
						    SACC_DMA_FROM_DEVICE, "b",
						    &b[i], &err),
				 0);
		ck_assert_uint_ne(b[i].iova, stale);
		ck_assert_int_eq(sacc_dma_lookup(ctx, stale, 0, &lk), 0);
		ck_assert_int_eq(lk.kind, SACC_IOVA_UNMAPPED_EARLIER);
	}
	/* then it is reused */
	ck_assert_int_eq(
	    sacc_dma_buf_alloc(ctx, PG, SACC_DMA_FROM_DEVICE, "c", &a, &err),
	    0);
	ck_assert_uint_eq(a.iova, stale);
	sacc_dma_ctx_close(ctx);
	munmap(a.va, a.map_len);
	for (unsigned int i = 0; i < SACC_IOVA_QUARANTINE_ALLOCS; i++)
		munmap(b[i].va, b[i].map_len);
}
END_TEST

void quarantine_tests(Suite *s)
{
	TCase *tc = tcase_create("quarantine");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_alloc_quarantine_allocs);
	tcase_add_test(tc, test_alloc_quarantine_bytes_and_pressure);
	tcase_add_test(tc, test_ctx_quarantine);
	suite_add_tcase(s, tc);
}

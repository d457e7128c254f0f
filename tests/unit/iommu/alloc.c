// SPDX-License-Identifier: MIT
/*
 * alloc.c - the IOVA allocator: guard pages, exhaustion and reuse, first
 * fit, odd and many ranges, the top of the space, page size bitmaps, a
 * random stress against its invariants
 */
#include "iommu_test.h"
struct alloc_rec {
	uint64_t iova, len;
};

/* Assert that no two allocations are adjacent or overlap, each sits in
 * a range, is page aligned, has a guard page inside the range on each
 * side, and never touches IOVA page 0. */
static void check_invariants(const struct sacc_iova_range *r, size_t nr,
			     const struct alloc_rec *a, size_t n, uint64_t pg)
{
	for (size_t i = 0; i < n; i++) {
		bool in = false;

		ck_assert_uint_eq(a[i].iova % pg, 0);
		ck_assert_uint_eq(a[i].len % pg, 0);
		ck_assert_uint_ge(a[i].iova, pg);
		for (size_t k = 0; k < nr; k++)
			if (a[i].iova - pg >= r[k].start &&
			    a[i].iova - pg <= r[k].end &&
			    a[i].iova + a[i].len + pg - 1 <= r[k].end &&
			    a[i].iova + a[i].len + pg - 1 >= a[i].iova)
				in = true;
		ck_assert_msg(in, "allocation 0x%llx+0x%llx outside its range",
			      (unsigned long long)a[i].iova,
			      (unsigned long long)a[i].len);
		for (size_t j = 0; j < n; j++) {
			if (i == j)
				continue;
			/* j entirely below i with at least one page gap, or
			 * above */
			bool below = a[j].iova + a[j].len + pg <= a[i].iova;
			bool above = a[i].iova + a[i].len + pg <= a[j].iova;

			/* A plain if: a passing ck_assert_msg() records a
			 * mark point (a write to Check's pipe), and this
			 * loop runs millions of times. */
			if (!below && !above)
				ck_abort_msg("allocations 0x%llx and 0x%llx "
					     "adjacent or overlapping",
					     (unsigned long long)a[i].iova,
					     (unsigned long long)a[j].iova);
		}
	}
}

START_TEST(test_alloc_basic_guards)
{
	struct sacc_iova_range r = {0, MiB - 1};
	struct sacc_iova_alloc *a;
	struct alloc_rec rec[3];
	uint64_t iova;

	ck_assert_int_eq(sacc_iova_alloc_create(&a, &r, 1, 0x1000, NULL), 0);
	ck_assert_uint_eq(sacc_iova_page_size(a), PG);
	ck_assert_uint_eq(sacc_iova_free_bytes(a), MiB);
	ck_assert_int_eq(sacc_iova_alloc(a, 100, &iova, NULL), 0);
	ck_assert_uint_eq(iova, PG); /* page 0 is the guard, never data */
	rec[0] = (struct alloc_rec){iova, PG};
	ck_assert_int_eq(sacc_iova_alloc(a, 2 * PG, &iova, NULL), 0);
	ck_assert_uint_eq(iova, 4 * PG);
	rec[1] = (struct alloc_rec){iova, 2 * PG};
	ck_assert_int_eq(sacc_iova_alloc(a, PG + 1, &iova, NULL), 0);
	rec[2] = (struct alloc_rec){iova, 2 * PG};
	check_invariants(&r, 1, rec, 3, PG);
	ck_assert_uint_eq(sacc_iova_alloc_count(a), 3);
	ck_assert_uint_eq(sacc_iova_free_bytes(a), MiB - (3 + 4 + 4) * PG);

	ck_assert_int_eq(sacc_iova_alloc(a, 0, &iova, NULL), -EINVAL);
	ck_assert_int_eq(sacc_iova_alloc(a, UINT64_MAX, &iova, NULL), -EINVAL);
	ck_assert_int_eq(sacc_iova_free(a, rec[0].iova + PG, NULL), -ENOENT);
	ck_assert_int_eq(sacc_iova_free(a, rec[0].iova, NULL), 0);
	ck_assert_int_eq(sacc_iova_free(a, rec[0].iova, NULL), -ENOENT);
	sacc_iova_alloc_destroy(a);
}
END_TEST

START_TEST(test_alloc_exhaustion_and_reuse)
{
	/* 3 pages: exactly one 1-page allocation with its two guards */
	struct sacc_iova_range r = {0x10000, 0x12fff};
	struct sacc_iova_alloc *a;
	struct sacc_err err = {0};
	uint64_t i1, i2;

	ck_assert_int_eq(sacc_iova_alloc_create(&a, &r, 1, 0x1000, NULL), 0);
	ck_assert_int_eq(sacc_iova_alloc(a, PG + 1, &i1, &err), -ENOSPC);
	ck_assert_ptr_nonnull(strstr(err.msg, "exhausted"));
	ck_assert_int_eq(sacc_iova_alloc(a, PG, &i1, NULL), 0);
	ck_assert_uint_eq(i1, 0x11000);
	ck_assert_int_eq(sacc_iova_alloc(a, 1, &i2, &err), -ENOSPC);
	ck_assert_int_eq(err.code, -ENOSPC);
	ck_assert_uint_eq(sacc_iova_free_bytes(a), 0);
	ck_assert_int_eq(sacc_iova_free(a, i1, NULL), 0);
	ck_assert_uint_eq(sacc_iova_free_bytes(a), 3 * PG);
	ck_assert_int_eq(sacc_iova_alloc(a, 1, &i2, NULL), 0);
	ck_assert_uint_eq(i2, i1);
	sacc_iova_alloc_destroy(a);
}
END_TEST

START_TEST(test_alloc_first_fit_reuse_keeps_guards)
{
	struct sacc_iova_range r = {0, 64 * MiB - 1};
	struct sacc_iova_alloc *a;
	struct alloc_rec rec[4];
	uint64_t A, B, C, D, E, before;

	ck_assert_int_eq(sacc_iova_alloc_create(&a, &r, 1, 0x1000, NULL), 0);
	ck_assert_int_eq(sacc_iova_alloc(a, 4 * PG, &A, NULL), 0);
	ck_assert_int_eq(sacc_iova_alloc(a, 4 * PG, &B, NULL), 0);
	ck_assert_int_eq(sacc_iova_alloc(a, 4 * PG, &C, NULL), 0);
	before = sacc_iova_free_bytes(a);
	ck_assert_int_eq(sacc_iova_free(a, B, NULL), 0);
	ck_assert_uint_eq(sacc_iova_free_bytes(a), before + 6 * PG);
	/* first fit: the hole left by B is reused... */
	ck_assert_int_eq(sacc_iova_alloc(a, 2 * PG, &D, NULL), 0);
	ck_assert_uint_eq(D, B);
	/* ...with guards on both sides: A | g | D | g | (2 free) | C */
	rec[0] = (struct alloc_rec){A, 4 * PG};
	rec[1] = (struct alloc_rec){D, 2 * PG};
	rec[2] = (struct alloc_rec){C, 4 * PG};
	check_invariants(&r, 1, rec, 3, PG);
	/* the 2 pages left in the hole cannot take a page + 2 guards
	 * adjacent to C... they can: page + guard + guard = 3 > 2, so no */
	ck_assert_int_eq(sacc_iova_alloc(a, PG, &E, NULL), 0);
	ck_assert_uint_gt(E, C);
	rec[3] = (struct alloc_rec){E, PG};
	check_invariants(&r, 1, rec, 4, PG);
	/* freeing everything coalesces back to one full interval */
	ck_assert_int_eq(sacc_iova_free(a, A, NULL), 0);
	ck_assert_int_eq(sacc_iova_free(a, C, NULL), 0);
	ck_assert_int_eq(sacc_iova_free(a, D, NULL), 0);
	ck_assert_int_eq(sacc_iova_free(a, E, NULL), 0);
	ck_assert_uint_eq(sacc_iova_free_bytes(a), 64 * MiB);
	ck_assert_int_eq(sacc_iova_alloc(a, 64 * MiB - 2 * PG, &A, NULL), 0);
	ck_assert_uint_eq(A, PG);
	sacc_iova_alloc_destroy(a);
}
END_TEST

START_TEST(test_alloc_odd_ranges)
{
	struct sacc_iova_alloc *a;
	struct sacc_err err = {0};
	uint64_t i1, i2, i3;

	/* unaligned ends: [0x1234, 0x9876] -> pages [0x2000, 0x8fff] (7) */
	struct sacc_iova_range r1 = {0x1234, 0x9876};

	ck_assert_int_eq(sacc_iova_alloc_create(&a, &r1, 1, 0x1000, NULL), 0);
	ck_assert_uint_eq(sacc_iova_free_bytes(a), 7 * PG);
	ck_assert_int_eq(sacc_iova_alloc(a, 1, &i1, NULL), 0);
	ck_assert_uint_eq(i1, 0x3000);
	ck_assert_int_eq(sacc_iova_alloc(a, 1, &i2, NULL), 0);
	ck_assert_uint_eq(i2, 0x6000);
	ck_assert_uint_le(i2 + PG + PG - 1, 0x9876);
	ck_assert_int_eq(sacc_iova_alloc(a, 1, &i3, NULL), -ENOSPC);
	sacc_iova_alloc_destroy(a);

	/* only tiny ranges: nothing can hold a page plus two guards */
	struct sacc_iova_range tiny[] = {
	    {0x1000, 0x2fff},	/* 2 pages */
	    {0x10001, 0x13ffe}, /* 4 pages unaligned -> 2 whole pages */
	    {0x20000, 0x20000}, /* 1 byte */
	    {UINT64_MAX - 100, UINT64_MAX},
	};

	ck_assert_int_eq(sacc_iova_alloc_create(&a, tiny, 4, 0x1000, &err),
			 -ENOSPC);
	ck_assert_ptr_null(a);
	ck_assert_ptr_nonnull(strstr(err.msg, "guard"));
	ck_assert_int_eq(sacc_iova_alloc_create(&a, NULL, 0, 0x1000, &err),
			 -ENOSPC);

	/* tiny ranges plus a good one: only the good one is used */
	struct sacc_iova_range mix[] = {
	    {0x1000, 0x2fff},
	    {0x100000, 0x103fff},
	    {0x20000, 0x20000},
	};

	ck_assert_int_eq(sacc_iova_alloc_create(&a, mix, 3, 0x1000, NULL), 0);
	ck_assert_int_eq(sacc_iova_alloc(a, 2 * PG, &i1, NULL), 0);
	ck_assert_uint_eq(i1, 0x101000);
	ck_assert_int_eq(sacc_iova_alloc(a, 1, &i2, NULL), -ENOSPC);
	sacc_iova_alloc_destroy(a);

	/* adjacent / overlapping ranges (unsorted) merge: 2+2 pages -> 4 */
	struct sacc_iova_range adj[] = {
	    {0x42000, 0x43fff},
	    {0x40000, 0x41fff},
	    {0x40800, 0x40fff},
	};

	ck_assert_int_eq(sacc_iova_alloc_create(&a, adj, 3, 0x1000, NULL), 0);
	ck_assert_int_eq(sacc_iova_alloc(a, 2 * PG, &i1, NULL), 0);
	ck_assert_uint_eq(i1, 0x41000);
	sacc_iova_alloc_destroy(a);

	/* inverted range */
	struct sacc_iova_range inv = {0x5000, 0x1000};

	ck_assert_int_eq(sacc_iova_alloc_create(&a, &inv, 1, 0x1000, &err),
			 -EINVAL);
}
END_TEST

START_TEST(test_alloc_many_ranges)
{
	enum { N = 1000 };
	static struct sacc_iova_range r[N];
	static struct alloc_rec rec[N];
	struct sacc_iova_alloc *a;
	uint64_t iova;

	/* 1000 ranges of 4 pages with 4-page holes, given in reverse */
	for (int i = 0; i < N; i++) {
		r[N - 1 - i].start = 0x100000 + (uint64_t)i * 8 * PG;
		r[N - 1 - i].end = r[N - 1 - i].start + 4 * PG - 1;
	}
	ck_assert_int_eq(sacc_iova_alloc_create(&a, r, N, 0x1000, NULL), 0);
	for (int i = 0; i < N; i++) {
		ck_assert_int_eq(sacc_iova_alloc(a, PG, &iova, NULL), 0);
		/* first fit: ascending, one per range */
		ck_assert_uint_eq(iova, 0x100000 + (uint64_t)i * 8 * PG + PG);
		rec[i] = (struct alloc_rec){iova, PG};
	}
	ck_assert_int_eq(sacc_iova_alloc(a, PG, &iova, NULL), -ENOSPC);
	check_invariants(r, N, rec, 50, PG);
	/* a freed 4-page range holds 2 pages + 2 guards but never 3 */
	ck_assert_int_eq(sacc_iova_free(a, rec[500].iova, NULL), 0);
	ck_assert_int_eq(sacc_iova_alloc(a, 2 * PG + 1, &iova, NULL), -ENOSPC);
	ck_assert_int_eq(sacc_iova_alloc(a, 2 * PG, &iova, NULL), 0);
	ck_assert_uint_eq(iova, rec[500].iova);
	ck_assert_int_eq(sacc_iova_alloc(a, PG, &iova, NULL), -ENOSPC);
	sacc_iova_alloc_destroy(a);
}
END_TEST

START_TEST(test_alloc_near_top)
{
	struct sacc_iova_range top = {UINT64_MAX - 16 * PG + 1, UINT64_MAX};
	struct sacc_iova_range all = {0, UINT64_MAX};
	struct sacc_iova_alloc *a;
	uint64_t iova, last = 0;
	int n = 0;

	ck_assert_int_eq(sacc_iova_alloc_create(&a, &top, 1, 0x1000, NULL), 0);
	ck_assert_uint_eq(sacc_iova_free_bytes(a), 16 * PG);
	/* 5 allocations of 1 page + 2 guards = 15 pages; the 16th is left */
	while (sacc_iova_alloc(a, PG, &iova, NULL) == 0) {
		ck_assert_uint_gt(iova, last);
		last = iova;
		n++;
	}
	ck_assert_int_eq(n, 5);
	ck_assert_uint_eq(sacc_iova_free_bytes(a), PG);
	/* one allocation that ends right below the last guard page */
	ck_assert_int_eq(sacc_iova_free(a, last, NULL), 0);
	ck_assert_int_eq(sacc_iova_alloc(a, 2 * PG, &iova, NULL), 0);
	ck_assert_uint_eq(iova + 2 * PG - 1, UINT64_MAX - PG);
	ck_assert_int_eq(sacc_iova_free(a, iova, NULL), 0);
	ck_assert_uint_eq(sacc_iova_free_bytes(a), 4 * PG);
	sacc_iova_alloc_destroy(a);

	/* the whole 64-bit space */
	ck_assert_int_eq(sacc_iova_alloc_create(&a, &all, 1, 0x1000, NULL), 0);
	ck_assert_uint_eq(sacc_iova_free_bytes(a), UINT64_MAX);
	ck_assert_int_eq(sacc_iova_alloc(a, 1ull << 63, &iova, NULL), 0);
	ck_assert_uint_eq(iova, PG);
	/* left: [2^63 + 2 pages, 2^64 - 1] = 2^63 - 2 pages, guards incl. */
	ck_assert_int_eq(
	    sacc_iova_alloc(a, (1ull << 63) - 4 * PG + 1, &iova, NULL),
	    -ENOSPC);
	ck_assert_int_eq(sacc_iova_alloc(a, (1ull << 63) - 4 * PG, &iova, NULL),
			 0);
	ck_assert_uint_eq(iova, (1ull << 63) + 3 * PG);
	ck_assert_uint_eq(iova + ((1ull << 63) - 4 * PG) + PG - 1, UINT64_MAX);
	ck_assert_int_eq(sacc_iova_alloc(a, 1, &iova, NULL), -ENOSPC);
	ck_assert_uint_eq(sacc_iova_free_bytes(a), 0);
	sacc_iova_alloc_destroy(a);
}
END_TEST

START_TEST(test_alloc_pgsize_bitmap)
{
	struct sacc_iova_range r = {0, 1ull << 39};
	struct sacc_iova_alloc *a;
	uint64_t i1, i2;

	ck_assert_uint_eq(sacc_iommu_min_page(0), 4096);
	ck_assert_uint_eq(sacc_iommu_min_page(0x40201000ull), 4096);
	ck_assert_uint_eq(sacc_iommu_min_page(0x40200000ull), 2 * MiB);
	ck_assert_uint_eq(sacc_iommu_min_page(0x10000ull | 0x200000ull),
			  64 * KiB);
	ck_assert_uint_eq(sacc_iommu_min_page(0x200ull), 4096);

	/* 2 MiB minimum page: 2 MiB granularity and 2 MiB guards */
	ck_assert_int_eq(sacc_iova_alloc_create(&a, &r, 1, 0x40200000ull, NULL),
			 0);
	ck_assert_uint_eq(sacc_iova_page_size(a), 2 * MiB);
	ck_assert_int_eq(sacc_iova_alloc(a, 4096, &i1, NULL), 0);
	ck_assert_int_eq(sacc_iova_alloc(a, 3 * MiB, &i2, NULL), 0);
	ck_assert_uint_eq(i1, 2 * MiB);
	ck_assert_uint_eq(i1 % (2 * MiB), 0);
	ck_assert_uint_eq(i2 % (2 * MiB), 0);
	ck_assert_uint_eq(i2, i1 + 2 * MiB + 2 * 2 * MiB);
	/* the range end 2^39 is inclusive: only 2^39 - 1 counts, rounded */
	sacc_iova_alloc_destroy(a);

	/* 64 KiB pages: 3 * 64 KiB holds one page, one byte less does not */
	struct sacc_iova_range three = {0x10000, 0x3ffff};
	struct sacc_iova_range small = {0x10000, 0x3fffe};

	ck_assert_int_eq(sacc_iova_alloc_create(&a, &three, 1, 0x10000, NULL),
			 0);
	ck_assert_int_eq(sacc_iova_alloc(a, 1, &i1, NULL), 0);
	ck_assert_uint_eq(i1, 0x20000);
	ck_assert_int_eq(sacc_iova_alloc(a, 1, &i2, NULL), -ENOSPC);
	sacc_iova_alloc_destroy(a);
	ck_assert_int_eq(sacc_iova_alloc_create(&a, &small, 1, 0x10000, NULL),
			 -ENOSPC);
	/* with 4 KiB pages the same range has room */
	ck_assert_int_eq(sacc_iova_alloc_create(&a, &small, 1, 0x1000, NULL),
			 0);
	sacc_iova_alloc_destroy(a);
}
END_TEST

START_TEST(test_alloc_random_stress)
{
	static const struct sacc_iova_range r[] = {
	    {0x0, 0xfedfffff},
	    {0xfef00000, 0x10fffffff},
	    {0x200000123, 0x2000fffff},
	    {0x7ffff00000ull, 0x7fffffffffull},
	};
	enum { MAXA = 300 };
	static struct alloc_rec rec[MAXA];
	struct sacc_iova_alloc *a;
	unsigned int seed = 7;
	size_t n = 0;
	uint64_t total;

	ck_assert_int_eq(sacc_iova_alloc_create(&a, r, 4, 0x1000, NULL), 0);
	total = sacc_iova_free_bytes(a);
	for (int it = 0; it < 5000; it++) {
		if (n < MAXA && (n == 0 || rand_r(&seed) % 3)) {
			uint64_t len = 1 + rand_r(&seed) % (4 * MiB);
			uint64_t iova;

			if (rand_r(&seed) % 50 == 0)
				len = 200 * MiB;
			if (sacc_iova_alloc(a, len, &iova, NULL) == 0) {
				rec[n].iova = iova;
				rec[n].len = (len + PG - 1) & ~(PG - 1);
				n++;
			}
		} else {
			size_t k = rand_r(&seed) % n;

			ck_assert_int_eq(sacc_iova_free(a, rec[k].iova, NULL),
					 0);
			rec[k] = rec[--n];
		}
		if (it % 50 == 0) {
			uint64_t used = 0;

			check_invariants(r, 4, rec, n, PG);
			for (size_t k = 0; k < n; k++)
				used += rec[k].len + 2 * PG;
			ck_assert_uint_eq(sacc_iova_free_bytes(a) + used,
					  total);
			ck_assert_uint_eq(sacc_iova_alloc_count(a), n);
		}
	}
	while (n) {
		ck_assert_int_eq(sacc_iova_free(a, rec[n - 1].iova, NULL), 0);
		n--;
	}
	ck_assert_uint_eq(sacc_iova_free_bytes(a), total);
	sacc_iova_alloc_destroy(a);
}
END_TEST

void alloc_tests(Suite *s)
{
	TCase *tc = tcase_create("alloc");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_alloc_basic_guards);
	tcase_add_test(tc, test_alloc_exhaustion_and_reuse);
	tcase_add_test(tc, test_alloc_first_fit_reuse_keeps_guards);
	tcase_add_test(tc, test_alloc_odd_ranges);
	tcase_add_test(tc, test_alloc_many_ranges);
	tcase_add_test(tc, test_alloc_near_top);
	tcase_add_test(tc, test_alloc_pgsize_bitmap);
	tcase_add_test(tc, test_alloc_random_stress);
	suite_add_tcase(s, tc);
}

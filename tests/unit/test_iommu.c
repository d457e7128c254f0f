// SPDX-License-Identifier: MIT
/*
 * test_iommu.c - host unit tests for iommu/: capability-chain parser,
 * IOVA allocator, permissions, limits, registry and the DMA context
 * (through a fake map/unmap backend; no VFIO needed).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <linux/vfio.h>

#include "sacc_iommu.h"

#define KiB 1024ull
#define MiB (1024ull * KiB)
#define PG  4096ull

/* ---- synthetic VFIO_IOMMU_GET_INFO buffers ---- */

struct ibuf {
	_Alignas(8) uint8_t b[16384];
	size_t len;
	size_t last_cap; /* offset of the last cap, 0 if none */
};

static void ib_init(struct ibuf *ib, uint32_t flags, uint64_t pgsizes)
{
	struct vfio_iommu_type1_info h = {
	    .argsz = sizeof(h),
	    .flags = flags,
	    .iova_pgsizes = pgsizes,
	    .cap_offset = 0,
	};

	memset(ib, 0, sizeof(*ib));
	memcpy(ib->b, &h, sizeof(h));
	ib->len = sizeof(h);
}

static void ib_set_argsz(struct ibuf *ib, uint32_t argsz)
{
	memcpy(ib->b + offsetof(struct vfio_iommu_type1_info, argsz), &argsz,
	       4);
}

static void ib_finish(struct ibuf *ib)
{
	ib_set_argsz(ib, ib->len);
}

static void ib_set_next(struct ibuf *ib, size_t cap_off, uint32_t next)
{
	memcpy(ib->b + cap_off + offsetof(struct vfio_info_cap_header, next),
	       &next, 4);
}

/* Append a capability (8-byte aligned, like the kernel) and chain it. */
static size_t ib_add_cap(struct ibuf *ib, uint16_t id, uint16_t ver,
			 const void *body, size_t blen)
{
	size_t off = (ib->len + 7) & ~(size_t)7;
	struct vfio_info_cap_header h = {.id = id, .version = ver, .next = 0};

	memcpy(ib->b + off, &h, sizeof(h));
	if (blen)
		memcpy(ib->b + off + sizeof(h), body, blen);
	if (ib->last_cap) {
		ib_set_next(ib, ib->last_cap, off);
	} else {
		uint32_t o = off;

		memcpy(ib->b +
			   offsetof(struct vfio_iommu_type1_info, cap_offset),
		       &o, 4);
	}
	ib->last_cap = off;
	ib->len = off + sizeof(h) + blen;
	ib_finish(ib);
	return off;
}

static size_t ib_add_ranges(struct ibuf *ib, const struct vfio_iova_range *r,
			    uint32_t n, uint32_t claimed)
{
	uint8_t body[8 + 200 * 16];
	uint32_t zero = 0;

	memcpy(body, &claimed, 4);
	memcpy(body + 4, &zero, 4);
	memcpy(body + 8, r, n * sizeof(*r));
	return ib_add_cap(ib, VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE, 1, body,
			  8 + n * sizeof(*r));
}

static size_t ib_add_avail(struct ibuf *ib, uint32_t avail)
{
	return ib_add_cap(ib, VFIO_IOMMU_TYPE1_INFO_DMA_AVAIL, 1, &avail, 4);
}

static const struct vfio_iova_range q35_ranges[] = {
    {0x0, 0xfedfffff}, {0xfef00000, 0x7fffffffffull}, /* 39-bit width */
};

#define FLAGS_ALL (VFIO_IOMMU_INFO_PGSIZES | VFIO_IOMMU_INFO_CAPS)

START_TEST(test_parse_normal)
{
	struct ibuf ib;
	struct sacc_iommu_info info;
	struct sacc_err err = {0};
	uint8_t mig[20] = {0};

	ib_init(&ib, FLAGS_ALL, 0x40201000ull);
	ib_add_ranges(&ib, q35_ranges, 2, 2);
	ib_add_cap(&ib, VFIO_IOMMU_TYPE1_INFO_CAP_MIGRATION, 1, mig,
		   sizeof(mig));
	ib_add_avail(&ib, 65535);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, &err), 0);
	ck_assert(info.has_pgsizes);
	ck_assert_uint_eq(info.pgsizes, 0x40201000ull);
	ck_assert(info.has_caps);
	ck_assert_uint_eq(info.nr_caps, 3);
	ck_assert(info.has_iova_ranges);
	ck_assert(!info.ranges_truncated);
	ck_assert_uint_eq(info.nr_ranges, 2);
	ck_assert_uint_eq(info.ranges[0].start, 0);
	ck_assert_uint_eq(info.ranges[0].end, 0xfedfffff);
	ck_assert_uint_eq(info.ranges[1].start, 0xfef00000);
	ck_assert_uint_eq(info.ranges[1].end, 0x7fffffffffull);
	ck_assert(info.has_dma_avail);
	ck_assert_uint_eq(info.dma_avail, 65535);
	ck_assert_uint_eq(sacc_iommu_min_page(info.pgsizes), 4096);

	/* a larger buffer than argsz is fine: only argsz bytes are used */
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, sizeof(ib.b), &info, &err),
			 0);
	ck_assert_uint_eq(info.nr_ranges, 2);
}
END_TEST

START_TEST(test_parse_missing_caps)
{
	struct ibuf ib;
	struct sacc_iommu_info info;
	struct sacc_err err = {0};

	/* old kernel: no CAPS flag at all */
	ib_init(&ib, VFIO_IOMMU_INFO_PGSIZES, 0x1000);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, 16, &info, &err), 0);
	ck_assert(!info.has_caps);
	ck_assert(!info.has_iova_ranges);
	ck_assert_uint_eq(info.nr_ranges, 0);
	ck_assert_uint_eq(info.pgsizes, 0x1000);

	/* no PGSIZES flag: bitmap ignored even if non-zero */
	ib_init(&ib, 0, 0xdead000);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, &err), 0);
	ck_assert(!info.has_pgsizes);
	ck_assert_uint_eq(info.pgsizes, 0);

	/* CAPS flag, empty chain */
	ib_init(&ib, FLAGS_ALL, 0x1000);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, &err), 0);
	ck_assert(info.has_caps);
	ck_assert_uint_eq(info.nr_caps, 0);
	ck_assert(!info.has_iova_ranges);
	ck_assert(!info.has_dma_avail);

	/* only DMA_AVAIL */
	ib_init(&ib, FLAGS_ALL, 0x1000);
	ib_add_avail(&ib, 7);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, &err), 0);
	ck_assert(!info.has_iova_ranges);
	ck_assert(info.has_dma_avail);
	ck_assert_uint_eq(info.dma_avail, 7);
}
END_TEST

START_TEST(test_parse_truncated)
{
	struct ibuf ib;
	struct sacc_iommu_info info;
	struct sacc_err err = {0};
	size_t off;

	ib_init(&ib, FLAGS_ALL, 0x1000);
	ib_add_ranges(&ib, q35_ranges, 2, 2);
	ib_add_avail(&ib, 5);

	/* header shorter than 16 bytes */
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, 12, &info, &err), -EINVAL);
	ck_assert_int_eq(err.code, -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "header"));
	/* kernel said it needs more than we gave: retry signal */
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len - 1, &info, &err),
			 -EMSGSIZE);
	ck_assert_int_eq(
	    sacc_iommu_parse_info(ib.b, sizeof(struct vfio_iommu_type1_info),
				  &info, &err),
	    -EMSGSIZE);
	/* argsz itself truncated: the last cap's body is cut */
	ib_set_argsz(&ib, ib.len - 2);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, &err),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "DMA_AVAIL"));
	/* argsz smaller than the header */
	ib_set_argsz(&ib, 8);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, &err),
			 -EINVAL);
	/* CAPS but argsz ends before cap_offset */
	ib_set_argsz(&ib, 18);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, &err),
			 -EINVAL);

	/* IOVA cap claiming more ranges than the buffer holds */
	ib_init(&ib, FLAGS_ALL, 0x1000);
	ib_add_ranges(&ib, q35_ranges, 2, 1000);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, &err),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "1000"));
	/* nr_iovas large enough to overflow 32-bit multiplication */
	ib_init(&ib, FLAGS_ALL, 0x1000);
	ib_add_ranges(&ib, q35_ranges, 2, 0x10000001u);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, &err),
			 -EINVAL);

	/* IOVA cap header present, nr_iovas field cut off */
	ib_init(&ib, FLAGS_ALL, 0x1000);
	off = ib_add_ranges(&ib, q35_ranges, 2, 2);
	ib_set_argsz(&ib, off + 10);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, &err),
			 -EINVAL);
	/* cap header itself cut */
	ib_set_argsz(&ib, off + 4);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, &err),
			 -EINVAL);
	ck_assert_int_eq(sacc_iommu_parse_info(NULL, 100, &info, &err),
			 -EINVAL);
}
END_TEST

START_TEST(test_parse_bad_chain)
{
	struct ibuf ib;
	struct sacc_iommu_info info;
	struct sacc_err err = {0};
	size_t a, b;

	/* self loop */
	ib_init(&ib, FLAGS_ALL, 0x1000);
	a = ib_add_avail(&ib, 1);
	ib_set_next(&ib, a, a);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, &err),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "loops back"));

	/* two-cap loop */
	ib_init(&ib, FLAGS_ALL, 0x1000);
	a = ib_add_ranges(&ib, q35_ranges, 2, 2);
	b = ib_add_avail(&ib, 1);
	ib_set_next(&ib, b, a);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, &err),
			 -EINVAL);

	/* loop through unknown capabilities only (no duplicate to spot) */
	ib_init(&ib, FLAGS_ALL, 0x1000);
	a = ib_add_cap(&ib, 0x77, 1, "abcdefgh", 8);
	b = ib_add_cap(&ib, 0x78, 1, "abcdefgh", 8);
	ib_set_next(&ib, b, a);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, &err),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "loops back"));

	/* next far out of bounds */
	ib_init(&ib, FLAGS_ALL, 0x1000);
	a = ib_add_avail(&ib, 1);
	ib_set_next(&ib, a, 0xfffffff0u);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, &err),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "beyond"));

	/* next just past the end (header would straddle argsz) */
	ib_init(&ib, FLAGS_ALL, 0x1000);
	a = ib_add_avail(&ib, 1);
	ib_set_next(&ib, a, ib.len - 2 + 0);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, &err),
			 -EINVAL);

	/* next pointing into the middle of the previous cap's body */
	ib_init(&ib, FLAGS_ALL, 0x1000);
	a = ib_add_ranges(&ib, q35_ranges, 2, 2);
	b = ib_add_avail(&ib, 1);
	ib_set_next(&ib, a, a + 16);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, &err),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "overlaps"));

	/* first cap_offset pointing into the fixed header */
	ib_init(&ib, FLAGS_ALL, 0x1000);
	ib_add_avail(&ib, 1);
	{
		uint32_t four = 4;

		memcpy(ib.b +
			   offsetof(struct vfio_iommu_type1_info, cap_offset),
		       &four, 4);
	}
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, &err),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "header"));

	/* inverted range and duplicate capabilities */
	{
		struct vfio_iova_range bad = {0x5000, 0x4fff};

		ib_init(&ib, FLAGS_ALL, 0x1000);
		ib_add_ranges(&ib, &bad, 1, 1);
		ck_assert_int_eq(
		    sacc_iommu_parse_info(ib.b, ib.len, &info, &err), -EINVAL);
		ck_assert_ptr_nonnull(strstr(err.msg, "inverted"));
	}
	ib_init(&ib, FLAGS_ALL, 0x1000);
	ib_add_ranges(&ib, q35_ranges, 2, 2);
	ib_add_ranges(&ib, q35_ranges, 1, 1);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, &err),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "duplicate"));
	ib_init(&ib, FLAGS_ALL, 0x1000);
	ib_add_avail(&ib, 1);
	ib_add_avail(&ib, 2);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, &err),
			 -EINVAL);
}
END_TEST

START_TEST(test_parse_many_ranges)
{
	static struct vfio_iova_range r[100];
	struct ibuf ib;
	struct sacc_iommu_info info;

	for (int i = 0; i < 100; i++) {
		r[i].start = (uint64_t)i * 0x100000;
		r[i].end = r[i].start + 0x7ffff;
	}
	ib_init(&ib, FLAGS_ALL, 0x1000);
	ib_add_ranges(&ib, r, 100, 100);
	ck_assert_int_eq(sacc_iommu_parse_info(ib.b, ib.len, &info, NULL), 0);
	ck_assert(info.ranges_truncated);
	ck_assert_uint_eq(info.nr_ranges, SACC_IOMMU_MAX_RANGES);
	ck_assert_uint_eq(info.ranges[63].start, 63ull * 0x100000);
}
END_TEST

/* Random and mutated buffers: the parser must reject or accept sanely
 * and never read out of bounds (buffers are placed at the end of an
 * mmap with an inaccessible page after them). */
START_TEST(test_parse_fuzz)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *area = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct ibuf ib;
	struct sacc_iommu_info info;
	unsigned int seed = 12345, accepted = 0;

	ck_assert_ptr_ne(area, MAP_FAILED);
	ck_assert_int_eq(mprotect(area + pg, pg, PROT_NONE), 0);
	ib_init(&ib, FLAGS_ALL, 0x1000);
	ib_add_ranges(&ib, q35_ranges, 2, 2);
	ib_add_avail(&ib, 9);
	for (int it = 0; it < 20000; it++) {
		size_t len;
		uint8_t *p;
		int ret;

		if (it & 1) {
			len = ib.len;
			p = area + pg - len;
			memcpy(p, ib.b, len);
			for (int k = 0; k < 1 + rand_r(&seed) % 4; k++)
				p[rand_r(&seed) % len] = rand_r(&seed);
		} else {
			len = rand_r(&seed) % 128;
			p = area + pg - len;
			for (size_t k = 0; k < len; k++)
				p[k] = rand_r(&seed);
			if (len >= 8) {
				uint32_t argsz = len, fl = FLAGS_ALL;

				memcpy(p, &argsz, 4);
				memcpy(p + 4, &fl, 4);
			}
		}
		/* argsz may claim less than len; never more is read */
		ret = sacc_iommu_parse_info(p, len, &info, NULL);
		ck_assert(ret == 0 || ret == -EINVAL || ret == -EMSGSIZE);
		if (ret == 0) {
			accepted++;
			ck_assert_uint_le(info.nr_ranges,
					  SACC_IOMMU_MAX_RANGES);
			for (uint32_t i = 0; i < info.nr_ranges; i++)
				ck_assert_uint_le(info.ranges[i].start,
						  info.ranges[i].end);
		}
	}
	ck_assert_uint_gt(accepted, 0);
	munmap(area, 2 * pg);
}
END_TEST

START_TEST(test_get_info_bad_fd)
{
	struct sacc_iommu_info info;
	struct sacc_err err = {0};

	ck_assert_int_eq(sacc_iommu_get_info(-1, &info, &err), -EBADF);
	ck_assert_ptr_nonnull(strstr(err.msg, "VFIO_IOMMU_GET_INFO"));
}
END_TEST

/* ---- allocator ---- */

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

/* ---- permissions ---- */

START_TEST(test_permissions)
{
	ck_assert_uint_eq(sacc_dma_dir_flags(SACC_DMA_TO_DEVICE),
			  VFIO_DMA_MAP_FLAG_READ);
	ck_assert_uint_eq(sacc_dma_dir_flags(SACC_DMA_FROM_DEVICE),
			  VFIO_DMA_MAP_FLAG_WRITE);
	ck_assert_uint_eq(sacc_dma_dir_flags(SACC_DMA_BIDIRECTIONAL),
			  VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE);
	ck_assert_uint_eq(sacc_dma_dir_flags((enum sacc_dma_dir)0), 0);
	ck_assert_uint_eq(sacc_dma_dir_flags((enum sacc_dma_dir)4), 0);
	/* the SQ is only read by the device, the CQ only written */
	ck_assert_uint_eq(sacc_dma_dir_flags(SACC_DMA_DIR_SQ),
			  VFIO_DMA_MAP_FLAG_READ);
	ck_assert_uint_eq(sacc_dma_dir_flags(SACC_DMA_DIR_CQ),
			  VFIO_DMA_MAP_FLAG_WRITE);
	ck_assert_str_eq(sacc_dma_dir_name(SACC_DMA_TO_DEVICE), "to_device");
	ck_assert_str_eq(sacc_dma_dir_name(SACC_DMA_FROM_DEVICE),
			 "from_device");
	ck_assert_str_eq(sacc_dma_dir_name((enum sacc_dma_dir)9), "invalid");
}
END_TEST

/* ---- formatting and limits ---- */

START_TEST(test_format_helpers)
{
	char b[32];

	ck_assert_str_eq(sacc_fmt_bytes(512, b, sizeof(b)), "512 B");
	ck_assert_str_eq(sacc_fmt_bytes(64 * KiB, b, sizeof(b)), "64 KiB");
	ck_assert_str_eq(sacc_fmt_bytes(2 * MiB, b, sizeof(b)), "2 MiB");
	ck_assert_str_eq(sacc_fmt_bytes(19 * MiB / 10, b, sizeof(b)),
			 "1.9 MiB");
	ck_assert_str_eq(sacc_fmt_bytes(3ull << 30, b, sizeof(b)), "3 GiB");
	ck_assert_str_eq(sacc_fmt_ns(850, b, sizeof(b)), "850 ns");
	ck_assert_str_eq(sacc_fmt_ns(12300, b, sizeof(b)), "12.3 us");
	ck_assert_str_eq(sacc_fmt_ns(3100000, b, sizeof(b)), "3.1 ms");
	ck_assert_str_eq(sacc_fmt_ns(2500000000ull, b, sizeof(b)), "2.50 s");
}
END_TEST

START_TEST(test_limits_memlock_text)
{
	struct sacc_dma_limits lim = {.memlock_limit = 64 * KiB};
	struct sacc_err err = {0};

	ck_assert_int_eq(
	    sacc_dma_check_limits(&lim, 56 * KiB, 3, 8 * KiB, &err), 0);
	ck_assert_int_eq(
	    sacc_dma_check_limits(&lim, 60 * KiB, 3, 8 * KiB, &err), -ENOMEM);
	ck_assert_int_eq(err.code, -ENOMEM);
	ck_assert_str_eq(
	    err.msg,
	    "pinning 8 KiB more would exceed RLIMIT_MEMLOCK (64 KiB, 60 KiB in "
	    "use): raise it with `ulimit -l` or limits.conf");
	/* the example from the brief */
	ck_assert_int_eq(
	    sacc_dma_check_limits(&lim, 19 * MiB / 10, 0, 2 * MiB, &err),
	    -ENOMEM);
	ck_assert_ptr_nonnull(
	    strstr(err.msg, "pinning 2 MiB more would exceed RLIMIT_MEMLOCK "
			    "(64 KiB, 1.9 MiB in use)"));
	/* overflow of pinned + add must not wrap into "fits" */
	ck_assert_int_eq(
	    sacc_dma_check_limits(&lim, 4 * KiB, 0, UINT64_MAX, NULL), -ENOMEM);
	/* CAP_IPC_LOCK and unlimited: allowed */
	lim.memlock_exempt = true;
	ck_assert_int_eq(
	    sacc_dma_check_limits(&lim, 60 * KiB, 3, 8 * MiB, NULL), 0);
	lim.memlock_exempt = false;
	lim.memlock_limit = UINT64_MAX;
	ck_assert_int_eq(
	    sacc_dma_check_limits(&lim, 60 * KiB, 3, 8 * MiB, NULL), 0);
}
END_TEST

START_TEST(test_limits_dma_entry_text)
{
	struct sacc_dma_limits lim = {.memlock_limit = UINT64_MAX,
				      .dma_avail_known = true,
				      .dma_avail = 2};
	struct sacc_err err = {0};

	ck_assert_int_eq(sacc_dma_check_limits(&lim, 0, 1, PG, &err), 0);
	ck_assert_int_eq(sacc_dma_check_limits(&lim, 0, 2, PG, &err), -ENOSPC);
	ck_assert_str_eq(
	    err.msg, "VFIO dma_entry_limit reached (2 mappings): raise "
		     "/sys/module/vfio_iommu_type1/parameters/dma_entry_limit");
	lim.dma_avail_known = false;
	ck_assert_int_eq(sacc_dma_check_limits(&lim, 0, 100000, PG, &err), 0);
}
END_TEST

START_TEST(test_explain_map_errno)
{
	struct sacc_dma_limits lim = {.memlock_limit = 64 * KiB};
	struct sacc_err err = {0};

	ck_assert_int_eq(sacc_dma_explain_map_errno(ENOMEM, &lim, 32 * KiB, 1,
						    64 * KiB, &err),
			 -ENOMEM);
	ck_assert_ptr_nonnull(
	    strstr(err.msg, "RLIMIT_MEMLOCK (64 KiB, 32 KiB in use)"));
	ck_assert_ptr_nonnull(strstr(err.msg, "ulimit -l"));
	ck_assert_int_eq(
	    sacc_dma_explain_map_errno(-ENOSPC, &lim, 0, 65535, PG, &err),
	    -ENOSPC);
	ck_assert_ptr_nonnull(
	    strstr(err.msg, "dma_entry_limit reached (65535 mappings)"));
	ck_assert_ptr_nonnull(
	    strstr(err.msg,
		   "/sys/module/vfio_iommu_type1/parameters/dma_entry_limit"));
	ck_assert_int_eq(
	    sacc_dma_explain_map_errno(EFAULT, &lim, 0, 0, PG, &err), -EFAULT);
	ck_assert_ptr_nonnull(strstr(err.msg, "VFIO_IOMMU_MAP_DMA"));
	lim.memlock_exempt = true;
	ck_assert_int_eq(
	    sacc_dma_explain_map_errno(ENOMEM, &lim, 0, 0, PG, &err), -ENOMEM);
	ck_assert_ptr_nonnull(strstr(err.msg, "CAP_IPC_LOCK"));
}
END_TEST

START_TEST(test_read_limits)
{
	struct sacc_dma_limits lim;
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_MEMLOCK, &rl), 0);
	ck_assert_int_eq(sacc_dma_read_limits(&lim, NULL), 0);
	if (rl.rlim_cur == RLIM_INFINITY)
		ck_assert_uint_eq(lim.memlock_limit, UINT64_MAX);
	else
		ck_assert_uint_eq(lim.memlock_limit, rl.rlim_cur);
	ck_assert(!lim.dma_avail_known);
}
END_TEST

/* ---- registry ---- */

struct fake_clock {
	uint64_t t;
};

static uint64_t fake_now(void *ctx)
{
	return ((struct fake_clock *)ctx)->t;
}

static const struct sacc_iova_range reg_range = {0, 0xfffffff};

static struct sacc_dma_registry *mkreg(struct fake_clock *clk, size_t hist)
{
	struct sacc_dma_registry *reg;

	ck_assert_int_eq(
	    sacc_dma_registry_create(&reg, &reg_range, 1, PG, hist, NULL), 0);
	sacc_dma_registry_set_clock(reg, fake_now, clk);
	return reg;
}

static enum sacc_iova_kind kind_of(struct sacc_dma_registry *reg, uint64_t iova,
				   char *txt, size_t len)
{
	struct sacc_iova_lookup r;

	ck_assert_int_eq(sacc_dma_registry_lookup(reg, iova, 0, &r), 0);
	ck_assert_uint_eq(r.iova, iova);
	if (txt)
		ck_assert_int_gt(sacc_iova_lookup_format(&r, txt, len), 0);
	return r.kind;
}

START_TEST(test_registry_classify)
{
	struct fake_clock clk = {1000};
	struct sacc_dma_registry *reg = mkreg(&clk, 0);
	struct sacc_iova_lookup r;
	char txt[256];

	/* layout as the allocator makes it: g src src g g dst g */
	ck_assert_int_eq(sacc_dma_registry_add(reg, 0x1000, 0x2000,
					       0x7f0000001000,
					       SACC_DMA_TO_DEVICE, "src", NULL),
			 0);
	ck_assert_int_eq(
	    sacc_dma_registry_add(reg, 0x5000, 0x1000, 0x7f0000009000,
				  SACC_DMA_FROM_DEVICE, "dst", NULL),
	    0);

	ck_assert_int_eq(sacc_dma_registry_lookup(reg, 0x1010, 0, &r), 0);
	ck_assert_int_eq(r.kind, SACC_IOVA_MAPPED);
	ck_assert(r.has_buf);
	ck_assert_str_eq(r.buf.name, "src");
	ck_assert_uint_eq(r.offset, 0x10);
	ck_assert_uint_eq(r.buf.perm, VFIO_DMA_MAP_FLAG_READ);
	sacc_iova_lookup_format(&r, txt, sizeof(txt));
	ck_assert_ptr_nonnull(
	    strstr(txt, "inside buffer 'src' at offset 0x10"));
	ck_assert_ptr_nonnull(strstr(txt, "read-only"));
	ck_assert_int_eq(kind_of(reg, 0x2fff, NULL, 0), SACC_IOVA_MAPPED);
	ck_assert_int_eq(kind_of(reg, 0x5fff, NULL, 0), SACC_IOVA_MAPPED);

	/* both guard pages between src and dst name both buffers */
	ck_assert_int_eq(kind_of(reg, 0x3000, txt, sizeof(txt)),
			 SACC_IOVA_GUARD);
	ck_assert_str_eq(txt, "guard page between 'src' and 'dst'");
	ck_assert_int_eq(kind_of(reg, 0x4ffc, txt, sizeof(txt)),
			 SACC_IOVA_GUARD);
	ck_assert_str_eq(txt, "guard page between 'src' and 'dst'");
	/* before the first and after the last */
	ck_assert_int_eq(kind_of(reg, 0x0, txt, sizeof(txt)), SACC_IOVA_GUARD);
	ck_assert_ptr_nonnull(strstr(txt, "guard page before 'src'"));
	ck_assert_int_eq(kind_of(reg, 0x6008, txt, sizeof(txt)),
			 SACC_IOVA_GUARD);
	ck_assert_ptr_nonnull(strstr(txt, "guard page after 'dst'"));
	ck_assert_ptr_nonnull(strstr(txt, "0x8 bytes past its end"));
	/* last byte of the guard page after dst, first byte past it */
	ck_assert_int_eq(kind_of(reg, 0x6fff, txt, sizeof(txt)),
			 SACC_IOVA_GUARD);
	ck_assert_ptr_nonnull(strstr(txt, "guard page after 'dst'"));
	/* further away: never mapped */
	ck_assert_int_eq(kind_of(reg, 0x7000, txt, sizeof(txt)),
			 SACC_IOVA_NEVER_MAPPED);
	ck_assert_str_eq(txt, "never mapped");
	/* outside every range */
	ck_assert_int_eq(kind_of(reg, 0x10000000, txt, sizeof(txt)),
			 SACC_IOVA_BEYOND_RANGES);
	ck_assert_ptr_nonnull(strstr(txt, "beyond the usable IOVA ranges"));
	ck_assert_int_eq(kind_of(reg, UINT64_MAX, NULL, 0),
			 SACC_IOVA_BEYOND_RANGES);

	ck_assert_str_eq(sacc_iova_kind_name(SACC_IOVA_GUARD), "guard");
	ck_assert_str_eq(sacc_iova_kind_name(SACC_IOVA_UNMAPPED_EARLIER),
			 "unmapped_earlier");
	ck_assert_str_eq(sacc_iova_kind_name(SACC_IOVA_BEYOND_RANGES),
			 "beyond_ranges");
	sacc_dma_registry_destroy(reg);
}
END_TEST

START_TEST(test_registry_unmapped_earlier)
{
	struct fake_clock clk = {1000};
	struct sacc_dma_registry *reg = mkreg(&clk, 0);
	struct sacc_map_entry gone;
	struct sacc_iova_lookup r;
	char txt[256];

	ck_assert_int_eq(sacc_dma_registry_add(reg, 0x100000, 0x1000, 0x1000,
					       SACC_DMA_BIDIRECTIONAL, "x",
					       NULL),
			 0);
	clk.t = 2000;
	ck_assert_int_eq(sacc_dma_registry_remove(reg, 0x100000, &gone, NULL),
			 0);
	ck_assert_uint_eq(gone.map_ns, 1000);
	ck_assert_uint_eq(gone.unmap_ns, 2000);
	ck_assert_uint_eq(sacc_dma_registry_count(reg), 0);
	ck_assert_uint_eq(sacc_dma_registry_history_count(reg), 1);

	clk.t = 2000 + 3100000;
	ck_assert_int_eq(sacc_dma_registry_lookup(reg, 0x100abc, 0, &r), 0);
	ck_assert_int_eq(r.kind, SACC_IOVA_UNMAPPED_EARLIER);
	ck_assert_str_eq(r.stale.name, "x");
	ck_assert_uint_eq(r.ns_since_unmap, 3100000);
	ck_assert_uint_eq(r.stale_offset, 0xabc);
	sacc_iova_lookup_format(&r, txt, sizeof(txt));
	ck_assert_ptr_nonnull(
	    strstr(txt, "belonged to buffer 'x', unmapped 3.1 ms earlier"));

	/* looking back in time: at t=1500 it was mapped */
	ck_assert_int_eq(sacc_dma_registry_lookup(reg, 0x100010, 1500, &r), 0);
	ck_assert_int_eq(r.kind, SACC_IOVA_MAPPED);
	ck_assert_str_eq(r.buf.name, "x");
	/* before it was mapped: nothing (not even a guard) */
	ck_assert_int_eq(sacc_dma_registry_lookup(reg, 0x0fffff, 500, &r), 0);
	ck_assert_int_eq(r.kind, SACC_IOVA_NEVER_MAPPED);
	/* right after unmap, a neighbouring page is not a guard any more */
	ck_assert_int_eq(kind_of(reg, 0x101000, NULL, 0),
			 SACC_IOVA_NEVER_MAPPED);

	/* most recent match wins */
	clk.t = 10000000;
	ck_assert_int_eq(sacc_dma_registry_add(reg, 0x100000, 0x2000, 0,
					       SACC_DMA_TO_DEVICE, "y1", NULL),
			 0);
	clk.t = 11000000;
	ck_assert_int_eq(sacc_dma_registry_remove(reg, 0x100000, NULL, NULL),
			 0);
	clk.t = 12000000;
	ck_assert_int_eq(sacc_dma_registry_add(reg, 0x100000, 0x1000, 0,
					       SACC_DMA_TO_DEVICE, "y2", NULL),
			 0);
	clk.t = 13000000;
	ck_assert_int_eq(sacc_dma_registry_remove(reg, 0x100000, NULL, NULL),
			 0);
	clk.t = 15000000;
	ck_assert_int_eq(sacc_dma_registry_lookup(reg, 0x100000, 0, &r), 0);
	ck_assert_int_eq(r.kind, SACC_IOVA_UNMAPPED_EARLIER);
	ck_assert_str_eq(r.stale.name, "y2");
	ck_assert_uint_eq(r.ns_since_unmap, 2000000);
	/* 0x101800 was only ever in y1 */
	ck_assert_int_eq(sacc_dma_registry_lookup(reg, 0x101800, 0, &r), 0);
	ck_assert_int_eq(r.kind, SACC_IOVA_UNMAPPED_EARLIER);
	ck_assert_str_eq(r.stale.name, "y1");

	/* reuse: a stale page that is now a guard of a new buffer says both */
	ck_assert_int_eq(sacc_dma_registry_add(reg, 0x102000, 0x1000, 0,
					       SACC_DMA_TO_DEVICE, "z", NULL),
			 0);
	ck_assert_int_eq(sacc_dma_registry_lookup(reg, 0x101800, 0, &r), 0);
	ck_assert_int_eq(r.kind, SACC_IOVA_GUARD);
	ck_assert(r.has_stale);
	sacc_iova_lookup_format(&r, txt, sizeof(txt));
	ck_assert_ptr_nonnull(strstr(txt, "guard page before 'z'"));
	ck_assert_ptr_nonnull(strstr(txt, "belonged to buffer 'y1'"));
	sacc_dma_registry_destroy(reg);
}
END_TEST

START_TEST(test_registry_bookkeeping)
{
	struct fake_clock clk = {1};
	struct sacc_dma_registry *reg = mkreg(&clk, 4);
	struct sacc_map_entry e[8];
	struct sacc_err err = {0};
	char name[128];

	/* name is copied, and truncated to SACC_DMA_NAME_MAX - 1 */
	strcpy(name, "buffer-a");
	ck_assert_int_eq(sacc_dma_registry_add(reg, 0x9000, PG, 0,
					       SACC_DMA_TO_DEVICE, name, NULL),
			 0);
	strcpy(name, "changed");
	ck_assert_int_eq(sacc_dma_registry_find(reg, 0x9000, &e[0]), 0);
	ck_assert_str_eq(e[0].name, "buffer-a");
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	ck_assert_int_eq(sacc_dma_registry_add(reg, 0x1000, PG, 0,
					       SACC_DMA_TO_DEVICE, name, NULL),
			 0);
	ck_assert_int_eq(sacc_dma_registry_find(reg, 0x1000, &e[0]), 0);
	ck_assert_uint_eq(strlen(e[0].name), SACC_DMA_NAME_MAX - 1);

	/* overlap, unknown, bad length */
	ck_assert_int_eq(sacc_dma_registry_add(reg, 0x9800, PG, 0,
					       SACC_DMA_TO_DEVICE, "o", &err),
			 -EEXIST);
	ck_assert_ptr_nonnull(strstr(err.msg, "buffer-a"));
	ck_assert_int_eq(sacc_dma_registry_add(reg, 0x20000, 0, 0,
					       SACC_DMA_TO_DEVICE, "z", NULL),
			 -EINVAL);
	ck_assert_int_eq(sacc_dma_registry_add(reg, UINT64_MAX - 10, 100, 0,
					       SACC_DMA_TO_DEVICE, "w", NULL),
			 -EINVAL);
	ck_assert_int_eq(sacc_dma_registry_remove(reg, 0x9800, NULL, &err),
			 -ENOENT);
	ck_assert_int_eq(sacc_dma_registry_find(reg, 0x9800, NULL), -ENOENT);

	/* snapshot is sorted by IOVA */
	ck_assert_uint_eq(sacc_dma_registry_snapshot(reg, e, 8), 2);
	ck_assert_uint_eq(e[0].iova, 0x1000);
	ck_assert_uint_eq(e[1].iova, 0x9000);
	ck_assert_uint_eq(sacc_dma_registry_snapshot(reg, e, 1), 1);

	/* bounded history: 10 unmaps into 4 slots keep the newest 4 */
	ck_assert_int_eq(sacc_dma_registry_remove(reg, 0x1000, NULL, NULL), 0);
	ck_assert_int_eq(sacc_dma_registry_remove(reg, 0x9000, NULL, NULL), 0);
	for (uint64_t i = 0; i < 10; i++) {
		clk.t++;
		ck_assert_int_eq(
		    sacc_dma_registry_add(reg, 0x100000 + i * 0x10000, PG, 0,
					  SACC_DMA_FROM_DEVICE, "h", NULL),
		    0);
		ck_assert_int_eq(sacc_dma_registry_remove(
				     reg, 0x100000 + i * 0x10000, NULL, NULL),
				 0);
	}
	ck_assert_uint_eq(sacc_dma_registry_history_count(reg), 4);
	ck_assert_uint_eq(sacc_dma_registry_history(reg, e, 8), 4);
	ck_assert_uint_eq(e[0].iova, 0x100000 + 6 * 0x10000);
	ck_assert_uint_eq(e[3].iova, 0x100000 + 9 * 0x10000);
	ck_assert_uint_ne(e[3].unmap_ns, 0);
	ck_assert_int_eq(kind_of(reg, 0x100000, NULL, 0),
			 SACC_IOVA_NEVER_MAPPED);
	ck_assert_int_eq(kind_of(reg, 0x100000 + 9 * 0x10000, NULL, 0),
			 SACC_IOVA_UNMAPPED_EARLIER);
	sacc_dma_registry_destroy(reg);
	ck_assert_int_eq(
	    sacc_dma_registry_create(&reg, &reg_range, 1, 3000, 0, &err),
	    -EINVAL);
}
END_TEST

/* Registry and allocator together: every allocator gap classifies as a
 * guard and no address between two buffers is silently NEVER_MAPPED. */
START_TEST(test_registry_with_allocator)
{
	struct sacc_iova_range r = {0, 16 * MiB - 1};
	struct sacc_iova_alloc *a;
	struct sacc_dma_registry *reg;
	uint64_t iova[3];
	const char *names[] = {"sq", "cq", "buf"};
	char txt[256];

	ck_assert_int_eq(sacc_iova_alloc_create(&a, &r, 1, 0x1000, NULL), 0);
	ck_assert_int_eq(sacc_dma_registry_create(&reg, &r, 1, PG, 0, NULL), 0);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(
		    sacc_iova_alloc(a, (i + 1) * PG, &iova[i], NULL), 0);
		ck_assert_int_eq(sacc_dma_registry_add(
				     reg, iova[i], (i + 1) * PG, 0,
				     SACC_DMA_BIDIRECTIONAL, names[i], NULL),
				 0);
	}
	for (uint64_t p = 0; p < iova[2] + 3 * PG + PG; p += PG / 2) {
		enum sacc_iova_kind k = kind_of(reg, p, txt, sizeof(txt));

		ck_assert_msg(k == SACC_IOVA_MAPPED || k == SACC_IOVA_GUARD,
			      "0x%llx classified %s", (unsigned long long)p,
			      sacc_iova_kind_name(k));
	}
	ck_assert_int_eq(kind_of(reg, iova[1] - 1, txt, sizeof(txt)),
			 SACC_IOVA_GUARD);
	ck_assert_str_eq(txt, "guard page between 'sq' and 'cq'");
	/* an overrun one byte past 'buf' lands in its guard */
	ck_assert_int_eq(kind_of(reg, iova[2] + 3 * PG, txt, sizeof(txt)),
			 SACC_IOVA_GUARD);
	ck_assert_ptr_nonnull(strstr(txt, "guard page after 'buf' (0x0 bytes"));
	sacc_dma_registry_destroy(reg);
	sacc_iova_alloc_destroy(a);
}
END_TEST

/* ---- DMA context through a fake backend ---- */

struct fake_vfio {
	int maps, unmaps;
	int fail_map;	      /* -errno to return from the next map */
	uint64_t failed_iova; /* where the failed map was to go */
	uint64_t short_unmap; /* bytes to under-report on unmap */
	struct {
		uint64_t vaddr, iova, len;
		uint32_t flags;
		bool live;
	} m[128];
};

static int fake_map(void *o, uint64_t vaddr, uint64_t iova, uint64_t len,
		    uint32_t flags)
{
	struct fake_vfio *f = o;

	if (f->fail_map) {
		int r = f->fail_map;

		f->fail_map = 0;
		f->failed_iova = iova;
		return r;
	}
	ck_assert_int_lt(f->maps, 128);
	f->m[f->maps].vaddr = vaddr;
	f->m[f->maps].iova = iova;
	f->m[f->maps].len = len;
	f->m[f->maps].flags = flags;
	f->m[f->maps].live = true;
	f->maps++;
	return 0;
}

static int fake_unmap(void *o, uint64_t iova, uint64_t len, uint64_t *unmapped)
{
	struct fake_vfio *f = o;

	for (int i = 0; i < f->maps; i++) {
		if (f->m[i].live && f->m[i].iova == iova) {
			/* Type1v2: exact 1:1 granularity */
			ck_assert_uint_eq(f->m[i].len, len);
			f->m[i].live = false;
			f->unmaps++;
			*unmapped = len - f->short_unmap;
			return 0;
		}
	}
	*unmapped = 0;
	return 0;
}

static int fake_live(const struct fake_vfio *f)
{
	int n = 0;

	for (int i = 0; i < f->maps; i++)
		n += f->m[i].live;
	return n;
}

static struct sacc_dma_ctx *mkctx(struct fake_vfio *f, uint64_t memlock,
				  uint32_t avail)
{
	struct sacc_iommu_info info = {0};
	struct sacc_dma_limits lim = {.memlock_limit = memlock};
	struct sacc_dma_backend be = {fake_map, fake_unmap, f};
	struct sacc_dma_ctx *ctx;
	struct sacc_err err = {0};

	info.has_pgsizes = true;
	info.pgsizes = 0x40201000ull;
	info.has_iova_ranges = true;
	info.nr_ranges = 2;
	info.ranges[0] = (struct sacc_iova_range){0, 0xfedfffff};
	info.ranges[1] = (struct sacc_iova_range){0xfef00000, 0x7fffffffffull};
	info.has_dma_avail = avail != 0;
	info.dma_avail = avail;
	ck_assert_msg(sacc_dma_ctx_create(&ctx, -1, &info, &lim, &be, &err) ==
			  0,
		      "%s", err.msg);
	return ctx;
}

START_TEST(test_ctx_map_unmap)
{
	struct fake_vfio f = {0};
	struct sacc_dma_ctx *ctx = mkctx(&f, 64 * KiB, 0);
	struct sacc_dma_buf sq, cq, data;
	struct sacc_dma_stats st;
	struct sacc_iova_lookup r;
	struct sacc_err err = {0};
	char txt[256];

	ck_assert_int_eq(
	    sacc_dma_buf_alloc(ctx, 100, SACC_DMA_DIR_SQ, "sq", &sq, &err), 0);
	ck_assert_int_eq(
	    sacc_dma_buf_alloc(ctx, 5000, SACC_DMA_DIR_CQ, "cq", &cq, &err), 0);
	ck_assert_int_eq(sacc_dma_buf_alloc(ctx, PG, SACC_DMA_BIDIRECTIONAL,
					    "data", &data, &err),
			 0);
	ck_assert_int_eq(f.maps, 3);
	/* exactly the page-rounded buffer, least privilege */
	ck_assert_uint_eq(f.m[0].len, PG);
	ck_assert_uint_eq(f.m[0].flags, VFIO_DMA_MAP_FLAG_READ);
	ck_assert_uint_eq(f.m[0].vaddr, (uint64_t)(uintptr_t)sq.va);
	ck_assert_uint_eq(f.m[1].len, 2 * PG);
	ck_assert_uint_eq(f.m[1].flags, VFIO_DMA_MAP_FLAG_WRITE);
	ck_assert_uint_eq(f.m[2].flags,
			  VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE);
	ck_assert_uint_eq(sq.map_len, PG);
	ck_assert_uint_eq(cq.len, 5000);
	ck_assert_uint_eq(cq.map_len, 2 * PG);
	/* allocated IOVA, not the virtual address; never page 0 */
	ck_assert_uint_ne(sq.iova, (uint64_t)(uintptr_t)sq.va);
	ck_assert_uint_ge(sq.iova, PG);
	ck_assert_uint_ge(cq.iova, sq.iova + sq.map_len + PG);
	ck_assert_uint_eq((uintptr_t)sq.va % PG, 0);
	/* the buffer is usable memory */
	memset(cq.va, 0x5a, cq.map_len);

	ck_assert_int_eq(sacc_dma_lookup(ctx, cq.iova + 4100, 0, &r), 0);
	ck_assert_int_eq(r.kind, SACC_IOVA_MAPPED);
	ck_assert_str_eq(r.buf.name, "cq");
	ck_assert_uint_eq(r.offset, 4100);
	ck_assert_int_eq(sacc_dma_lookup(ctx, sq.iova + sq.map_len, 0, &r), 0);
	sacc_iova_lookup_format(&r, txt, sizeof(txt));
	ck_assert_str_eq(txt, "guard page between 'sq' and 'cq'");

	sacc_dma_ctx_stats(ctx, &st);
	ck_assert_uint_eq(st.pinned_bytes, 4 * PG);
	ck_assert_uint_eq(st.nr_mappings, 3);
	ck_assert_uint_eq(st.process_pinned_bytes, 4 * PG);
	ck_assert_uint_eq(st.page_size, PG);

	/* unmap: exact range, history records it */
	uint64_t cq_iova = cq.iova;

	ck_assert_int_eq(sacc_dma_buf_free(ctx, &cq, &err), 0);
	ck_assert_ptr_null(cq.va);
	ck_assert_int_eq(f.unmaps, 1);
	ck_assert_int_eq(sacc_dma_lookup(ctx, cq_iova, 0, &r), 0);
	ck_assert_int_eq(r.kind, SACC_IOVA_UNMAPPED_EARLIER);
	ck_assert_str_eq(r.stale.name, "cq");
	ck_assert_int_eq(sacc_dma_unmap(ctx, cq_iova, &err), -ENOENT);
	sacc_dma_ctx_stats(ctx, &st);
	ck_assert_uint_eq(st.pinned_bytes, 2 * PG);
	ck_assert_uint_eq(st.nr_mappings, 2);

	/* page-granular only: an unaligned vaddr is refused */
	ck_assert_int_eq(sacc_dma_map(ctx, (char *)data.va + 8, 16,
				      SACC_DMA_TO_DEVICE, "bad", &cq_iova,
				      &err),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "page"));
	ck_assert_int_eq(sacc_dma_map(ctx, data.va, 16, (enum sacc_dma_dir)0,
				      "bad", &cq_iova, &err),
			 -EINVAL);

	/* close unmaps what is left */
	sacc_dma_ctx_close(ctx);
	ck_assert_int_eq(fake_live(&f), 0);
	ck_assert_int_eq(f.unmaps, 3);
	munmap(sq.va, sq.map_len);
	munmap(data.va, data.map_len);
}
END_TEST

START_TEST(test_ctx_memlock_limit)
{
	struct fake_vfio f = {0};
	struct sacc_dma_ctx *ctx = mkctx(&f, 64 * KiB, 0);
	struct sacc_dma_buf a, b;
	struct sacc_dma_stats st;
	struct sacc_err err = {0};

	ck_assert_int_eq(sacc_dma_buf_alloc(ctx, 56 * KiB, SACC_DMA_TO_DEVICE,
					    "a", &a, &err),
			 0);
	ck_assert_int_eq(sacc_dma_buf_alloc(ctx, 12 * KiB, SACC_DMA_TO_DEVICE,
					    "b", &b, &err),
			 -ENOMEM);
	ck_assert_str_eq(
	    err.msg,
	    "pinning 12 KiB more would exceed RLIMIT_MEMLOCK (64 KiB, 56 KiB "
	    "in use): raise it with `ulimit -l` or limits.conf");
	ck_assert_int_eq(f.maps, 1); /* refused before the kernel saw it */
	sacc_dma_ctx_stats(ctx, &st);
	ck_assert_uint_eq(st.nr_mappings, 1);
	ck_assert_uint_eq(st.pinned_bytes, 56 * KiB);
	ck_assert_int_eq(
	    sacc_dma_buf_alloc(ctx, 8 * KiB, SACC_DMA_TO_DEVICE, "b", &b, &err),
	    0);

	/* the kernel's own ENOMEM gets the same explanation */
	uint64_t b_iova = b.iova;

	ck_assert_int_eq(sacc_dma_buf_free(ctx, &b, NULL), 0);
	f.fail_map = -ENOMEM;
	ck_assert_int_eq(
	    sacc_dma_buf_alloc(ctx, PG, SACC_DMA_TO_DEVICE, "c", &b, &err),
	    -ENOMEM);
	ck_assert_ptr_nonnull(
	    strstr(err.msg, "RLIMIT_MEMLOCK (64 KiB, 56 KiB in use)"));
	ck_assert_ptr_nonnull(strstr(err.msg, "ulimit -l"));
	/* nothing leaked: the IOVA was returned and nothing recorded */
	sacc_dma_ctx_stats(ctx, &st);
	ck_assert_uint_eq(st.nr_mappings, 1);
	ck_assert_uint_eq(sacc_dma_registry_count(sacc_dma_ctx_registry(ctx)),
			  1);
	f.fail_map = -EFAULT;
	ck_assert_int_eq(
	    sacc_dma_buf_alloc(ctx, PG, SACC_DMA_TO_DEVICE, "d", &b, &err),
	    -EFAULT);
	ck_assert_ptr_nonnull(strstr(err.msg, "'d'"));
	/* the failed maps gave their IOVA back (no quarantine for IOVA no
	 * device was told about): first fit finds it again; b's, which was
	 * mapped, is quarantined */
	ck_assert_int_eq(
	    sacc_dma_buf_alloc(ctx, PG, SACC_DMA_TO_DEVICE, "e", &b, &err), 0);
	ck_assert_uint_eq(b.iova, f.failed_iova);
	ck_assert_uint_ne(b.iova, b_iova);
	sacc_dma_ctx_close(ctx);
	munmap(b.va, b.map_len);
	munmap(a.va, a.map_len);
}
END_TEST

START_TEST(test_ctx_dma_entry_limit)
{
	struct fake_vfio f = {0};
	struct sacc_dma_ctx *ctx = mkctx(&f, UINT64_MAX, 2);
	struct sacc_dma_buf b[3];
	struct sacc_err err = {0};

	ck_assert_int_eq(
	    sacc_dma_buf_alloc(ctx, PG, SACC_DMA_TO_DEVICE, "b0", &b[0], &err),
	    0);
	ck_assert_int_eq(
	    sacc_dma_buf_alloc(ctx, PG, SACC_DMA_TO_DEVICE, "b1", &b[1], &err),
	    0);
	ck_assert_int_eq(
	    sacc_dma_buf_alloc(ctx, PG, SACC_DMA_TO_DEVICE, "b2", &b[2], &err),
	    -ENOSPC);
	ck_assert_str_eq(
	    err.msg, "VFIO dma_entry_limit reached (2 mappings): raise "
		     "/sys/module/vfio_iommu_type1/parameters/dma_entry_limit");
	/* an unmap gives the headroom back */
	ck_assert_int_eq(sacc_dma_buf_free(ctx, &b[0], NULL), 0);
	ck_assert_int_eq(
	    sacc_dma_buf_alloc(ctx, PG, SACC_DMA_TO_DEVICE, "b2", &b[2], &err),
	    0);
	/* the kernel's ENOSPC is explained the same way */
	ck_assert_int_eq(sacc_dma_buf_free(ctx, &b[2], NULL), 0);
	f.fail_map = -ENOSPC;
	ck_assert_int_eq(
	    sacc_dma_buf_alloc(ctx, PG, SACC_DMA_TO_DEVICE, "b3", &b[2], &err),
	    -ENOSPC);
	ck_assert_ptr_nonnull(strstr(err.msg, "dma_entry_limit"));
	sacc_dma_ctx_close(ctx);
}
END_TEST

START_TEST(test_ctx_unmap_size_mismatch)
{
	struct fake_vfio f = {0};
	struct sacc_dma_ctx *ctx = mkctx(&f, UINT64_MAX, 0);
	struct sacc_dma_buf b, c;
	struct sacc_err err = {0};
	uint64_t old;

	ck_assert_int_eq(
	    sacc_dma_buf_alloc(ctx, 2 * PG, SACC_DMA_TO_DEVICE, "b", &b, &err),
	    0);
	old = b.iova;
	f.short_unmap = PG;
	ck_assert_int_eq(sacc_dma_buf_free(ctx, &b, &err), -EIO);
	ck_assert_ptr_nonnull(
	    strstr(err.msg, "unmapped 4096 bytes, expected 8192"));
	f.short_unmap = 0;
	/* that IOVA is retired: never handed out again */
	ck_assert_int_eq(
	    sacc_dma_buf_alloc(ctx, 2 * PG, SACC_DMA_TO_DEVICE, "c", &c, &err),
	    0);
	ck_assert_uint_ne(c.iova, old);
	sacc_dma_ctx_close(ctx);
}
END_TEST

/* What the observer saw, in order. */
struct obs_log {
	int n;
	struct {
		char ev; /* 'm' or 'u' */
		struct sacc_map_entry e;
	} ev[16];
};

static void obs_mapped(void *o, const struct sacc_map_entry *e)
{
	struct obs_log *l = o;

	ck_assert_int_lt(l->n, 16);
	l->ev[l->n].ev = 'm';
	l->ev[l->n++].e = *e;
}

static void obs_unmapped(void *o, const struct sacc_map_entry *e)
{
	struct obs_log *l = o;

	ck_assert_int_lt(l->n, 16);
	l->ev[l->n].ev = 'u';
	l->ev[l->n++].e = *e;
}

START_TEST(test_ctx_observer)
{
	struct fake_vfio f = {0};
	struct sacc_dma_ctx *ctx = mkctx(&f, UINT64_MAX, 0);
	struct obs_log log = {0};
	struct sacc_dma_observer obs = {obs_mapped, obs_unmapped, &log};
	struct sacc_dma_buf a, b, c;
	struct sacc_err err = {0};
	uint64_t a_iova;

	sacc_dma_ctx_set_observer(ctx, &obs);
	ck_assert_int_eq(
	    sacc_dma_buf_alloc(ctx, 100, SACC_DMA_TO_DEVICE, "a", &a, &err), 0);
	ck_assert_int_eq(sacc_dma_buf_alloc(ctx, 2 * PG, SACC_DMA_FROM_DEVICE,
					    "b", &b, &err),
			 0);
	a_iova = a.iova;
	ck_assert_int_eq(log.n, 2);
	ck_assert_int_eq(log.ev[0].ev, 'm');
	ck_assert_str_eq(log.ev[0].e.name, "a");
	ck_assert_uint_eq(log.ev[0].e.iova, a.iova);
	ck_assert_uint_eq(log.ev[0].e.len, PG);
	ck_assert_uint_eq(log.ev[0].e.perm, VFIO_DMA_MAP_FLAG_READ);
	ck_assert_uint_eq(log.ev[0].e.unmap_ns, 0);
	ck_assert_uint_eq(log.ev[1].e.perm, VFIO_DMA_MAP_FLAG_WRITE);
	ck_assert_uint_eq(log.ev[1].e.len, 2 * PG);

	/* a failed map is not reported */
	f.fail_map = -EFAULT;
	ck_assert_int_eq(
	    sacc_dma_buf_alloc(ctx, PG, SACC_DMA_TO_DEVICE, "x", &c, &err),
	    -EFAULT);
	ck_assert_int_eq(log.n, 2);

	/* unmap, then map again: order preserved (the IOVA is not reused
	 * at once: it is quarantined) */
	ck_assert_int_eq(sacc_dma_buf_free(ctx, &a, &err), 0);
	ck_assert_int_eq(log.n, 3);
	ck_assert_int_eq(log.ev[2].ev, 'u');
	ck_assert_str_eq(log.ev[2].e.name, "a");
	ck_assert_uint_eq(log.ev[2].e.iova, a_iova);
	ck_assert_uint_ne(log.ev[2].e.unmap_ns, 0);
	ck_assert_int_eq(
	    sacc_dma_buf_alloc(ctx, PG, SACC_DMA_TO_DEVICE, "c", &c, &err), 0);
	ck_assert_uint_ne(c.iova, a_iova);
	ck_assert_int_eq(log.ev[3].ev, 'm');
	ck_assert_str_eq(log.ev[3].e.name, "c");

	/* removing the observer stops the calls */
	sacc_dma_ctx_set_observer(ctx, NULL);
	ck_assert_int_eq(sacc_dma_buf_free(ctx, &c, &err), 0);
	ck_assert_int_eq(log.n, 4);

	/* close reports what it unmaps */
	sacc_dma_ctx_set_observer(ctx, &obs);
	sacc_dma_ctx_close(ctx);
	ck_assert_int_eq(log.n, 5);
	ck_assert_int_eq(log.ev[4].ev, 'u');
	ck_assert_str_eq(log.ev[4].e.name, "b");
	munmap(b.va, b.map_len);
}
END_TEST

/* ---- quarantine of freed IOVA ---- */

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

/* ---- memory the system can give (issue 9, 6: fail, not OOM) ---- */

START_TEST(test_mem_check)
{
	struct sacc_err err = {0};

	ck_assert_uint_eq(sacc_mem_reserve(512 * MiB), 64 * MiB);
	ck_assert_uint_eq(sacc_mem_reserve(24ull << 30), 768 * MiB);
	ck_assert_int_eq(
	    sacc_dma_check_memory(300 * MiB, 512 * MiB, 236 * MiB, &err), 0);
	ck_assert_int_eq(
	    sacc_dma_check_memory(300 * MiB, 512 * MiB, 237 * MiB, &err),
	    -ENOMEM);
	ck_assert_str_eq(err.msg,
			 "pinning 237 MiB would leave 63 MiB of MemAvailable "
			 "(300 MiB now), less than the 64 MiB libsacc keeps "
			 "free: pinned memory cannot be reclaimed, and the "
			 "OOM killer would end this process; free buffers, "
			 "use smaller ones, or give the machine more memory");
	/* more than there is at all */
	ck_assert_int_eq(
	    sacc_dma_check_memory(100 * MiB, 512 * MiB, 256 * MiB, &err),
	    -ENOMEM);
	ck_assert_ptr_nonnull(strstr(err.msg, "leave 0 B of MemAvailable"));
}
END_TEST

static void write_meminfo(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(test_meminfo_read)
{
	char path[] = "/tmp/sacc-meminfo-XXXXXX";
	uint64_t avail = 0, total = 0;
	struct sacc_err err = {0};
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	write_meminfo(path, "MemTotal:         500000 kB\n"
			    "MemFree:          100000 kB\n"
			    "MemAvailable:     300000 kB\n"
			    "Buffers:             100 kB\n");
	ck_assert_int_eq(sacc_meminfo_read(path, &avail, &total, &err), 0);
	ck_assert_uint_eq(total, 500000ull * 1024);
	ck_assert_uint_eq(avail, 300000ull * 1024);
	write_meminfo(path, "MemTotal:         500000 kB\n");
	ck_assert_int_eq(sacc_meminfo_read(path, &avail, &total, &err),
			 -EINVAL);
	unlink(path);
	ck_assert_int_eq(sacc_meminfo_read(path, &avail, &total, &err),
			 -ENOENT);
	/* the real one */
	ck_assert_int_eq(
	    sacc_meminfo_read("/proc/meminfo", &avail, &total, &err), 0);
	ck_assert(avail > 0 && avail <= total);
}
END_TEST

/* A buffer that would eat the reserve is refused before any page is
 * touched or pinned. */
START_TEST(test_ctx_memory_refused)
{
	char path[] = "/tmp/sacc-meminfo-XXXXXX";
	struct fake_vfio f = {0};
	struct sacc_dma_ctx *ctx = mkctx(&f, UINT64_MAX, 0);
	struct sacc_err err = {0};
	struct sacc_dma_buf b;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	/* 512 MiB machine (reserve 64 MiB), 80 MiB available */
	write_meminfo(path, "MemTotal: 524288 kB\nMemAvailable: 81920 kB\n");
	sacc_dma_ctx_set_meminfo(ctx, path);
	ck_assert_int_eq(sacc_dma_buf_alloc(ctx, 32 * MiB, SACC_DMA_TO_DEVICE,
					    "big", &b, &err),
			 -ENOMEM);
	ck_assert_ptr_nonnull(
	    strstr(err.msg, "DMA buffer 'big': pinning 32 MiB"));
	ck_assert_ptr_nonnull(strstr(err.msg, "OOM killer"));
	ck_assert_int_eq(f.maps, 0);
	ck_assert_int_eq(sacc_dma_buf_alloc(ctx, 8 * MiB, SACC_DMA_TO_DEVICE,
					    "ok", &b, &err),
			 0);
	ck_assert_int_eq(sacc_dma_buf_free(ctx, &b, &err), 0);
	/* unreadable: no check (nothing to go by) */
	unlink(path);
	ck_assert_int_eq(sacc_dma_buf_alloc(ctx, 32 * MiB, SACC_DMA_TO_DEVICE,
					    "big", &b, &err),
			 0);
	ck_assert_int_eq(sacc_dma_buf_free(ctx, &b, &err), 0);
	sacc_dma_ctx_close(ctx);
}
END_TEST

START_TEST(test_ctx_open_bad_fd)
{
	struct sacc_dma_ctx *ctx = (void *)1;
	struct sacc_err err = {0};

	ck_assert_int_lt(sacc_dma_ctx_open(&ctx, -1, &err), 0);
	ck_assert_int_ne(err.msg[0], 0);
	ck_assert_int_eq(sacc_vfio_map_dma(-1, 0, PG, PG, 1, &err), -EBADF);
	ck_assert_ptr_nonnull(strstr(err.msg, "VFIO_IOMMU_MAP_DMA"));
	ck_assert_int_eq(sacc_vfio_unmap_dma(-1, PG, PG, &err), -EBADF);
	ck_assert_ptr_nonnull(strstr(err.msg, "VFIO_IOMMU_UNMAP_DMA"));
}
END_TEST

static Suite *iommu_suite(void)
{
	Suite *s = suite_create("iommu");
	TCase *parse = tcase_create("parse");
	TCase *alloc = tcase_create("alloc");
	TCase *perm = tcase_create("perm_limits");
	TCase *reg = tcase_create("registry");
	TCase *ctx = tcase_create("ctx");

	tcase_add_test(parse, test_parse_normal);
	tcase_add_test(parse, test_parse_missing_caps);
	tcase_add_test(parse, test_parse_truncated);
	tcase_add_test(parse, test_parse_bad_chain);
	tcase_add_test(parse, test_parse_many_ranges);
	tcase_add_test(parse, test_parse_fuzz);
	tcase_add_test(parse, test_get_info_bad_fd);
	tcase_set_timeout(alloc, 60);
	tcase_add_test(alloc, test_alloc_basic_guards);
	tcase_add_test(alloc, test_alloc_exhaustion_and_reuse);
	tcase_add_test(alloc, test_alloc_first_fit_reuse_keeps_guards);
	tcase_add_test(alloc, test_alloc_odd_ranges);
	tcase_add_test(alloc, test_alloc_many_ranges);
	tcase_add_test(alloc, test_alloc_near_top);
	tcase_add_test(alloc, test_alloc_pgsize_bitmap);
	tcase_add_test(alloc, test_alloc_random_stress);
	tcase_add_test(alloc, test_alloc_quarantine_allocs);
	tcase_add_test(alloc, test_alloc_quarantine_bytes_and_pressure);
	tcase_add_test(perm, test_permissions);
	tcase_add_test(perm, test_format_helpers);
	tcase_add_test(perm, test_limits_memlock_text);
	tcase_add_test(perm, test_limits_dma_entry_text);
	tcase_add_test(perm, test_explain_map_errno);
	tcase_add_test(perm, test_read_limits);
	tcase_add_test(perm, test_mem_check);
	tcase_add_test(perm, test_meminfo_read);
	tcase_add_test(reg, test_registry_classify);
	tcase_add_test(reg, test_registry_unmapped_earlier);
	tcase_add_test(reg, test_registry_bookkeeping);
	tcase_add_test(reg, test_registry_with_allocator);
	tcase_add_test(ctx, test_ctx_map_unmap);
	tcase_add_test(ctx, test_ctx_memlock_limit);
	tcase_add_test(ctx, test_ctx_dma_entry_limit);
	tcase_add_test(ctx, test_ctx_unmap_size_mismatch);
	tcase_add_test(ctx, test_ctx_observer);
	tcase_add_test(ctx, test_ctx_quarantine);
	tcase_add_test(ctx, test_ctx_memory_refused);
	tcase_add_test(ctx, test_ctx_open_bad_fd);
	suite_add_tcase(s, parse);
	suite_add_tcase(s, alloc);
	suite_add_tcase(s, perm);
	suite_add_tcase(s, reg);
	suite_add_tcase(s, ctx);
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

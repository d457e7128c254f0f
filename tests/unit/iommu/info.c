// SPDX-License-Identifier: MIT
/*
 * info.c - VFIO_IOMMU_GET_INFO's capability chain on synthetic buffers:
 * page sizes, IOVA ranges, DMA entries available; missing, truncated,
 * looping and malformed chains; many ranges; random bytes
 */
#include "iommu_test.h"
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

void info_tests(Suite *s)
{
	TCase *tc = tcase_create("info");

	tcase_add_test(tc, test_parse_normal);
	tcase_add_test(tc, test_parse_missing_caps);
	tcase_add_test(tc, test_parse_truncated);
	tcase_add_test(tc, test_parse_bad_chain);
	tcase_add_test(tc, test_parse_many_ranges);
	tcase_add_test(tc, test_parse_fuzz);
	tcase_add_test(tc, test_get_info_bad_fd);
	suite_add_tcase(s, tc);
}

// SPDX-License-Identifier: MIT
/*
 * registry.c - the DMA mapping registry: what an IOVA is (mapped, guard,
 * unmapped earlier, never), its history and bookkeeping, with the
 * allocator
 */
#include "iommu_test.h"
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

void registry_tests(Suite *s)
{
	TCase *tc = tcase_create("registry");

	tcase_add_test(tc, test_registry_classify);
	tcase_add_test(tc, test_registry_unmapped_earlier);
	tcase_add_test(tc, test_registry_bookkeeping);
	tcase_add_test(tc, test_registry_with_allocator);
	suite_add_tcase(s, tc);
}

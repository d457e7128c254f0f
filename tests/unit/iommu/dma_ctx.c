// SPDX-License-Identifier: MIT
/*
 * dma_ctx.c - the DMA context on the fake backend: map and unmap, the
 * memlock and DMA entry limits, a short unmap, observers, a bad fd
 */
#include "iommu_test.h"
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

void dma_ctx_tests(Suite *s)
{
	TCase *tc = tcase_create("ctx");

	tcase_add_test(tc, test_ctx_map_unmap);
	tcase_add_test(tc, test_ctx_memlock_limit);
	tcase_add_test(tc, test_ctx_dma_entry_limit);
	tcase_add_test(tc, test_ctx_unmap_size_mismatch);
	tcase_add_test(tc, test_ctx_observer);
	tcase_add_test(tc, test_ctx_open_bad_fd);
	suite_add_tcase(s, tc);
}

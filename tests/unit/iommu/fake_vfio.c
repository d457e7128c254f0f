// SPDX-License-Identifier: MIT
/*
 * fake_vfio.c - a fake map/unmap backend for the DMA context: it records
 * what it is asked, fails a map or under-reports an unmap on demand
 */
#include "iommu_test.h"
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

int fake_live(const struct fake_vfio *f)
{
	int n = 0;

	for (int i = 0; i < f->maps; i++)
		n += f->m[i].live;
	return n;
}

struct sacc_dma_ctx *mkctx(struct fake_vfio *f, uint64_t memlock,
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

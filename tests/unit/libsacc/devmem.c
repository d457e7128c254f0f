// SPDX-License-Identifier: MIT
/*
 * devmem.c - device memory: the allocator alone and under churn,
 * sacc_devmem_alloc() and its messages, the SQ in device memory
 */
#include <sys/mman.h>

#include "fake_dev.h"

/* The allocator alone: first fit, page granularity, exhaustion, merges
 * on free in every arrangement, refusals of what was not allocated. */
START_TEST(test_devmem_pool)
{
	struct sacc_devmem_pool *p;
	uint64_t a, b, c, d, used, big;
	uint32_t allocs, ext;

	ck_assert_int_eq(sacc_devmem_pool_create(0, &p), -EINVAL);
	ck_assert_int_eq(sacc_devmem_pool_create(4097, &p), -EINVAL);
	ck_assert_int_eq(sacc_devmem_pool_create(16 * 4096, &p), 0);
	ck_assert_int_eq(sacc_devmem_pool_take(p, 0, &a), -EINVAL);
	ck_assert_int_eq(sacc_devmem_pool_take(p, 16 * 4096 + 1, &a), -ENOSPC);
	/* page granular, page aligned, first fit from 0 */
	ck_assert_int_eq(sacc_devmem_pool_take(p, 1, &a), 0);
	ck_assert_int_eq(sacc_devmem_pool_take(p, 4097, &b), 0);
	ck_assert_int_eq(sacc_devmem_pool_take(p, 4096, &c), 0);
	ck_assert_uint_eq(a, 0);
	ck_assert_uint_eq(b, 4096);
	ck_assert_uint_eq(c, 3 * 4096);
	sacc_devmem_pool_usage(p, &used, &big, &allocs, &ext);
	ck_assert_uint_eq(used, 4 * 4096);
	ck_assert_uint_eq(big, 12 * 4096);
	ck_assert_uint_eq(allocs, 3);
	ck_assert_uint_eq(ext, 1);
	/* exhaustion: 12 pages left, in one run */
	ck_assert_int_eq(sacc_devmem_pool_take(p, 13 * 4096, &d), -ENOSPC);
	ck_assert_int_eq(sacc_devmem_pool_take(p, 12 * 4096, &d), 0);
	ck_assert_uint_eq(d, 4 * 4096);
	ck_assert_int_eq(sacc_devmem_pool_take(p, 1, &d), -ENOSPC);
	ck_assert_int_eq(sacc_devmem_pool_give(p, d, 12 * 4096), 0);
	/* a hole at b (2 pages): first fit puts 1 page there, 3 after c */
	ck_assert_int_eq(sacc_devmem_pool_give(p, b, 4097), 0);
	sacc_devmem_pool_usage(p, NULL, &big, NULL, &ext);
	ck_assert_uint_eq(ext, 2);
	ck_assert_uint_eq(big, 12 * 4096);
	ck_assert_int_eq(sacc_devmem_pool_take(p, 3 * 4096, &d), 0);
	ck_assert_uint_eq(d, 4 * 4096);
	ck_assert_int_eq(sacc_devmem_pool_take(p, 100, &b), 0);
	ck_assert_uint_eq(b, 4096);
	/* refused: a double free, a free range, misaligned, past the end */
	ck_assert_int_eq(sacc_devmem_pool_give(p, 2 * 4096, 4096), -EINVAL);
	ck_assert_int_eq(sacc_devmem_pool_give(p, 100, 4096), -EINVAL);
	ck_assert_int_eq(sacc_devmem_pool_give(p, 15 * 4096, 2 * 4096),
			 -EINVAL);
	ck_assert_int_eq(sacc_devmem_pool_give(p, a, 4096), 0);
	ck_assert_int_eq(sacc_devmem_pool_give(p, a, 4096), -EINVAL);
	/* merges: with the next (b), with both (c between free runs),
	 * with the previous (d) */
	ck_assert_int_eq(sacc_devmem_pool_give(p, b, 100), 0);
	sacc_devmem_pool_usage(p, NULL, NULL, NULL, &ext);
	ck_assert_uint_eq(ext, 2); /* [0, 3 pages) and after d */
	ck_assert_int_eq(sacc_devmem_pool_give(p, c, 4096), 0);
	sacc_devmem_pool_usage(p, &used, NULL, &allocs, &ext);
	ck_assert_uint_eq(ext, 2);
	ck_assert_uint_eq(allocs, 1);
	ck_assert_uint_eq(used, 3 * 4096);
	ck_assert_int_eq(sacc_devmem_pool_give(p, d, 3 * 4096), 0);
	sacc_devmem_pool_usage(p, &used, &big, &allocs, &ext);
	ck_assert_uint_eq(used, 0);
	ck_assert_uint_eq(big, 16 * 4096);
	ck_assert_uint_eq(allocs, 0);
	ck_assert_uint_eq(ext, 1);
	ck_assert_int_eq(sacc_devmem_pool_give(p, 0, 4096), -EINVAL);
	sacc_devmem_pool_destroy(p);
}
END_TEST

/* Many allocations and frees in a scrambled order against a page map:
 * no overlap, every page accounted for, all merged back at the end
 * (and the extent array never needs memory to give back). */
START_TEST(test_devmem_pool_churn)
{
	enum { PAGES = 256, N = 64 };
	struct sacc_devmem_pool *p;
	uint64_t off[N], len[N], used, big;
	uint8_t owner[PAGES];
	uint32_t allocs, ext, x = 12345;
	int live = 0;

	memset(owner, 0xff, sizeof(owner));
	memset(len, 0, sizeof(len));
	ck_assert_int_eq(sacc_devmem_pool_create(PAGES * 4096, &p), 0);
	for (int round = 0; round < 4000; round++) {
		int k;

		x = x * 1103515245 + 12345;
		k = (int)((x >> 8) % N);
		if (len[k]) {
			ck_assert_int_eq(
			    sacc_devmem_pool_give(p, off[k], len[k]), 0);
			for (uint64_t q = 0; q < (len[k] + 4095) / 4096; q++)
				owner[off[k] / 4096 + q] = 0xff;
			len[k] = 0;
			live--;
			continue;
		}
		len[k] = 1 + (x >> 12) % (6 * 4096);
		if (sacc_devmem_pool_take(p, len[k], &off[k])) {
			len[k] = 0;
			continue;
		}
		ck_assert_uint_eq(off[k] % 4096, 0);
		for (uint64_t q = 0; q < (len[k] + 4095) / 4096; q++) {
			ck_assert_uint_eq(owner[off[k] / 4096 + q], 0xff);
			owner[off[k] / 4096 + q] = (uint8_t)k;
		}
		live++;
	}
	used = 0;
	for (int q = 0; q < PAGES; q++)
		used += owner[q] != 0xff ? 4096 : 0;
	sacc_devmem_pool_usage(p, &big, NULL, &allocs, &ext);
	ck_assert_uint_eq(big, used);
	ck_assert_uint_eq(allocs, (uint32_t)live);
	ck_assert_uint_le(ext, allocs + 1);
	for (int k = 0; k < N; k++)
		if (len[k])
			ck_assert_int_eq(
			    sacc_devmem_pool_give(p, off[k], len[k]), 0);
	sacc_devmem_pool_usage(p, &used, &big, &allocs, &ext);
	ck_assert_uint_eq(used, 0);
	ck_assert_uint_eq(big, PAGES * 4096);
	ck_assert_uint_eq(ext, 1);
	sacc_devmem_pool_destroy(p);
}
END_TEST

/* sacc_devmem_alloc(): device buffers, their accessors, the messages,
 * and a channel handle allocating from its device's memory. */
START_TEST(test_devmem_alloc)
{
	struct sacc_dev *dev = fake_open(8, 8), *ch;
	struct sacc_buf *a, *b, *c, *h;
	struct sacc_devmem_info in;
	uint8_t *va;

	/* a v0.3 device: no device memory, and why */
	sacc_err_set(&dev->devmem_why, ENOTSUP,
		     "the device has VERSION 3; device memory needs a v0.4 "
		     "device (VERSION 4 or later)");
	ck_assert_int_eq(sacc_devmem_alloc(dev, 4096, "x", &a), -ENOTSUP);
	ck_assert_ptr_null(a);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "no device memory"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "VERSION 3"));
	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	ck_assert(!in.mapped);
	ck_assert_ptr_nonnull(strstr(in.why, "v0.4"));

	fake_devmem(dev, 16 * 4096);
	memset(F.dm, 0xee, 16 * 4096); /* what an earlier user left */
	ck_assert_int_eq(sacc_devmem_alloc(dev, 0, "z", &a), -EINVAL);
	ck_assert_int_eq(sacc_devmem_alloc(dev, 17 * 4096, "z", &a), -EINVAL);
	ck_assert_int_eq(sacc_devmem_alloc(dev, 100, "a", &a), 0);
	ck_assert_int_eq(sacc_devmem_alloc(dev, 8192, "b", &b), 0);
	ck_assert(sacc_buf_is_dev(a) && sacc_buf_is_dev(b));
	ck_assert_uint_eq(sacc_buf_devaddr(a), 0);
	ck_assert_uint_eq(sacc_buf_devaddr(b), 4096);
	ck_assert_ptr_eq(sacc_buf_va(b), F.dm + 4096);
	ck_assert_uint_eq(sacc_buf_len(a), 100);
	ck_assert_uint_eq(sacc_buf_iova(a), 0);
	ck_assert_int_eq(sacc_buf_dir(a), SACC_DMA_BIDIRECTIONAL);
	ck_assert_str_eq(sacc_buf_name(a), "a");
	va = sacc_buf_va(a);
	ck_assert_uint_eq(va[0], 0); /* zeroed, whole pages */
	ck_assert_uint_eq(va[4095], 0);
	ck_assert_uint_eq(F.dm[3 * 4096], 0xee); /* nothing past b */
	/* a host buffer is not device memory */
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 10, SACC_DMA_TO_DEVICE, "host", &h), 0);
	ck_assert(!sacc_buf_is_dev(h));
	ck_assert_uint_eq(sacc_buf_devaddr(h), UINT64_MAX);

	/* full: what is in use and free, the largest run */
	ck_assert_int_eq(sacc_devmem_alloc(dev, 14 * 4096, "big", &c), -ENOSPC);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "out of device memory"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "'big'"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "12 KiB of 64 KiB"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "52 KiB free"));
	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	ck_assert(in.mapped);
	ck_assert_ptr_null(in.why);
	ck_assert_uint_eq(in.size, 16 * 4096);
	ck_assert_uint_eq(in.used, 3 * 4096);
	ck_assert_uint_eq(in.largest_free, 13 * 4096);
	ck_assert_uint_eq(in.buffers, 2);

	/* a channel's handle: the device's memory, the channel's buffer */
	ch = calloc(1, sizeof(*ch));
	ck_assert_ptr_nonnull(ch);
	memcpy(ch->bdf, dev->bdf, sizeof(ch->bdf));
	ch->root = dev;
	ch->chan = 3;
	ch->version = dev->version;
	ck_assert_int_eq(sacc_devmem_alloc(ch, 5000, "c", &c), 0);
	ck_assert_str_eq(sacc_buf_name(c), "ch3:c");
	ck_assert_uint_eq(sacc_buf_devaddr(c), 3 * 4096);
	ck_assert_int_eq(sacc_devmem_info(ch, &in), 0);
	ck_assert_uint_eq(in.used, 5 * 4096);
	ck_assert_ptr_eq(ch->bufs, c);

	/* busy buffers stay; freed ones merge back */
	a->inflight = 1;
	ck_assert_int_eq(sacc_buf_free(a), -EBUSY);
	a->inflight = 0;
	ck_assert_int_eq(sacc_buf_free(b), 0);
	ck_assert_int_eq(sacc_buf_free(a), 0);
	ck_assert_int_eq(sacc_devmem_alloc(dev, 3 * 4096, "again", &a), 0);
	ck_assert_uint_eq(sacc_buf_devaddr(a), 0);
	sacc_buf_free_all(ch); /* what closing the channel does */
	free(ch);
	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	ck_assert_uint_eq(in.used, 3 * 4096);
	ck_assert_uint_eq(in.largest_free, 13 * 4096);
	fake_close(dev);
}
END_TEST

/* The SQ in device memory (MODE.SQ_DEV): libsacc writes descriptors and
 * inline payloads through the mapping, the device reads them there. */
START_TEST(test_devmem_sq)
{
	struct sacc_dev *dev =
	    fake_open_mode(8, 8, SACC_MODE_V3 | SACC_MODE_SQ_DEV, 16 * 4096);
	struct sacc_devmem_info in;
	struct sacc_result r[4];
	struct sacc_buf *dd;
	struct sacc_op op[3];

	ck_assert(sacc_buf_is_dev(dev->sq_buf));
	ck_assert_ptr_eq(sacc_dev_sq_va(dev), F.dm);
	ck_assert_uint_eq(sacc_dev_sq_iova(dev), 0);
	ck_assert_uint_eq(sacc_buf_addr(dev->sq_buf), 0); /* SQ_BASE */
	ck_assert(!sacc_buf_is_dev(dev->cq_buf));	  /* the CQ: host */
	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	ck_assert_uint_eq(in.used, 4096); /* the ring's page */
	ck_assert_uint_eq(in.buffers, 1);
	ck_assert_int_eq(sacc_devmem_alloc(dev, 4096, "dd", &dd), 0);
	op[0] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = 1};
	op[1] = (struct sacc_op){.opcode = SACC_OP_FILL,
				 .len = 16,
				 .dst = dd,
				 .pattern = 0xabababababababab,
				 .cookie = 2};
	op[2] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = 3};
	ck_assert_int_eq(sacc_submit(dev, op, 3), 3);
	ck_assert_uint_eq(((struct sacc_desc *)F.dm)[1].opcode, SACC_OP_FILL);
	ck_assert_int_eq(reap_all(dev, r, 3), 3);
	ck_assert_uint_eq(r[1].status, SACC_STS_OK);
	ck_assert_uint_eq(((uint8_t *)sacc_buf_va(dd))[15], 0xab);
	/* the ring is libsacc's */
	ck_assert_int_eq(sacc_buf_free(dev->sq_buf), -EINVAL);
	fake_close(dev);
}
END_TEST

void devmem_tests(Suite *s)
{
	TCase *tc = tcase_create("devmem");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_devmem_pool);
	tcase_add_test(tc, test_devmem_pool_churn);
	tcase_add_test(tc, test_devmem_alloc);
	tcase_add_test(tc, test_devmem_sq);
	suite_add_tcase(s, tc);
}

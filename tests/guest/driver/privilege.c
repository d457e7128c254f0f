// SPDX-License-Identifier: MIT
/*
 * privilege.c - least privilege: buffers mapped with only the access they need,
 * page granular, with guard pages, at allocated IOVAs; the IOMMU refusing
 * what libsacc would; per-op errors the device reports
 */
#include "driver.h"

/* Four buffers, each mapped with only the access it needs: ro (the
 * device reads it), wo (writes it), rw (both) and tiny (100 bytes, both);
 * ro full of random bytes, the counters cleared. */
struct priv {
	struct sacc_dev *dev;
	struct sacc_buf *ro, *wo, *rw, *tiny;
};

static void priv_open(struct priv *p)
{
	p->dev = guest_open(0, NULL);
	p->ro = guest_buf(p->dev, 8192, SACC_DMA_TO_DEVICE, "ro");
	p->wo = guest_buf(p->dev, 8192, SACC_DMA_FROM_DEVICE, "wo");
	p->rw = guest_buf(p->dev, 8192, SACC_DMA_BIDIRECTIONAL, "rw");
	p->tiny = guest_buf(p->dev, 100, SACC_DMA_BIDIRECTIONAL, "tiny");
	fill_random(va(p->ro), 8192);
	sacc_stats_clear(p->dev);
}

/* libsacc refuses an op the mappings forbid, and every other invalid
 * op, before anything reaches the device; what is allowed works. */
START_TEST(least_privilege_refused)
{
	struct priv p;
	struct sacc_dev *dev;
	struct sacc_buf *ro, *wo, *rw, *tiny;
	struct sacc_stats st;
	struct sacc_op op;

	BEGIN();
	priv_open(&p);
	dev = p.dev;
	ro = p.ro;
	wo = p.wo;
	rw = p.rw;
	tiny = p.tiny;

	/* The library refuses what the mapping forbids. */
	op = (struct sacc_op){.opcode = SACC_OP_MEMCPY, .len = 4096,
			      .src = rw, .dst = ro};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	assert_msg_has(sacc_errmsg(dev), "'ro'");
	assert_msg_has(sacc_errmsg(dev), "may not write");
	op.src = wo;
	op.dst = rw;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	assert_msg_has(sacc_errmsg(dev), "'wo'");
	assert_msg_has(sacc_errmsg(dev), "may not read");
	/* ...and the other invalid ops. */
	op = (struct sacc_op){.opcode = SACC_OP_MEMCPY, .len = 0, .src = ro,
			      .dst = wo};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	op.len = SACC_MAX_XFER + 1;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	op.len = 4096;
	op.src_off = 4097;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	assert_msg_has(sacc_errmsg(dev), "runs past its end");
	op.src_off = 0;
	op.opcode = 7;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	assert_msg_has(sacc_errmsg(dev), "unknown opcode 7");
	op.opcode = SACC_OP_MEMCPY;
	op.flags = 0x8;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	op.flags = 0;
	op.dst = NULL;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.submitted, 0);
	ck_assert_uint_eq(st.doorbells, 0);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	/* What is allowed works, both ways through a bidirectional one. */
	one_verified_op(dev, SACC_OP_MEMCPY, ro, rw, 8192);
	one_verified_op(dev, SACC_OP_XFORM, rw, wo, 8192);
	one_verified_op(dev, SACC_OP_MEMCPY, tiny, rw, 100);

	sacc_close(dev);
}
END_TEST

/* Buffers are page granular, share no page, sit at allocated (not
 * identity) IOVAs inside VFIO's usable ranges with an unmapped guard
 * page between any two, and are mapped with the least access; so are
 * the rings. */
START_TEST(least_privilege_layout)
{
	struct priv p;
	struct sacc_dev *dev;
	struct sacc_buf *bufs[4];
	struct sacc_iova_range ranges[16];
	struct sacc_map_entry me;
	uint64_t pg;
	int nr;

	BEGIN();
	priv_open(&p);
	dev = p.dev;

	/* Page granular, guard pages, allocated (not identity) IOVAs
	 * inside the usable ranges VFIO reports. */
	nr = sacc_dev_iova_ranges(dev, ranges, 16, &pg);
	ck_assert_int_ge(nr, 1);
	ck_assert_int_le(nr, 16);
	ck_assert_uint_eq(pg & 4096, 4096);
	bufs[0] = p.ro;
	bufs[1] = p.wo;
	bufs[2] = p.rw;
	bufs[3] = p.tiny;
	ck_assert_uint_eq(sacc_buf_len(p.tiny), 100);
	for (int i = 0; i < 4; i++) {
		uint64_t s = sacc_buf_iova(bufs[i]);
		uint64_t len = (sacc_buf_len(bufs[i]) + 4095) & ~4095ull;
		bool inside = false;

		ck_assert_uint_eq(s & 4095, 0);
		ck_assert_uint_eq((uintptr_t)va(bufs[i]) & 4095, 0);
		/* no page of memory shared with another buffer */
		for (int j = 0; j < 4; j++) {
			uintptr_t a = (uintptr_t)va(bufs[i]);
			uintptr_t b = (uintptr_t)va(bufs[j]);
			uint64_t lj = (sacc_buf_len(bufs[j]) + 4095) & ~4095ull;

			if (j != i)
				ck_assert_msg(b >= a + len || b + lj <= a,
					      "buffers %d and %d share memory",
					      i, j);
		}
		ck_assert_uint_ne(s, (uintptr_t)va(bufs[i]));
		ck_assert_uint_ne(s, 0);
		for (int r = 0; r < nr; r++)
			inside |= s >= ranges[r].start &&
				  s + len - 1 <= ranges[r].end;
		ck_assert_msg(inside, "IOVA 0x%" PRIx64 " outside the ranges",
			      s);
		for (int j = 0; j < 4; j++) {
			uint64_t t = sacc_buf_iova(bufs[j]);

			if (j == i)
				continue;
			/* at least one unmapped page between them */
			ck_assert_msg(t >= s + len + 4096 || t + 4096 < s,
				      "buffers %d and %d have no guard page", i,
				      j);
		}
		me = mapping_at(dev, s);
		ck_assert_uint_eq(me.len, len);
		ck_assert_uint_eq(me.perm,
				  i == 0 ? VFIO_DMA_MAP_FLAG_READ
				  : i == 1
				      ? VFIO_DMA_MAP_FLAG_WRITE
				      : VFIO_DMA_MAP_FLAG_READ |
					    VFIO_DMA_MAP_FLAG_WRITE);
	}
	/* The rings: SQ device-readable only, CQ device-writable only. */
	ck_assert_uint_eq(mapping_at(dev, sacc_dev_sq_iova(dev)).perm,
			  VFIO_DMA_MAP_FLAG_READ);
	ck_assert_uint_eq(mapping_at(dev, sacc_dev_cq_iova(dev)).perm,
			  VFIO_DMA_MAP_FLAG_WRITE);
	sacc_close(dev);
}
END_TEST

/* The IOMMU enforces the mappings: raw descriptors that bypass
 * libsacc's checks fault instead of touching memory, each fault found
 * in the registry; per-op faults are not fatal. */
START_TEST(least_privilege_iommu)
{
	struct priv p;
	struct sacc_dev *dev;
	struct sacc_buf *ro, *wo, *rw;
	struct sacc_dma_ctx *ctx;
	struct sacc_iova_lookup lk;
	struct sacc_stats st;
	uint8_t save[8192];
	uint64_t rw_end;
	uint32_t info;

	BEGIN();
	priv_open(&p);
	dev = p.dev;
	ctx = sacc_dev_dma(dev);
	ro = p.ro;
	wo = p.wo;
	rw = p.rw;

	memcpy(save, va(ro), 8192);
	info = raw_expect_fault(dev,
				(struct sacc_desc){.src = sacc_buf_iova(rw),
						   .dst = sacc_buf_iova(ro),
						   .length = 4096,
						   .opcode = SACC_OP_MEMCPY},
				sacc_buf_iova(ro), "write to a to_device buffer");
	ck_assert_uint_eq(info, SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE);
	ck_assert_mem_eq(va(ro), save, 8192);
	ck_assert_int_eq(sacc_dma_lookup(ctx, sacc_buf_iova(ro), 0, &lk), 0);
	ck_assert_int_eq(lk.kind, SACC_IOVA_MAPPED);
	ck_assert_str_eq(lk.buf.name, "ro");

	/*
	 * A device read of a from_device (write-only) buffer is NOT checked
	 * here: the guest's Linux 6.1 intel-iommu driver sets bit 0 of
	 * every second-level PTE (DMA_FL_PTE_PRESENT == DMA_PTE_READ in
	 * __domain_mapping()), so VFIO_DMA_MAP_FLAG_WRITE alone still maps
	 * the page readable.  libsacc asks for write-only (checked above
	 * through the registry); the IOMMU cannot refuse the read.  What
	 * the IOMMU does refuse is a read of unmapped IOVA: the guard page
	 * in front of a buffer.  The device reads all of src before it
	 * writes dst, so dst stays untouched.
	 */
	memset(va(rw), CANARY, 8192);
	info = raw_expect_fault(dev,
				(struct sacc_desc){.src = sacc_buf_iova(wo) -
							  4096,
						   .dst = sacc_buf_iova(rw),
						   .length = 4096,
						   .opcode = SACC_OP_MEMCPY},
				sacc_buf_iova(wo) - 4096,
				"read of the guard page before 'wo'");
	ck_assert_uint_eq(info, SACC_FAULT_SRC_READ);
	check_canary("dst of a faulting source", va(rw), 8192);
	ck_assert_int_eq(sacc_dma_lookup(ctx, sacc_buf_iova(wo) - 4096, 0, &lk),
			 0);
	ck_assert_int_eq(lk.kind, SACC_IOVA_GUARD);

	/* Guard page right after a buffer. */
	rw_end = sacc_buf_iova(rw) + 8192;
	info = raw_expect_fault(dev,
				(struct sacc_desc){.src = sacc_buf_iova(ro),
						   .dst = rw_end,
						   .length = 16,
						   .opcode = SACC_OP_XFORM},
				rw_end, "write into the guard page");
	ck_assert_uint_eq(info, SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE);
	ck_assert_int_eq(sacc_dma_lookup(ctx, rw_end, 0, &lk), 0);
	ck_assert_int_eq(lk.kind, SACC_IOVA_GUARD);
	/* An overrun that starts inside: faults at the guard page, and
	 * nothing of the buffer before the op's start is touched. */
	memset(va(rw), CANARY, 8192);
	raw_expect_fault(dev,
			 (struct sacc_desc){.src = sacc_buf_iova(ro),
					    .dst = rw_end - 100,
					    .length = 200,
					    .opcode = SACC_OP_MEMCPY},
			 rw_end, "overrun into the guard page");
	check_canary("before an overrun", va(rw), 8192 - 100);

	/* Per-op faults are not fatal: the device carries on. */
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_COUNT), 4);
	ck_assert_uint_eq(reg(dev, SACC_REG_ERR_CODE), SACC_ERR_DMA);
	ck_assert_uint_eq(reg(dev, SACC_REG_STATUS), SACC_STATUS_READY);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.by_status[SACC_STS_DMA_FAULT], 4);
	ck_assert_uint_eq(st.device_errors, 0);
	one_verified_op(dev, SACC_OP_MEMCPY, ro, wo, 5000);

	sacc_close(dev);
}
END_TEST

/* A buffer named by an op in flight cannot be freed, until a reset. */
START_TEST(busy_buffer_not_freed)
{
	struct priv p;
	struct sacc_dev *dev;
	struct sacc_buf *ro, *wo;
	struct sacc_op op;
	int ret;

	BEGIN();
	priv_open(&p);
	dev = p.dev;
	ro = p.ro;
	wo = p.wo;

	reg_set(dev, SACC_REG_CTRL, 0); /* stop the device: op stays */
	op = (struct sacc_op){.opcode = SACC_OP_MEMCPY, .len = 64, .src = ro,
			      .dst = wo};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	ret = sacc_buf_free(ro);
	ck_assert_int_eq(ret, -EBUSY);
	assert_msg_has(sacc_errmsg(dev), "'ro'");
	ck_assert_int_eq(sacc_buf_free(wo), -EBUSY);
	ck_assert_int_eq(sacc_reset(dev), 0);
	ck_assert_int_eq(sacc_buf_free(ro), 0);
	ck_assert_int_eq(sacc_buf_free(wo), 0);
	ck_assert_int_eq(sacc_buf_free(NULL), 0);
	sacc_close(dev);
}
END_TEST

/* Submit @d raw and reap its result. */
static struct sacc_result raw_one(struct sacc_dev *dev, struct sacc_desc d)
{
	struct sacc_result r;
	int id = sacc_submit_raw(dev, &d);

	ck_assert_msg(id > 0, "sacc_submit_raw: %d: %s", id, sacc_errmsg(dev));
	reap_n(dev, &r, 1);
	ck_assert(r.raw);
	ck_assert_uint_eq(r.req_id, (uint32_t)id);
	ck_assert_uint_eq(r.opcode, d.opcode);
	return r;
}

START_TEST(per_op_errors)
{
	struct sacc_dev *dev;
	struct sacc_buf *src, *dst;
	struct sacc_result r;
	struct sacc_stats st;

	BEGIN();
	dev = guest_open(0, NULL);
	src = guest_buf(dev, 8192, SACC_DMA_TO_DEVICE, "e src");
	dst = guest_buf(dev, 8192, SACC_DMA_FROM_DEVICE, "e dst");
	fill_random(va(src), 8192);
	memset(va(dst), CANARY, 8192);
	sacc_stats_clear(dev);

	r = raw_one(dev, (struct sacc_desc){.src = sacc_buf_iova(src),
					    .dst = sacc_buf_iova(dst),
					    .length = 16, .opcode = 9});
	ck_assert_uint_eq(r.status, SACC_STS_BAD_OPCODE);
	ck_assert_uint_eq(r.result_len, 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_ERR_CODE), SACC_ERR_BAD_OPCODE);
	r = raw_one(dev, (struct sacc_desc){.src = sacc_buf_iova(src),
					    .dst = sacc_buf_iova(dst),
					    .length = 0,
					    .opcode = SACC_OP_MEMCPY});
	ck_assert_uint_eq(r.status, SACC_STS_BAD_LENGTH);
	ck_assert_uint_eq(reg(dev, SACC_REG_ERR_CODE), SACC_ERR_INVALID);
	r = raw_one(dev, (struct sacc_desc){.src = sacc_buf_iova(src),
					    .dst = sacc_buf_iova(dst),
					    .length = SACC_MAX_XFER + 1,
					    .opcode = SACC_OP_XFORM});
	ck_assert_uint_eq(r.status, SACC_STS_BAD_LENGTH);
	ck_assert_uint_eq(r.len, SACC_MAX_XFER + 1);
	check_canary("no DMA for a bad descriptor", va(dst), 8192);
	r = raw_one(dev, (struct sacc_desc){.length = 123,
					    .opcode = SACC_OP_NOP});
	ck_assert_uint_eq(r.status, SACC_STS_OK);
	ck_assert_uint_eq(r.result_len, 0);
	r = raw_one(dev, (struct sacc_desc){.src = sacc_buf_iova(src),
					    .dst = sacc_buf_iova(dst),
					    .length = 8192,
					    .opcode = SACC_OP_MEMCPY});
	ck_assert_uint_eq(r.status, SACC_STS_OK);
	ck_assert_uint_eq(r.result_len, 8192);
	ck_assert_mem_eq(va(dst), va(src), 8192);

	/* Counted by status; none of them is a device error; the device
	 * carries on without a reset. */
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.submitted, 5);
	ck_assert_uint_eq(st.completed, 5);
	ck_assert_uint_eq(st.doorbells, 5);
	ck_assert_uint_eq(st.by_status[SACC_STS_OK], 2);
	ck_assert_uint_eq(st.by_status[SACC_STS_BAD_OPCODE], 1);
	ck_assert_uint_eq(st.by_status[SACC_STS_DMA_FAULT], 0);
	ck_assert_uint_eq(st.by_status[SACC_STS_BAD_LENGTH], 2);
	ck_assert_uint_eq(st.device_errors, 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_STATUS), SACC_STATUS_READY);
	one_verified_op(dev, SACC_OP_XFORM, src, dst, 5000);
	sacc_close(dev);
}
END_TEST

void privilege_tests(Suite *s)
{
	TCase *tc = driver_tcase(s, "privilege");

	tcase_add_test(tc, least_privilege_refused);
	tcase_add_test(tc, least_privilege_layout);
	tcase_add_test(tc, least_privilege_iommu);
	tcase_add_test(tc, busy_buffer_not_freed);
	tcase_add_test(tc, per_op_errors);
}

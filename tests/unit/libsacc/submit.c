// SPDX-License-Identifier: MIT
/*
 * submit.c - the data path's bookkeeping: what sacc_submit() refuses, a
 * batch under one doorbell, CQ laps under the full rule, raw
 * descriptors and raw slots, a TIMESTAMP's length each way it is
 * submitted, a handle opened without init
 */
#include "fake_dev.h"

START_TEST(test_validation)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_buf *src, *dst, *bi;
	struct sacc_op op;

	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 5000, SACC_DMA_TO_DEVICE, "src", &src), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 5000, SACC_DMA_FROM_DEVICE, "dst", &dst), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 10, SACC_DMA_BIDIRECTIONAL, "bi", &bi), 0);
	ck_assert_int_eq(sacc_buf_alloc(dev, 0, SACC_DMA_TO_DEVICE, "z", &bi),
			 -EINVAL);
	ck_assert_ptr_null(bi);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 10, (enum sacc_dma_dir)7, "z", &bi), -EINVAL);
	/* page-granular, guard page between neighbours */
	ck_assert_uint_eq(sacc_buf_iova(src) & 4095, 0);
	ck_assert_uint_eq((uintptr_t)sacc_buf_va(dst) & 4095, 0);
	ck_assert(sacc_buf_iova(dst) >= sacc_buf_iova(src) + 8192 + 4096 ||
		  sacc_buf_iova(src) >= sacc_buf_iova(dst) + 8192 + 4096);

	op = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 100, .src = dst, .dst = dst};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "may not read"));
	op = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 100, .src = src, .dst = src};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "may not write"));
	op = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
			      .len = 5000,
			      .src = src,
			      .src_off = 1,
			      .dst = dst};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "past its end"));
	op = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
			      .len = 1,
			      .src = src,
			      .src_off = SIZE_MAX,
			      .dst = dst};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	op = (struct sacc_op){
	    .opcode = SACC_OP_XFORM, .len = 0, .src = src, .dst = dst};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	op = (struct sacc_op){.opcode = SACC_OP_XFORM,
			      .len = SACC_MAX_XFER + 1,
			      .src = src,
			      .dst = dst};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	op = (struct sacc_op){.opcode = 3, .len = 1, .src = src, .dst = dst};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	op = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 1, .src = src, .dst = dev->cq_buf};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	op = (struct sacc_op){.opcode = SACC_OP_NOP, .flags = 0x80};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	/* nothing reached the device */
	ck_assert_uint_eq(dev->stats.doorbells, 0);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	/* rings are libsacc's */
	ck_assert_int_eq(sacc_buf_free(dev->sq_buf), -EINVAL);
	ck_assert_int_eq(sacc_buf_free(src), 0);
	fake_close(dev);
}
END_TEST

START_TEST(test_batch_one_doorbell)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_buf *src, *dst;
	struct sacc_result r[16];
	struct sacc_op ops[10];
	uint8_t *s, *d;
	int i, n;

	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 1000, SACC_DMA_TO_DEVICE, "src", &src), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 1000, SACC_DMA_FROM_DEVICE, "dst", &dst), 0);
	s = sacc_buf_va(src);
	d = sacc_buf_va(dst);
	for (i = 0; i < 1000; i++)
		s[i] = (uint8_t)(i * 7);
	for (i = 0; i < 10; i++)
		ops[i] = (struct sacc_op){.opcode = (uint16_t)(i % 3),
					  .len = 100,
					  .src = src,
					  .src_off = (size_t)i * 100,
					  .dst = dst,
					  .dst_off = (size_t)i * 100,
					  .cookie = 100 + (uint64_t)i};
	/* 8-entry SQ: 7 fit, one doorbell with the new tail */
	n = sacc_submit(dev, ops, 10);
	ck_assert_int_eq(n, 7);
	ck_assert_uint_eq(dev->stats.doorbells, 1);
	ck_assert_uint_eq(dev->db[0], 7);
	ck_assert_int_eq(sacc_submit(dev, ops, 1), 0); /* full */
	ck_assert_uint_eq(dev->stats.doorbells, 1);
	ck_assert_uint_eq(sacc_sq_free(dev), 0);
	/* a buffer named by an outstanding op cannot be freed */
	ck_assert_int_eq(sacc_buf_free(src), -EBUSY);
	ck_assert_int_eq(reap_all(dev, r, 7), 7);
	ck_assert_uint_eq(dev->stats.cq_head_writes, 1);
	ck_assert_uint_eq(dev->regs[SACC_REG_CQ_HEAD / 4], 7);
	for (i = 0; i < 7; i++) {
		ck_assert_uint_eq(r[i].cookie, 100 + (uint64_t)i);
		ck_assert_uint_eq(r[i].status, SACC_STS_OK);
		ck_assert_uint_eq(r[i].opcode, i % 3);
		ck_assert_uint_eq(r[i].result_len, i % 3 ? 100 : 0);
		ck_assert(!r[i].raw);
	}
	ck_assert_uint_eq(d[150], s[150]);
	ck_assert_uint_eq(d[250], s[250] ^ SACC_XFORM_KEY);
	ck_assert_uint_eq(d[50], 0); /* the NOP wrote nothing */
	ck_assert_int_eq(sacc_buf_free(src), 0);
	fake_close(dev);
}
END_TEST

START_TEST(test_laps_small_cq)
{
	/* CQ smaller than the SQ: the device stalls on the full rule. */
	struct sacc_dev *dev = fake_open(16, 4);
	struct sacc_result r[64];
	struct sacc_op ops[15];
	struct sacc_stats st;
	int lap, i;

	for (i = 0; i < 15; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_NOP,
					  .cookie = (uint64_t)i};
	for (lap = 0; lap < 500; lap++) {
		int n = sacc_submit(dev, ops, (unsigned int)(1 + lap % 15));

		ck_assert_int_eq(n, 1 + lap % 15);
		ck_assert_int_eq(reap_all(dev, r, n), n);
		for (i = 0; i < n; i++)
			ck_assert_uint_eq(r[i].cookie, (uint64_t)i);
	}
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.submitted, st.completed);
	ck_assert_uint_eq(st.doorbells, 500);
	ck_assert_uint_eq(st.by_status[SACC_STS_OK], st.completed);
	ck_assert_uint_eq(st.device_errors, 0);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	fake_close(dev);
}
END_TEST

START_TEST(test_submit_raw)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_buf *dst;
	struct sacc_result r[2];
	struct sacc_desc d = {0};
	int id;

	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 64, SACC_DMA_FROM_DEVICE, "d", &dst), 0);
	/* unmapped source, any req_id: the driver assigns its own */
	d.src = 0xdead0000;
	d.dst = sacc_buf_iova(dst);
	d.length = 64;
	d.opcode = SACC_OP_MEMCPY;
	d.req_id = 0;
	id = sacc_submit_raw(dev, &d);
	ck_assert_int_gt(id, 0);
	d.opcode = 77;
	ck_assert_int_eq(sacc_submit_raw(dev, &d), id + 1);
	ck_assert_int_eq(reap_all(dev, r, 2), 2);
	ck_assert(r[0].raw && r[1].raw);
	ck_assert_uint_eq(r[0].req_id, (uint32_t)id);
	ck_assert_uint_eq(r[0].status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(r[1].status, SACC_STS_BAD_OPCODE);
	ck_assert_uint_eq(dev->stats.by_status[SACC_STS_DMA_FAULT], 1);
	fake_close(dev);
}
END_TEST

/*
 * Any bytes in a run of SQ slots (v0.4: the SQ in device memory), one
 * doorbell: the driver stamps only the req_ids of the commands, tracks
 * an inline command's payload slots as the caller says the device walks
 * them, and a device that walks them otherwise is caught.
 */
START_TEST(test_submit_raw_slots)
{
	struct sacc_dev *dev =
	    fake_open_mode(16, 16, SACC_MODE_V3 | SACC_MODE_SQ_DEV, 16 * 4096);
	const uint32_t walk[4] = {1, 3, 1, 1}, wrong[6] = {1, 1, 1, 1, 1, 1};
	const uint32_t all[1] = {16};
	struct sacc_desc g[6], *sq = (struct sacc_desc *)F.dm;
	uint32_t ids[4];
	struct sacc_result r[4];

	for (size_t i = 0; i < sizeof(g); i++)
		((uint8_t *)g)[i] = (uint8_t)(i * 131 + 7);
	g[0].opcode = 0x9999; /* unknown */
	g[1].opcode = SACC_OP_WRITE_INLINE;
	g[1].length = 40; /* payload: slots 2 and 3 */
	g[1].flags = SACC_DESC_F_DST_DEV;
	g[1].dst = 1ull << 40; /* past device memory */
	g[4].opcode = SACC_OP_NOP;
	g[5].opcode = SACC_OP_WRITE_INLINE;
	g[5].length = 5000; /* bad, and nothing after it */
	ck_assert_int_eq(sacc_submit_raw_slots(dev, g, 6, walk, 3, ids),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "5 of the 6"));
	ck_assert_int_eq(sacc_submit_raw_slots(dev, g, 5, walk, 4, ids),
			 -EINVAL);
	ck_assert_int_eq(sacc_submit_raw_slots(dev, g, 16, wrong, 1, ids),
			 -EINVAL);
	ck_assert_int_eq(sacc_submit_raw_slots(dev, g, 6, walk, 4, ids), 4);
	ck_assert_uint_eq(ids[1], ids[0] + 1);
	ck_assert_uint_eq(ids[3], ids[0] + 3);
	/* the commands' req_ids are the driver's, every other byte is g's */
	for (int i = 0, k = 0; i < 6; i++) {
		struct sacc_desc want = g[i];

		if (i == 0 || i == 1 || i == 4 || i == 5)
			want.req_id = ids[k++];
		ck_assert_mem_eq(&sq[i], &want, sizeof(want));
	}
	ck_assert_int_eq(reap_all(dev, r, 4), 4);
	ck_assert(r[0].raw && r[3].raw);
	ck_assert_uint_eq(r[0].status, SACC_STS_BAD_OPCODE);
	ck_assert_uint_eq(r[1].status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(r[2].status, SACC_STS_OK);
	ck_assert_uint_eq(r[3].status, SACC_STS_BAD_LENGTH);
	ck_assert_uint_eq(r[3].req_id, ids[3]);

	/* slots 2 and 3 said to be commands: the device skips them */
	ck_assert_int_eq(sacc_submit_raw_slots(dev, g, 6, wrong, 6, NULL), 6);
	ck_assert_int_eq(reap_all(dev, r, 4), -EIO);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "out of ring order"));
	fake_reset(dev);
	ck_assert_int_eq(sacc_submit_raw_slots(dev, sq, 16, all, 1, NULL),
			 -EAGAIN);
	fake_close(dev);
}
END_TEST

/* A TIMESTAMP completes with result_len 8 whatever its length field
 * says (spec section 16): each way of submitting one expects that. */
START_TEST(test_timestamp_result_len)
{
	struct sacc_dev *dev = fake_open_mode(8, 8, SACC_MODE_V3, 0);
	struct sacc_op op = {.opcode = SACC_OP_TIMESTAMP};
	struct sacc_desc raw = {.opcode = SACC_OP_TIMESTAMP, .length = 3};
	struct sacc_result r[3];
	struct sacc_chain *c;
	struct sacc_buf *b;
	uint64_t stamp;

	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 64, SACC_DMA_FROM_DEVICE, "ts", &b), 0);
	op.dst = b;
	raw.dst = sacc_buf_iova(b) + 8;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	ck_assert_int_eq(sacc_chain_create(dev, &op, 1, &c), 0);
	ck_assert_int_eq(sacc_chain_launch(c), 1);
	ck_assert_int_gt(sacc_submit_raw(dev, &raw), 0);
	ck_assert_int_eq(reap_all(dev, r, 3), 3);
	for (int i = 0; i < 3; i++) {
		ck_assert_uint_eq(r[i].status, SACC_STS_OK);
		ck_assert_uint_eq(r[i].len, SACC_TIMESTAMP_LEN);
		ck_assert_uint_eq(r[i].result_len, SACC_TIMESTAMP_LEN);
	}
	ck_assert_uint_eq(dev->stats.device_errors, 0);
	memcpy(&stamp, (uint8_t *)sacc_buf_va(b) + 8, sizeof(stamp));
	ck_assert_uint_ne(stamp, 0);
	sacc_chain_free(c);
	fake_close(dev);
}
END_TEST

START_TEST(test_not_initialised)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_op op = {.opcode = SACC_OP_NOP};
	struct sacc_result r;

	dev->flags = SACC_OPEN_NO_INIT;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -ENOTCONN);
	ck_assert_int_eq(sacc_poll(dev, &r, 1), -ENOTCONN);
	ck_assert_int_eq(sacc_wait(dev, 0), -ENOTCONN);
	dev->flags = 0;
	ck_assert_int_eq(sacc_reg_read(dev, 2, (uint32_t *)&op.len), -EINVAL);
	ck_assert_int_eq(sacc_reg_write(dev, SACC_BAR0_SIZE, 0), -EINVAL);
	fake_close(dev);
}
END_TEST

void submit_tests(Suite *s)
{
	TCase *tc = tcase_create("submit");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_validation);
	tcase_add_test(tc, test_batch_one_doorbell);
	tcase_add_test(tc, test_laps_small_cq);
	tcase_add_test(tc, test_submit_raw);
	tcase_add_test(tc, test_submit_raw_slots);
	tcase_add_test(tc, test_timestamp_result_len);
	tcase_add_test(tc, test_not_initialised);
	suite_add_tcase(s, tc);
}

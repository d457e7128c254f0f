// SPDX-License-Identifier: MIT
/*
 * graphs.c - graphs, one SEGMENT entry a launch: the encoding, what
 * sacc_graph_create() refuses, the lifetime of a graph and its buffers
 */
#include "fake_dev.h"

/* The segment of @g as the device would fetch it (host or device). */
static const struct sacc_desc *seg_of(const struct sacc_dev *dev,
				      const struct sacc_desc *entry)
{
	if (entry->flags & SACC_DESC_F_SRC_DEV)
		return (const struct sacc_desc *)(F.dm + entry->src);
	return xlate(entry->src, entry->length, false);
}

/* Do segments @a and @b of 9 slots (payload in 4 and 5) hold the same
 * commands, whatever their graphs' tags in the req_ids? */
static bool same_cmds(const struct sacc_desc *a, const struct sacc_desc *b)
{
	struct sacc_desc x[9], y[9];

	memcpy(x, a, sizeof(x));
	memcpy(y, b, sizeof(y));
	for (int i = 0; i < 9; i++)
		if (i != 4 && i != 5)
			x[i].req_id = y[i].req_id = 0;
	return !memcmp(x, y, sizeof(x));
}

/* Host and device buffers and seven ops of every kind between them. */
struct encode_fix {
	struct sacc_dev *dev;
	struct sacc_buf *hs, *hd, *dd;
	uint8_t *hsv, *hdv, *ddv;
	uint8_t payload[40];
	struct sacc_op ops[7];
};

static void encode_setup(struct encode_fix *x)
{
	struct sacc_dev *dev = fake_open_mode(16, 16, SACC_MODE_V3, 16 * 4096);
	struct sacc_op *ops = x->ops;
	int i;

	x->dev = dev;
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "hs", &x->hs), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "hd", &x->hd), 0);
	ck_assert_int_eq(sacc_devmem_alloc(dev, 8192, "dd", &x->dd), 0);
	x->hsv = sacc_buf_va(x->hs);
	x->hdv = sacc_buf_va(x->hd);
	x->ddv = sacc_buf_va(x->dd);
	for (i = 0; i < 4096; i++)
		x->hsv[i] = (uint8_t)(i * 7 + 3);
	for (i = 0; i < 40; i++)
		x->payload[i] = (uint8_t)(0xc0 + i);
	ops[0] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = 77};
	ops[1] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
				  .len = 256,
				  .src = x->hs,
				  .src_off = 16,
				  .dst = x->dd,
				  .dst_off = 100};
	ops[2] = (struct sacc_op){.opcode = SACC_OP_XFORM,
				  .len = 256,
				  .src = x->dd,
				  .src_off = 100,
				  .dst = x->hd};
	ops[3] = (struct sacc_op){.opcode = SACC_OP_WRITE_INLINE,
				  .len = 40,
				  .dst = x->hd,
				  .dst_off = 1000,
				  .data = x->payload};
	ops[4] = (struct sacc_op){
	    .opcode = SACC_OP_TIMESTAMP, .dst = x->hd, .dst_off = 2048};
	ops[5] = (struct sacc_op){.opcode = SACC_OP_FILL,
				  .len = 21,
				  .dst = x->dd,
				  .dst_off = 5000,
				  .pattern = 0x0807060504030201ull};
	ops[6] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
				  .len = 21,
				  .src = x->dd,
				  .src_off = 5000,
				  .dst = x->dd,
				  .dst_off = 6000};
}

/* The graph of @x's ops in host memory, launched once (cookie 42): its
 * SQ entry (slot 0) into @e, its segment returned. */
static const struct sacc_desc *encode_launch(struct encode_fix *x,
					     struct sacc_graph **g,
					     struct sacc_desc *e)
{
	struct sacc_dev *dev = x->dev;
	struct sacc_stats st;

	ck_assert_int_eq(sacc_graph_create(dev, x->ops, 7, 0, g), 0);
	ck_assert_uint_eq(sacc_graph_ops(*g), 7);
	ck_assert_uint_eq(sacc_graph_bytes(*g), 32 * (7 + 2));
	ck_assert_uint_eq(dev->stats.doorbells, 0); /* nothing ran yet */
	ck_assert_int_eq(sacc_graph_launch(dev, *g, 42), 1);
	/* ONE entry: SEGMENT, the segment's IOVA and bytes, no IRQ */
	*e = sq_desc(dev, 0);
	ck_assert_uint_eq(e->opcode, SACC_OP_SEGMENT);
	ck_assert_uint_eq(e->length, 32 * 9);
	ck_assert_uint_eq(e->flags, 0);
	ck_assert_uint_ne(e->req_id, 0);
	ck_assert_uint_eq(sacc_outstanding(dev), 1);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.doorbells, 1);
	ck_assert_uint_eq(st.submitted, 1);
	return seg_of(dev, e);
}

/* Every kind of op encoded as sacc_submit() encodes it, inline payloads
 * in the slots after their WRITE_INLINE, one entry and one doorbell a
 * launch, one result, every op run. */
START_TEST(test_graph_encode)
{
	struct encode_fix x;
	struct sacc_graph *g;
	struct sacc_result r[4];
	const struct sacc_desc *seg;
	struct sacc_desc e, want;
	uint64_t ts;
	int i;

	encode_setup(&x);
	seg = encode_launch(&x, &g, &e);
	/* the commands: each as sacc_op_desc() makes it, payload after */
	ck_assert_ptr_nonnull(seg);
	for (i = 0; i < 7; i++) { /* req_id: bit 31, a tag, the index */
		const struct sacc_desc *cmd = &seg[i < 4 ? i : i + 2];

		sacc_op_desc(&x.ops[i], &want);
		ck_assert_uint_eq(cmd->req_id >> 31, 1);
		ck_assert_uint_eq(cmd->req_id & 0x7ff, i);
		ck_assert_uint_eq(cmd->req_id >> 11, seg[0].req_id >> 11);
		want.req_id = cmd->req_id;
		ck_assert_mem_eq(cmd, &want, sizeof(want));
	}
	ck_assert_uint_eq(seg[1].flags, SACC_DESC_F_DST_DEV);
	ck_assert_uint_eq(seg[1].src, sacc_buf_iova(x.hs) + 16);
	ck_assert_uint_eq(seg[1].dst, sacc_buf_devaddr(x.dd) + 100);
	ck_assert_uint_eq(seg[2].flags, SACC_DESC_F_SRC_DEV);
	ck_assert_uint_eq(seg[3].opcode, SACC_OP_WRITE_INLINE);
	ck_assert_mem_eq(&seg[4], x.payload, 32);
	ck_assert_mem_eq(&seg[5], x.payload + 32, 8);
	ck_assert_uint_eq(((const uint8_t *)&seg[5])[8], 0); /* padding */
	ck_assert_uint_eq(seg[6].opcode, SACC_OP_TIMESTAMP);
	ck_assert_uint_eq(seg[7].src, 0x0807060504030201ull);
	ck_assert_uint_eq(seg[8].flags,
			  SACC_DESC_F_SRC_DEV | SACC_DESC_F_DST_DEV);
	/* one result for the launch: every op ran */
	ck_assert_int_eq(reap_all(x.dev, r, 1), 1);
	ck_assert_uint_eq(r[0].cookie, 42);
	ck_assert_uint_eq(r[0].opcode, SACC_OP_SEGMENT);
	ck_assert_uint_eq(r[0].status, SACC_STS_OK);
	ck_assert_uint_eq(r[0].len, 7);
	ck_assert_uint_eq(r[0].result_len, 7);
	ck_assert(!r[0].raw);
	for (i = 0; i < 256; i++) {
		ck_assert_uint_eq(x.ddv[100 + i], x.hsv[16 + i]);
		ck_assert_uint_eq(x.hdv[i], x.hsv[16 + i] ^ SACC_XFORM_KEY);
	}
	ck_assert_mem_eq(x.hdv + 1000, x.payload, 40);
	memcpy(&ts, x.hdv + 2048, 8);
	ck_assert_uint_ne(ts, 0);
	for (i = 0; i < 21; i++)
		ck_assert_uint_eq(x.ddv[6000 + i], 1 + i % 8);
	ck_assert_uint_eq(sacc_outstanding(x.dev), 0);
	ck_assert_int_eq(sacc_graph_destroy(g), 0);
	ck_assert_int_eq(sacc_graph_destroy(NULL), 0);
	fake_close(x.dev);
}
END_TEST

/* A graph launched again and again: 100 times, then three in flight at
 * once; one doorbell and one segment run a launch. */
START_TEST(test_graph_relaunch)
{
	struct encode_fix x;
	struct sacc_graph *g;
	struct sacc_result r[4];
	struct sacc_desc e;
	struct sacc_stats st;
	int i;

	encode_setup(&x);
	encode_launch(&x, &g, &e);
	ck_assert_int_eq(reap_all(x.dev, r, 1), 1);
	for (i = 0; i < 100; i++) {
		launch_reap(x.dev, g, (uint64_t)i, r);
		ck_assert_uint_eq(r[0].status, SACC_STS_OK);
	}
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(sacc_graph_launch(x.dev, g, 500 + i), 1);
	ck_assert_int_eq(reap_all(x.dev, r, 3), 3);
	for (i = 0; i < 3; i++)
		ck_assert_uint_eq(r[i].cookie, 500 + i);
	sacc_stats(x.dev, &st);
	ck_assert_uint_eq(st.doorbells, 104);
	ck_assert_uint_eq(st.submitted, 104);
	ck_assert_uint_eq(F.seg_runs, 104);
	ck_assert_int_eq(sacc_graph_destroy(g), 0);
	fake_close(x.dev);
}
END_TEST

/* The same graph with its segment in device memory and an interrupt
 * (SRC_DEV | IRQ): the same commands; an FLR zeroes device memory and
 * the next launch writes the segment there again. */
START_TEST(test_graph_encode_devmem)
{
	struct encode_fix x;
	struct sacc_graph *g, *gd;
	struct sacc_result r[4];
	const struct sacc_desc *seg;
	struct sacc_desc e;

	encode_setup(&x);
	seg = encode_launch(&x, &g, &e);
	ck_assert_int_eq(reap_all(x.dev, r, 1), 1);
	ck_assert_int_eq(sacc_graph_create(x.dev, x.ops, 7,
					   SACC_GRAPH_DEVMEM | SACC_GRAPH_IRQ,
					   &gd),
			 0);
	memset(x.hdv, 0, 4096);
	launch_reap(x.dev, gd, 9, r);
	e = sq_desc(x.dev, 1);
	ck_assert_uint_eq(e.flags, SACC_DESC_F_SRC_DEV | SACC_DESC_F_IRQ);
	ck_assert_uint_lt(e.src, 16 * 4096);
	ck_assert(same_cmds(seg_of(x.dev, &e), seg));
	ck_assert_uint_eq(r[0].status, SACC_STS_OK);
	ck_assert_uint_eq(r[0].result_len, 7);
	ck_assert_mem_eq(x.hdv + 1000, x.payload, 40);
	/* an FLR zeroes device memory: the next launch writes it again */
	memset(F.dm + e.src, 0, 32 * 9);
	sacc_devmem_scrubbed(x.dev);
	launch_reap(x.dev, gd, 10, r);
	ck_assert_uint_eq(r[0].status, SACC_STS_OK);
	ck_assert_uint_eq(r[0].result_len, 7);
	ck_assert(same_cmds((const struct sacc_desc *)(F.dm + e.src), seg));
	ck_assert_int_eq(sacc_graph_destroy(gd), 0);
	ck_assert_int_eq(sacc_graph_destroy(g), 0);
	fake_close(x.dev);
}
END_TEST

/* What sacc_graph_create() refuses, with what to do; nothing is made,
 * nothing reaches the device. */
START_TEST(test_graph_limits)
{
	struct sacc_dev *dev = fake_open_mode(8, 8, SACC_MODE_V3, 16 * 4096);
	struct sacc_op *ops = calloc(2049, sizeof(*ops));
	struct sacc_buf *hs, *hd;
	struct sacc_graph *g = (struct sacc_graph *)1, *g2;
	struct sacc_result r[4];
	static uint8_t big[SACC_INLINE_MAX];

	ck_assert_ptr_nonnull(ops);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 8192, SACC_DMA_TO_DEVICE, "hs", &hs), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 8192, SACC_DMA_FROM_DEVICE, "hd", &hd), 0);
	for (int i = 0; i < 2049; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_NOP};
	/* too many ops; the most there may be */
	ck_assert_int_eq(sacc_graph_create(dev, ops, 2049, 0, &g), -E2BIG);
	ck_assert_ptr_null(g);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "at most 2048"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "split"));
	ck_assert_int_eq(sacc_graph_create(dev, ops, SACC_GRAPH_MAX_OPS, 0, &g),
			 0);
	ck_assert_uint_eq(sacc_graph_bytes(g), SACC_SEGMENT_MAX);
	launch_reap(dev, g, 1, r);
	ck_assert_uint_eq(r[0].status, SACC_STS_OK);
	ck_assert_uint_eq(r[0].result_len, 2048);
	ck_assert_int_eq(sacc_graph_destroy(g), 0);
	/* inline payloads count: 2047 slots + a 33-byte payload's 3 */
	ops[2047] = (struct sacc_op){.opcode = SACC_OP_WRITE_INLINE,
				     .len = 33,
				     .dst = hd,
				     .data = big};
	ck_assert_int_eq(sacc_graph_create(dev, ops, 2048, 0, &g), -E2BIG);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "ops 0..2047 take 2050"));
	/* a payload the SQ (8 entries) could never carry fits a segment */
	ops[0] = (struct sacc_op){.opcode = SACC_OP_WRITE_INLINE,
				  .len = SACC_INLINE_MAX,
				  .dst = hd,
				  .data = big};
	ck_assert_int_eq(sacc_graph_create(dev, ops, 1, 0, &g), 0);
	ck_assert_uint_eq(sacc_graph_bytes(g), 32 * 129);
	launch_reap(dev, g, 2, r);
	ck_assert_uint_eq(r[0].status, SACC_STS_OK);
	ck_assert_uint_eq(r[0].result_len, 1);
	ck_assert_int_eq(sacc_graph_destroy(g), 0);
	/* an op's IRQ flag, an invalid op (named), unknown flags */
	ops[0] = (struct sacc_op){.opcode = SACC_OP_NOP};
	ops[1] = (struct sacc_op){.opcode = SACC_OP_NOP, .flags = SACC_OPF_IRQ};
	ck_assert_int_eq(sacc_graph_create(dev, ops, 2, 0, &g), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "op 1 has SACC_OPF_IRQ"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "SACC_GRAPH_IRQ"));
	ops[1] = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 64, .src = hs, .dst = hs};
	ck_assert_int_eq(sacc_graph_create(dev, ops, 2, 0, &g), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "op 1"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "may not write"));
	ck_assert_int_eq(sacc_graph_create(dev, ops, 1, 1u << 5, &g), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "unknown flags"));
	ck_assert_int_eq(sacc_graph_create(dev, ops, 0, 0, &g), -EINVAL);
	ck_assert_int_eq(sacc_graph_create(dev, NULL, 1, 0, &g), -EINVAL);
	ck_assert_int_eq(sacc_graph_create(dev, ops, 1, 0, NULL), -EINVAL);
	ck_assert_int_eq(sacc_graph_create(NULL, ops, 1, 0, &g), -EINVAL);
	/* a handle without MODE.V3; a v0.3 device */
	dev->mode = 0;
	ck_assert_int_eq(sacc_graph_create(dev, ops, 1, 0, &g), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "MODE.V3"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "SACC_OPEN_V3"));
	dev->mode = SACC_MODE_V3;
	dev->version = SACC_VERSION_V03;
	ck_assert_int_eq(sacc_graph_create(dev, ops, 1, 0, &g), -ENOTSUP);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "VERSION 3"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "sacc_chain_create"));
	dev->version = SACC_VERSION;
	ck_assert_uint_eq(dev->stats.doorbells, 1 + 1);
	/* the SQ full: 0, launch again after a reap */
	ck_assert_int_eq(sacc_graph_create(dev, ops, 1, 0, &g), 0);
	for (int i = 0; i < 7; i++)
		ck_assert_int_eq(sacc_graph_launch(dev, g, i), 1);
	ck_assert_int_eq(sacc_graph_launch(dev, g, 7), 0);
	ck_assert_int_eq(reap_all(dev, r, 4), 4);
	ck_assert_int_eq(sacc_graph_launch(dev, g, 7), 1);
	ck_assert_int_eq(reap_all(dev, r, 4), 4);
	ck_assert_uint_eq(r[3].cookie, 7);
	/* launched on another handle, or a graph that is not one */
	{
		struct sacc_dev other = *dev;

		ck_assert_int_eq(sacc_graph_launch(&other, g, 0), -EINVAL);
		ck_assert_ptr_nonnull(
		    strstr(sacc_errmsg(&other), "another handle"));
	}
	ck_assert_int_eq(sacc_graph_launch(dev, NULL, 0), -EINVAL);
	ck_assert_int_eq(sacc_graph_destroy(g), 0);
	/* no device memory: SACC_GRAPH_DEVMEM says why */
	sacc_devmem_close(dev);
	F.dm = NULL;
	sacc_err_set(&dev->devmem_why, ENOTSUP, "DEVMEM_SIZE is 0: no BAR4");
	ck_assert_int_eq(sacc_graph_create(dev, ops, 1, SACC_GRAPH_DEVMEM, &g2),
			 -ENOTSUP);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "SACC_GRAPH_DEVMEM"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "DEVMEM_SIZE is 0"));
	ck_assert_ptr_null(g2);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	free(ops);
	fake_close(dev);
}
END_TEST

/* Buffers stay pinned while the graph lives; the graph while a launch
 * is outstanding (destroy, update: -EBUSY); resets abandon launches;
 * a handle's close lets go of its graphs. */
START_TEST(test_graph_lifetime)
{
	struct sacc_dev *dev = fake_open_mode(16, 16, SACC_MODE_V3, 16 * 4096);
	struct sacc_buf *hs, *hd, *h2;
	struct sacc_graph *g;
	struct sacc_result r[2];
	struct sacc_op ops[4];
	uint64_t iova0;

	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "hs", &hs), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "hd", &hd), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "h2", &h2), 0);
	ops[0] = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 64, .src = hs, .dst = hd};
	ops[1] = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 64, .src = hs, .dst = hd,
	    .dst_off = 64};
	ck_assert_int_eq(sacc_graph_create(dev, ops, 2, 0, &g), 0);
	ck_assert_int_eq(sacc_buf_free(hs), -EBUSY);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "graph"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "sacc_graph_destroy"));
	/* the segment is libsacc's */
	ck_assert_int_eq(sacc_graph_launch(dev, g, 1), 1);
	iova0 = sq_desc(dev, 0).src;
	ck_assert_int_eq(sacc_graph_destroy(g), -EBUSY);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "1 launch is"));
	ck_assert_int_eq(sacc_graph_update(g, ops, 1), -EBUSY);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "reap"));
	ck_assert_int_eq(reap_all(dev, r, 1), 1);
	ck_assert_uint_eq(r[0].result_len, 2);

	/* update in place: three FILLs into h2, hd no longer named */
	for (int k = 0; k < 3; k++)
		ops[k] = (struct sacc_op){.opcode = SACC_OP_FILL,
					  .len = 10,
					  .dst = h2,
					  .dst_off = 100 * (size_t)k,
					  .pattern = 0x1111111111111111ull *
						     (uint64_t)(k + 1)};
	ck_assert_int_eq(sacc_graph_update(g, ops, 3), 0);
	ck_assert_uint_eq(sacc_graph_ops(g), 3);
	ck_assert_int_eq(sacc_buf_free(hd), 0); /* unpinned */
	launch_reap(dev, g, 2, r);
	ck_assert_uint_eq(sq_desc(dev, 1).src, iova0); /* same segment */
	ck_assert_uint_eq(sq_desc(dev, 1).length, 96);
	ck_assert_uint_eq(r[0].status, SACC_STS_OK);
	ck_assert_uint_eq(r[0].result_len, 3);
	ck_assert_uint_eq(((uint8_t *)sacc_buf_va(h2))[209], 0x33);
	/* an invalid update changes nothing */
	ops[3] = (struct sacc_op){.opcode = 99};
	ck_assert_int_eq(sacc_graph_update(g, ops, 4), -EINVAL);
	ck_assert_uint_eq(sacc_graph_ops(g), 3);
	/* larger than its page: a new segment */
	{
		struct sacc_op *many = calloc(200, sizeof(*many));

		ck_assert_ptr_nonnull(many);
		ck_assert_int_eq(sacc_graph_update(g, many, 200), 0);
		free(many);
	}
	launch_reap(dev, g, 3, r);
	ck_assert_uint_ne(sq_desc(dev, 2).src, iova0);
	ck_assert_uint_eq(r[0].result_len, 200);
	ck_assert_int_eq(sacc_buf_free(h2), 0); /* NOPs name nothing */

	/* a reset abandons launches: the graph is free to go */
	ck_assert_int_eq(sacc_graph_launch(dev, g, 4), 1);
	ck_assert_int_eq(sacc_graph_launch(dev, g, 5), 1);
	fake_reset(dev);
	ck_assert_uint_eq(dev->stats.abandoned, 2);
	ck_assert_int_eq(sacc_graph_destroy(g), 0);

	/* the handle closes with a graph alive and a launch outstanding */
	ops[0] = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 64, .src = hs, .dst = hs};
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "hd", &hd), 0);
	ops[0].dst = hd;
	ck_assert_int_eq(sacc_graph_create(dev, ops, 1, SACC_GRAPH_DEVMEM, &g),
			 0);
	ck_assert_int_eq(sacc_graph_launch(dev, g, 6), 1);
	fake_close(dev);
	ck_assert_int_eq(sacc_graph_update(g, ops, 1), -ENODEV);
	ck_assert_int_eq(sacc_graph_destroy(g), 0); /* only frees it */
}
END_TEST

void graph_tests(Suite *s)
{
	TCase *tc = tcase_create("graphs");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_graph_encode);
	tcase_add_test(tc, test_graph_relaunch);
	tcase_add_test(tc, test_graph_encode_devmem);
	tcase_add_test(tc, test_graph_limits);
	tcase_add_test(tc, test_graph_lifetime);
	suite_add_tcase(s, tc);
}

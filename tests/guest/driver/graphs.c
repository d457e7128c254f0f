// SPDX-License-Identifier: MIT
/*
 * graphs.c - graphs: one SEGMENT entry a launch; every command kind, 10,000
 * launches, a segment rewritten, a fault in the middle, the segment in
 * device memory
 */
#include "driver.h"

/* The SQ entry a launch of @dev wrote last (SQ slot @slot). */
static struct sacc_desc sq_entry(struct sacc_dev *dev, uint32_t slot)
{
	return sacc_dev_sq_va(dev)[slot % sacc_dev_sq_entries(dev)];
}

/* Launch @g on @h (it must go), reap its one result into @r: checked
 * as one graph launch (opcode, cookie, len), its status is the
 * caller's. */
static void graph_run(struct sacc_dev *h, struct sacc_graph *g,
		      uint64_t cookie, struct sacc_result *r)
{
	int ret = sacc_graph_launch(h, g, cookie);

	ck_assert_msg(ret == 1, "sacc_graph_launch: %d: %s", ret,
		      sacc_errmsg(h));
	reap_n(h, r, 1);
	ck_assert_uint_eq(r->opcode, SACC_OP_SEGMENT);
	ck_assert_uint_eq(r->cookie, cookie);
	/* a raw graph's len is its slots: a bound on the commands run */
	ck_assert_uint_eq(r->len, r->raw ? sacc_graph_bytes(g) / 32
					 : sacc_graph_ops(g));
}

/* A graph made or the test fails with libsacc's message. */
static struct sacc_graph *graph_new(struct sacc_dev *h,
				    const struct sacc_op *ops, unsigned int n,
				    unsigned int flags)
{
	struct sacc_graph *g = NULL;
	int ret = sacc_graph_create(h, ops, n, flags, &g);

	ck_assert_msg(ret == 0, "sacc_graph_create(%u ops, 0x%x): %d: %s", n,
		      flags, ret, sacc_errmsg(h));
	return g;
}

/* The buffers of graph_kinds_ops(): host and device, src and dst. */
struct kinds {
	struct sacc_buf *hs, *hd, *ds, *dd, *ts;
	uint8_t inl[700];
	uint64_t pat;
};

/*
 * Every command kind, every direction: NOP, MEMCPY H2H, XFORM H2D,
 * MEMCPY D2D and D2H (after the XFORM that wrote it: in order),
 * WRITE_INLINE (700 bytes: 22 payload slots) into host and device
 * memory, FILL into both, TIMESTAMPs around the copies.  Into @ops;
 * returns how many.
 */
static unsigned int kinds_ops(struct kinds *k, struct sacc_op *ops)
{
	const uint32_t L = 5000;
	unsigned int n = 0;

	ops[n++] = (struct sacc_op){.opcode = SACC_OP_NOP};
	ops[n++] = (struct sacc_op){.opcode = SACC_OP_TIMESTAMP, .dst = k->ts};
	ops[n++] = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = L, .src = k->hs, .dst = k->hd};
	ops[n++] = (struct sacc_op){
	    .opcode = SACC_OP_XFORM, .len = L, .src = k->hs, .dst = k->ds};
	ops[n++] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
				    .len = L,
				    .src = k->ds,
				    .dst = k->dd,
				    .dst_off = 8192};
	ops[n++] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
				    .len = L,
				    .src = k->dd,
				    .src_off = 8192,
				    .dst = k->hd,
				    .dst_off = 8192};
	ops[n++] = (struct sacc_op){.opcode = SACC_OP_WRITE_INLINE,
				    .len = sizeof(k->inl),
				    .dst = k->hd,
				    .dst_off = 16384,
				    .data = k->inl};
	ops[n++] = (struct sacc_op){.opcode = SACC_OP_WRITE_INLINE,
				    .len = sizeof(k->inl),
				    .dst = k->dd,
				    .dst_off = 16384,
				    .data = k->inl};
	ops[n++] = (struct sacc_op){.opcode = SACC_OP_FILL,
				    .len = 3000,
				    .dst = k->hd,
				    .dst_off = 20000,
				    .pattern = k->pat};
	ops[n++] = (struct sacc_op){.opcode = SACC_OP_FILL,
				    .len = 3001,
				    .dst = k->dd,
				    .dst_off = 20000,
				    .pattern = ~k->pat};
	ops[n++] = (struct sacc_op){
	    .opcode = SACC_OP_TIMESTAMP, .dst = k->ts, .dst_off = 8};
	return n;
}

/* What kinds_ops() wrote, byte for byte, the rest still canary. */
static void kinds_check(struct kinds *k, uint64_t clock0)
{
	const uint32_t L = 5000;
	uint8_t *hs = va(k->hs), *hd = va(k->hd), *dd = va(k->dd);
	uint64_t t0, t1;

	check_copy("graph H2H", SACC_OP_MEMCPY, hd, hs, L);
	check_canary("graph H2H tail", hd + L, 8192 - L);
	check_copy("graph H2D xform, D2D, D2H", SACC_OP_XFORM, hd + 8192, hs,
		   L);
	check_copy("graph H2D xform, D2D", SACC_OP_XFORM, dd + 8192, hs, L);
	ck_assert(!memcmp(hd + 16384, k->inl, sizeof(k->inl)));
	ck_assert(!memcmp(dd + 16384, k->inl, sizeof(k->inl)));
	check_canary("graph inline tail", hd + 16384 + sizeof(k->inl), 64);
	for (uint32_t i = 0; i < 3000; i++)
		ck_assert_uint_eq(hd[20000 + i], (uint8_t)(k->pat >> 8 * (i % 8)));
	for (uint32_t i = 0; i < 3001; i++)
		ck_assert_uint_eq(dd[20000 + i],
				  (uint8_t)(~k->pat >> 8 * (i % 8)));
	check_canary("graph fill tail", hd + 23000, 64);
	memcpy(&t0, va(k->ts), 8);
	memcpy(&t1, va(k->ts) + 8, 8);
	ck_assert_uint_ge(t0, clock0);
	ck_assert_uint_gt(t1, t0); /* around three copies of 5000 bytes */
}

/* Fresh sources and canaries for one kinds_ops() launch. */
static void kinds_reset(struct kinds *k)
{
	fill_random(va(k->hs), 8192);
	memset(va(k->hd), CANARY, sacc_buf_len(k->hd));
	memset(va(k->dd), CANARY, sacc_buf_len(k->dd));
	memset(va(k->ts), 0, 16);
	fill_random(k->inl, sizeof(k->inl));
	k->pat = rnd();
}

/* Every command kind in one graph, its segment in host and in device
 * memory, on channel 0 (MODE.V3) and on a token-doorbell channel: one
 * SQ entry and one doorbell a launch, one result, every byte checked;
 * a graph refused on a v0.2 handle. */
START_TEST(graph_every_kind)
{
	struct sacc_open_opts o = {.flags = SACC_OPEN_V3};
	struct sacc_dev *dev, *h;
	struct sacc_graph *g;
	struct sacc_result r;
	struct sacc_stats st;
	struct sacc_op ops[16];
	struct kinds k;
	struct sacc_desc e;
	unsigned int n;

	BEGIN();
	dev = guest_open(0, &o);
	if (!has_devmem(dev)) {
		sacc_close(dev);
		return;
	}
	for (int c = 0; c < 2; c++) {
		uint32_t slot = 0; /* the SQ slot of h's next launch */
		uint64_t clock0;

		h = c ? open_chan(dev, 1, SACC_DOORBELL_PUT_TOKEN, 64) : dev;
		k.hs = guest_buf(h, 8192, SACC_DMA_TO_DEVICE, "g hs");
		k.hd = guest_buf(h, 32 * KiB, SACC_DMA_FROM_DEVICE, "g hd");
		k.ts = guest_buf(h, 16, SACC_DMA_FROM_DEVICE, "g ts");
		k.ds = dev_buf(h, 8192, "g ds");
		k.dd = dev_buf(h, 32 * KiB, "g dd");
		for (unsigned int where = 0; where < 2; where++) {
			kinds_reset(&k);
			n = kinds_ops(&k, ops);
			g = graph_new(h, ops, n,
				      where ? SACC_GRAPH_DEVMEM : 0);
			ck_assert_uint_eq(sacc_graph_ops(g), n);
			ck_assert_uint_eq(sacc_graph_bytes(g),
					  32 * (n + 2 * SACC_INLINE_SLOTS(700)));
			sacc_stats_clear(h);
			clock0 = sacc_dev_clock(h);
			graph_run(h, g, 100 + where, &r);
			ck_assert_msg(r.status == SACC_STS_OK, "%s",
				      sacc_graph_explain(g, &r,
							 (char[256]){0}, 256));
			ck_assert_uint_eq(r.result_len, n);
			ck_assert_uint_gt(r.engine_ns, 0);
			sacc_stats(h, &st);
			ck_assert_uint_eq(st.submitted, 1);
			ck_assert_uint_eq(st.doorbells, 1);
			ck_assert_uint_eq(st.completed, 1);
			e = sq_entry(h, slot++);
			ck_assert_uint_eq(e.opcode, SACC_OP_SEGMENT);
			ck_assert_uint_eq(e.length, sacc_graph_bytes(g));
			ck_assert_uint_eq(e.flags,
					  where ? SACC_DESC_F_SRC_DEV : 0);
			kinds_check(&k, clock0);
			/* and again, fresh data, the clock moving on */
			kinds_reset(&k);
			ck_assert_int_eq(sacc_graph_update(g, ops,
							   kinds_ops(&k, ops)),
					 0);
			clock0 = sacc_dev_clock(h);
			graph_run(h, g, 200, &r);
			slot++;
			ck_assert_uint_eq(r.status, SACC_STS_OK);
			kinds_check(&k, clock0);
			ck_assert_int_eq(sacc_graph_destroy(g), 0);
		}
		ck_assert_int_eq(sacc_outstanding(h), 0);
	}
	sacc_close(dev);

	/* a v0.2 channel 0 has no SEGMENT: refused, with what to do */
	dev = guest_open(0, NULL);
	ops[0] = (struct sacc_op){.opcode = SACC_OP_NOP};
	ck_assert_int_eq(sacc_graph_create(dev, ops, 1, 0, &g), -EINVAL);
	assert_msg_has(sacc_errmsg(dev), "SACC_OPEN_V3");
	sacc_close(dev);
	ck_assert_int_eq(vmlck_kb(), 0);
}
END_TEST

/* @count launches of @g on @dev, up to 32 in flight, cookies from
 * *@cookie on: every result in order, ok and complete. */
static void launch_many(struct sacc_dev *dev, struct sacc_graph *g,
			unsigned int count, uint64_t *cookie)
{
	struct sacc_result r[32];
	uint64_t sent = *cookie, done = *cookie, end = *cookie + count;
	int k;

	while (done < end) {
		while (sent < end && sent - done < 32) {
			k = sacc_graph_launch(dev, g, sent);
			ck_assert_msg(k >= 0, "launch %" PRIu64 ": %s", sent,
				      sacc_errmsg(dev));
			if (!k)
				break; /* the SQ is full: reap first */
			sent++;
		}
		k = guest_reap(dev, r, (unsigned int)(sent - done),
			       REAP_TIMEOUT_MS);
		ck_assert_msg(k > 0, "reap: %d: %s", k, sacc_errmsg(dev));
		for (int i = 0; i < k; i++, done++) {
			ck_assert_uint_eq(r[i].cookie, done);
			ck_assert_msg(r[i].status == SACC_STS_OK &&
					  r[i].result_len == sacc_graph_ops(g),
				      "launch %" PRIu64 ": %s", done,
				      sacc_graph_explain(g, &r[i],
							 (char[256]){0}, 256));
		}
	}
	*cookie = end;
}

/* One graph launched 10,000 times: 32 launches in flight, every result
 * in order and complete; at every thousandth, launched alone, its
 * TIMESTAMP has moved on; one doorbell a launch. */
START_TEST(graph_10000_launches)
{
	struct sacc_open_opts o = {.flags = SACC_OPEN_V3, .sq_entries = 64};
	struct sacc_dev *dev;
	struct sacc_buf *src, *dst, *ts;
	struct sacc_graph *g;
	struct sacc_result r;
	struct sacc_stats st;
	struct sacc_op ops[8];
	uint64_t cookie = 0, last = 0, t;

	BEGIN();
	dev = guest_open(0, &o);
	src = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "10k src");
	dst = guest_buf(dev, 4096, SACC_DMA_FROM_DEVICE, "10k dst");
	ts = guest_buf(dev, 8, SACC_DMA_FROM_DEVICE, "10k ts");
	fill_random(va(src), 4096);
	for (int i = 0; i < 7; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
					  .len = 512,
					  .src = src,
					  .src_off = 512 * (size_t)i,
					  .dst = dst,
					  .dst_off = 512 * (size_t)i};
	ops[7] = (struct sacc_op){.opcode = SACC_OP_TIMESTAMP, .dst = ts};
	g = graph_new(dev, ops, 8, 0);
	sacc_stats_clear(dev);
	for (int round = 0; round < 10; round++) {
		launch_many(dev, g, 999, &cookie);
		graph_run(dev, g, cookie++, &r);
		ck_assert_uint_eq(r.status, SACC_STS_OK);
		memcpy(&t, va(ts), 8);
		ck_assert_uint_gt(t, last);
		last = t;
	}
	sacc_stats(dev, &st);
	ck_assert_uint_eq(cookie, 10000);
	ck_assert_uint_eq(st.submitted, 10000);
	ck_assert_uint_eq(st.doorbells, 10000);
	ck_assert_uint_eq(st.completed, 10000);
	check_copy("10k launches", SACC_OP_MEMCPY, va(dst), va(src), 3584);
	ck_assert_int_eq(sacc_graph_destroy(g), 0);
	sacc_close(dev);
}
END_TEST

/* A graph whose segment is rewritten between launches: in place
 * (sacc_graph_update(): the same segment, new commands, host and device
 * memory), not while a launch is outstanding; and destroy + create. */
START_TEST(graph_rewritten)
{
	struct sacc_open_opts o = {.flags = SACC_OPEN_V3};
	struct sacc_dev *dev;
	struct sacc_buf *hd;
	struct sacc_graph *g;
	struct sacc_result r;
	struct sacc_op ops[4];
	uint32_t slot = 0; /* the SQ slot of the next launch */
	uint64_t seg;
	uint8_t *d;

	BEGIN();
	dev = guest_open(0, &o);
	if (!has_devmem(dev)) {
		sacc_close(dev);
		return;
	}
	hd = guest_buf(dev, 4096, SACC_DMA_FROM_DEVICE, "rw hd");
	d = va(hd);
	for (unsigned int where = 0; where < 2; where++) {
		unsigned int fl = where ? SACC_GRAPH_DEVMEM : 0;

		for (int i = 0; i < 4; i++)
			ops[i] = (struct sacc_op){.opcode = SACC_OP_FILL,
						  .len = 100,
						  .dst = hd,
						  .dst_off = 100 * (size_t)i,
						  .pattern = 0xa1a1a1a1a1a1a1a1ull};
		g = graph_new(dev, ops, 4, fl);
		memset(d, CANARY, 4096);
		graph_run(dev, g, 1, &r);
		ck_assert_uint_eq(r.status, SACC_STS_OK);
		seg = sq_entry(dev, slot++).src;
		for (int i = 0; i < 400; i++)
			ck_assert_uint_eq(d[i], 0xa1);
		/* the segment rewritten: other patterns, one op fewer */
		for (int i = 0; i < 3; i++)
			ops[i].pattern = 0x0101010101010101ull * (uint64_t)(i + 2);
		ck_assert_int_eq(sacc_graph_update(g, ops, 3), 0);
		ck_assert_int_eq(sacc_graph_launch(dev, g, 2), 1);
		ck_assert_uint_eq(sq_entry(dev, slot).src, seg); /* in place */
		ck_assert_uint_eq(sq_entry(dev, slot++).length, 96);
		/* not while the device may fetch it */
		ck_assert_int_eq(sacc_graph_update(g, ops, 3), -EBUSY);
		assert_msg_has(sacc_errmsg(dev), "outstanding");
		ck_assert_int_eq(sacc_graph_destroy(g), -EBUSY);
		reap_n(dev, &r, 1);
		ck_assert_uint_eq(r.status, SACC_STS_OK);
		ck_assert_uint_eq(r.result_len, 3);
		for (int i = 0; i < 300; i++)
			ck_assert_uint_eq(d[i], 2 + i / 100);
		ck_assert_uint_eq(d[300], 0xa1); /* op 3 no longer there */
		/* destroy + create: a new segment, run as it is now */
		ck_assert_int_eq(sacc_graph_destroy(g), 0);
		ops[0].pattern = 0x5555555555555555ull;
		g = graph_new(dev, ops, 1, fl);
		graph_run(dev, g, 3, &r);
		slot++;
		ck_assert_uint_eq(r.status, SACC_STS_OK);
		ck_assert_uint_eq(r.result_len, 1);
		ck_assert_uint_eq(d[0], 0x55);
		ck_assert_uint_eq(d[100], 3);
		ck_assert_int_eq(sacc_graph_destroy(g), 0);
	}
	sacc_close(dev);
}
END_TEST

/* A MODE.V3 device, a source of random bytes, five destinations of
 * CANARY and a graph of five 4 KiB MEMCPYs, one into each. */
struct gfault {
	struct sacc_dev *dev;
	struct sacc_buf *src, *dst[5];
	struct sacc_graph *g;
};

static void gfault_open(struct gfault *x)
{
	struct sacc_open_opts o = {.flags = SACC_OPEN_V3};
	struct sacc_op ops[5];
	char name[16];

	x->dev = guest_open(0, &o);
	x->src = guest_buf(x->dev, 4096, SACC_DMA_TO_DEVICE, "gf src");
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "gf dst%d", i);
		x->dst[i] = guest_buf(x->dev, 4096, SACC_DMA_FROM_DEVICE, name);
		ops[i] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
					  .len = 4096,
					  .src = x->src,
					  .dst = x->dst[i]};
	}
	x->g = graph_new(x->dev, ops, 5, 0);
	fill_random(va(x->src), 4096);
	for (int i = 0; i < 5; i++)
		memset(va(x->dst[i]), CANARY, 4096);
}

/* A graph with a faulting op in the middle: the launch's status and the
 * op's index, the ops before it done and none after it, the fault
 * record (the entry's req_id), sacc_graph_explain(); the channel goes
 * on. */
START_TEST(graph_fault_middle)
{
	struct sacc_map_entry e;
	struct sacc_buf *src, **dst;
	struct sacc_graph *g;
	struct sacc_result r;
	struct sacc_dev *dev;
	struct gfault x;
	char msg[512];

	BEGIN();
	gfault_open(&x);
	dev = x.dev;
	src = x.src;
	dst = x.dst;
	g = x.g;
	/* op 2's destination unmapped behind libsacc's back */
	e = mapping_at(dev, sacc_buf_iova(dst[2]));
	sq_unmap(dev, &e);
	graph_run(dev, g, 7, &r);
	ck_assert_uint_eq(r.status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(r.result_len, 2);
	check_copy("before the fault", SACC_OP_MEMCPY, va(dst[0]), va(src),
		   4096);
	check_copy("before the fault", SACC_OP_MEMCPY, va(dst[1]), va(src),
		   4096);
	for (int i = 2; i < 5; i++)
		check_canary("the fault and after", va(dst[i]), 4096);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_INFO),
			  SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE);
	/* the record is the command's: its req_id names graph and op 2 */
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_REQ_ID) >> 31, 1);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_REQ_ID) & 0x7ff, 2);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_ADDR), (uint32_t)e.iova);
	sacc_graph_explain(g, &r, msg, sizeof(msg));
	assert_msg_has(msg, "op 2 of the graph's 5");
	assert_msg_has(msg, "to 'gf dst2'+0");
	assert_msg_has(msg, "destination write at IOVA");
	sq_remap(dev, &e);
	ck_assert_int_eq(sacc_check(dev), 0);
	graph_run(dev, g, 8, &r);
	ck_assert_uint_eq(r.status, SACC_STS_OK);
	ck_assert_uint_eq(r.result_len, 5);
	check_copy("after the fault", SACC_OP_MEMCPY, va(dst[4]), va(src),
		   4096);
	ck_assert_int_eq(sacc_graph_destroy(g), 0);
	sacc_close(dev);
}
END_TEST

/* The segment itself unmapped: the fetch faults, no op runs, the fault
 * record is the entry's; the graph runs again once it is mapped. */
START_TEST(graph_fault_segment_fetch)
{
	struct sacc_map_entry e;
	struct sacc_buf **dst;
	struct sacc_graph *g;
	struct sacc_result r;
	struct sacc_dev *dev;
	struct gfault x;
	uint64_t seg;
	char msg[512];

	BEGIN();
	gfault_open(&x);
	dev = x.dev;
	dst = x.dst;
	g = x.g;
	graph_run(dev, g, 8, &r);
	ck_assert_uint_eq(r.status, SACC_STS_OK);
	seg = sq_entry(dev, 0).src; /* the launch above */
	e = mapping_at(dev, seg);
	sq_unmap(dev, &e);
	for (int i = 0; i < 5; i++)
		memset(va(dst[i]), CANARY, 4096);
	graph_run(dev, g, 9, &r);
	ck_assert_uint_eq(r.status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(r.result_len, 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_INFO),
			  SACC_FAULT_SEGMENT_READ);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_REQ_ID), r.req_id);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_ADDR), (uint32_t)seg);
	for (int i = 0; i < 5; i++)
		check_canary("no op after a fetch fault", va(dst[i]), 4096);
	sacc_graph_explain(g, &r, msg, sizeof(msg));
	assert_msg_has(msg, "fetching its segment");
	sq_remap(dev, &e);
	graph_run(dev, g, 10, &r);
	ck_assert_uint_eq(r.status, SACC_STS_OK);
	ck_assert_int_eq(sacc_graph_destroy(g), 0);
	sacc_close(dev);
}
END_TEST

/* Raw segments (libsacc_unsafe.h): a SEGMENT inside, a payload past the
 * end, a source nowhere; each launch's status and failing index, and
 * sacc_graph_explain(); the channel goes on. */
START_TEST(graph_raw_segments)
{
	struct sacc_buf *src, **dst;
	struct sacc_graph *raw;
	struct sacc_result r;
	struct sacc_dev *dev;
	struct gfault x;
	uint64_t seg;
	char msg[512];

	BEGIN();
	gfault_open(&x);
	dev = x.dev;
	src = x.src;
	dst = x.dst;
	/* a segment's address, for the SEGMENT inside */
	graph_run(dev, x.g, 8, &r);
	seg = sq_entry(dev, 0).src;
	ck_assert_int_eq(sacc_graph_destroy(x.g), 0);
	{
		struct sacc_desc c[4] = {
		    {.opcode = SACC_OP_NOP},
		    {.opcode = SACC_OP_MEMCPY,
		     .src = sacc_buf_iova(src),
		     .dst = sacc_buf_iova(dst[0]),
		     .length = 64},
		    {.opcode = SACC_OP_SEGMENT, .src = seg, .length = 32},
		    {.opcode = SACC_OP_NOP}};
		static const struct {
			uint16_t status;
			uint32_t index;
		} want[3] = {{SACC_STS_BAD_OPCODE, 2},
			     {SACC_STS_BAD_LENGTH, 1},
			     {SACC_STS_DMA_FAULT, 1}};

		for (int t = 0; t < 3; t++) {
			if (t == 1) /* 100 bytes: 4 payload slots, 2 left */
				c[1] = (struct sacc_desc){
				    .opcode = SACC_OP_WRITE_INLINE,
				    .dst = sacc_buf_iova(dst[0]),
				    .length = 100};
			if (t == 2) /* the guard page after src */
				c[1] = (struct sacc_desc){
				    .opcode = SACC_OP_MEMCPY,
				    .src = sacc_buf_iova(src) + 4096,
				    .dst = sacc_buf_iova(dst[0]),
				    .length = 64};
			for (int i = 0; i < 4; i++) /* FAULT_REQ_ID's */
				c[i].req_id = 0x1000u + (uint32_t)i;
			ck_assert_int_eq(
			    sacc_graph_create_raw(dev, c, 4, 0, &raw), 0);
			graph_run(dev, raw, 20 + t, &r);
			ck_assert(r.raw);
			ck_assert_uint_eq(r.status, want[t].status);
			ck_assert_uint_eq(r.result_len, want[t].index);
			sacc_graph_explain(raw, &r, msg, sizeof(msg));
			assert_msg_has(msg, t == 0	? "(segment"
					    : t == 1 ? "(write inline"
						     : "source read");
			ck_assert_int_eq(sacc_graph_destroy(raw), 0);
		}
		ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_INFO),
				  SACC_FAULT_SRC_READ);
		ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_REQ_ID), 0x1001);
	}
	ck_assert_int_eq(sacc_check(dev), 0);
	one_verified_op(dev, SACC_OP_MEMCPY, src, dst[3], 4096);
	sacc_close(dev);
}
END_TEST

/* The segment in device memory: SRC_DEV entries at a device address,
 * launched 1,000 times; kept across an FLR (sacc_reset() zeroes device
 * memory: libsacc writes the segment again); device memory full says
 * so; its pages come back at destroy. */
START_TEST(graph_devmem_segment)
{
	struct sacc_open_opts o = {.flags = SACC_OPEN_V3};
	struct sacc_devmem_info in0, in;
	struct sacc_buf *hs, *hd, *big;
	struct sacc_graph *g, *g2 = NULL;
	struct sacc_result r;
	struct sacc_op ops[65];
	struct sacc_dev *dev;
	struct sacc_desc e;
	uint64_t cookie = 0;

	BEGIN();
	dev = guest_open(0, &o);
	if (!has_devmem(dev)) {
		sacc_close(dev);
		return;
	}
	ck_assert_int_eq(sacc_devmem_info(dev, &in0), 0);
	hs = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "gd hs");
	hd = guest_buf(dev, 8192, SACC_DMA_FROM_DEVICE, "gd hd");
	for (int i = 0; i < 64; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
					  .len = 64,
					  .src = hs,
					  .src_off = 64 * (size_t)i,
					  .dst = hd,
					  .dst_off = 64 * (size_t)i};
	ops[64] = (struct sacc_op){.opcode = SACC_OP_FILL,
				   .len = 4096,
				   .dst = hd,
				   .dst_off = 4096,
				   .pattern = 0x1234567890abcdefull};
	g = graph_new(dev, ops, 65, SACC_GRAPH_DEVMEM);
	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	ck_assert_uint_eq(in.used, in0.used + 4096); /* 2080 bytes: a page */
	fill_random(va(hs), 4096);
	memset(va(hd), CANARY, 8192);
	graph_run(dev, g, cookie++, &r);
	ck_assert_uint_eq(r.status, SACC_STS_OK);
	ck_assert_uint_eq(r.result_len, 65);
	e = sq_entry(dev, 0);
	ck_assert_uint_eq(e.flags, SACC_DESC_F_SRC_DEV);
	ck_assert_uint_lt(e.src, in.size);
	ck_assert_uint_eq(e.length, 65 * 32);
	check_copy("devmem segment", SACC_OP_MEMCPY, va(hd), va(hs), 4096);
	ck_assert_uint_eq(va(hd)[8191], 0x12);
	launch_many(dev, g, 999, &cookie);
	/* an FLR zeroes device memory; the next launch writes it again */
	ck_assert_int_eq(sacc_reset(dev), 0);
	memset(va(hd), CANARY, 8192);
	graph_run(dev, g, cookie++, &r);
	ck_assert_msg(r.status == SACC_STS_OK && r.result_len == 65, "%s",
		      sacc_graph_explain(g, &r, (char[256]){0}, 256));
	check_copy("devmem segment after FLR", SACC_OP_MEMCPY, va(hd), va(hs),
		   4096);
	/* device memory full: the message says so, and what to do */
	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	big = dev_buf(dev, in.largest_free, "gd big");
	ck_assert_int_eq(sacc_graph_create(dev, ops, 65, SACC_GRAPH_DEVMEM, &g2),
			 -ENOSPC);
	assert_msg_has(sacc_errmsg(dev), "out of device memory");
	assert_msg_has(sacc_errmsg(dev), "host memory");
	ck_assert_ptr_null(g2);
	ck_assert_int_eq(sacc_buf_free(big), 0);
	ck_assert_int_eq(sacc_graph_destroy(g), 0);
	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	ck_assert_uint_eq(in.used, in0.used);
	sacc_close(dev);
}
END_TEST

void graph_tests(Suite *s)
{
	TCase *tc = driver_tcase(s, "graphs");

	tcase_add_test(tc, graph_every_kind);
	tcase_add_test(tc, graph_10000_launches);
	tcase_add_test(tc, graph_rewritten);
	tcase_add_test(tc, graph_fault_middle);
	tcase_add_test(tc, graph_fault_segment_fetch);
	tcase_add_test(tc, graph_raw_segments);
	tcase_add_test(tc, graph_devmem_segment);
}

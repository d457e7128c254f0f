// SPDX-License-Identifier: MIT
/*
 * data_path.c - the data path: random verified ops, ring laps of every size,
 * the CQ full rule, 64-op batches under one doorbell, two devices at once
 */
#include "driver.h"

/*
 * Sized to what it proves: every opcode and every size octave from 1 B
 * to 1 MiB many times over (about RANDOM_OPS / 32 ops an octave), each
 * result verified with canaries. 3,000 ops do that; 10,000 took three
 * times as long under TCG and found nothing more.
 */
#define RANDOM_OPS 3000

START_TEST(random_ops)
{
	struct sacc_dev *dev;
	struct eng e;
	uint64_t t0;
	double s;

	BEGIN();
	dev = guest_open(0, NULL);
	eng_init(&e, dev, "10k", ENG_SLOTS, SACC_MAX_XFER);
	t0 = sacc_monotonic_ns();
	eng_run(&e, RANDOM_OPS);
	s = (double)(sacc_monotonic_ns() - t0) / 1e9;
	eng_finish(&e);
	ck_assert_uint_eq(e.done, RANDOM_OPS);
	/* The mix: every opcode, every octave from 1 B to 1 MiB. */
	for (int k = 0; k < 3; k++)
		ck_assert_msg(e.by_op[k] > RANDOM_OPS / 4, "opcode %d: only %" PRIu64,
			      k, e.by_op[k]);
	for (unsigned int k = 0; k <= 20; k++)
		ck_assert_msg(e.by_octave[k] >= RANDOM_OPS / 100,
			      "sizes %u..%u: only %" PRIu64 " ops", 1u << k,
			      (2u << k) - 1, e.by_octave[k]);
	fprintf(stderr,
		"    random_ops: %" PRIu64 " ops (%" PRIu64 " nop, %" PRIu64
		" memcpy, %" PRIu64 " xform), %.1f MiB verified in %.1f s, "
		"%" PRIu64 " doorbells\n",
		e.done, e.by_op[0], e.by_op[1], e.by_op[2],
		(double)e.bytes / MiB, s, e.submits);
	sacc_close(dev);
}
END_TEST

START_TEST(ring_laps)
{
	static const struct {
		uint32_t sq, cq, ops, max_len;
	} cfg[] = {
	    {2, 2, 300, 512},	/* one op in flight at a time */
	    {4, 4, 2000, 512},	/* 500 laps of both rings */
	    {16, 2, 300, 4096}, /* CQ much smaller than SQ */
	    {8, 64, 400, 4096}, /* CQ larger than SQ */
	    {65536, 65536, 200, 4096}, /* the largest rings */
	    {65536, 2, 100, 64},
	};

	BEGIN();
	for (size_t i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
		struct sacc_open_opts o = {.sq_entries = cfg[i].sq,
					   .cq_entries = cfg[i].cq};
		struct sacc_dev *dev = guest_open(0, &o);
		unsigned int slots = cfg[i].sq - 1;
		char tag[32];
		struct eng e;

		ck_assert_uint_eq(sacc_dev_sq_entries(dev), cfg[i].sq);
		ck_assert_uint_eq(sacc_dev_cq_entries(dev), cfg[i].cq);
		snprintf(tag, sizeof(tag), "sq%u/cq%u", cfg[i].sq, cfg[i].cq);
		eng_init(&e, dev, tag, slots > ENG_SLOTS ? ENG_SLOTS : slots,
			 cfg[i].max_len);
		eng_run(&e, cfg[i].ops);
		eng_finish(&e);
		/* Each lap of the CQ flips the phase: at least this many. */
		ck_assert_uint_ge(e.done / cfg[i].cq, cfg[i].ops / cfg[i].cq);
		sacc_close(dev);
	}
}
END_TEST

START_TEST(cq_full)
{
	struct sacc_open_opts o = {.sq_entries = 64, .cq_entries = 4};
	struct sacc_op ops[64];
	struct sacc_result res[64];
	struct sacc_stats st;
	struct sacc_map_entry cqm;
	const struct sacc_cqe *cq;
	struct sacc_dev *dev;
	unsigned int got = 0, polls = 0, posted = 0;
	uint64_t t0;
	int ret;

	BEGIN();
	dev = guest_open(0, &o);
	cqm = mapping_at(dev, sacc_dev_cq_iova(dev));
	cq = (const struct sacc_cqe *)(uintptr_t)cqm.vaddr;
	for (unsigned int i = 0; i < 64; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = i};

	/* SQ: never more than SQ_SIZE - 1 in flight. */
	ret = sacc_submit(dev, ops, 64);
	ck_assert_msg(ret == 63, "sacc_submit(64) on a 64-entry SQ: %d: %s",
		      ret, sacc_errmsg(dev));
	ck_assert_uint_eq(sacc_sq_free(dev), 0);
	ck_assert_uint_eq(sacc_outstanding(dev), 63);
	ck_assert_int_eq(sacc_submit(dev, &ops[63], 1), 0); /* full: 0 */
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.doorbells, 1);
	ck_assert_uint_eq(st.submitted, 63);

	/* CQ: the device posts CQ_SIZE - 1 = 3 entries, then stalls. */
	t0 = sacc_monotonic_ns();
	do {
		posted = 0;
		for (unsigned int i = 0; i < 4; i++)
			posted += __atomic_load_n(&cq[i].phase,
						  __ATOMIC_ACQUIRE) & 1;
	} while (posted < 3 && sacc_monotonic_ns() - t0 < 10000000000ull);
	ck_assert_msg(posted == 3, "%u completions posted before the stall",
		      posted);
	guest_sleep_ms(300);
	for (unsigned int i = 0; i < 3; i++)
		ck_assert_uint_eq(cq[i].phase & 1, 1);
	ck_assert_msg((cq[3].phase & 1) == 0,
		      "the device filled the last CQ slot: full rule broken");
	ck_assert_uint_eq(reg(dev, SACC_REG_STATUS), SACC_STATUS_READY);

	/* Reaping frees slots; the device resumes; order is kept. */
	t0 = sacc_monotonic_ns();
	while (got < 63) {
		ret = sacc_poll(dev, res + got, 63 - got);
		ck_assert_msg(ret >= 0, "sacc_poll: %d: %s", ret,
			      sacc_errmsg(dev));
		ck_assert_msg(ret <= 3, "%d completions from a 4-entry CQ", ret);
		for (int i = 0; i < ret; i++) {
			ck_assert_uint_eq(res[got + i].cookie, got + i);
			ck_assert_uint_eq(res[got + i].status, SACC_STS_OK);
		}
		if (ret)
			polls++;
		got += (unsigned int)ret;
		ck_assert_msg(sacc_monotonic_ns() - t0 < REAP_TIMEOUT_MS * 1000000ull,
			      "stuck at %u of 63 completions", got);
	}
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.completed, 63);
	ck_assert_uint_eq(st.cq_head_writes, polls); /* once per batch */
	ck_assert_uint_ge(polls, 21);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	ck_assert_uint_eq(sacc_sq_free(dev), 63);
	ck_assert_uint_eq(reg(dev, SACC_REG_ERR_CODE), SACC_ERR_NONE);

	/* And the queue works normally afterwards. */
	ck_assert_int_eq(sacc_submit(dev, ops, 10), 10);
	reap_n(dev, res, 10);
	ck_assert_uint_eq(res[9].cookie, 9);
	sacc_close(dev);
}
END_TEST

START_TEST(batch_64_one_doorbell)
{
	struct sacc_dev *dev;
	struct sacc_buf *src, *dst;
	struct sacc_op ops[64];
	struct sacc_result res[68];
	struct sacc_stats st;
	const uint32_t chunk = 16 * KiB;
	int ret;

	BEGIN();
	dev = guest_open(0, NULL);
	src = guest_buf(dev, 64 * chunk, SACC_DMA_TO_DEVICE, "batch src");
	dst = guest_buf(dev, 64 * chunk, SACC_DMA_FROM_DEVICE, "batch dst");
	sacc_stats_clear(dev);
	for (int b = 0; b < 10; b++) {
		fill_random(va(src), 64 * chunk);
		memset(va(dst), CANARY, 64 * chunk);
		for (unsigned int i = 0; i < 64; i++) {
			uint16_t opc = (uint16_t)(rnd() % 3);

			ops[i] = (struct sacc_op){
			    .opcode = opc,
			    .len = opc ? 1 + (uint32_t)(rnd() % chunk) : 0,
			    .src = opc ? src : NULL,
			    .src_off = i * chunk,
			    .dst = opc ? dst : NULL,
			    .dst_off = i * chunk,
			    .cookie = (uint64_t)b * 64 + i};
		}
		ret = sacc_submit(dev, ops, 64);
		ck_assert_msg(ret == 64, "%d: %s", ret, sacc_errmsg(dev));
		sacc_stats(dev, &st);
		ck_assert_uint_eq(st.doorbells, (uint64_t)b + 1);
		ck_assert_uint_eq(st.submitted, (uint64_t)(b + 1) * 64);
		reap_n(dev, res, 64);
		for (unsigned int i = 0; i < 64; i++) {
			const struct sacc_op *op = &ops[i];

			ck_assert_uint_eq(res[i].cookie, op->cookie);
			ck_assert_uint_eq(res[i].status, SACC_STS_OK);
			ck_assert_uint_eq(res[i].result_len, op->len);
			if (op->opcode) {
				check_copy("batch", op->opcode,
					   va(dst) + op->dst_off,
					   va(src) + op->src_off, op->len);
				check_canary("batch",
					     va(dst) + op->dst_off + op->len,
					     chunk - op->len);
			} else {
				check_canary("batch nop", va(dst) + i * chunk,
					     chunk);
			}
		}
	}
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.doorbells, 10);
	ck_assert_uint_eq(st.completed, 640);

	/* All or nothing: one bad op in the batch, nothing submitted. */
	for (unsigned int i = 0; i < 64; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_MEMCPY, .len = 100,
					  .src = src, .dst = dst,
					  .dst_off = i * chunk};
	ops[37].len = 0;
	ret = sacc_submit(dev, ops, 64);
	ck_assert_int_eq(ret, -EINVAL);
	assert_msg_has(sacc_errmsg(dev), "op 37");
	ops[37].len = 100;
	ops[50].dst_off = 64 * chunk - 50; /* runs past the end */
	ck_assert_int_eq(sacc_submit(dev, ops, 64), -EINVAL);
	assert_msg_has(sacc_errmsg(dev), "op 50");
	assert_msg_has(sacc_errmsg(dev), "batch dst");
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.doorbells, 10);
	ck_assert_uint_eq(st.submitted, 640);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	sacc_close(dev);

	/* A 64-op batch on a 64-entry SQ: 63 go, one doorbell; the 64th
	 * waits for room. */
	{
		struct sacc_open_opts o = {.sq_entries = 64};

		dev = guest_open(0, &o);
		for (unsigned int i = 0; i < 64; i++)
			ops[i] = (struct sacc_op){.opcode = SACC_OP_NOP,
						  .cookie = i};
		ck_assert_int_eq(sacc_submit(dev, ops, 64), 63);
		sacc_stats(dev, &st);
		ck_assert_uint_eq(st.doorbells, 1);
		/* Reaping fewer than are ready keeps the rest, in order. */
		for (unsigned int k = 0; k < 63; k += 5)
			reap_n(dev, res + k, k + 5 <= 63 ? 5 : 63 - k);
		for (unsigned int k = 0; k < 63; k++)
			ck_assert_uint_eq(res[k].cookie, k);
		ck_assert_int_eq(sacc_submit(dev, &ops[63], 1), 1);
		reap_n(dev, res, 1);
		ck_assert_uint_eq(res[0].cookie, 63);
		sacc_stats(dev, &st);
		ck_assert_uint_eq(st.doorbells, 2);
		ck_assert_uint_eq(st.completed, 64);
		sacc_close(dev);
	}
}
END_TEST

START_TEST(two_devices)
{
	struct sacc_dev *a, *b;
	struct eng ea, eb;
	struct sacc_op op;
	struct sacc_stats st;
	struct sacc_dma_stats da, db;
	long kb;

	BEGIN();
	ck_assert_msg(guest_nr_devices() >= 2,
		      "needs 2 SACC devices (ci/vm --devices 2), have %u",
		      guest_nr_devices());
	a = guest_open(0, NULL);
	b = guest_open(1, NULL);
	ck_assert_str_ne(sacc_dev_bdf(a), sacc_dev_bdf(b));
	ck_assert_int_ne(sacc_dev_group(a), sacc_dev_group(b));
	ck_assert_int_ne(sacc_dev_container_fd(a), sacc_dev_container_fd(b));
	eng_init(&ea, a, "dev0", 8, 128 * KiB);
	eng_init(&eb, b, "dev1", 8, 128 * KiB);

	/* A buffer of one device cannot be used on the other. */
	op = (struct sacc_op){.opcode = SACC_OP_MEMCPY, .len = 10,
			      .src = ea.src, .dst = eb.dst[0]};
	ck_assert_int_eq(sacc_submit(b, &op, 1), -EINVAL);
	assert_msg_has(sacc_errmsg(b), "src is not a live buffer");
	op.src = eb.src;
	op.dst = ea.dst[0];
	ck_assert_int_eq(sacc_submit(b, &op, 1), -EINVAL);
	assert_msg_has(sacc_errmsg(b), "dst is not a live buffer");

	/* Pinned memory: per container, summed per process, = VmLck. */
	sacc_dma_ctx_stats(sacc_dev_dma(a), &da);
	sacc_dma_ctx_stats(sacc_dev_dma(b), &db);
	kb = vmlck_kb();
	ck_assert_uint_eq(da.process_pinned_bytes,
			  da.pinned_bytes + db.pinned_bytes);
	ck_assert_uint_eq((uint64_t)kb * 1024, da.process_pinned_bytes);

	/* Interleaved: both in flight at once. */
	while (ea.issued < 400 || eb.issued < 400 || ea.nbusy || eb.nbusy) {
		if (ea.issued < 400)
			eng_submit(&ea, 400 - ea.issued);
		if (eb.issued < 400)
			eng_submit(&eb, 400 - eb.issued);
		eng_reap(&ea);
		eng_reap(&eb);
	}
	eng_finish(&ea);
	eng_finish(&eb);
	sacc_stats(a, &st);
	ck_assert_uint_eq(st.completed, 400); /* counters are per device */

	/* Closing one leaves the other working. */
	sacc_close(a);
	ck_assert_uint_eq((uint64_t)vmlck_kb() * 1024, process_pinned(b));
	eng_run(&eb, 100);
	eng_finish(&eb);
	sacc_close(b);
	ck_assert_int_eq(vmlck_kb(), 0);
}
END_TEST

void data_path_tests(Suite *s)
{
	TCase *tc = driver_tcase(s, "data path");

	tcase_add_test(tc, random_ops);
	tcase_add_test(tc, ring_laps);
	tcase_add_test(tc, cq_full);
	tcase_add_test(tc, batch_64_one_doorbell);
	tcase_add_test(tc, two_devices);
}

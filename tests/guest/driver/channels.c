// SPDX-License-Identifier: MIT
/*
 * channels.c - channels: every doorbell kind on its own channel, inline
 * writes, TIMESTAMP as a fence, one thread per channel, a fault on one
 * channel that stops only that channel
 */
#include <pthread.h>

#include "driver.h"

/* Every channel (tail, token, syscall doorbell) copies; channel 0 is
 * still the v0.2 device; bad opens say why. */
START_TEST(chan_basic)
{
	struct sacc_dev *dev, *ch[3], *bad = NULL;
	struct sacc_buf *src, *dst;
	static const enum sacc_doorbell dbs[3] = {
	    SACC_DOORBELL_MMAP, SACC_DOORBELL_PUT_TOKEN, SACC_DOORBELL_SYSCALL};
	struct sacc_result r;

	BEGIN();
	dev = guest_open(0, NULL);
	ck_assert_uint_ge(sacc_dev_channels(dev), 4);
	ck_assert_int_eq(sacc_chan_open(dev, 0, NULL, &bad), -EINVAL);
	ck_assert_int_eq(sacc_chan_open(dev, sacc_dev_channels(dev), NULL, &bad),
			 -EINVAL);
	for (unsigned int k = 0; k < 3; k++)
		ch[k] = open_chan(dev, k + 1, dbs[k], 64);
	ck_assert_int_eq(sacc_chan_open(dev, 1, NULL, &bad), -EBUSY);
	assert_msg_has(sacc_errmsg(dev), "already open");
	for (unsigned int k = 0; k < 3; k++) {
		src = guest_buf(ch[k], 8192, SACC_DMA_TO_DEVICE, "c src");
		dst = guest_buf(ch[k], 8192, SACC_DMA_FROM_DEVICE, "c dst");
		for (int i = 0; i < 100; i++)
			one_verified_op(ch[k], i & 1 ? SACC_OP_XFORM
						     : SACC_OP_MEMCPY,
					src, dst, 1 + (uint32_t)(i * 77) % 8192);
		ck_assert_int_eq(sacc_outstanding(ch[k]), 0);
	}
	/* channel 0: v0.2, engine time 0, v0.3 opcodes refused */
	src = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "0 src");
	dst = guest_buf(dev, 4096, SACC_DMA_FROM_DEVICE, "0 dst");
	one_verified_op(dev, SACC_OP_MEMCPY, src, dst, 4096);
	{
		struct sacc_op ts = {.opcode = SACC_OP_TIMESTAMP, .dst = dst};

		ck_assert_int_eq(sacc_submit(dev, &ts, 1), -EINVAL);
		assert_msg_has(sacc_errmsg(dev), "SACC_OPEN_V3");
		ck_assert_int_eq(sacc_submit(ch[0], &ts, 1), -EINVAL);
		assert_msg_has(sacc_errmsg(ch[0]), "not a live buffer");
	}
	(void)r;
	sacc_close(ch[1]);
	sacc_close(dev); /* closes ch[0], ch[2] too */
	ck_assert_int_eq(vmlck_kb(), 0);
}
END_TEST

/* Inline writes: payloads that wrap the ring, every length class, and
 * the length errors. */
START_TEST(chan_inline)
{
	unsigned char data[SACC_INLINE_MAX + 1];
	struct sacc_result r[8];
	struct sacc_dev *dev, *ch;
	struct sacc_buf *dst;
	static const uint32_t lens[] = {1, 31, 32, 33, 100, 255, 1000, 4096};
	int ret;

	BEGIN();
	dev = guest_open(0, NULL);
	ch = open_chan(dev, 2, SACC_DOORBELL_MMAP, 256);
	dst = guest_buf(ch, 8192, SACC_DMA_FROM_DEVICE, "inl dst");
	for (int lap = 0; lap < 40; lap++) {
		uint32_t len = lens[lap % 8];

		fill_random(data, len);
		memset(va(dst), CANARY, sacc_buf_len(dst));
		ret = sacc_write(ch, dst, 64, data, len, SACC_WRITE_INLINE, 0,
				 lap);
		ck_assert_msg(ret == 1, "sacc_write(%u): %d: %s", len, ret,
			      sacc_errmsg(ch));
		reap_n(ch, r, 1);
		ck_assert_uint_eq(r[0].status, SACC_STS_OK);
		ck_assert_uint_eq(r[0].result_len, len);
		ck_assert_uint_eq(r[0].opcode, SACC_OP_WRITE_INLINE);
		ck_assert_msg(!memcmp(va(dst) + 64, data, len),
			      "inline payload of %u bytes differs (lap %d)",
			      len, lap);
		check_canary("inline head", va(dst), 64);
		check_canary("inline tail", va(dst) + 64 + len,
			     sacc_buf_len(dst) - 64 - len);
		ck_assert_uint_eq(sacc_outstanding(ch), 0);
	}
	/* 40 commands of up to 129 slots: the SQ (256) lapped many times */
	ck_assert_int_eq(sacc_write(ch, dst, 0, data, 0, SACC_WRITE_INLINE, 0,
				    0),
			 -EINVAL);
	ck_assert_int_eq(sacc_write(ch, dst, 0, data, SACC_INLINE_MAX + 1,
				    SACC_WRITE_INLINE, 0, 0),
			 -EINVAL);
	assert_msg_has(sacc_errmsg(ch), "not in 1..4096");
	ck_assert_int_eq(sacc_write(ch, dst, 8000, data, 1000,
				    SACC_WRITE_INLINE, 0, 0),
			 -EINVAL);
	assert_msg_has(sacc_errmsg(ch), "runs past its end");
	sacc_close(ch);
	/* an SQ too small for the payload: said so */
	ch = open_chan(dev, 2, SACC_DOORBELL_MMAP, 16);
	dst = guest_buf(ch, 8192, SACC_DMA_FROM_DEVICE, "inl dst");
	ck_assert_int_eq(sacc_write(ch, dst, 0, data, 1000, SACC_WRITE_INLINE,
				    0, 0),
			 -EINVAL);
	assert_msg_has(sacc_errmsg(ch), "larger sq_entries");
	/* DMA mode and auto do the same */
	fill_random(data, 3000);
	ck_assert_int_eq(sacc_write(ch, dst, 0, data, 3000, SACC_WRITE_DMA, 0,
				    1),
			 1);
	ck_assert_int_eq(sacc_write(ch, dst, 4000, data, 300, SACC_WRITE_AUTO,
				    0, 2),
			 1);
	reap_n(ch, r, 2);
	ck_assert_uint_eq(r[0].opcode, SACC_OP_MEMCPY);
	ck_assert(!memcmp(va(dst), data, 3000));
	ck_assert(!memcmp(va(dst) + 4000, data, 300));
	sacc_close(dev);
}
END_TEST

/* A TIMESTAMP is never before earlier large copies complete, and engine
 * time is nonzero and below what the API measured. */
START_TEST(chan_timestamp)
{
	struct sacc_result r[5];
	struct sacc_dev *dev, *ch;
	struct sacc_buf *src, *dst, *ts;
	uint64_t t_before, t[2], t0;
	struct sacc_op ops[5];

	BEGIN();
	dev = guest_open(0, NULL);
	ch = open_chan(dev, 3, SACC_DOORBELL_PUT_TOKEN, 64);
	src = guest_buf(ch, 1 << 20, SACC_DMA_TO_DEVICE, "ts src");
	dst = guest_buf(ch, 3 << 20, SACC_DMA_FROM_DEVICE, "ts dst");
	ts = guest_buf(ch, 4096, SACC_DMA_FROM_DEVICE, "ts");
	t_before = sacc_dev_clock(ch);
	ck_assert_uint_ne(t_before, 0);
	memset(ops, 0, sizeof(ops));
	ops[0] = (struct sacc_op){.opcode = SACC_OP_TIMESTAMP, .dst = ts};
	for (int i = 1; i < 4; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
					  .len = 1 << 20,
					  .src = src,
					  .dst = dst,
					  .dst_off = (size_t)(i - 1) << 20};
	ops[4] = (struct sacc_op){
	    .opcode = SACC_OP_TIMESTAMP, .dst = ts, .dst_off = 8};
	t0 = sacc_monotonic_ns();
	ck_assert_int_eq(sacc_submit(ch, ops, 5), 5);
	reap_n(ch, r, 5);
	t0 = sacc_monotonic_ns() - t0;
	memcpy(&t[0], va(ts), 8);
	memcpy(&t[1], va(ts) + 8, 8);
	ck_assert_uint_ge(t[0], t_before);
	for (int i = 0; i < 5; i++) {
		ck_assert_uint_eq(r[i].status, SACC_STS_OK);
		ck_assert_msg(r[i].engine_ns > 0 && r[i].engine_ns < t0,
			      "engine_ns %u of op %d, API saw %" PRIu64 " ns",
			      r[i].engine_ns, i, t0);
	}
	ck_assert_uint_eq(r[4].result_len, 8);
	/* the fence: at least the engine time of the copies in between */
	ck_assert_msg(t[1] - t[0] >= (uint64_t)r[1].engine_ns +
					 r[2].engine_ns + r[3].engine_ns,
		      "timestamps %" PRIu64 " ns apart, copies took %u+%u+%u",
		      t[1] - t[0], r[1].engine_ns, r[2].engine_ns,
		      r[3].engine_ns);
	sacc_close(dev);
}
END_TEST

struct chan_worker {
	struct sacc_dev *ch;
	int ops;
	char err[256];
};

static void *chan_worker(void *arg)
{
	struct chan_worker *w = arg;
	struct sacc_buf *src = NULL, *dst = NULL;
	struct sacc_result r;
	struct sacc_op op;
	int ret = 0;

	if (sacc_buf_alloc(w->ch, 4096, SACC_DMA_TO_DEVICE, "w src", &src) ||
	    sacc_buf_alloc(w->ch, 4096, SACC_DMA_FROM_DEVICE, "w dst", &dst)) {
		snprintf(w->err, sizeof(w->err), "alloc: %s",
			 sacc_errmsg(w->ch));
		return NULL;
	}
	for (int i = 0; i < w->ops && ret >= 0; i++) {
		memset(va(src), i, 4096);
		op = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
				      .len = 4096,
				      .src = src,
				      .dst = dst};
		ret = sacc_submit(w->ch, &op, 1);
		if (ret == 1)
			ret = guest_reap(w->ch, &r, 1, REAP_TIMEOUT_MS);
		if (ret != 1 || r.status || va(dst)[4095] != (uint8_t)i) {
			snprintf(w->err, sizeof(w->err), "op %d: %d: %s", i,
				 ret, sacc_errmsg(w->ch));
			break;
		}
	}
	return NULL;
}

/* One thread per channel, no locks; then a ring fault on one channel
 * stops that channel only, and its reset brings it back. */
START_TEST(chan_isolation)
{
	struct chan_worker w[3];
	pthread_t th[3];
	struct sacc_op nop = {.opcode = SACC_OP_NOP};
	struct sacc_dev *dev, *bad;
	struct sacc_map_entry m;
	struct sacc_buf *src, *dst;
	int ret;

	BEGIN();
	dev = guest_open(0, NULL);
	for (int k = 0; k < 3; k++) {
		w[k] = (struct chan_worker){.ops = 300};
		w[k].ch = open_chan(dev, (unsigned int)k + 1,
				    k == 1 ? SACC_DOORBELL_PUT_TOKEN
					   : SACC_DOORBELL_MMAP,
				    64);
	}
	for (int k = 0; k < 3; k++)
		ck_assert_int_eq(pthread_create(&th[k], NULL, chan_worker,
						&w[k]),
				 0);
	for (int k = 0; k < 3; k++) {
		pthread_join(th[k], NULL);
		ck_assert_msg(!w[k].err[0], "channel %d: %s", k + 1, w[k].err);
	}
	/* ring fault on channel 1: its SQ unmapped */
	bad = w[0].ch;
	m = mapping_at(bad, sacc_dev_sq_iova(bad));
	sq_unmap(bad, &m);
	ck_assert_int_eq(sacc_submit(bad, &nop, 1), 1);
	{
		struct sacc_result r;

		ret = guest_reap(bad, &r, 1, REAP_TIMEOUT_MS);
	}
	ck_assert_msg(ret == -EIO, "ring fault on channel 1: %d", ret);
	assert_msg_has(sacc_errmsg(bad), "descriptor fetch");
	assert_msg_has(sacc_errmsg(bad), "ch1:sq ring");
	ck_assert_uint_eq(reg(bad, SACC_REG_FAULT_INFO), SACC_FAULT_DESC_FETCH);
	/* the others carry on */
	ck_assert_int_eq(sacc_check(w[1].ch), 0);
	ck_assert_int_eq(sacc_check(dev), 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_COUNT), 0);
	w[1].ops = w[2].ops = 20;
	chan_worker(&w[1]);
	ck_assert_msg(!w[1].err[0], "channel 2 after 1's fault: %s", w[1].err);
	src = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "0 src");
	dst = guest_buf(dev, 4096, SACC_DMA_FROM_DEVICE, "0 dst");
	one_verified_op(dev, SACC_OP_MEMCPY, src, dst, 4096);
	/* channel 1 comes back alone */
	sq_remap(bad, &m);
	ret = sacc_reset(bad);
	ck_assert_msg(ret == 0, "sacc_reset(ch1): %d: %s", ret,
		      sacc_errmsg(bad));
	w[0].ops = 20;
	chan_worker(&w[0]);
	ck_assert_msg(!w[0].err[0], "channel 1 after reset: %s", w[0].err);
	chan_worker(&w[2]);
	ck_assert_msg(!w[2].err[0], "channel 3: %s", w[2].err);
	/* sacc_reset(dev) with channels open: channel 0 only */
	ck_assert_int_eq(sacc_reset(dev), 0);
	one_verified_op(dev, SACC_OP_XFORM, src, dst, 4096);
	chan_worker(&w[2]);
	ck_assert_msg(!w[2].err[0], "channel 3 after reset of 0: %s", w[2].err);
	sacc_close(dev);
	ck_assert_int_eq(vmlck_kb(), 0);
}
END_TEST

/* Token doorbell with the PUT word unmapped: a ring fault on that
 * channel (access put_read), logged; reset recovers. */
START_TEST(chan_put_unmapped)
{
	struct sacc_op nop = {.opcode = SACC_OP_NOP};
	struct sacc_dev *dev, *ch;
	struct sacc_map_entry m;
	struct sacc_result r;
	int ret;

	BEGIN();
	dev = guest_open(0, NULL);
	ch = open_chan(dev, 4, SACC_DOORBELL_PUT_TOKEN, 32);
	ck_assert_int_eq(sacc_submit(ch, &nop, 1), 1);
	reap_n(ch, &r, 1);
	ck_assert_uint_ne(sacc_dev_put_iova(ch), 0);
	m = mapping_at(ch, sacc_dev_put_iova(ch));
	sq_unmap(ch, &m);
	ck_assert_int_eq(sacc_submit(ch, &nop, 1), 1);
	ret = guest_reap(ch, &r, 1, REAP_TIMEOUT_MS);
	ck_assert_msg(ret == -EIO, "PUT unmapped: %d (%s)", ret,
		      sacc_errmsg(ch));
	assert_msg_has(sacc_errmsg(ch), "PUT word read");
	assert_msg_has(sacc_errmsg(ch), "ch4:put word");
	ck_assert_uint_eq(reg(ch, SACC_REG_FAULT_INFO), SACC_FAULT_PUT_READ);
	ck_assert_uint_eq(reg(ch, SACC_REG_FAULT_REQ_ID), 0);
	ck_assert_int_eq(sacc_check(dev), 0);
	sq_remap(ch, &m);
	ck_assert_int_eq(sacc_reset(ch), 0);
	ck_assert_int_eq(sacc_submit(ch, &nop, 1), 1);
	reap_n(ch, &r, 1);
	sacc_close(dev);
}
END_TEST

void channel_tests(Suite *s)
{
	TCase *tc = driver_tcase(s, "channels");

	tcase_add_test(tc, chan_basic);
	tcase_add_test(tc, chan_inline);
	tcase_add_test(tc, chan_timestamp);
	tcase_add_test(tc, chan_isolation);
	tcase_add_test(tc, chan_put_unmapped);
}

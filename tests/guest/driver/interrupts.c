// SPDX-License-Identifier: MIT
/*
 * interrupts.c - completion interrupts: sacc_wait() and MSI-X (also after a
 * reset), one interrupt a flagged batch; sacc_enqueue() and one
 * sacc_doorbell(), the eventfd in a program's own poll(2) loop
 */
#include <poll.h>

#include "driver.h"

/*
 * One flagged 1 MiB XFORM: sacc_wait() wakes, and the MSI-X really
 * reached the eventfd (if the completion beat sacc_wait() to it, the
 * interrupt is still pending: a second wait consumes it and times out).
 */
static void irq_roundtrip(struct sacc_dev *dev, struct sacc_buf *src,
			  struct sacc_buf *dst)
{
	struct sacc_op op = {.opcode = SACC_OP_XFORM, .len = MiB,
			     .flags = SACC_OPF_IRQ, .src = src, .dst = dst,
			     .cookie = 77};
	struct sacc_stats st0, st;
	struct sacc_result r;
	int ret;

	sacc_stats(dev, &st0);
	fill_random(va(src), MiB);
	memset(va(dst), CANARY, MiB);
	ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	ret = sacc_wait(dev, REAP_TIMEOUT_MS);
	ck_assert_msg(ret == 1, "sacc_wait: %d: %s", ret, sacc_errmsg(dev));
	ck_assert_int_eq(sacc_poll(dev, &r, 1), 1);
	ck_assert_uint_eq(r.cookie, 77);
	ck_assert_uint_eq(r.status, SACC_STS_OK);
	check_copy("irq xform", SACC_OP_XFORM, va(dst), va(src), MiB);
	ck_assert_int_eq(sacc_wait(dev, 300), 0);
	sacc_stats(dev, &st);
	ck_assert_msg(st.interrupts > st0.interrupts,
		      "no MSI-X reached the eventfd for a flagged op");
	/* acknowledged by sacc_wait */
	ck_assert_uint_eq(reg(dev, SACC_REG_IRQ_STATUS) & SACC_IRQ_COMPLETION,
			  0);
}

START_TEST(interrupt_mode)
{
	struct sacc_dev *dev;
	struct sacc_buf *src, *dst;
	struct sacc_op ops[64];
	struct sacc_result res[64];
	struct sacc_stats st;
	struct eng e;
	uint64_t t0, ms;
	int ret;

	BEGIN();
	dev = guest_open(0, NULL);

	/* Nothing outstanding: the timeout is honoured. */
	t0 = sacc_monotonic_ns();
	ck_assert_int_eq(sacc_wait(dev, 200), 0);
	ms = (sacc_monotonic_ns() - t0) / 1000000;
	/* Never early (the deadline is the contract); late by at most a
	 * guest stall under TCG with the other boot, the sanitizer build and
	 * the fuzzers beside it (a stall, not a second timeout). */
	fprintf(stderr, "interrupt_mode: sacc_wait(200) took %" PRIu64 " ms\n",
		ms);
	ck_assert_msg(ms >= 200 && ms < 1000, "sacc_wait(200) took %" PRIu64
					      " ms",
		      ms);

	/* Ops without SACC_OPF_IRQ raise no interrupt. */
	for (unsigned int i = 0; i < 50; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = i};
	ck_assert_int_eq(sacc_submit(dev, ops, 50), 50);
	reap_n(dev, res, 50);
	ck_assert_int_eq(sacc_wait(dev, 300), 0);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.interrupts, 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_IRQ_STATUS) & SACC_IRQ_COMPLETION,
			  0);

	/* One 1 MiB op with the flag; again after a reset (FLR resets
	 * the device's MSI-X state: libsacc must set it up again). */
	src = guest_buf(dev, MiB, SACC_DMA_TO_DEVICE, "irq src");
	dst = guest_buf(dev, MiB, SACC_DMA_FROM_DEVICE, "irq dst");
	irq_roundtrip(dev, src, dst);
	ck_assert_int_eq(sacc_reset(dev), 0);
	irq_roundtrip(dev, src, dst);
	ck_assert_int_eq(sacc_reset(dev), 0);
	irq_roundtrip(dev, src, dst);

	/* A batch with the flag on its last op only: exactly one MSI-X. */
	for (unsigned int i = 0; i < 64; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = i,
					  .flags = i == 63 ? SACC_OPF_IRQ : 0};
	sacc_stats(dev, &st);
	ck_assert_int_eq(sacc_submit(dev, ops, 64), 64);
	reap_n(dev, res, 64);
	ck_assert_uint_eq(res[63].cookie, 63);
	ck_assert_int_eq(sacc_wait(dev, 300), 0); /* consumes the eventfd */
	{
		struct sacc_stats st2;

		sacc_stats(dev, &st2);
		ck_assert_uint_eq(st2.interrupts - st.interrupts, 1);
	}
	ret = sacc_wait(dev, 0);
	ck_assert_int_eq(ret, 0);
	sacc_close(dev);

	/* Verified random ops reaped by interrupt only. */
	dev = guest_open(0, NULL);
	eng_init(&e, dev, "irq", 8, 256 * KiB);
	e.flags = SACC_OPF_IRQ;
	e.use_wait = true;
	eng_run(&e, 300);
	eng_finish(&e);
	sacc_stats(dev, &st);
	ck_assert_uint_ge(st.interrupts, 1);
	ck_assert_uint_le(st.interrupts, e.done);
	sacc_close(dev);
}
END_TEST

/*
 * Submitting without ringing, as dmadev does: sacc_enqueue() writes
 * descriptors the device is not told about (nothing moves, nothing
 * completes) until ONE sacc_doorbell(); the eventfd in a program's own
 * poll(2) loop (sacc_dev_eventfds(), sacc_irq_take()); sacc_dev_info().
 */
START_TEST(enqueue_doorbell_eventfd)
{
	struct sacc_dev *dev;
	struct sacc_buf *src, *dst;
	struct sacc_op ops[4];
	struct sacc_result res[4];
	struct sacc_stats st0, st;
	struct sacc_dev_info in;
	struct pollfd pfd;
	int fd = -1, req = -1, k;

	BEGIN();
	dev = guest_open(0, NULL);
	ck_assert_int_eq(sacc_dev_info(dev, &in), 0);
	ck_assert_uint_ge(in.version, SACC_VERSION);
	ck_assert_uint_ge(in.channels, 1);
	ck_assert(in.caps & SACC_CAP_IRQ);
	ck_assert(in.ops & 1u << SACC_OP_MEMCPY);
	ck_assert_uint_eq(in.max_xfer, SACC_MAX_XFER);
	src = guest_buf(dev, 64 * KiB, SACC_DMA_TO_DEVICE, "enq src");
	dst = guest_buf(dev, 64 * KiB, SACC_DMA_FROM_DEVICE, "enq dst");
	fill_random(va(src), 64 * KiB);
	memset(va(dst), CANARY, 64 * KiB);
	for (unsigned int i = 0; i < 4; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
					  .len = 16 * KiB, .src = src,
					  .src_off = i * 16 * KiB, .dst = dst,
					  .dst_off = i * 16 * KiB, .cookie = i,
					  .flags = i == 3 ? SACC_OPF_IRQ : 0};
	sacc_stats(dev, &st0);
	ck_assert_int_eq(sacc_enqueue(dev, ops, 2), 2);
	ck_assert_int_eq(sacc_enqueue(dev, ops + 2, 2), 2);
	ck_assert_uint_eq(sacc_unrung(dev), 4);
	usleep(100 * 1000); /* the device would have run them by now */
	ck_assert_int_eq(sacc_poll(dev, res, 4), 0);
	check_canary("unrung dst", va(dst), 64 * KiB);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.doorbells, st0.doorbells);
	ck_assert_int_eq(sacc_doorbell(dev), 0);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.doorbells, st0.doorbells + 1);
	ck_assert_uint_eq(st.submitted, st0.submitted + 4);
	/* the program's own loop: poll(2) on the eventfd */
	ck_assert_int_eq(sacc_dev_eventfds(dev, &fd, &req), 0);
	ck_assert_int_ge(fd, 0);
	pfd = (struct pollfd){.fd = fd, .events = POLLIN};
	k = poll(&pfd, 1, REAP_TIMEOUT_MS);
	ck_assert_msg(k == 1, "poll(eventfd): %d", k);
	ck_assert_int_eq(sacc_irq_take(dev), 1);
	ck_assert_uint_eq(reg(dev, SACC_REG_IRQ_STATUS) & SACC_IRQ_COMPLETION,
			  0);
	reap_n(dev, res, 4);
	for (unsigned int i = 0; i < 4; i++) {
		ck_assert_uint_eq(res[i].cookie, i);
		ck_assert_uint_eq(res[i].status, SACC_STS_OK);
	}
	check_copy("enqueued memcpy", SACC_OP_MEMCPY, va(dst), va(src),
		   64 * KiB);
	sacc_close(dev);
}
END_TEST

void interrupt_tests(Suite *s)
{
	TCase *tc = driver_tcase(s, "interrupts");

	tcase_add_test(tc, interrupt_mode);
	tcase_add_test(tc, enqueue_doorbell_eventfd);
}

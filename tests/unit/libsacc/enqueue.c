// SPDX-License-Identifier: MIT
/*
 * enqueue.c - submitting without ringing (sacc_enqueue(), sacc_doorbell()),
 * the device's capabilities (sacc_dev_info()) and the completion eventfd
 * in a program's own loop (sacc_irq_take())
 */
#include <sys/eventfd.h>

#include "fake_dev.h"

/* NOP ops with cookies 0..n-1 (no buffers). */
static void nops(struct sacc_op *ops, unsigned int n, uint64_t base)
{
	for (unsigned int i = 0; i < n; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_NOP,
					  .cookie = base + i};
}

/*
 * An enqueued WRITE_INLINE takes its payload's SQ slots: sacc_unrung()
 * counts them as sacc_outstanding() does, so a reap loop on
 * `outstanding > unrung` ends when the device owes nothing.  Counting
 * operations there left an outside workload's reap waiting forever with
 * a 44-byte inline enqueued (1 + 2 slots against 1).
 */
START_TEST(test_enqueue_inline_unrung_slots)
{
	struct sacc_dev *dev = fake_open_mode(16, 16, SACC_MODE_V3, 0);
	struct sacc_result r[4];
	struct sacc_buf *dst;
	char payload[44];
	struct sacc_op ops[2] = {{.opcode = SACC_OP_NOP, .cookie = 1}};
	int spins = 0;

	memset(payload, 0x5a, sizeof(payload));
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "dst", &dst), 0);
	ops[1] = (struct sacc_op){.opcode = SACC_OP_WRITE_INLINE,
				  .len = sizeof(payload),
				  .dst = dst,
				  .data = payload,
				  .cookie = 2};
	ck_assert_int_eq(sacc_submit(dev, ops, 1), 1); /* rung */
	ck_assert_int_eq(sacc_enqueue(dev, ops + 1, 1), 1);
	ck_assert_uint_eq(sacc_outstanding(dev),
			  1 + 1 + SACC_INLINE_SLOTS(sizeof(payload)));
	ck_assert_uint_eq(sacc_unrung(dev), 1 + SACC_INLINE_SLOTS(44));
	dev_run(100);
	while (sacc_outstanding(dev) > sacc_unrung(dev)) {
		ck_assert_int_ge(sacc_poll(dev, r, 4), 0);
		ck_assert_int_lt(++spins, 1000); /* the device owes nothing */
	}
	ck_assert_uint_eq(sacc_unrung(dev), 3);
	ck_assert_int_eq(sacc_doorbell(dev), 0);
	ck_assert_uint_eq(sacc_unrung(dev), 0);
	ck_assert_int_eq(reap_all(dev, r, 1), 1);
	ck_assert_uint_eq(r[0].cookie, 2);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	fake_close(dev);
}
END_TEST

/* sacc_enqueue(): descriptors written, no doorbell; sacc_doorbell()
 * rings once for all of them, and so does the next sacc_submit(). */
START_TEST(test_enqueue_one_doorbell)
{
	struct sacc_dev *dev = fake_open(16, 16);
	struct sacc_result r[8];
	struct sacc_op ops[8];

	nops(ops, 8, 100);
	ck_assert_int_eq(sacc_enqueue(dev, ops, 3), 3);
	ck_assert_int_eq(sacc_enqueue(dev, ops + 3, 2), 2);
	ck_assert_uint_eq(sacc_unrung(dev), 5);
	ck_assert_uint_eq(dev->stats.doorbells, 0);
	ck_assert_uint_eq(dev->stats.submitted, 0);
	ck_assert_uint_eq(dev->db[0], 0);
	ck_assert_uint_eq(sacc_outstanding(dev), 5);
	ck_assert_uint_eq(sacc_sq_free(dev), 10);
	ck_assert_uint_eq(dev_run(100), 0); /* the device was told nothing */
	ck_assert_int_eq(sacc_poll(dev, r, 8), 0);
	ck_assert_int_eq(sacc_doorbell(dev), 0);
	ck_assert_uint_eq(dev->stats.doorbells, 1);
	ck_assert_uint_eq(dev->stats.submitted, 5);
	ck_assert_uint_eq(dev->db[0], 5);
	ck_assert_uint_eq(sacc_unrung(dev), 0);
	ck_assert_int_eq(sacc_doorbell(dev), 0); /* nothing: no doorbell */
	ck_assert_uint_eq(dev->stats.doorbells, 1);
	ck_assert_int_eq(reap_all(dev, r, 5), 5);
	for (int i = 0; i < 5; i++)
		ck_assert_uint_eq(r[i].cookie, 100 + (uint64_t)i);
	/* enqueued, then a submit: one doorbell covers both */
	ck_assert_int_eq(sacc_enqueue(dev, ops, 2), 2);
	ck_assert_int_eq(sacc_submit(dev, ops + 5, 1), 1);
	ck_assert_uint_eq(dev->stats.doorbells, 2);
	ck_assert_uint_eq(dev->db[0], 8);
	ck_assert_uint_eq(sacc_unrung(dev), 0);
	ck_assert_int_eq(reap_all(dev, r, 3), 3);
	ck_assert_uint_eq(r[0].cookie, 100);
	ck_assert_uint_eq(r[2].cookie, 105);
	ck_assert_int_eq(sacc_enqueue(dev, NULL, 1), -EINVAL);
	fake_close(dev);
}
END_TEST

/* A completion for an enqueued, unrung op is forged: the device was
 * never told about it. */
START_TEST(test_enqueue_forged_completion)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_cqe *cq = sacc_buf_va(dev->cq_buf);
	struct sacc_result r;
	struct sacc_op op;

	nops(&op, 1, 7);
	ck_assert_int_eq(sacc_enqueue(dev, &op, 1), 1);
	cq[0].req_id = dev->track[0].req_id;
	__atomic_store_n(&cq[0].phase, 1, __ATOMIC_RELEASE);
	ck_assert_int_eq(sacc_poll(dev, &r, 1), -EIO);
	ck_assert_ptr_nonnull(
	    strstr(sacc_errmsg(dev), "nothing is outstanding"));
	fake_close(dev);
}
END_TEST

/* An unrung op is never late: no stall, no hang report. */
START_TEST(test_enqueue_not_late)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_result r;
	struct sacc_op op;
	uint64_t t0;
	int k;

	nops(&op, 1, 7);
	dev->hang_ms = 100;
	dev->stall_probe_ms = 20;
	ck_assert_int_eq(sacc_enqueue(dev, &op, 1), 1);
	t0 = sacc_monotonic_ns();
	do
		k = sacc_poll(dev, &r, 1);
	while (k == 0 && ms_since(t0) < 400);
	ck_assert_int_eq(k, 0);
	ck_assert_int_eq(sacc_doorbell(dev), 0);
	ck_assert_int_eq(reap_all(dev, &r, 1), 1);
	ck_assert_uint_eq(r.cookie, 7);
	fake_close(dev);
}
END_TEST

/* sacc_reset() forgets unrung ops with the rest. */
START_TEST(test_enqueue_reset)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_op ops[2];

	nops(ops, 2, 0);
	ck_assert_int_eq(sacc_enqueue(dev, ops, 2), 2);
	fake_reset(dev);
	ck_assert_uint_eq(sacc_unrung(dev), 0);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	ck_assert_int_eq(sacc_doorbell(dev), 0);
	ck_assert_uint_eq(dev->stats.doorbells, 0);
	fake_close(dev);
}
END_TEST

START_TEST(test_dev_info)
{
	struct sacc_dev *dev = fake_open(16, 8);
	struct sacc_dev_info in;
	int fd = 0, req = 0;

	ck_assert_int_eq(sacc_dev_info(dev, &in), 0);
	ck_assert_uint_eq(in.sq_entries, 16);
	ck_assert_uint_eq(in.cq_entries, 8);
	ck_assert_uint_eq(in.max_xfer, SACC_MAX_XFER);
	ck_assert_uint_eq(in.caps & (SACC_CAP_V3 | SACC_CAP_FILL | SACC_CAP_IRQ),
			  0);
	ck_assert_uint_eq(in.ops, 1u << SACC_OP_NOP | 1u << SACC_OP_MEMCPY |
				      1u << SACC_OP_XFORM);
	ck_assert_uint_eq(in.inline_max, 0);
	ck_assert_int_eq(sacc_dev_eventfds(dev, &fd, &req), -ENOTSUP);
	ck_assert_int_eq(sacc_irq_take(dev), -ENOTSUP);
	ck_assert_int_eq(sacc_dev_info(dev, NULL), -EINVAL);
	fake_close(dev);

	dev = fake_open_mode(16, 16, SACC_MODE_V3, 1 << 20);
	fake_irq(dev);
	ck_assert_int_eq(sacc_dev_info(dev, &in), 0);
	ck_assert_uint_eq(in.version, SACC_VERSION);
	ck_assert_uint_eq(in.mode, SACC_MODE_V3);
	ck_assert_uint_eq(in.caps & (SACC_CAP_V3 | SACC_CAP_FILL |
				     SACC_CAP_DEVMEM | SACC_CAP_IRQ),
			  SACC_CAP_V3 | SACC_CAP_FILL | SACC_CAP_DEVMEM |
			      SACC_CAP_IRQ);
	ck_assert(in.ops & 1u << SACC_OP_FILL);
	ck_assert(in.ops & 1u << SACC_OP_WRITE_INLINE);
	ck_assert_uint_eq(in.inline_max, SACC_INLINE_MAX);
	ck_assert_uint_eq(in.devmem_size, 1 << 20);
	ck_assert_int_eq(sacc_dev_eventfds(dev, &fd, &req), 0);
	ck_assert_int_eq(fd, dev->irq_fd);
	ck_assert_int_eq(req, -1);
	fake_close(dev);
}
END_TEST

/* The eventfd in a program's own loop: readable after an interrupt,
 * sacc_irq_take() counts and acknowledges it as sacc_wait() would. */
START_TEST(test_irq_take)
{
	struct sacc_dev *dev = fake_open(8, 8);
	uint64_t one = 1;
	int fd;

	fake_irq(dev);
	ck_assert_int_eq(sacc_dev_eventfds(dev, &fd, NULL), 0);
	ck_assert_int_eq(sacc_irq_take(dev), 0); /* nothing yet */
	dev->regs[SACC_REG_IRQ_STATUS / 4] = SACC_IRQ_COMPLETION;
	ck_assert_int_eq(write(fd, &one, sizeof(one)), sizeof(one));
	ck_assert_int_eq(sacc_irq_take(dev), 1);
	ck_assert_uint_eq(dev->stats.interrupts, 1);
	ck_assert_uint_eq(dev->regs[SACC_REG_IRQ_ACK / 4], SACC_IRQ_COMPLETION);
	ck_assert_int_eq(sacc_irq_take(dev), 0);
	fake_close(dev);
}
END_TEST

void enqueue_tests(Suite *s)
{
	TCase *tc = tcase_create("enqueue");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_enqueue_one_doorbell);
	tcase_add_test(tc, test_enqueue_inline_unrung_slots);
	tcase_add_test(tc, test_enqueue_forged_completion);
	tcase_add_test(tc, test_enqueue_not_late);
	tcase_add_test(tc, test_enqueue_reset);
	tcase_add_test(tc, test_dev_info);
	tcase_add_test(tc, test_irq_take);
	suite_add_tcase(s, tc);
}

// SPDX-License-Identifier: MIT
/*
 * untrusted.c - nothing the device writes is trusted: completions with an
 * unknown or out-of-order req_id, a wrong length or status, forged into
 * a slot the driver already consumed or erased before it is reaped
 */
#include "fake_dev.h"

static void expect_untrusted(enum corruption c, const char *needle)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_buf *src, *dst;
	struct sacc_result r[8];
	struct sacc_op ops[3];
	struct sacc_stats st;
	int i;

	ck_assert_int_eq(sacc_buf_alloc(dev, 64, SACC_DMA_TO_DEVICE, "s", &src),
			 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 64, SACC_DMA_FROM_DEVICE, "d", &dst), 0);
	for (i = 0; i < 3; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
					  .len = 64,
					  .src = src,
					  .dst = dst};
	ck_assert_int_eq(sacc_submit(dev, ops, 3), 3);
	dev_run(1); /* one good completion first */
	F.corrupt = c;
	dev_run(2);
	/* the good one is delivered, then the bad one is an error */
	ck_assert_int_eq(sacc_poll(dev, r, 8), 1);
	ck_assert_int_eq(sacc_poll(dev, r, 8), -EIO);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), needle));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "sacc_reset"));
	/* sticky until reset */
	ck_assert_int_eq(sacc_poll(dev, r, 8), -EIO);
	ck_assert_int_eq(sacc_submit(dev, ops, 1), -EIO);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.device_errors, 1);
	ck_assert_uint_eq(st.completed, 1);
	ck_assert_int_eq(sacc_buf_free(src), -EBUSY);
	fake_reset(dev);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.abandoned, 2);
	ck_assert_int_eq(sacc_buf_free(src), 0);
	fake_close(dev);
}

START_TEST(test_untrusted_unknown_req_id)
{
	expect_untrusted(C_REQ_ID_UNKNOWN, "not outstanding");
}
END_TEST

START_TEST(test_untrusted_out_of_order)
{
	expect_untrusted(C_REQ_ID_NEXT, "out of ring order");
}
END_TEST

START_TEST(test_untrusted_result_len)
{
	expect_untrusted(C_RESULT_LEN_BIG, "larger than");
}
END_TEST

START_TEST(test_untrusted_short_ok)
{
	expect_untrusted(C_SHORT_OK, "status ok but result_len");
}
END_TEST

START_TEST(test_untrusted_status)
{
	expect_untrusted(C_BAD_STATUS, "unknown status");
}
END_TEST

START_TEST(test_completion_nothing_outstanding)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_cqe *cq = sacc_buf_va(dev->cq_buf);
	struct sacc_result r;

	ck_assert_int_eq(sacc_poll(dev, &r, 1), 0);
	cq[0].req_id = 1;
	cq[0].phase = 1;
	ck_assert_int_eq(sacc_poll(dev, &r, 1), -EIO);
	ck_assert_ptr_nonnull(
	    strstr(sacc_errmsg(dev), "nothing is outstanding"));
	fake_close(dev);
}
END_TEST

/*
 * A well-formed completion forged into a CQ slot the driver
 * already consumed (by a DMA the device was told to do), naming a
 * queued 1 MiB XFORM the device never ran because the CQ was full.
 * The device keeps one CQ slot free, so CQ_SIZE valid entries before a
 * CQ_HEAD write cannot all be its own.
 */
START_TEST(test_forged_completion_in_kept_free_slot)
{
	struct sacc_dev *dev = fake_open(16, 4);
	struct sacc_buf *forger, *src, *dst;
	struct sacc_result r[16];
	struct sacc_cqe forged;
	struct sacc_desc d = {0};
	struct sacc_op ops[3];
	uint8_t *out;
	int id, k, got = 0;

	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "forger", &forger),
	    0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, SACC_MAX_XFER, SACC_DMA_TO_DEVICE, "s", &src),
	    0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, SACC_MAX_XFER, SACC_DMA_FROM_DEVICE, "d", &dst),
	    0);
	memset(sacc_buf_va(src), 0x55, SACC_MAX_XFER);
	/* The DMA: 16 bytes into CQ slot 3, which the driver expects the
	 * XFORM's completion in, with the right phase and req_id. */
	d.opcode = SACC_OP_MEMCPY;
	d.src = sacc_buf_iova(forger);
	d.dst = sacc_dev_cq_iova(dev) + 3 * sizeof(struct sacc_cqe);
	d.length = sizeof(struct sacc_cqe);
	id = sacc_submit_raw(dev, &d);
	ck_assert_int_gt(id, 0);
	forged = (struct sacc_cqe){.req_id = (uint32_t)id + 3,
				   .result_len = SACC_MAX_XFER,
				   .status = SACC_STS_OK,
				   .phase = 1};
	memcpy(sacc_buf_va(forger), &forged, sizeof(forged));
	ops[0] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = 1};
	ops[1] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = 2};
	ops[2] = (struct sacc_op){.opcode = SACC_OP_XFORM,
				  .len = SACC_MAX_XFER,
				  .src = src,
				  .dst = dst,
				  .cookie = 99};
	ck_assert_int_eq(sacc_submit(dev, ops, 3), 3);
	/* memcpy (forges slot 3), posts slots 0-2, then stalls: CQ full */
	ck_assert_int_eq(dev_run(100), 3);

	for (int i = 0; i < 10; i++) {
		k = sacc_poll(dev, r, 16);
		if (k < 0)
			break;
		for (int j = 0; j < k; j++)
			ck_assert_msg(r[j].cookie != 99,
				      "the forged XFORM completion was "
				      "accepted (status %u, result_len %u)",
				      r[j].status, r[j].result_len);
		got += k;
	}
	ck_assert_int_eq(got, 3); /* the device's own three */
	ck_assert_int_eq(k, -EIO);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "slot 3"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "forged"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "sacc_reset"));
	ck_assert_uint_eq(dev->stats.device_errors, 1);
	ck_assert_int_eq(sacc_submit(dev, ops, 1), -EIO);
	out = sacc_buf_va(dst);
	ck_assert_uint_eq(out[0],
			  0); /* never written: the device never ran it */
	fake_close(dev);
}
END_TEST

/*
 * The same forgery, reaped one completion at a time: by then the slot
 * is one the device may write, so the entry is taken, and the device,
 * one completion behind the driver's CQ_HEAD, sees a full CQ and stalls.
 * A stall with work outstanding is probed: CQ_HEAD is moved back one
 * slot, and a device that then posts into the slot already consumed
 * was behind, so the entry taken from it was not its own.
 */
START_TEST(test_forged_completion_stall_probe)
{
	struct sacc_dev *dev = fake_open(16, 4);
	struct sacc_buf *forger;
	struct sacc_result r[4];
	struct sacc_cqe forged;
	struct sacc_desc d = {0};
	struct sacc_op ops[4];
	uint64_t t0;
	int id, k = 0, got = 0;

	dev->stall_probe_ms = 20;
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "forger", &forger),
	    0);
	d.opcode = SACC_OP_MEMCPY;
	d.src = sacc_buf_iova(forger);
	d.dst = sacc_dev_cq_iova(dev) + 3 * sizeof(struct sacc_cqe);
	d.length = sizeof(struct sacc_cqe);
	id = sacc_submit_raw(dev, &d);
	forged = (struct sacc_cqe){
	    .req_id = (uint32_t)id + 3, .status = SACC_STS_OK, .phase = 1};
	memcpy(sacc_buf_va(forger), &forged, sizeof(forged));
	for (int i = 0; i < 4; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_NOP,
					  .cookie = 1 + (uint64_t)i};
	ck_assert_int_eq(sacc_submit(dev, ops, 4), 4);
	ck_assert_int_eq(dev_run(100), 3);
	/* one at a time: the forged entry (cookie 3) is taken */
	for (int i = 0; i < 4; i++)
		got += sacc_poll(dev, r, 1);
	ck_assert_int_eq(got, 4);
	ck_assert_uint_eq(r[0].cookie, 3);
	/* the device is stuck one behind; the driver must not wait on it
	 * forever */
	t0 = sacc_monotonic_ns();
	while (ms_since(t0) < 3000) {
		dev_run(100);
		k = sacc_poll(dev, r, 4);
		ck_assert_int_le(k, 0);
		if (k < 0)
			break;
	}
	ck_assert_int_eq(k, -EIO);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "forged"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "sacc_reset"));
	fake_close(dev);
}
END_TEST

/* A device that is merely slow while the probe runs: no false alarm,
 * and the queue works on for many laps. */
START_TEST(test_stall_probe_slow_device)
{
	struct sacc_dev *dev = fake_open(16, 4);
	struct sacc_result r[16];
	struct sacc_op ops[15];
	uint64_t t0;
	int got = 0, k;

	dev->stall_probe_ms = 20;
	for (int i = 0; i < 15; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_NOP,
					  .cookie = (uint64_t)i};
	ck_assert_int_eq(sacc_submit(dev, ops, 4), 4);
	/* the device does nothing for a while: the probe arms */
	t0 = sacc_monotonic_ns();
	while (!dev->probe_armed_at && ms_since(t0) < 2000)
		ck_assert_int_eq(sacc_poll(dev, r, 16), 0);
	ck_assert_uint_ne(dev->probe_armed_at, 0);
	ck_assert_uint_eq(dev->regs[SACC_REG_CQ_HEAD / 4], 3); /* moved back */
	/* then it posts what the moved-back CQ_HEAD lets it */
	while (got < 4) {
		dev_run(100);
		k = sacc_poll(dev, r + got, 16);
		ck_assert_msg(k >= 0, "%s", sacc_errmsg(dev));
		got += k;
	}
	for (int i = 0; i < 4; i++)
		ck_assert_uint_eq(r[i].cookie, (uint64_t)i);
	for (int lap = 0; lap < 50; lap++) {
		ck_assert_int_eq(sacc_submit(dev, ops, 15), 15);
		ck_assert_int_eq(reap_all(dev, r, 15), 15);
	}
	ck_assert_uint_eq(dev->stats.device_errors, 0);
	fake_close(dev);
}
END_TEST

/*
 * A NOP's completion overwritten with 16 zero bytes before
 * it is reaped, the device's next completion in the following slot.
 */
START_TEST(test_erased_completion)
{
	struct sacc_op ops[2] = {{.opcode = SACC_OP_NOP, .cookie = 1},
				 {.opcode = SACC_OP_NOP, .cookie = 2}};
	struct sacc_result r[2];
	struct sacc_dev *dev;
	struct sacc_cqe *cq;
	int k;

	/* sacc_poll */
	dev = fake_open(8, 8);
	cq = sacc_buf_va(dev->cq_buf);
	ck_assert_int_eq(sacc_submit(dev, ops, 2), 2);
	ck_assert_int_eq(dev_run(8), 2);
	memset(&cq[0], 0, sizeof(cq[0]));
	k = poll_until(dev, r, 2, 3 * SACC_HEALTH_EVERY, false);
	ck_assert_int_eq(k, -EIO);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "lost"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "sacc_reset"));
	ck_assert_uint_eq(dev->stats.device_errors, 1);
	fake_close(dev);

	/* sacc_wait: a device error, not a timeout */
	dev = fake_open(8, 8);
	fake_irq(dev);
	cq = sacc_buf_va(dev->cq_buf);
	ck_assert_int_eq(sacc_submit(dev, ops, 2), 2);
	ck_assert_int_eq(dev_run(8), 2);
	memset(&cq[0], 0, sizeof(cq[0]));
	ck_assert_int_eq(sacc_wait(dev, 1000), -EIO);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "lost"));
	fake_close(dev);
}
END_TEST

void untrusted_tests(Suite *s)
{
	TCase *tc = tcase_create("untrusted");

	/* A short timeout: a hang fails fast. */
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_untrusted_unknown_req_id);
	tcase_add_test(tc, test_untrusted_out_of_order);
	tcase_add_test(tc, test_untrusted_result_len);
	tcase_add_test(tc, test_untrusted_short_ok);
	tcase_add_test(tc, test_untrusted_status);
	tcase_add_test(tc, test_completion_nothing_outstanding);
	tcase_add_test(tc, test_forged_completion_in_kept_free_slot);
	tcase_add_test(tc, test_forged_completion_stall_probe);
	tcase_add_test(tc, test_stall_probe_slow_device);
	tcase_add_test(tc, test_erased_completion);
	suite_add_tcase(s, tc);
}

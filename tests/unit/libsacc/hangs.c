// SPDX-License-Identifier: MIT
/*
 * hangs.c - nothing hangs: sacc_wait(-1) on a device reset under it, a
 * device that never completes, the kernel asking for the device back
 */
#include <pthread.h>
#include <sys/eventfd.h>
#include <time.h>

#include "fake_dev.h"

static void *reset_later(void *arg)
{
	struct sacc_dev *dev = arg;
	struct timespec ts = {0, 200 * 1000 * 1000};

	nanosleep(&ts, NULL);
	/* What an FLR leaves: every register at its power-on value. */
	dev->regs[SACC_REG_CTRL / 4] = 0;
	dev->regs[SACC_REG_STATUS / 4] = 0;
	return NULL;
}

/* sacc_wait(dev, -1) when the device is reset under it. */
START_TEST(test_wait_forever_device_reset)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_op op = {.opcode = SACC_OP_NOP, .flags = SACC_OPF_IRQ};
	pthread_t th;
	uint64_t t0;

	fake_irq(dev);
	ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	ck_assert_int_eq(pthread_create(&th, NULL, reset_later, dev), 0);
	t0 = sacc_monotonic_ns();
	ck_assert_int_eq(sacc_wait(dev, -1), -EIO);
	ck_assert_uint_lt(ms_since(t0), 3000);
	pthread_join(th, NULL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "reset"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "sacc_reset()"));
	ck_assert_int_eq(sacc_wait(dev, -1), -EIO); /* sticky */
	fake_close(dev);
}
END_TEST

/* A device that takes work and never completes it: bounded, too. */
START_TEST(test_hung_device_bounded)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_op op = {.opcode = SACC_OP_NOP, .flags = SACC_OPF_IRQ};
	struct sacc_result r;
	uint64_t t0;
	int k;

	dev->hang_ms = 300;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	t0 = sacc_monotonic_ns();
	do
		k = sacc_poll(dev, &r, 1);
	while (k == 0 && ms_since(t0) < 5000);
	ck_assert_int_eq(k, -EIO);
	ck_assert_uint_ge(ms_since(t0), 300);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "no completion"));
	fake_close(dev);

	dev = fake_open(8, 8);
	fake_irq(dev);
	dev->hang_ms = 300;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	t0 = sacc_monotonic_ns();
	ck_assert_int_eq(sacc_wait(dev, -1), -EIO);
	ck_assert_uint_lt(ms_since(t0), 3000);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "no completion"));
	fake_close(dev);
}
END_TEST

/*
 * The kernel's device request (unbind) arrives on its
 * eventfd; libsacc lets go of the device at its next slow-path look.
 */
START_TEST(test_device_request)
{
	struct sacc_op op = {.opcode = SACC_OP_NOP, .flags = SACC_OPF_IRQ};
	struct sacc_result r;
	struct sacc_dev *dev;
	struct sacc_buf *b;
	uint64_t one = 1;
	uint32_t v;
	int k;

	/* noticed by sacc_poll, even on an idle device */
	dev = fake_open(8, 8);
	dev->req_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ck_assert_int_ge(dev->req_fd, 0);
	ck_assert_int_eq(sacc_buf_alloc(dev, 64, SACC_DMA_TO_DEVICE, "b", &b),
			 0);
	ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	ck_assert_int_eq(write(dev->req_fd, &one, sizeof(one)), sizeof(one));
	k = poll_until(dev, &r, 1, 3 * SACC_HEALTH_EVERY, false);
	ck_assert_int_eq(k, -ENODEV);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "kernel asked for"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "reopen"));
	/* it let go: no BAR mapping, no eventfds, nothing outstanding */
	ck_assert(dev->regs == NULL);
	ck_assert(dev->db == NULL);
	ck_assert_int_eq(dev->req_fd, -1);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -ENODEV);
	ck_assert_int_eq(sacc_poll(dev, &r, 1), -ENODEV);
	ck_assert_int_eq(sacc_wait(dev, 0), -ENODEV);
	ck_assert_int_eq(sacc_check(dev), -ENODEV);
	ck_assert_int_eq(sacc_reset(dev), -ENODEV);
	ck_assert_int_eq(sacc_reg_read(dev, SACC_REG_STATUS, &v), -ENODEV);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "kernel asked for"));
	ck_assert_int_eq(sacc_buf_alloc(dev, 64, SACC_DMA_TO_DEVICE, "c", &b),
			 -ENODEV);
	/* buffers stay usable memory and can be freed */
	ck_assert_int_eq(sacc_buf_free(dev->bufs), 0);
	fake_close(dev);

	/* noticed by sacc_wait(-1) at once */
	dev = fake_open(8, 8);
	fake_irq(dev);
	dev->req_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ck_assert_int_eq(write(dev->req_fd, &one, sizeof(one)), sizeof(one));
	ck_assert_int_eq(sacc_wait(dev, -1), -ENODEV);
	fake_close(dev);
}
END_TEST

void hang_tests(Suite *s)
{
	TCase *tc = tcase_create("hangs");

	/* A short timeout: a hang fails fast. */
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_wait_forever_device_reset);
	tcase_add_test(tc, test_hung_device_bounded);
	tcase_add_test(tc, test_device_request);
	suite_add_tcase(s, tc);
}

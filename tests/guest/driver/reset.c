// SPDX-License-Identifier: MIT
/*
 * reset.c - reset and recovery: sacc_reset() with ops in flight, a reset
 * from outside (sysfs) under sacc_wait(-1), a fatal ring fault, an
 * enable error
 */
#include <fcntl.h>
#include <sys/wait.h>

#include "driver.h"

START_TEST(reset_inflight)
{
	struct sacc_dev *dev;
	struct sacc_buf *src, *dst;
	struct sacc_op ops[16];
	struct sacc_result r;
	struct sacc_stats st;
	int ret;

	BEGIN();
	dev = guest_open(0, NULL);
	src = guest_buf(dev, MiB, SACC_DMA_TO_DEVICE, "r src");
	dst = guest_buf(dev, 16 * MiB, SACC_DMA_FROM_DEVICE, "r dst");
	fill_random(va(src), MiB);
	sacc_stats_clear(dev);

	/* Idle reset, twice. */
	ck_assert_int_eq(sacc_reset(dev), 0);
	ck_assert_int_eq(sacc_reset(dev), 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_STATUS), SACC_STATUS_READY);

	for (unsigned int i = 0; i < 16; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_MEMCPY, .len = MiB,
					  .src = src, .dst = dst,
					  .dst_off = (size_t)i * MiB,
					  .cookie = i};
	ck_assert_int_eq(sacc_submit(dev, ops, 16), 16);
	ret = sacc_reset(dev);
	ck_assert_msg(ret == 0, "sacc_reset: %d: %s", ret, sacc_errmsg(dev));
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.abandoned, 16);
	ck_assert_uint_eq(st.resets, 3);
	ck_assert_uint_eq(st.completed, 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_STATUS), SACC_STATUS_READY);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_COUNT), 0);

	/* No DMA after the reset returned, and no stale completion. */
	memset(va(dst), CANARY, 16 * MiB);
	guest_sleep_ms(300);
	for (int i = 0; i < 20000; i++)
		ck_assert_int_eq(sacc_poll(dev, &r, 1), 0);
	check_canary("dst after reset", va(dst), 16 * MiB);

	/* Buffers of abandoned ops are free again; the device works. */
	ck_assert_int_eq(sacc_buf_free(dst), 0);
	dst = guest_buf(dev, MiB, SACC_DMA_FROM_DEVICE, "r dst2");
	one_verified_op(dev, SACC_OP_MEMCPY, src, dst, MiB);
	one_verified_op(dev, SACC_OP_XFORM, src, dst, 777);
	sacc_close(dev);
}
END_TEST

/* Write @val to a sysfs attribute of @bdf; 0 or -errno. */
static int sysfs_write(const char *bdf, const char *attr, const char *val)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", bdf, attr);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * The device is reset from outside (its sysfs reset file: an FLR by the
 * kernel) while 4000 interrupt-flagged ops are outstanding and the
 * process sleeps in sacc_wait(dev, -1): it must wake with a device
 * error, not sleep for ever.
 */
START_TEST(reset_from_outside)
{
	struct sacc_open_opts o = {.sq_entries = 4096};
	static struct sacc_op ops[4000];
	static struct sacc_result res[4096];
	struct sacc_buf *src, *dst;
	struct sacc_dev *dev;
	uint64_t t_reset = 0, t0;
	int r, status, rc;
	pid_t pid;

	BEGIN();
	dev = guest_open(0, &o);
	src = guest_buf(dev, MiB, SACC_DMA_TO_DEVICE, "x src");
	dst = guest_buf(dev, MiB, SACC_DMA_FROM_DEVICE, "x dst");
	for (unsigned int i = 0; i < 4000; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
					  .flags = SACC_OPF_IRQ,
					  .len = MiB,
					  .src = src,
					  .dst = dst,
					  .cookie = i};
	ck_assert_int_eq(sacc_submit(dev, ops, 4000), 4000);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	/* The child resets at once: with a 200 ms head start, the device
	 * finished all 4 GiB of copies first on a loaded host once. */
	if (pid == 0)
		_exit(sysfs_write(sacc_dev_bdf(dev), "reset", "1") ? 1 : 0);
	t0 = sacc_monotonic_ns();
	for (;;) {
		r = sacc_wait(dev, -1);
		if (r < 0)
			break;
		ck_assert_int_eq(r, 1);
		r = sacc_poll(dev, res, 4096);
		if (r < 0)
			break;
		ck_assert_msg(sacc_monotonic_ns() - t0 < 60000000000ull,
			      "still reaping after 60 s");
		if (!t_reset && waitpid(pid, &status, WNOHANG) == pid)
			t_reset = sacc_monotonic_ns();
	}
	if (!t_reset) {
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		t_reset = t0;
	}
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "writing 1 to %s's sysfs reset failed",
		      sacc_dev_bdf(dev));
	ck_assert_msg(r == -EIO, "sacc_wait/sacc_poll: %d (%s)", r,
		      sacc_errmsg(dev));
	ck_assert_msg(sacc_outstanding(dev) > 0,
		      "all 4000 ops were done before the reset: nothing shown");
	ck_assert_msg(sacc_monotonic_ns() - t_reset < 5000000000ull,
		      "the reset was noticed %.1f s after it",
		      (double)(sacc_monotonic_ns() - t_reset) / 1e9);
	assert_msg_has(sacc_errmsg(dev), "reset or disabled behind");
	assert_msg_has(sacc_errmsg(dev), "sacc_reset()");
	ck_assert_int_eq(sacc_wait(dev, -1), -EIO); /* sticky */
	rc = sacc_reset(dev);
	ck_assert_msg(rc == 0, "sacc_reset: %d: %s", rc, sacc_errmsg(dev));
	one_verified_op(dev, SACC_OP_MEMCPY, src, dst, 64 * KiB);
	sacc_close(dev);
}
END_TEST

START_TEST(reset_after_fatal_ring_fault)
{
	struct sacc_op nop = {.opcode = SACC_OP_NOP};
	struct sacc_buf *src, *dst;
	struct sacc_map_entry sqm;
	struct sacc_result r;
	struct sacc_stats st;
	struct sacc_dev *dev;
	char needle[64], last[512] = "";
	uint64_t mark, fa;
	int ret, hits, fds0 = guest_count_fds();

	BEGIN();
	dev = guest_open(0, NULL);
	src = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "f src");
	dst = guest_buf(dev, 4096, SACC_DMA_FROM_DEVICE, "f dst");
	one_verified_op(dev, SACC_OP_MEMCPY, src, dst, 4096);
	sqm = mapping_at(dev, sacc_dev_sq_iova(dev));
	sacc_stats_clear(dev);

	/* 1. Detected by the fatal interrupt (op without SACC_OPF_IRQ).
	 * The kernel's DMAR fault handler is rate limited (10 messages per
	 * 5 s, about 3 per fault): let any earlier test's window expire so
	 * that this fault is logged for certain.  A sleep, not a handshake:
	 * the window is the kernel's rule, and nothing shows it ending. */
	guest_sleep_ms(5100);
	mark = guest_kmsg_mark();
	sq_unmap(dev, &sqm);
	ck_assert_int_eq(sacc_submit(dev, &nop, 1), 1);
	ret = sacc_wait(dev, REAP_TIMEOUT_MS);
	ck_assert_msg(ret == -EIO, "sacc_wait after a ring fault: %d (%s)", ret,
		      sacc_errmsg(dev));
	assert_msg_has(sacc_errmsg(dev), sacc_dev_bdf(dev));
	assert_msg_has(sacc_errmsg(dev), "descriptor fetch");
	assert_msg_has(sacc_errmsg(dev), "'sq ring'");
	assert_msg_has(sacc_errmsg(dev), "sacc_reset()");
	/* The device's fault record agrees. */
	ck_assert_uint_eq(reg(dev, SACC_REG_STATUS) & SACC_STATUS_ERROR,
			  SACC_STATUS_ERROR);
	ck_assert_uint_eq(reg(dev, SACC_REG_STATUS) & SACC_STATUS_READY, 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_ERR_CODE), SACC_ERR_DMA);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_INFO), SACC_FAULT_DESC_FETCH);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_REQ_ID), 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_COUNT), 1);
	fa = reg(dev, SACC_REG_FAULT_ADDR) |
	     (uint64_t)reg(dev, SACC_REG_FAULT_ADDR + 4) << 32;
	ck_assert_msg(fa >= sqm.iova && fa < sqm.iova + sqm.len,
		      "FAULT_ADDR 0x%" PRIx64 " not in the SQ ring", fa);
	/* ...and so does the guest kernel's intel-iommu driver. */
	snprintf(needle, sizeof(needle), "fault addr 0x%" PRIx64,
		 fa & ~(uint64_t)0xfff);
	hits = guest_kmsg_grep(mark, needle, last, sizeof(last));
	ck_assert_msg(hits >= 1, "no DMAR fault \"%s\" in the kernel log",
		      needle);
	/* Untrusted until reset. */
	ck_assert_int_eq(sacc_submit(dev, &nop, 1), -EIO);
	ck_assert_int_eq(sacc_poll(dev, &r, 1), -EIO);
	ck_assert_int_eq(sacc_check(dev), -EIO);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.device_errors, 1);

	sq_remap(dev, &sqm);
	ret = sacc_reset(dev);
	ck_assert_msg(ret == 0, "sacc_reset: %d: %s", ret, sacc_errmsg(dev));
	ck_assert_int_eq(sacc_check(dev), 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_COUNT), 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_ERR_CODE), 0);
	one_verified_op(dev, SACC_OP_XFORM, src, dst, 4096);

	/* 2. Detected by polling alone (bounded: every few thousand empty
	 * polls libsacc reads STATUS). */
	sq_unmap(dev, &sqm);
	ck_assert_int_eq(sacc_submit(dev, &nop, 1), 1);
	ret = guest_reap(dev, &r, 1, REAP_TIMEOUT_MS);
	ck_assert_msg(ret == -EIO, "polling after a ring fault: %d (%s)", ret,
		      sacc_errmsg(dev));
	assert_msg_has(sacc_errmsg(dev), "descriptor fetch");
	sq_remap(dev, &sqm);
	ck_assert_int_eq(sacc_reset(dev), 0);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.device_errors, 2);
	ck_assert_uint_eq(st.resets, 2);
	ck_assert_uint_eq(st.abandoned, 2);
	one_verified_op(dev, SACC_OP_MEMCPY, src, dst, 4096);

	/* 3. Closing a device that is still in the fatal state (no reset)
	 * leaves nothing behind either. */
	sq_unmap(dev, &sqm);
	ck_assert_int_eq(sacc_submit(dev, &nop, 1), 1);
	ck_assert_int_eq(sacc_wait(dev, REAP_TIMEOUT_MS), -EIO);
	sq_remap(dev, &sqm);
	sacc_close(dev);
	ck_assert_int_eq(guest_count_fds(), fds0);
	ck_assert_int_eq(vmlck_kb(), 0);
}
END_TEST

START_TEST(reset_after_enable_error)
{
	struct sacc_op nop = {.opcode = SACC_OP_NOP};
	struct sacc_dev *dev;
	struct eng e;

	BEGIN();
	dev = guest_open(0, NULL);
	/* The device stops by itself: a bad ring size at enable. */
	reg_set(dev, SACC_REG_CTRL, 0);
	reg_set(dev, SACC_REG_SQ_SIZE, 3);
	reg_set(dev, SACC_REG_CTRL, SACC_CTRL_ENABLE);
	ck_assert_uint_eq(reg(dev, SACC_REG_STATUS), SACC_STATUS_ERROR);
	ck_assert_int_eq(sacc_check(dev), -EIO);
	assert_msg_has(sacc_errmsg(dev), "ERR_CODE 3");
	assert_msg_has(sacc_errmsg(dev), "sacc_reset()");
	ck_assert_int_eq(sacc_submit(dev, &nop, 1), -EIO);
	ck_assert_int_eq(sacc_reset(dev), 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_SQ_SIZE), SACC_DEFAULT_ENTRIES);
	eng_init(&e, dev, "after enable error", 8, 64 * KiB);
	eng_run(&e, 100);
	eng_finish(&e);
	sacc_close(dev);
}
END_TEST

void reset_tests(Suite *s)
{
	TCase *tc = driver_tcase(s, "reset");

	tcase_add_test(tc, reset_after_fatal_ring_fault);
	tcase_add_test(tc, reset_inflight);
	tcase_add_test(tc, reset_after_enable_error);
	tcase_add_test(tc, reset_from_outside);
}

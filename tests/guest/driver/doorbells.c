// SPDX-License-Identifier: MIT
/*
 * doorbells.c - the doorbell modes: the mmapped doorbell page (kernel bypass:
 * no doorbell syscall at all), the pwrite doorbell (one syscall a batch),
 * sacc_doorbell_repeat(), a failing doorbell syscall
 */
#include <sys/syscall.h>

#include "driver.h"

/*
 * libsacc's syscall doorbell is pwrite(device_fd, &tail, 4, BAR0 +
 * 0x1000) (VFIO region index 0, so file offset 0x1000).  The static link
 * lets this definition stand in for libc's, so the test sees every
 * doorbell that really entered the kernel, independently of libsacc's
 * own counters.  Everything is forwarded unchanged unless a failure is
 * injected.
 */
static unsigned long db_pwrites;
static int db_fail_errno;

static bool is_doorbell_write(size_t n, off_t off)
{
	return n == 4 && off == (off_t)SACC_DOORBELL_OFFSET;
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	if (is_doorbell_write(n, off)) {
		db_pwrites++;
		if (db_fail_errno) {
			errno = db_fail_errno;
			return -1;
		}
	}
	return syscall(SYS_pwrite64, fd, buf, n, off);
}

/*
 * BAR0 is mapped as two separate 4 KiB mappings of the VFIO device:
 * the register page and the doorbell page right after it (vfio-pci
 * rewrites the file offset to the BAR's physical page number, so the
 * doorbell's offset is the register page's + 0x1000).
 */
struct vma {
	unsigned long long start, end, off;
};

static void check_bar_pages(struct sacc_dev *dev)
{
	uintptr_t db = (uintptr_t)sacc_dev_doorbell_page(dev);
	struct vma v[64], dbv = {0};
	char line[512], path[256];
	int n = 0, regs = 0;
	FILE *f;

	ck_assert_msg(db && !(db & 4095), "doorbell page %p", (void *)db);
	f = fopen("/proc/self/maps", "re");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f) && n < 64) {
		path[0] = '\0';
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*u %255s", &v[n].start,
			   &v[n].end, &v[n].off, path) == 4 &&
		    strstr(path, "vfio-device"))
			n++;
	}
	fclose(f);
	for (int i = 0; i < n; i++)
		if (v[i].start == db)
			dbv = v[i];
	ck_assert_msg(dbv.start == db, "no VFIO device mapping at the doorbell "
				       "page %p",
		      (void *)db);
	ck_assert_uint_eq(dbv.end - dbv.start, 4096);
	for (int i = 0; i < n; i++)
		if (v[i].start != db && v[i].end - v[i].start == 4096 &&
		    v[i].off + 0x1000 == dbv.off)
			regs++;
	ck_assert_msg(regs == 1, "%d separate 4 KiB register page mappings",
		      regs);
}

START_TEST(doorbell_modes)
{
	static const enum sacc_doorbell modes[] = {SACC_DOORBELL_MMAP,
						   SACC_DOORBELL_SYSCALL};

	BEGIN();
	for (int m = 0; m < 2; m++) {
		struct sacc_open_opts o = {.doorbell = modes[m]};
		struct sacc_dev *dev = guest_open(0, &o);
		struct sacc_stats st;
		struct eng e;

		ck_assert_int_eq(sacc_dev_doorbell(dev), modes[m]);
		if (modes[m] == SACC_DOORBELL_MMAP)
			check_bar_pages(dev);
		eng_init(&e, dev, m ? "syscall" : "mmap", 8, 64 * KiB);
		db_pwrites = 0;
		eng_run(&e, 400);
		eng_finish(&e);
		sacc_stats(dev, &st);
		if (modes[m] == SACC_DOORBELL_MMAP)
			/* Kernel bypass: not a single doorbell syscall. */
			ck_assert_msg(db_pwrites == 0,
				      "mmap doorbell mode made %lu doorbell "
				      "pwrite()s",
				      db_pwrites);
		else
			/* One kernel transition per doorbell, one per batch. */
			ck_assert_msg(db_pwrites == st.doorbells &&
					  st.doorbells == e.submits,
				      "syscall mode: %lu pwrite()s, %" PRIu64
				      " doorbells, %" PRIu64 " batches",
				      db_pwrites, st.doorbells, e.submits);
		sacc_close(dev);
	}
}
END_TEST

/*
 * sacc_doorbell_repeat() (what `saccctl bench` times as a doorbell
 * store): the tail the device has, rung again, is valid and starts
 * nothing; the queue works on after it; a pwrite doorbell refuses it.
 */
START_TEST(doorbell_repeat)
{
	struct sacc_open_opts o = {.doorbell = SACC_DOORBELL_SYSCALL};
	struct sacc_op op = {.opcode = SACC_OP_NOP};
	struct sacc_result r[2];
	struct sacc_dev *dev;
	struct sacc_stats st;

	BEGIN();
	dev = guest_open(0, NULL);
	ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	ck_assert_int_eq(guest_reap(dev, r, 1, 5000), 1);
	ck_assert_int_eq(sacc_doorbell_repeat(dev, 1000), 0);
	guest_sleep_ms(20);
	ck_assert_int_eq(sacc_poll(dev, r, 2), 0); /* nothing new */
	ck_assert_int_eq(sacc_check(dev), 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_ERR_CODE), SACC_ERR_NONE);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.doorbells, 1); /* repeats are not submissions */
	ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	ck_assert_int_eq(guest_reap(dev, r, 1, 5000), 1);
	ck_assert_uint_eq(r[0].status, SACC_STS_OK);
	sacc_close(dev);

	dev = guest_open(0, &o);
	ck_assert_int_eq(sacc_doorbell_repeat(dev, 1), -ENOTSUP);
	assert_msg_has(sacc_errmsg(dev), "mmapped tail doorbell");
	sacc_close(dev);
}
END_TEST

START_TEST(doorbell_syscall_failure)
{
	struct sacc_open_opts o = {.doorbell = SACC_DOORBELL_SYSCALL};
	struct sacc_op op = {.opcode = SACC_OP_NOP};
	struct sacc_dev *dev;
	struct sacc_stats st;
	struct eng e;
	int ret;

	BEGIN();
	dev = guest_open(0, &o);
	db_fail_errno = EPERM;
	ret = sacc_submit(dev, &op, 1);
	db_fail_errno = 0;
	ck_assert_int_eq(ret, -EPERM);
	assert_msg_has(sacc_errmsg(dev), "doorbell pwrite failed");
	assert_msg_has(sacc_errmsg(dev), sacc_dev_bdf(dev));
	assert_msg_has(sacc_errmsg(dev), "sacc_reset");
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EIO);
	ck_assert_int_eq(sacc_reset(dev), 0);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.abandoned, 1);
	eng_init(&e, dev, "after doorbell failure", 4, 4096);
	eng_run(&e, 50);
	eng_finish(&e);
	sacc_close(dev);
}
END_TEST

/*
 * A reap loop that waits while the device owes completions
 * (sacc_outstanding() > sacc_unrung()) ends with an enqueued, unrung
 * WRITE_INLINE behind it: both count SQ slots, the inline's payload
 * slots too.  An outside three-channel workload waited forever here when
 * sacc_unrung() counted operations (1 against 1 + 2 slots); nothing of
 * the inline lands before its doorbell, all of it after.
 */
START_TEST(enqueue_inline_reap_ends)
{
	struct sacc_open_opts o = {.flags = SACC_OPEN_V3};
	struct sacc_result res[4];
	struct sacc_dev *dev;
	struct sacc_buf *dst;
	uint8_t payload[44];
	struct sacc_op ops[2] = {{.opcode = SACC_OP_NOP, .cookie = 1}};
	uint64_t t0;
	int n;

	BEGIN();
	dev = guest_open(0, &o);
	dst = guest_buf(dev, 4096, SACC_DMA_FROM_DEVICE, "inline dst");
	memset(va(dst), CANARY, 4096);
	fill_random(payload, sizeof(payload));
	ops[1] = (struct sacc_op){.opcode = SACC_OP_WRITE_INLINE,
				  .len = sizeof(payload), .dst = dst,
				  .dst_off = 100, .data = payload, .cookie = 2};
	ck_assert_int_eq(sacc_submit(dev, ops, 1), 1);
	ck_assert_int_eq(sacc_enqueue(dev, ops + 1, 1), 1);
	ck_assert_uint_eq(sacc_unrung(dev), 1 + SACC_INLINE_SLOTS(44));
	t0 = sacc_monotonic_ns();
	while (sacc_outstanding(dev) > sacc_unrung(dev)) {
		n = sacc_poll(dev, res, 4);
		ck_assert_msg(n >= 0, "poll: %s", sacc_errmsg(dev));
		ck_assert_msg(sacc_monotonic_ns() - t0 < 5000000000ull,
			      "reap on outstanding %u > unrung %u did not end "
			      "in 5 s with the device idle",
			      sacc_outstanding(dev), sacc_unrung(dev));
	}
	ck_assert_uint_eq(va(dst)[100], CANARY); /* not rung: not run */
	ck_assert_int_eq(sacc_doorbell(dev), 0);
	reap_n(dev, res, 1);
	ck_assert_uint_eq(res[0].cookie, 2);
	ck_assert_uint_eq(res[0].status, SACC_STS_OK);
	ck_assert_mem_eq(va(dst) + 100, payload, sizeof(payload));
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	sacc_close(dev);
}
END_TEST

void doorbell_tests(Suite *s)
{
	TCase *tc = driver_tcase(s, "doorbells");

	tcase_add_test(tc, doorbell_modes);
	tcase_add_test(tc, doorbell_repeat);
	tcase_add_test(tc, doorbell_syscall_failure);
	tcase_add_test(tc, enqueue_inline_reap_ends);
}

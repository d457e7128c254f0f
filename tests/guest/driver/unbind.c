// SPDX-License-Identifier: MIT
/*
 * unbind.c - a device unbound from vfio-pci: sacc_open() says how to bind
 * it; the kernel asking for a device a process holds gets it back in
 * seconds
 */
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "driver.h"

/* ---- unbound device (own TCase: the teardown rebinds it) ---- */

static char unbound_bdf[SACC_BDF_MAX];

static void rebind_unbound(void)
{
	/* Runs in the runner process, whatever happened in the test. */
	const char *bdf = guest_bdf(guest_nr_devices() - 1);

	if (bdf && sacc_pci_bind_vfio(bdf))
		fprintf(stderr, "could not rebind %s: %s\n", bdf,
			sacc_errmsg(NULL));
}

START_TEST(unbound_device)
{
	struct sacc_dev *dev = (struct sacc_dev *)1;
	struct sacc_buf *src, *dst;
	char drv[64], want[96], vfio_path[32];
	struct stat sb;
	int g, ret;

	BEGIN();
	snprintf(unbound_bdf, sizeof(unbound_bdf), "%s",
		 guest_bdf_at(guest_nr_devices() - 1));
	g = sacc_pci_iommu_group(unbound_bdf);
	ck_assert_int_ge(g, 0);
	snprintf(vfio_path, sizeof(vfio_path), "/dev/vfio/%d", g);
	ck_assert_int_eq(stat(vfio_path, &sb), 0);

	ret = sacc_pci_unbind(unbound_bdf);
	ck_assert_msg(ret == 0, "sacc_pci_unbind: %d: %s", ret,
		      sacc_errmsg(NULL));
	ck_assert_int_eq(sacc_pci_driver(unbound_bdf, drv, sizeof(drv)), 0);
	ck_assert_str_eq(drv, "");
	ck_assert_int_ne(stat(vfio_path, &sb), 0);

	ret = sacc_open(unbound_bdf, NULL, &dev);
	ck_assert_int_eq(ret, -ENODEV);
	ck_assert_ptr_null(dev);
	assert_msg_has(sacc_errmsg(NULL), "is not bound to any driver");
	snprintf(want, sizeof(want), "saccctl bind %s", unbound_bdf);
	assert_msg_has(sacc_errmsg(NULL), want);

	/* Binding refuses a device that is not a SACC. */
	ck_assert_int_eq(sacc_pci_bind_vfio("0000:00:00.0"), -EINVAL);
	assert_msg_has(sacc_errmsg(NULL), "not a SACC device");

	/* Rebind; the device is usable again. */
	ret = sacc_pci_bind_vfio(unbound_bdf);
	ck_assert_msg(ret == 0, "sacc_pci_bind_vfio: %d: %s", ret,
		      sacc_errmsg(NULL));
	ck_assert_int_eq(sacc_pci_driver(unbound_bdf, drv, sizeof(drv)), 1);
	ck_assert_str_eq(drv, "vfio-pci");
	ck_assert_int_eq(sacc_pci_bind_vfio(unbound_bdf), 0); /* idempotent */
	ret = sacc_open(unbound_bdf, NULL, &dev);
	ck_assert_msg(ret == 0, "sacc_open after rebind: %d: %s", ret,
		      sacc_errmsg(NULL));
	src = guest_buf(dev, 64 * KiB, SACC_DMA_TO_DEVICE, "ub src");
	dst = guest_buf(dev, 64 * KiB, SACC_DMA_FROM_DEVICE, "ub dst");
	one_verified_op(dev, SACC_OP_MEMCPY, src, dst, 64 * KiB);
	sacc_close(dev);
}
END_TEST

/*
 * A process holds the device (in sacc_wait(-1), or busy polling) and
 * the kernel is asked to unbind it: the device request reaches libsacc,
 * which lets go, so the unbind finishes in seconds, not when the holder
 * exits; the holder gets -ENODEV.  Then it is bound again.
 */
static int holder(const char *bdf, int mode, int ready)
{
	struct sacc_op op = {.opcode = SACC_OP_NOP, .flags = SACC_OPF_IRQ};
	struct sacc_result r;
	struct sacc_dev *dev;
	int ret;

	alarm(60);
	if (sacc_open(bdf, NULL, &dev))
		return 10;
	if (sacc_submit(dev, &op, 1) != 1 || guest_reap(dev, &r, 1, 10000) != 1)
		return 11;
	if (mode == 0 && write(ready, "R", 1) != 1)
		return 12;
	for (;;) {
		/* busy polling: ready as its loop begins */
		if (mode == 1 && ready >= 0) {
			if (write(ready, "R", 1) != 1)
				return 12;
			close(ready);
			ready = -1;
		}
		if (mode == 0) {
			ret = sacc_wait(dev, -1);
			if (ret == 1)
				ret = sacc_poll(dev, &r, 1);
		} else {
			ret = sacc_poll(dev, &r, 1);
			if (ret == 1 || sacc_outstanding(dev) == 0)
				ret = sacc_submit(dev, &op, 1);
		}
		if (ret < 0)
			break;
	}
	if (ret != -ENODEV ||
	    !contains(sacc_errmsg(dev), "kernel asked for the device back"))
		return 13;
	if (sacc_submit(dev, &op, 1) != -ENODEV || sacc_check(dev) != -ENODEV)
		return 14;
	sacc_close(dev);
	return 0;
}

START_TEST(unbind_in_use)
{
	char bdf[SACC_BDF_MAX], drv[64];
	struct sacc_buf *src, *dst;
	struct sacc_dev *dev;
	int p[2], status, ret;
	uint64_t t0, took;
	pid_t child, unbinder;
	char c;

	BEGIN();
	snprintf(bdf, sizeof(bdf), "%s", guest_bdf_at(guest_nr_devices() - 1));
	for (int mode = 0; mode < 2; mode++) {
		ck_assert_int_eq(pipe(p), 0);
		child = fork();
		ck_assert_int_ge(child, 0);
		if (child == 0) {
			close(p[0]);
			_exit(holder(bdf, mode, p[1]));
		}
		close(p[1]);
		ck_assert_msg(read(p[0], &c, 1) == 1,
			      "the holder could not open %s", bdf);
		close(p[0]);
		/* The holder is in sacc_wait(-1): blocked in its poll() */
		ck_assert_msg(mode == 1 ||
				  guest_wait_in_syscall(child, SYS_poll, 10000),
			      "the holder did not block in sacc_wait()'s poll()");
		t0 = sacc_monotonic_ns();
		unbinder = fork();
		ck_assert_int_ge(unbinder, 0);
		if (unbinder == 0)
			_exit(sacc_pci_unbind(bdf) ? 1 : 0);
		while (waitpid(unbinder, &status, WNOHANG) == 0 &&
		       sacc_monotonic_ns() - t0 < 15000000000ull)
			guest_sleep_ms(10);
		took = (sacc_monotonic_ns() - t0) / 1000000;
		if (took >= 15000) {
			/* let the unbind finish, then fail */
			kill(child, SIGKILL);
			waitpid(unbinder, &status, 0);
			waitpid(child, &status, 0);
			ck_abort_msg("%s: unbind blocked %" PRIu64 " ms while "
				     "a process held the device (%s)",
				     bdf, took, mode ? "polling" : "waiting");
		}
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "sacc_pci_unbind(%s) failed", bdf);
		ck_assert_msg(took < 5000, "unbind took %" PRIu64 " ms", took);
		ck_assert_int_eq(waitpid(child, &status, 0), child);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "holder (%s) %s %d", mode ? "polling" : "waiting",
			      WIFEXITED(status) ? "exited" : "killed by",
			      WIFEXITED(status) ? WEXITSTATUS(status)
						: WTERMSIG(status));
		ck_assert_int_eq(sacc_pci_driver(bdf, drv, sizeof(drv)), 0);
		fprintf(stderr,
			"    unbind of a held device (%s): %" PRIu64 " ms\n",
			mode ? "busy polling" : "in sacc_wait(-1)", took);

		ret = sacc_pci_bind_vfio(bdf);
		ck_assert_msg(ret == 0, "sacc_pci_bind_vfio: %d: %s", ret,
			      sacc_errmsg(NULL));
		ret = sacc_open(bdf, NULL, &dev);
		ck_assert_msg(ret == 0, "sacc_open after rebind: %d: %s", ret,
			      sacc_errmsg(NULL));
		src = guest_buf(dev, 64 * KiB, SACC_DMA_TO_DEVICE, "ub src");
		dst = guest_buf(dev, 64 * KiB, SACC_DMA_FROM_DEVICE, "ub dst");
		one_verified_op(dev, SACC_OP_MEMCPY, src, dst, 64 * KiB);
		sacc_close(dev);
	}
}
END_TEST

void unbind_tests(Suite *s)
{
	TCase *tc = driver_tcase(s, "unbound");

	tcase_add_unchecked_fixture(tc, NULL, rebind_unbound);
	tcase_add_test(tc, unbound_device);
	tcase_add_test(tc, unbind_in_use);
}

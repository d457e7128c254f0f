// SPDX-License-Identifier: MIT
/*
 * watch_selftest.c - sacc-watch-selftest BDF N: what saccctl bench does
 * not do to the doorbell tracer, in one process (guest-watch check runs
 * it with sacc_watch.ko loaded, before the benches, so check-watch joins
 * it with the device's trace like everything else):
 *
 *   1. open, N NOPs one doorbell each, close (munmap of the doorbell page);
 *   2. open again (a new mapping in the same process: the tracer must
 *      re-arm, its shadow tail back at 0), N NOPs, close;
 *   3. map ordinary memory where the doorbell page was and store to the
 *      doorbell word: not a doorbell, must not be recorded (the tracer
 *      sees the page is no longer the device's and disarms).
 *
 * Prints "reused-address stores 5" when step 3 could place its page
 * there (else "reused-address stores 0": the kernel put it elsewhere).
 * Exit 0, or 1 with a message.
 */
#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "libsacc.h"
#include "libsacc_unsafe.h"

static volatile void *session(const char *bdf, unsigned long n)
{
	struct sacc_op op = {.opcode = SACC_OP_NOP};
	struct sacc_result r;
	struct sacc_dev *dev;
	volatile void *db;
	unsigned long i;
	long spin;
	int got;

	if (sacc_open(bdf, NULL, &dev) < 0)
		errx(1, "sacc_open %s: %s", bdf, sacc_errmsg(NULL));
	for (i = 0; i < n; i++) {
		if (sacc_submit(dev, &op, 1) != 1)
			errx(1, "submit: %s", sacc_errmsg(dev));
		for (spin = 0, got = 0; !got && spin < 10000000; spin++)
			got = sacc_poll(dev, &r, 1);
		if (got != 1 || r.status != SACC_STS_OK)
			errx(1, "NOP %lu did not complete: %s", i,
			     got < 0 ? sacc_errmsg(dev) : "no completion");
	}
	db = sacc_dev_doorbell_page(dev);
	sacc_close(dev);
	return db;
}

int main(int argc, char **argv)
{
	volatile uint32_t *p;
	unsigned long n;
	void *db;
	int i, stores = 0;

	if (argc != 3 || !(n = strtoul(argv[2], NULL, 0)))
		errx(2, "usage: sacc-watch-selftest BDF N");
	session(argv[1], n);
	db = (void *)session(argv[1], n);
	p = mmap(db, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != MAP_FAILED && (void *)p == db) {
		for (i = 0; i < 5; i++, stores++)
			p[0] = 1000 + i; /* channel 0's doorbell word */
		munmap((void *)p, 4096);
	}
	printf("doorbells %lu, reused-address stores %d\n", 2 * n, stores);
	return 0;
}

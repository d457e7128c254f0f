// SPDX-License-Identifier: MIT
/*
 * watch_mixed.c - sacc-watch-mixed BDF N: one thread of one process rings
 * doorbells watched by different debug registers, in a shuffled order,
 * N doorbells in all (guest-watch check runs it with sacc_watch.ko
 * loaded; check-watch joins it with the device's trace):
 *
 *   channel 0  tail doorbell  (DR0, with channel 1)
 *   channel 2  tail doorbell  (DR2)
 *   channel 4  tail doorbell  (DR3)
 *   channel 6  token doorbell (DR1)
 *   channel 7  tail doorbell  (not watched: only four registers)
 *
 * saccctl bench gives each process one doorbell kind and, with
 * --channels, each register its own thread; a store under one register
 * right after a store under another, by the same thread, is what made
 * QEMU report the earlier register again (see
 * qemu-model/patches/0006-*).  Channel 7's doorbells are not traced:
 * check-watch must count their descriptors as untraced, and channel 6
 * has token (traced) stretches here and tail (untraced) ones under
 * `bench --channels 8`.
 *
 * Each doorbell carries 1-3 NOPs, reaped before the next doorbell.
 * Prints the doorbells per channel.  Exit 0, or 1 with a message.
 */
#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "libsacc.h"

static const struct {
	unsigned int chan;
	enum sacc_doorbell doorbell;
} mix[] = {
    {0, SACC_DOORBELL_MMAP}, {2, SACC_DOORBELL_MMAP},
    {4, SACC_DOORBELL_MMAP}, {6, SACC_DOORBELL_PUT_TOKEN},
    {7, SACC_DOORBELL_MMAP},
};

#define NMIX (sizeof(mix) / sizeof(mix[0]))

static void ring(struct sacc_dev *h, unsigned int chan, unsigned int n)
{
	struct sacc_op op[3] = {
	    {.opcode = SACC_OP_NOP},
	    {.opcode = SACC_OP_NOP},
	    {.opcode = SACC_OP_NOP},
	};
	struct sacc_result r[3];
	unsigned int got = 0;
	long spin;
	int k;

	if (sacc_submit(h, op, n) != (int)n)
		errx(1, "ch %u: submit: %s", chan, sacc_errmsg(h));
	for (spin = 0; got < n && spin < 10000000; spin++) {
		k = sacc_poll(h, r, n - got);
		if (k < 0)
			errx(1, "ch %u: poll: %s", chan, sacc_errmsg(h));
		for (int i = 0; i < k; i++)
			if (r[i].status != SACC_STS_OK)
				errx(1, "ch %u: NOP status %u", chan,
				     r[i].status);
		got += (unsigned int)k;
	}
	if (got != n)
		errx(1, "ch %u: %u of %u NOPs did not complete", chan, n - got,
		     n);
}

int main(int argc, char **argv)
{
	struct sacc_dev *dev, *h[NMIX];
	unsigned long n, i, count[NMIX] = {0};
	uint32_t x = 0x2545f491; /* fixed seed: the same order every run */
	unsigned int k, prev = 0;

	if (argc != 3 || !(n = strtoul(argv[2], NULL, 0)))
		errx(2, "usage: sacc-watch-mixed BDF N");
	if (sacc_open(argv[1], NULL, &dev) < 0)
		errx(1, "sacc_open %s: %s", argv[1], sacc_errmsg(NULL));
	if (sacc_dev_channels(dev) <= mix[NMIX - 1].chan)
		errx(1, "%s has %u channels, this needs %u", argv[1],
		     sacc_dev_channels(dev), mix[NMIX - 1].chan + 1);
	for (k = 0; k < NMIX; k++) {
		struct sacc_open_opts o = {.doorbell = mix[k].doorbell};

		if (mix[k].chan == 0) {
			h[k] = dev;
			continue;
		}
		if (sacc_chan_open(dev, mix[k].chan, &o, &h[k]) < 0)
			errx(1, "channel %u: %s", mix[k].chan,
			     sacc_errmsg(dev));
	}
	for (i = 0; i < n; i++) {
		/* xorshift32; never the same doorbell twice in a row, so
		 * every doorbell follows one under another register (or
		 * the unwatched one). */
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		k = (prev + 1 + x % (NMIX - 1)) % NMIX;
		ring(h[k], mix[k].chan, 1 + (x >> 8) % 3);
		count[k]++;
		prev = k;
	}
	printf("doorbells");
	for (k = 0; k < NMIX; k++)
		printf(" ch%u-%s %lu", mix[k].chan,
		       mix[k].doorbell == SACC_DOORBELL_PUT_TOKEN ? "token"
								  : "tail",
		       count[k]);
	printf("\n");
	sacc_close(dev);
	return 0;
}

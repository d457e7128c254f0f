/* SPDX-License-Identifier: MIT */
/* bench.h - saccctl bench's configuration and its v0.3 modes. */
#ifndef SACCCTL_BENCH_H
#define SACCCTL_BENCH_H

#include "saccctl.h"

#define BENCH_SWEEP_MAX 32

struct bench_cfg {
	const char *bdf;
	struct op_args a;
	uint64_t qd;
	bool irq, json;
	double seconds;
	unsigned int channels; /* --channels: threads, one channel each */
	uint64_t chain;	       /* --chain N: 0 = off */
	uint64_t sweep[BENCH_SWEEP_MAX];
	unsigned int nsweep; /* --sweep sizes, 0 = off */
};

/* bench_modes.c; each prints its report; 0 or 1 */
int bench_channels(const struct bench_cfg *c, struct sacc_dev *root,
		   struct sacc_dev *h0);
int bench_chain(const struct bench_cfg *c, struct sacc_dev *h);
int bench_sweep(const struct bench_cfg *c, struct sacc_dev *h);

#endif /* SACCCTL_BENCH_H */

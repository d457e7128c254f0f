// SPDX-License-Identifier: MIT
/*
 * memcpy-bw - this host's memcpy() bandwidth at one size: the physical
 * limit for a copy the emulated device makes (it copies guest RAM to
 * guest RAM with the host's memcpy).  ci/bench prints it beside the
 * device's MEMCPY figures, measured right before the guest boots.
 *
 * Each sample times enough back-to-back copies of the same two buffers
 * to last about a millisecond; the figure is the median over the samples
 * (min and max show the spread on a shared, noisy host).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: memcpy-bw [--size N] [--samples N] [--json]\n"
		"\n"
		"Time memcpy() of N bytes between two warm buffers and print\n"
		"GB/s (10^9 bytes/s): median, min and max over the samples.\n"
		"\n"
		"  --size N     bytes per copy, K/M suffixes (default 1M)\n"
		"  --samples N  samples of about 1 ms each (default 201)\n"
		"  --json       {\"size\":..,\"samples\":..,\"gbps\":{\"min\":..,"
		"\"median\":..,\"max\":..}}\n"
		"\n"
		"Exit status: 0, 2 for bad arguments, 1 if out of memory.\n");
}

static int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	if (*end || v == 0 || v > (1ull << 30))
		return -1;
	*out = v;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"size", required_argument, NULL, 's'},
		{"samples", required_argument, NULL, 'n'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	size_t size = 1 << 20, samples = 201, reps = 1, i, r;
	volatile unsigned char sink;
	unsigned char *src, *dst;
	bool json = false;
	double *gbps, t;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_size(optarg, &size)) {
				fprintf(stderr, "memcpy-bw: --size %s: want 1..1G "
						"bytes (K/M suffixes)\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			if (parse_size(optarg, &samples) || samples > 100000) {
				fprintf(stderr, "memcpy-bw: --samples %s: want "
						"1..100000\n",
					optarg);
				return 2;
			}
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	src = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
	dst = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
	gbps = calloc(samples, sizeof(*gbps));
	if (!src || !dst || !gbps) {
		fprintf(stderr, "memcpy-bw: out of memory for 2 x %zu bytes\n",
			size);
		return 1;
	}
	memset(src, 0x5a, size);
	memset(dst, 0xa5, size);

	/* Warm up, and find how many copies last about a millisecond. */
	for (;;) {
		t = now_s();
		for (r = 0; r < reps; r++) {
			memcpy(dst, src, size);
			__asm__ volatile("" ::: "memory");
		}
		t = now_s() - t;
		if (t >= 1e-3 || reps >= (1u << 20))
			break;
		reps *= 2;
	}

	for (i = 0; i < samples; i++) {
		t = now_s();
		for (r = 0; r < reps; r++) {
			memcpy(dst, src, size);
			__asm__ volatile("" ::: "memory");
		}
		t = now_s() - t;
		gbps[i] = (double)size * reps / t / 1e9;
	}
	sink = dst[size - 1];
	(void)sink;
	qsort(gbps, samples, sizeof(*gbps), cmp_double);

	if (json)
		printf("{\"size\":%zu,\"samples\":%zu,\"copies_per_sample\":%zu,"
		       "\"gbps\":{\"min\":%.2f,\"median\":%.2f,\"max\":%.2f}}\n",
		       size, samples, reps, gbps[0], gbps[samples / 2],
		       gbps[samples - 1]);
	else
		printf("host memcpy %zu bytes: %.2f GB/s median (min %.2f, "
		       "max %.2f; %zu samples of %zu copies)\n",
		       size, gbps[samples / 2], gbps[0], gbps[samples - 1],
		       samples, reps);
	free(gbps);
	free(src);
	free(dst);
	return 0;
}

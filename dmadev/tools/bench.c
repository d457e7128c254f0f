// SPDX-License-Identifier: MIT
/*
 * sacc-dma-bench - the copy workload of `saccctl bench`, through DPDK's
 * dmadev API instead of libsacc, so the two can be set side by side
 * (ci/bench-dmadev, docs/performance.md):
 *
 *   sacc-dma-bench [EAL options] -- [--dev NAME] [--size N] [--qd N]
 *                  [--burst N] [--ring N] [--cpl N] [--seconds S] [--json]
 *
 * Keeps up to QD copies of SIZE bytes in flight for S seconds on vchan
 * 0, BURST at a time (rte_dma_copy each, then one rte_dma_submit), and
 * gathers up to CPL completions per rte_dma_completed() call; every copy
 * goes from one source buffer to one destination buffer, as saccctl
 * bench's do.  Reports ops/s, MiB/s, GB/s and the latency of each copy
 * from just before its burst is enqueued to the return of the call that
 * gathered it (saccctl bench's "submit to reap").  The destination is
 * checked against the source before and after.  Exit 0, or 1 with the
 * reason (a failed copy, no progress for 5 s, bad arguments).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_pause.h>

#include "common.h"

#define STALL_NS 5000000000ull
#define MAX_LAT	 (1u << 22) /* samples kept (the first ones) */
#define JOB_IDS	 65536u

struct cfg {
	const char *dev_name;
	uint32_t size, qd, burst, ring, cpl;
	double seconds;
	bool json;
};

struct run {
	int16_t dev;
	struct dma_buf src, dst;
	uint64_t *ts;  /* enqueue time by job id */
	uint32_t *lat; /* ns, one per op gathered (up to MAX_LAT) */
	uint64_t nlat, ops;
	double secs;
};

static void usage(FILE *f)
{
	fputs("usage: sacc-dma-bench [EAL options] -- [--dev NAME] [--size N]"
	      " [--qd N] [--burst N]\n"
	      "                      [--ring N] [--cpl N] [--seconds S] "
	      "[--json]\n"
	      "  --dev NAME   the dmadev (a PCI address; default the first)\n"
	      "  --size N     bytes per copy, K/M suffixes (default 4K)\n"
	      "  --qd N       copies in flight at most (default 992)\n"
	      "  --burst N    copies per rte_dma_submit (default 32)\n"
	      "  --ring N     descriptors of the vchan (default 1024)\n"
	      "  --cpl N      completions per rte_dma_completed (default: "
	      "QD)\n"
	      "  --seconds S  measuring time (default 2)\n"
	      "  --json       one JSON object\n",
	      f);
}

static bool parse_size(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (end == s)
		return false;
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	if (*end || v == 0 || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

static int parse_args(int argc, char **argv, struct cfg *c)
{
	static const struct option opts[] = {
	    {"dev", required_argument, NULL, 'd'},
	    {"size", required_argument, NULL, 's'},
	    {"qd", required_argument, NULL, 'q'},
	    {"burst", required_argument, NULL, 'b'},
	    {"ring", required_argument, NULL, 'r'},
	    {"cpl", required_argument, NULL, 'c'},
	    {"seconds", required_argument, NULL, 't'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int ch;
	bool ok = true;

	*c = (struct cfg){
	    .size = 4096, .qd = 992, .burst = 32, .ring = 1024, .seconds = 2};
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			c->dev_name = optarg;
			break;
		case 's':
			ok = parse_size(optarg, &c->size);
			break;
		case 'q':
			ok = parse_size(optarg, &c->qd);
			break;
		case 'b':
			ok = parse_size(optarg, &c->burst);
			break;
		case 'r':
			ok = parse_size(optarg, &c->ring);
			break;
		case 'c':
			ok = parse_size(optarg, &c->cpl);
			break;
		case 't':
			c->seconds = atof(optarg);
			ok = c->seconds > 0;
			break;
		case 'j':
			c->json = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			ok = false;
		}
		if (!ok)
			break;
	}
	if (!c->cpl)
		c->cpl = c->qd;
	if (!ok || optind != argc || c->burst > c->qd || c->qd >= c->ring ||
	    c->ring > 32768 || c->cpl > UINT16_MAX) {
		usage(stderr);
		fputs("(want BURST <= QD < RING <= 32768)\n", stderr);
		return -1;
	}
	return 0;
}

static void fill_random(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rand();
}

/* Report a failed op or a stall, with the driver's own dump. */
static int run_fail(const struct run *r, const char *what, uint64_t inflight)
{
	fprintf(stderr,
		"sacc-dma-bench: %s (%" PRIu64 " in flight, %" PRIu64
		" done)\n",
		what, inflight, r->ops);
	rte_dma_dump(r->dev, stderr);
	return -1;
}

/* One burst of copies (fewer if the ring says so), timestamped. */
static int submit_burst(const struct cfg *c, struct run *r, uint32_t n,
			uint64_t now)
{
	int id = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		id = rte_dma_copy(r->dev, 0, r->src.iova, r->dst.iova, c->size,
				  0);
		if (id == -ENOSPC)
			break;
		if (id < 0)
			return id;
		r->ts[id] = now;
	}
	if (i)
		rte_dma_submit(r->dev, 0);
	return (int)i;
}

/* Gather what completed: latencies in, -1 on a failed op. */
static int reap(const struct cfg *c, struct run *r, uint64_t *inflight)
{
	enum rte_dma_status_code st;
	bool err = false;
	uint16_t last, n, i;
	uint64_t now;

	n = rte_dma_completed(r->dev, 0, (uint16_t)c->cpl, &last, &err);
	now = now_ns();
	for (i = 0; i < n; i++) {
		uint16_t id = (uint16_t)(last - n + 1 + i);

		if (r->nlat < MAX_LAT)
			r->lat[r->nlat++] = (uint32_t)(now - r->ts[id]);
	}
	r->ops += n;
	*inflight -= n;
	if (err) {
		rte_dma_completed_status(r->dev, 0, 1, &last, &st);
		fprintf(stderr, "copy %u: %s\n", last, status_name(st));
		return run_fail(r, "a copy failed", *inflight);
	}
	return n;
}

static int run_timed(const struct cfg *c, struct run *r)
{
	uint64_t t0 = now_ns(), now = t0, progress = t0, inflight = 0;
	uint64_t end = t0 + (uint64_t)(c->seconds * 1e9);
	int n;

	for (;;) {
		bool submitting = now < end;

		while (submitting && inflight + c->burst <= c->qd) {
			n = submit_burst(c, r, c->burst, now_ns());
			if (n < 0)
				return run_fail(r, "rte_dma_copy failed",
						inflight);
			inflight += (uint64_t)n;
			if ((uint32_t)n < c->burst)
				break;
		}
		if (!submitting && inflight == 0)
			break;
		n = reap(c, r, &inflight);
		if (n < 0)
			return -1;
		now = now_ns();
		if (n > 0)
			progress = now;
		else if (now - progress > STALL_NS)
			return run_fail(r, "no completion for 5 s", inflight);
	}
	r->secs = (double)(now_ns() - t0) / 1e9;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void report(const struct cfg *c, struct run *r)
{
	double ops_s = (double)r->ops / r->secs, sum = 0;
	double mib_s = ops_s * c->size / (1024.0 * 1024.0);
	double gb_s = ops_s * c->size / 1e9;
	uint32_t p50, p99, p999, max;

	qsort(r->lat, r->nlat, sizeof(*r->lat), cmp_u32);
	for (uint64_t i = 0; i < r->nlat; i++)
		sum += r->lat[i];
	p50 = r->lat[r->nlat / 2];
	p99 = r->lat[r->nlat * 99 / 100];
	p999 = r->lat[r->nlat * 999 / 1000];
	max = r->lat[r->nlat - 1];
	if (c->json) {
		printf("{\"driver\": \"dmadev\", \"size\": %u, \"qd\": %u, "
		       "\"burst\": %u, \"ring\": %u, \"cpl\": %u, "
		       "\"seconds\": %.3f, \"ops\": %" PRIu64 ", "
		       "\"ops_per_sec\": %.1f, \"mib_per_sec\": %.1f, "
		       "\"gb_per_sec\": %.4f, \"lat_ns\": {\"avg\": %.0f, "
		       "\"min\": %u, \"p50\": %u, \"p99\": %u, \"p999\": %u, "
		       "\"max\": %u}}\n",
		       c->size, c->qd, c->burst, c->ring, c->cpl, r->secs,
		       r->ops, ops_s, mib_s, gb_s, sum / (double)r->nlat,
		       r->lat[0], p50, p99, p999, max);
		return;
	}
	printf("dmadev bench: %u B copies, QD %u, burst %u, ring %u, %.1f s\n"
	       "  %.0f ops/s, %.1f MiB/s (%.3f GB/s)\n"
	       "  latency ns: avg %.0f, p50 %u, p99 %u, p99.9 %u, max %u\n",
	       c->size, c->qd, c->burst, c->ring, r->secs, ops_s, mib_s, gb_s,
	       sum / (double)r->nlat, p50, p99, p999, max);
}

/* One copy, checked: the path works before it is timed. */
static int copy_checked(struct run *r, uint32_t size)
{
	enum rte_dma_status_code st;

	if (rte_dma_copy(r->dev, 0, r->src.iova, r->dst.iova, size,
			 RTE_DMA_OP_FLAG_SUBMIT) < 0 ||
	    gather(r->dev, 0, 1, &st, 5000) != 1 ||
	    st != RTE_DMA_STATUS_SUCCESSFUL)
		return run_fail(r, "the first copy failed", 0);
	return 0;
}

int main(int argc, char **argv)
{
	struct run r = {.dev = -1};
	struct cfg c;
	int n, rc = 1;

	n = rte_eal_init(argc, argv);
	if (n < 0)
		return 1;
	argv[n] = argv[0];
	optind = 1;
	if (parse_args(argc - n, argv + n, &c))
		goto out;
	r.dev = find_dmadev(c.dev_name);
	r.ts = calloc(JOB_IDS, sizeof(*r.ts));
	r.lat = calloc(MAX_LAT, sizeof(*r.lat));
	if (r.dev < 0 || !r.ts || !r.lat || buf_alloc(&r.src, c.size) ||
	    buf_alloc(&r.dst, c.size) ||
	    setup_dmadev(r.dev, 1, (uint16_t)c.ring))
		goto out;
	fill_random(r.src.va, c.size);
	if (copy_checked(&r, c.size) || memcmp(r.src.va, r.dst.va, c.size)) {
		fprintf(stderr, "sacc-dma-bench: the first copy is wrong\n");
		goto out;
	}
	memset(r.dst.va, 0, c.size);
	if (run_timed(&c, &r))
		goto out;
	if (memcmp(r.src.va, r.dst.va, c.size)) {
		fprintf(stderr, "sacc-dma-bench: destination != source after "
				"the run\n");
		goto out;
	}
	report(&c, &r);
	rc = 0;
out:
	if (r.dev >= 0)
		rte_dma_stop(r.dev);
	buf_free(&r.src);
	buf_free(&r.dst);
	free(r.ts);
	free(r.lat);
	rte_eal_cleanup();
	return rc;
}

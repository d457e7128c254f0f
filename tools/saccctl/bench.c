// SPDX-License-Identifier: MIT
/*
 * bench.c - saccctl bench: keep the queue full for a fixed time and
 * report throughput and per-operation latency (submit to reap,
 * CLOCK_MONOTONIC) in the style of spdk_nvme_perf, next to guest
 * memcpy() bandwidth at the same size.
 *
 * Latencies go into a log-linear histogram (64 sub-buckets per power of
 * two: under 1.6% error, fixed memory however long the run).
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "libsacc_unsafe.h" /* sacc_doorbell_repeat() */

/* The modes' options (usage_bench()'s middle part). */
static void usage_bench_modes(FILE *f)
{
	fputs(
	    "  --channels N   N threads, one channel each (0..N-1; token: "
	    "1..N):\n"
	    "                 ops/s per channel and in all, fairness = "
	    "min/max\n"
	    "  --chain N      a chain of N ops launched with one doorbell vs "
	    "the\n"
	    "                 same N ops as single submissions: submit time,\n"
	    "                 round trip, doorbells and command bytes\n"
	    "  --sweep LIST   sizes, e.g. 64,1K,4K,64K,1M, one op in flight: "
	    "with\n"
	    "                 --op write-inline sacc_write() inline (4 KiB "
	    "pieces\n"
	    "                 above 4 KiB) vs DMA (stage + MEMCPY) and the\n"
	    "                 crossover; with --op memcpy MEMCPY per size\n"
	    "  --device-time  with --sweep: the seed paper's way, v0.4: per "
	    "size, one\n"
	    "                 segment of warm-up ops, a TIMESTAMP, K ops, a "
	    "TIMESTAMP,\n"
	    "                 launched once: the device's time per op for "
	    "WRITE_INLINE\n"
	    "                 (to 4 KiB) and MEMCPY, beside the API time of "
	    "the same\n"
	    "                 op submitted one by one; and where they cross\n"
	    "  --breakdown    API time (submit to reap) against engine time "
	    "(the\n"
	    "                 device's own, CQE engine_ns) per size, one op "
	    "at a\n"
	    "                 time: MEMCPY (DMA) and, up to 4K, WRITE_INLINE;\n"
	    "                 the rest (API - engine) and its share\n"
	    "  --sizes LIST   --breakdown's sizes (default "
	    "8,64,512,4K,32K,256K,1M)\n"
	    "  --sq-write LIST  e.g. 1,64,1024: the CPU's cost of writing N "
	    "32-byte\n"
	    "                 descriptors into the SQ (--ring host or dev), "
	    "ns per\n"
	    "                 descriptor; stored as libsacc does, a release "
	    "fence\n"
	    "                 per batch, no doorbell (the device never sees "
	    "them)\n"
	    "  --graph [LIST] v0.4: N ops (default " BENCH_GRAPH_DEFAULT
	    "; each\n"
	    "                 1..2048), --op nop or memcpy (64-byte copies), "
	    "launched\n"
	    "                 three ways for each N: per op (N submits, N "
	    "doorbells),\n"
	    "                 as a chain (N descriptors copied into the SQ, "
	    "one\n"
	    "                 doorbell) and as a graph (ONE SEGMENT entry, one "
	    "doorbell):\n"
	    "                 CPU launch time (first byte written to the "
	    "doorbell store\n"
	    "                 returning), command bytes the CPU writes per "
	    "launch and\n"
	    "                 where (the SQ: --ring), doorbells per launch, "
	    "time until\n"
	    "                 the last op completes; median of --repeat "
	    "launches each\n"
	    "                 (default 7).  The SQ gets >= 4096 entries, so N "
	    "= 2000\n"
	    "                 runs whole\n"
	    "  --where M      --graph: the graph's segment in host memory "
	    "(default) or\n"
	    "                 dev (device memory, BAR4)\n",
	    f);
}

void usage_bench(FILE *f)
{
	fputs(
	    "usage: saccctl bench BDF [--op nop|memcpy|xform|write-inline|"
	    "timestamp|fill]\n"
	    "                       [--size N] [--batch N] [--qd N]\n"
	    "                       [--doorbell tail|token|syscall] [--irq]\n"
	    "                       [--src host|dev] [--dst host|dev] "
	    "[--pattern X]\n"
	    "                       [--ring host|dev]\n"
	    "                       [--channels N | --chain N | --sweep "
	    "LIST |\n"
	    "                        --breakdown [--sizes LIST] |\n"
	    "                        --sq-write LIST |\n"
	    "                        --graph [LIST] [--where host|dev]] "
	    "[--repeat N]\n"
	    "                       [--events FILE [--events-max N]]\n"
	    "                       [--doorbell-store] [--reg-read]\n"
	    "                       [--load CH:OP:SIZE]... [--seconds S] "
	    "[--json]\n\n"
	    "Keep up to QD operations in flight for S seconds, submitting "
	    "BATCH\n"
	    "at a time under one doorbell, and report ops/s, MiB/s, latency\n"
	    "(average, min, max, p50, p90, p99, p99.9; submit to reap),\n"
	    "doorbells per op, and guest memcpy() bandwidth at the same size\n"
	    "as the reference ceiling.\n\n"
	    "  --op OP        nop, memcpy (default), xform, write-inline "
	    "(size <= 4K),\n"
	    "                 timestamp or fill (v0.4; --pattern X, default\n"
	    "                 0x8877665544332211)\n"
	    "  --src M, --dst M  v0.4, plain bench: source (memcpy, xform) "
	    "and\n"
	    "                 destination in host (DMA) memory (default) or "
	    "dev\n"
	    "                 (the device's memory, BAR4)\n"
	    "  --ring M       v0.4: the measured handle's SQ in host "
	    "(default) or\n"
	    "                 device memory (MODE.SQ_DEV)\n"
	    "  --size N       bytes per operation, 1..1M, K/M suffixes "
	    "(default 4K)\n"
	    "  --batch N      operations per doorbell (default 1)\n"
	    "  --qd N         operations in flight (default SQ size - 1 = "
	    "255)\n"
	    "  --doorbell M   tail (default; also 'mmap'), token (token "
	    "doorbell +\n"
	    "                 PUT word; on channels 1..N) or syscall\n",
	    f);
	usage_bench_modes(f);
	fputs(
	    "  --repeat N     run N times, print min / median / max of every "
	    "figure\n"
	    "                 (plain bench and --breakdown; --graph: launches "
	    "per style)\n"
	    "  --events FILE  record libsacc's API events (submit, doorbell, "
	    "reap)\n"
	    "                 and clock-sync samples (TIMESTAMP round trips, "
	    "before\n"
	    "                 and after each run) into FILE, JSON Lines\n"
	    "                 (docs/telemetry.md); drops are counted\n"
	    "  --events-max N events the ring holds per channel (default "
	    "1048576,\n"
	    "                 48 bytes each): one run's worth\n"
	    "  --doorbell-store  after each run, time the doorbell store "
	    "alone:\n"
	    "                 the tail re-rung 5 x 1000 times with nothing in "
	    "flight\n"
	    "                 (no work; doorbell_store_ns, the median block)\n"
	    "  --reg-read     after each doorbell, time one register read, "
	    "STATUS\n"
	    "                 and CLOCK in turn (reg_read_ns: p50, p99, max of "
	    "each)\n"
	    "  --load CH:OP:SIZE  keep channel CH busy meanwhile: its ring "
	    "full of\n"
	    "                 OP (nop, memcpy, xform) of SIZE, from a thread "
	    "of its own\n"
	    "                 (plain bench; repeatable, up to 8 channels)\n"
	    "  --irq          interrupt on every completion, sleep on the "
	    "eventfd\n"
	    "  --seconds S    measuring time (default 2; --breakdown: 4 for "
	    "all rows)\n"
	    "  --json         one JSON object: ops_per_sec, mib_per_sec,\n"
	    "                 doorbells_per_op, lat_ns {avg, min, max, p50, "
	    "p90,\n"
	    "                 p99, p999}, memcpy_mib_per_sec, ...\n"
	    "  -h, --help\n",
	    f);
}

/* ---- guest memcpy() reference ---- */

static double memcpy_mib_s(size_t size, double seconds)
{
	uint64_t t0, t, bytes = 0, iters = 0;
	void *a, *b;

	a = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
	b = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
	if (!a || !b) {
		free(a);
		free(b);
		return 0;
	}
	fill_pattern(a, size, 1);
	memset(b, 0, size);
	t0 = now_ns();
	do {
		for (unsigned int k = 0; k < 16; k++) {
			memcpy(b, a, size);
			__asm__ volatile("" : : "r"(b) : "memory");
			bytes += size;
		}
		iters++;
		t = now_ns();
	} while ((double)(t - t0) < seconds * 1e9 || iters < 4);
	free(a);
	free(b);
	return (double)bytes / (1024.0 * 1024.0) / ((double)(t - t0) / 1e9);
}

/* ---- options ---- */

static int parse_sizes(const char *arg, struct bench_cfg *c, const char *opt)
{
	char *list = strdup(arg), *tok, *save;
	uint64_t v;

	if (!list)
		return fail("out of memory");
	c->nsweep = 0;
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (c->nsweep == BENCH_SWEEP_MAX || sacc_size_parse(tok, &v) ||
		    v < 1 || v > SACC_MAX_XFER) {
			free(list);
			return usage_error(usage_bench, "bench",
					   "%s takes up to %u sizes 1..1M, "
					   "comma separated, not '%s'",
					   opt, BENCH_SWEEP_MAX, arg);
		}
		c->sweep[c->nsweep++] = v;
	}
	free(list);
	return 0;
}

/* --sq-write N,...: batch sizes 1..65535 */
static int parse_sq_write(const char *arg, struct bench_cfg *c)
{
	char *list = strdup(arg), *tok, *save;
	uint64_t v;

	if (!list)
		return fail("out of memory");
	c->nsqw = 0;
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (c->nsqw == BENCH_SWEEP_MAX || !parse_u64(tok, &v) ||
		    v < 1 || v >= SACC_RING_MAX_ENTRIES) {
			free(list);
			return usage_error(usage_bench, "bench",
					   "--sq-write takes up to %u counts "
					   "1..%u, comma separated, not '%s'",
					   BENCH_SWEEP_MAX,
					   SACC_RING_MAX_ENTRIES - 1, arg);
		}
		c->sqw[c->nsqw++] = v;
	}
	free(list);
	return c->nsqw ? 0
		       : usage_error(usage_bench, "bench",
				     "--sq-write needs counts, e.g. 1,64,1024");
}

/* v0.4's options: which modes they go with.  0 or the exit status. */
static int check_bench_v4(const struct bench_cfg *c, bool sweep)
{
	bool other = sweep || c->breakdown || c->chain || c->channels > 1;
	int ret = check_op_args(&c->a, "bench", usage_bench);

	if (ret)
		return ret;
	if (c->nsqw &&
	    (other || c->repeat > 1 || c->db_store || c->reg_read || c->nload))
		return usage_error(usage_bench, "bench",
				   "--sq-write is a mode of its own (with "
				   "--ring and --json only)");
	if ((c->a.src_given || c->a.dst_dev || c->a.op == SACC_OP_FILL) &&
	    (other || c->nsqw || c->ngraph))
		return usage_error(usage_bench, "bench",
				   "--src, --dst and --op fill go with the "
				   "plain bench");
	if (c->a.ring_dev && other)
		return usage_error(usage_bench, "bench",
				   "--ring dev goes with the plain bench, "
				   "--sq-write and --graph");
	return 0;
}

/* Which of the options that go together or not were given. */
struct bench_given {
	bool sweep, sizes, seconds, repeat, where;
};

/*
 * One option @ch (with optarg) into @c: 0, -1 after --help, else the
 * exit status.  --events and --events-max are not the bench's but the
 * recorder's, so they go to @events and @events_max.
 */
static int bench_option(int ch, struct bench_cfg *c, struct bench_given *g,
			const char **events, uint64_t *events_max)
{
	uint64_t v;
	int ret;

	switch (ch) {
	case 'q':
		if (!parse_u64(optarg, &c->qd) || c->qd < 1 ||
		    c->qd >= SACC_RING_MAX_ENTRIES)
			return usage_error(usage_bench, "bench",
					   "--qd must be 1..%u, not '%s'",
					   SACC_RING_MAX_ENTRIES - 1, optarg);
		break;
	case 'i':
		c->irq = true;
		break;
	case 't':
		if (!parse_double(optarg, &c->seconds) || c->seconds <= 0 ||
		    c->seconds > 3600)
			return usage_error(usage_bench, "bench",
					   "--seconds must be > 0 and <= 3600, "
					   "not '%s'",
					   optarg);
		g->seconds = true;
		break;
	case 'j':
		c->json = true;
		break;
	case 'D':
		c->db_store = true;
		break;
	case 'G':
		c->reg_read = true;
		break;
	case 'L':
		if (c->nload == BENCH_LOAD_MAX)
			return usage_error(usage_bench, "bench",
					   "at most %u --load channels",
					   BENCH_LOAD_MAX);
		if (bench_load_parse(optarg, &c->load[c->nload]))
			return usage_error(usage_bench, "bench",
					   "--load is CH:OP:SIZE (channel "
					   "1..%u; nop, memcpy or xform; size "
					   "up to 1M, e.g. 1:memcpy:1M), not "
					   "'%s'",
					   SACC_CHANNELS_MAX - 1, optarg);
		c->nload++;
		break;
	case 'C':
		if (!parse_u64(optarg, &v) || v < 1 || v > SACC_CHANNELS_MAX)
			return usage_error(usage_bench, "bench",
					   "--channels must be 1..%u, not '%s'",
					   SACC_CHANNELS_MAX, optarg);
		c->channels = (unsigned int)v;
		break;
	case 'N':
		if (!parse_u64(optarg, &c->chain) || c->chain < 1 ||
		    c->chain > 4096)
			return usage_error(usage_bench, "bench",
					   "--chain must be 1..4096, not '%s'",
					   optarg);
		break;
	case 'S':
	case 'Z':
		ret = parse_sizes(optarg, c, ch == 'S' ? "--sweep" : "--sizes");
		if (ret)
			return ret;
		g->sweep |= ch == 'S';
		g->sizes |= ch == 'Z';
		break;
	case 'B':
		c->breakdown = true;
		break;
	case 'R':
		if (!parse_u64(optarg, &v) || v < 1 || v > BENCH_REPEAT_MAX)
			return usage_error(usage_bench, "bench",
					   "--repeat must be 1..%u, not '%s'",
					   BENCH_REPEAT_MAX, optarg);
		c->repeat = (unsigned int)v;
		g->repeat = true;
		break;
	case OPT_WHERE:
		if (strcmp(optarg, "host") && strcmp(optarg, "dev") &&
		    strcmp(optarg, "device"))
			return usage_error(usage_bench, "bench",
					   "--where must be host (DMA memory) "
					   "or dev (the device's memory, "
					   "BAR4), not '%s'",
					   optarg);
		c->graph_dev = strcmp(optarg, "host") != 0;
		g->where = true;
		break;
	case 'E':
		*events = optarg;
		break;
	case 'M':
		if (!parse_u64(optarg, events_max) || *events_max < 2 ||
		    *events_max > SACC_EVENTS_MAX)
			return usage_error(usage_bench, "bench",
					   "--events-max must be 2..%u, not "
					   "'%s'",
					   SACC_EVENTS_MAX, optarg);
		break;
	case OPT_SQ_WRITE:
		return parse_sq_write(optarg, c);
	case OPT_DEVTIME:
		c->devtime = true;
		break;
	case 'h':
		usage_bench(stdout);
		return -1;
	default:
		ret = parse_op_arg(ch, optarg, &c->a, "bench", usage_bench);
		if (ret)
			return ret < 0 ? EXIT_USAGE : ret;
	}
	return 0;
}

/* The modes and options that do not go together, and the defaults that
 * depend on others: 0 or the exit status. */
static int check_bench_cfg(struct bench_cfg *c, const struct bench_given *g)
{
	int ret;

	if (g->sweep && g->sizes)
		return usage_error(usage_bench, "bench",
				   "--sweep and --sizes do not go together "
				   "(--sizes is for --breakdown)");
	if (g->sizes && !c->breakdown)
		return usage_error(usage_bench, "bench",
				   "--sizes goes with --breakdown (--sweep "
				   "LIST for the sweep)");
	if (c->breakdown && (g->sweep || c->chain || c->channels > 1))
		return usage_error(usage_bench, "bench",
				   "--breakdown is a mode of its own: not with "
				   "--sweep, --chain or --channels");
	if (c->repeat > 1 && (g->sweep || c->chain || c->channels > 1))
		return usage_error(usage_bench, "bench",
				   "--repeat goes with the plain bench and "
				   "--breakdown");
	if (c->db_store &&
	    (g->sweep || c->breakdown || c->chain || c->channels > 1))
		return usage_error(usage_bench, "bench",
				   "--doorbell-store goes with the plain bench "
				   "only");
	if ((c->nload || c->reg_read) &&
	    (g->sweep || c->breakdown || c->chain || c->channels > 1))
		return usage_error(usage_bench, "bench",
				   "--load and --reg-read go with the plain "
				   "bench only");
	if (c->db_store && c->a.doorbell != SACC_DOORBELL_MMAP)
		return usage_error(usage_bench, "bench",
				   "--doorbell-store times the mmapped tail "
				   "doorbell: not with --doorbell %s",
				   doorbell_name(c->a.doorbell));
	if (c->breakdown && !g->seconds)
		c->seconds = 4; /* for all rows together */
	if (c->ngraph && !g->repeat)
		c->repeat = BENCH_GRAPH_REPEAT;
	if (!c->qd)
		c->qd = c->a.batch > SACC_DEFAULT_ENTRIES - 1
			    ? c->a.batch
			    : SACC_DEFAULT_ENTRIES - 1;
	if (c->a.op == SACC_OP_WRITE_INLINE && !c->nsweep &&
	    c->a.size > SACC_INLINE_MAX)
		return usage_error(usage_bench, "bench",
				   "--op write-inline carries at most %u bytes "
				   "(--size)",
				   SACC_INLINE_MAX);
	if (g->sweep && c->a.op != SACC_OP_WRITE_INLINE &&
	    c->a.op != SACC_OP_MEMCPY)
		return usage_error(usage_bench, "bench",
				   "--sweep measures --op write-inline (inline "
				   "vs DMA) or memcpy");
	if (c->a.op == SACC_OP_TIMESTAMP)
		c->a.size = SACC_TIMESTAMP_LEN;
	if (c->a.batch > c->qd)
		return usage_error(usage_bench, "bench",
				   "--batch %llu is larger than --qd %llu",
				   (unsigned long long)c->a.batch,
				   (unsigned long long)c->qd);
	ret = bench_graph_check(c, g->sweep, g->where);
	return ret ? ret : check_bench_v4(c, g->sweep);
}

static int parse_bench_args(int argc, char **argv, struct bench_cfg *c,
			    const char **events, uint64_t *events_max)
{
	static const struct option lo[] = {
	    {"op", required_argument, NULL, 'o'},
	    {"size", required_argument, NULL, 's'},
	    {"batch", required_argument, NULL, 'b'},
	    {"qd", required_argument, NULL, 'q'},
	    {"doorbell", required_argument, NULL, 'd'},
	    {"irq", no_argument, NULL, 'i'},
	    {"seconds", required_argument, NULL, 't'},
	    {"json", no_argument, NULL, 'j'},
	    {"channels", required_argument, NULL, 'C'},
	    {"chain", required_argument, NULL, 'N'},
	    {"sweep", required_argument, NULL, 'S'},
	    {"breakdown", no_argument, NULL, 'B'},
	    {"sizes", required_argument, NULL, 'Z'},
	    {"repeat", required_argument, NULL, 'R'},
	    {"events", required_argument, NULL, 'E'},
	    {"events-max", required_argument, NULL, 'M'},
	    {"doorbell-store", no_argument, NULL, 'D'},
	    {"reg-read", no_argument, NULL, 'G'},
	    {"load", required_argument, NULL, 'L'},
	    {"sq-write", required_argument, NULL, OPT_SQ_WRITE},
	    {"graph", optional_argument, NULL, OPT_GRAPH},
	    {"where", required_argument, NULL, OPT_WHERE},
	    {"device-time", no_argument, NULL, OPT_DEVTIME},
	    {"help", no_argument, NULL, 'h'},
	    OP_ARGS_V4_LONGOPTS,
	    {NULL, 0, NULL, 0}};
	static char bdf[SACC_BDF_MAX];
	struct bench_given g = {0};
	int ch, ret;

	memset(c, 0, sizeof(*c));
	c->a.op = SACC_OP_MEMCPY;
	c->a.size = 4096;
	c->a.batch = 1;
	c->seconds = 2;
	c->channels = 1;
	c->repeat = 1;
	c->a.pattern = FILL_PATTERN_DEFAULT;
	*events = NULL;
	*events_max = 1u << 20;
	while (
	    (ch = cmd_getopt(argc, argv, "o:s:b:q:d:it:jC:N:S:BZ:R:E:M:DGL:h",
			     lo, usage_bench)) != -1) {
		if (ch == OPT_GRAPH)
			ret = bench_graph_option(argc, argv, c);
		else
			ret = bench_option(ch, c, &g, events, events_max);
		if (ret)
			return ret;
	}
	ret = parse_bdf_operand(argc, argv, bdf, "bench", usage_bench);
	if (ret)
		return ret;
	c->bdf = bdf;
	return check_bench_cfg(c, &g);
}

/* ---- the plain bench: one run ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void bench_spread(double *v, unsigned int n, double out[3])
{
	if (!n) {
		out[0] = out[1] = out[2] = 0;
		return;
	}
	qsort(v, n, sizeof(*v), cmp_double);
	out[0] = v[0];
	out[1] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	out[2] = v[n - 1];
}

struct bench_run {
	struct sacc_dev *dev;
	struct sacc_buf *src, *dst;
	struct sacc_op *ops;
	struct sacc_result *res;
	uint64_t *ts;
	struct hist *h, *eh;
	struct hist *rs, *rc;	 /* --reg-read: STATUS, CLOCK */
	struct bench_load *load; /* --load: kept busy between our polls */
	unsigned int nload;
	uint32_t entries;
	bool data;
};

/*
 * --reg-read: one register read right after a doorbell, timed, STATUS of
 * the measured channel and the device's CLOCK in turn: what a driver's
 * health check or timestamp costs while the device is busy.  0 or 1.
 */
static int reg_read(struct sacc_dev *dev, struct bench_run *b, uint64_t k)
{
	uint64_t t = now_ns();
	uint32_t v;

	if (k & 1) {
		if (!sacc_dev_clock(dev))
			return fail("--reg-read: no device CLOCK (a device "
				    "before v0.3?)");
		h_add(b->rc, now_ns() - t);
		return 0;
	}
	if (sacc_reg_read(dev, SACC_REG_STATUS, &v))
		return fail("--reg-read: %s", sacc_errmsg(dev));
	h_add(b->rs, now_ns() - t);
	return 0;
}

/*
 * The bare cost of a doorbell store, as the guest sees it: the mmapped
 * tail doorbell re-rung with the tail the device already has (no new
 * work), DB_STORE_N stores a block, the median block's average in ns;
 * -1 if libsacc refused (its message says why).  Nothing may be in
 * flight: the device would work beside it.
 */
#define DB_STORE_N	1000
#define DB_STORE_BLOCKS 5

static double doorbell_store_ns(struct sacc_dev *dev)
{
	double v[DB_STORE_BLOCKS], s[3];
	uint64_t t;

	for (int i = 0; i < DB_STORE_BLOCKS; i++) {
		t = now_ns();
		if (sacc_doorbell_repeat(dev, DB_STORE_N))
			return -1;
		v[i] = (double)(now_ns() - t) / DB_STORE_N;
	}
	bench_spread(v, DB_STORE_BLOCKS, s);
	return s[1];
}

/* The figures a run's histograms give. */
static void run_histograms(const struct bench_run *b, double f[NFIG])
{
	const struct hist *h = b->h, *eh = b->eh;

	f[F_LAT_AVG] = h->n ? (double)h->sum / (double)h->n : 0.0;
	f[F_LAT_MIN] = (double)h->min;
	f[F_LAT_MAX] = (double)h->max;
	f[F_LAT_P50] = (double)h_pct(h, 0.50);
	f[F_LAT_P90] = (double)h_pct(h, 0.90);
	f[F_LAT_P99] = (double)h_pct(h, 0.99);
	f[F_LAT_P999] = (double)h_pct(h, 0.999);
	f[F_ENG_AVG] = eh->n ? (double)eh->sum / (double)eh->n : 0.0;
	f[F_ENG_P50] = (double)h_pct(eh, 0.50);
	f[F_ENG_P99] = (double)h_pct(eh, 0.99);
	f[F_RS_P50] = (double)h_pct(b->rs, 0.50);
	f[F_RS_P99] = (double)h_pct(b->rs, 0.99);
	f[F_RS_MAX] = (double)b->rs->max;
	f[F_RC_P50] = (double)h_pct(b->rc, 0.50);
	f[F_RC_P99] = (double)h_pct(b->rc, 0.99);
	f[F_RC_MAX] = (double)b->rc->max;
}

/* @n results reaped at @now into the histograms; returns @failed plus
 * those with an error status (the first few printed). */
static uint64_t account(struct bench_run *b, uint32_t n, uint64_t now,
			uint64_t failed)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct sacc_result *x = &b->res[i];

		h_add(b->h, now - b->ts[x->cookie]);
		h_add(b->eh, x->engine_ns);
		if (x->status == SACC_STS_OK)
			continue;
		if (failed < 5)
			fprintf(stderr, "saccctl: req_id %u: status %u (%s)\n",
				x->req_id, x->status,
				sacc_status_str(x->status));
		failed++;
	}
	return failed;
}

/* One timed run on @b's handle: the figures into @f; 0 or 1. */
static int run_once(const struct bench_cfg *c, struct bench_run *b,
		    double f[NFIG])
{
	struct sacc_dev *dev = b->dev;
	struct hist *h = b->h, *eh = b->eh;
	uint64_t t0, t1, end, now, last_progress, seq = 0, inflight = 0;
	uint64_t failed = 0;
	struct sacc_stats st;
	double secs, ops_s;
	uint32_t i, entries = b->entries;
	int r;

	memset(h, 0, sizeof(*h));
	memset(eh, 0, sizeof(*eh));
	memset(b->rs, 0, sizeof(*b->rs));
	memset(b->rc, 0, sizeof(*b->rc));
	sacc_stats_clear(dev);
	t0 = now_ns();
	end = t0 + (uint64_t)(c->seconds * 1e9);
	last_progress = t0;
	now = t0;
	for (;;) {
		bool submitting = now < end;

		/*
		 * The other channels' loads are topped up between two ops at
		 * QD 1, outside any op's timed window: the ops' latency is
		 * then the device's, not that of our own top-ups (a full
		 * ring of 4 KiB copies is ~100 us of the device's work, so
		 * it stays saturated).  At a deeper queue ops are always in
		 * flight: then whenever a poll finds nothing.
		 */
		if (b->nload && c->qd == 1 && inflight == 0 &&
		    bench_load_service(b->load, b->nload))
			return EXIT_FAIL;
		while (submitting && inflight + c->a.batch <= c->qd) {
			for (i = 0; i < c->a.batch; i++)
				b->ops[i].cookie = (seq + i) % entries;
			now = now_ns();
			r = sacc_submit(dev, b->ops, (unsigned int)c->a.batch);
			if (r < 0)
				return fail("%s", sacc_errmsg(dev));
			for (i = 0; i < (uint32_t)r; i++)
				b->ts[(seq + i) % entries] = now;
			seq += (uint64_t)r;
			inflight += (uint64_t)r;
			if (r > 0 && c->reg_read && reg_read(dev, b, seq))
				return EXIT_FAIL;
			if ((uint64_t)r < c->a.batch)
				break;
		}
		if (!submitting && inflight == 0)
			break;
		r = sacc_poll(dev, b->res, entries);
		if (r < 0)
			return fail("%s", sacc_errmsg(dev));
		now = now_ns();
		if (r > 0) {
			failed = account(b, (uint32_t)r, now, failed);
			inflight -= (uint64_t)r;
			last_progress = now;
			continue;
		}
		if (b->nload && c->qd > 1 &&
		    bench_load_service(b->load, b->nload))
			return EXIT_FAIL;
		if (now - last_progress > STALL_NS) {
			r = sacc_check(dev);
			return fail("%s: no completion for %llu s with %llu "
				    "operations in flight%s%s",
				    c->bdf, STALL_NS / 1000000000ull,
				    (unsigned long long)inflight, r ? ": " : "",
				    r ? sacc_errmsg(dev) : "");
		}
		if (c->irq && inflight) {
			r = sacc_wait(dev, 100);
			if (r < 0)
				return fail("%s", sacc_errmsg(dev));
			now = now_ns();
		}
	}
	t1 = now_ns();
	sacc_stats(dev, &st);
	secs = (double)(t1 - t0) / 1e9;
	ops_s = (double)h->n / secs;
	f[F_SECS] = secs;
	f[F_OPS] = (double)h->n;
	f[F_FAILED] = (double)failed;
	/* drained: nothing in flight */
	f[F_DB_STORE] = c->db_store ? doorbell_store_ns(dev) : 0;
	if (f[F_DB_STORE] < 0)
		return fail("--doorbell-store: %s", sacc_errmsg(dev));
	f[F_OPS_S] = ops_s;
	f[F_MIB_S] =
	    b->data ? ops_s * (double)c->a.size / (1024.0 * 1024.0) : 0;
	f[F_DB_OP] =
	    st.submitted ? (double)st.doorbells / (double)st.submitted : 0;
	f[F_IRQ_OP] =
	    st.submitted ? (double)st.interrupts / (double)st.submitted : 0;
	run_histograms(b, f);
	if (failed) {
		fail("%llu of %llu operations completed with an error status",
		     (unsigned long long)failed, (unsigned long long)h->n);
		return EXIT_FAIL;
	}
	return 0;
}

/*
 * The plain bench: QD ops in flight for S seconds, --repeat times, on
 * @dev (a handle of @root), with --load's channels kept busy meanwhile.
 */
static int bench_plain(struct bench_cfg *c, struct sacc_dev *root,
		       struct sacc_dev *dev)
{
	struct bench_run b = {.dev = dev, .load = c->load, .nload = c->nload};
	double(*f)[NFIG] = calloc(c->repeat, sizeof(*f));
	double mc;
	char label[96];
	int rc = EXIT_FAIL;

	b.data = c->a.op != SACC_OP_NOP;
	b.entries = sacc_dev_sq_entries(dev);
	b.ops = calloc(c->a.batch, sizeof(*b.ops));
	b.res = calloc(b.entries, sizeof(*b.res));
	b.ts = calloc(b.entries, sizeof(*b.ts));
	b.h = calloc(1, sizeof(*b.h));
	b.eh = calloc(1, sizeof(*b.eh));
	b.rs = calloc(1, sizeof(*b.rs));
	b.rc = calloc(1, sizeof(*b.rc));
	if (!f || !b.ops || !b.res || !b.ts || !b.h || !b.eh || !b.rs ||
	    !b.rc) {
		fail("out of memory");
		goto out;
	}
	if (b.data) {
		/* --src/--dst dev: device memory; fill has no source */
		if ((c->a.op != SACC_OP_FILL &&
		     alloc_side(dev, c->a.size, c->a.src_dev,
				SACC_DMA_TO_DEVICE, "bench src", &b.src)) ||
		    alloc_side(dev, c->a.size, c->a.dst_dev,
			       SACC_DMA_FROM_DEVICE, "bench dst", &b.dst))
			goto out;
		if (b.src)
			fill_pattern(sacc_buf_va(b.src), c->a.size, 7);
	}
	for (uint32_t i = 0; i < c->a.batch; i++)
		b.ops[i] = (struct sacc_op){
		    .opcode = c->a.op,
		    .flags = c->irq ? SACC_OPF_IRQ : 0,
		    .len = b.data ? (uint32_t)c->a.size : 0,
		    .src = c->a.op == SACC_OP_WRITE_INLINE ? NULL : b.src,
		    .dst = b.dst,
		    .data = c->a.op == SACC_OP_WRITE_INLINE ? sacc_buf_va(b.src)
							    : NULL,
		    .pattern = c->a.pattern,
		};
	if (bench_load_start(c->load, c->nload, root, sacc_dev_channel(dev)))
		goto out;
	for (unsigned int r = 0; r < c->repeat; r++) {
		if (run_once(c, &b, f[r]))
			goto out;
		/* outside the measured loop: the events, a sync sample */
		if (bev_drain(&c->ev, dev) || bev_sync(&c->ev, dev))
			goto out;
	}
	/* the loads' rates cover the runs, and none runs beside memcpy() */
	bench_load_stop(c->load, c->nload);
	mc = memcpy_mib_s(c->a.size,
			  c->seconds / 4 > 0.5 ? 0.5 : c->seconds / 4);
	bench_label(c, b.data, label, sizeof(label));
	if (c->repeat > 1 && !c->json)
		printf("SACC bench: %s, batch %llu, queue depth %llu, %s "
		       "doorbell, %s, %.1f s x %u%s\n\n",
		       label, (unsigned long long)c->a.batch,
		       (unsigned long long)c->qd, doorbell_name(c->a.doorbell),
		       c->irq ? "interrupts" : "polling", c->seconds, c->repeat,
		       c->a.ring_dev ? ", SQ in device memory" : "");
	if (c->repeat > 1) {
		rc = bench_print_repeat(f, c, b.data, mc, "figure");
		goto out;
	}
	if (c->json) {
		struct json_object *o = jobj();

		bench_json_head(o, c, b.data);
		bench_json_run(o, f[0], c, b.data, mc);
		if (c->nload)
			bench_load_json(o, c->load, c->nload);
		rc = jprint(o, JSON_SPACED);
		goto out;
	}
	printf("SACC bench: %s, batch %llu, queue depth %llu, %s "
	       "doorbell, %s, %.1f s%s\n\n",
	       label, (unsigned long long)c->a.batch, (unsigned long long)c->qd,
	       doorbell_name(c->a.doorbell), c->irq ? "interrupts" : "polling",
	       c->seconds, c->a.ring_dev ? ", SQ in device memory" : "");
	bench_print_run(f[0], c, b.data, mc, label);
	bench_load_print(c->load, c->nload);
	rc = EXIT_OK;
out:
	bench_load_stop(c->load, c->nload); /* after a failure: quiet */
	sacc_buf_free(b.src);
	sacc_buf_free(b.dst);
	free(f);
	free(b.ops);
	free(b.res);
	free(b.ts);
	free(b.h);
	free(b.eh);
	free(b.rs);
	free(b.rc);
	return rc;
}

int cmd_bench(int argc, char **argv)
{
	struct sacc_open_opts opts = {0};
	struct sacc_dev *dev = NULL, *root = NULL;
	const char *events;
	uint64_t events_max;
	struct bench_cfg c;
	int rc;

	rc = parse_bench_args(argc, argv, &c, &events, &events_max);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	opts.sq_entries = ring_for(c.qd);
	opts.doorbell = c.a.doorbell;
	opts.flags = c.a.ring_dev ? SACC_OPEN_SQ_DEV : 0;
	if (c.nsweep || c.breakdown)
		opts.sq_entries = 4096; /* 31 inline writes of 4 KiB */
	for (unsigned int i = 0; i < c.nsqw; i++)
		if (ring_for(c.sqw[i]) > opts.sq_entries)
			opts.sq_entries = ring_for(c.sqw[i]);
	/* --graph: per-op and chain need N SQ slots, N <= 2048: never
	 * split (2000 fits 2048 entries, 2048 needs 4096) */
	if (c.ngraph)
		opts.sq_entries = ring_for(SACC_GRAPH_MAX_OPS);
	if (events && bev_open(&c.ev, events, (uint32_t)events_max))
		return EXIT_FAIL;
	if (open_handle(c.bdf, &opts, &root, &dev)) {
		bev_close(&c.ev, NULL, 0);
		return EXIT_FAIL;
	}
	rc = EXIT_FAIL;
	/* a sync sample before anything runs, another after (bev_sync) */
	if (bev_attach(&c.ev, dev) || bev_sync(&c.ev, dev))
		goto out;
	if (c.nsqw)
		rc = bench_sq_write(&c, dev);
	else if (c.breakdown)
		rc = bench_breakdown(&c, dev);
	else if (c.nsweep)
		rc = bench_sweep(&c, dev);
	else if (c.chain)
		rc = bench_chain(&c, dev);
	else if (c.ngraph)
		rc = bench_graph(&c, dev);
	else if (c.channels > 1)
		rc = bench_channels(&c, root, dev);
	else
		rc = bench_plain(&c, root, dev);
	if (!rc && (c.nsweep || c.chain || c.channels > 1 || c.ngraph) &&
	    !c.breakdown)
		rc = bev_drain(&c.ev, dev) || bev_sync(&c.ev, dev);
out:
	if (bev_close(&c.ev, &dev, 1) && !rc)
		rc = EXIT_FAIL;
	sacc_close(root);
	return rc;
}

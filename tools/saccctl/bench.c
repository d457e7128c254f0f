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

#define STALL_NS (5ull * 1000000000ull)

void usage_bench(FILE *f)
{
	fputs(
	    "usage: saccctl bench BDF [--op nop|memcpy|xform|write-inline|"
	    "timestamp]\n"
	    "                       [--size N] [--batch N] [--qd N]\n"
	    "                       [--doorbell tail|token|syscall] [--irq]\n"
	    "                       [--channels N | --chain N | --sweep "
	    "LIST]\n"
	    "                       [--seconds S] [--json]\n\n"
	    "Keep up to QD operations in flight for S seconds, submitting "
	    "BATCH\n"
	    "at a time under one doorbell, and report ops/s, MiB/s, latency\n"
	    "(average, min, max, p50, p90, p99, p99.9; submit to reap),\n"
	    "doorbells per op, and guest memcpy() bandwidth at the same size\n"
	    "as the reference ceiling.\n\n"
	    "  --op OP        nop, memcpy (default), xform, write-inline "
	    "(size <= 4K)\n"
	    "                 or timestamp\n"
	    "  --size N       bytes per operation, 1..1M, K/M suffixes "
	    "(default 4K)\n"
	    "  --batch N      operations per doorbell (default 1)\n"
	    "  --qd N         operations in flight (default SQ size - 1 = "
	    "255)\n"
	    "  --doorbell M   tail (default; also 'mmap'), token (token "
	    "doorbell +\n"
	    "                 PUT word; on channels 1..N) or syscall\n"
	    "  --channels N   N threads, one channel each (0..N-1; token: "
	    "1..N):\n"
	    "                 ops/s per channel and in all, fairness = min/max\n"
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
	    "  --irq          interrupt on every completion, sleep on the "
	    "eventfd\n"
	    "  --seconds S    measuring time (default 2)\n"
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

/* ---- the run ---- */


static int parse_bench_args(int argc, char **argv, struct bench_cfg *c)
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
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0}};
	static char bdf[SACC_BDF_MAX];
	char *list, *tok, *save;
	uint64_t v;
	int ch, ret;

	memset(c, 0, sizeof(*c));
	c->a.op = SACC_OP_MEMCPY;
	c->a.size = 4096;
	c->a.batch = 1;
	c->seconds = 2;
	c->channels = 1;
	while ((ch = cmd_getopt(argc, argv, "o:s:b:q:d:it:jC:N:S:h", lo,
				usage_bench)) != -1) {
		switch (ch) {
		case 'q':
			if (!parse_u64(optarg, &c->qd) || c->qd < 1 ||
			    c->qd >= SACC_RING_MAX_ENTRIES)
				return usage_error(usage_bench, "bench",
						   "--qd must be 1..%u, not "
						   "'%s'",
						   SACC_RING_MAX_ENTRIES - 1,
						   optarg);
			break;
		case 'i':
			c->irq = true;
			break;
		case 't':
			if (!parse_double(optarg, &c->seconds) ||
			    c->seconds <= 0 || c->seconds > 3600)
				return usage_error(usage_bench, "bench",
						   "--seconds must be > 0 and "
						   "<= 3600, not '%s'",
						   optarg);
			break;
		case 'j':
			c->json = true;
			break;
		case 'C':
			if (!parse_u64(optarg, &v) || v < 1 ||
			    v > SACC_CHANNELS_MAX)
				return usage_error(usage_bench, "bench",
						   "--channels must be 1..%u, "
						   "not '%s'",
						   SACC_CHANNELS_MAX, optarg);
			c->channels = (unsigned int)v;
			break;
		case 'N':
			if (!parse_u64(optarg, &c->chain) || c->chain < 1 ||
			    c->chain > 4096)
				return usage_error(usage_bench, "bench",
						   "--chain must be 1..4096, "
						   "not '%s'",
						   optarg);
			break;
		case 'S':
			list = strdup(optarg);
			c->nsweep = 0;
			for (tok = strtok_r(list, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (c->nsweep == BENCH_SWEEP_MAX ||
				    !parse_size(tok, &v) || v < 1 ||
				    v > SACC_MAX_XFER) {
					free(list);
					return usage_error(
					    usage_bench, "bench",
					    "--sweep takes up to %u sizes "
					    "1..1M, comma separated, not '%s'",
					    BENCH_SWEEP_MAX, optarg);
				}
				c->sweep[c->nsweep++] = v;
			}
			free(list);
			break;
		case 'h':
			usage_bench(stdout);
			return -1;
		default:
			ret = parse_op_arg(ch, optarg, &c->a, "bench",
					   usage_bench);
			if (ret)
				return ret < 0 ? EXIT_USAGE : ret;
		}
	}
	ret = parse_bdf_operand(argc, argv, bdf, "bench", usage_bench);
	if (ret)
		return ret;
	c->bdf = bdf;
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
	if (c->nsweep && c->a.op != SACC_OP_WRITE_INLINE &&
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
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	struct sacc_open_opts opts = {0};
	struct sacc_buf *src = NULL, *dst = NULL;
	struct sacc_result *res = NULL;
	struct sacc_op *ops = NULL;
	struct sacc_dev *dev = NULL, *root = NULL;
	uint64_t *ts = NULL;
	struct hist *h = NULL, *eh = NULL;
	struct sacc_stats st;
	struct bench_cfg c;
	uint64_t t0, t1, end, now, last_progress, seq = 0, inflight = 0;
	uint64_t failed = 0;
	double secs, ops_s, mib_s, mc, ratio, db_op, irq_op;
	uint32_t entries, i;
	char sz[32], label[96];
	bool data;
	int rc, r;

	rc = parse_bench_args(argc, argv, &c);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	data = c.a.op != SACC_OP_NOP;
	entries = ring_for(c.qd);
	opts.sq_entries = entries;
	opts.doorbell = c.a.doorbell;
	if (c.nsweep)
		opts.sq_entries = 4096; /* 31 inline writes of 4 KiB */
	if (open_handle(c.bdf, &opts, &root, &dev))
		return EXIT_FAIL;
	if (c.nsweep || c.chain || c.channels > 1) {
		rc = c.nsweep  ? bench_sweep(&c, dev)
		     : c.chain ? bench_chain(&c, dev)
			       : bench_channels(&c, root, dev);
		sacc_close(root);
		return rc;
	}
	rc = EXIT_FAIL;
	ops = calloc(c.a.batch, sizeof(*ops));
	res = calloc(entries, sizeof(*res));
	ts = calloc(entries, sizeof(*ts));
	h = calloc(1, sizeof(*h));
	eh = calloc(1, sizeof(*eh));
	if (!ops || !res || !ts || !h || !eh) {
		fail("out of memory");
		goto out;
	}
	if (data) {
		if (sacc_buf_alloc(dev, c.a.size, SACC_DMA_TO_DEVICE,
				   "bench src", &src) ||
		    sacc_buf_alloc(dev, c.a.size, SACC_DMA_FROM_DEVICE,
				   "bench dst", &dst)) {
			fail("%s", sacc_errmsg(dev));
			goto out;
		}
		fill_pattern(sacc_buf_va(src), c.a.size, 7);
	}
	for (i = 0; i < c.a.batch; i++)
		ops[i] = (struct sacc_op){
		    .opcode = c.a.op,
		    .flags = c.irq ? SACC_OPF_IRQ : 0,
		    .len = data ? (uint32_t)c.a.size : 0,
		    .src = c.a.op == SACC_OP_WRITE_INLINE ? NULL : src,
		    .dst = dst,
		    .data = c.a.op == SACC_OP_WRITE_INLINE ? sacc_buf_va(src)
							   : NULL,
		};
	sacc_stats_clear(dev);
	t0 = now_ns();
	end = t0 + (uint64_t)(c.seconds * 1e9);
	last_progress = t0;
	now = t0;
	for (;;) {
		bool submitting = now < end;

		while (submitting && inflight + c.a.batch <= c.qd) {
			for (i = 0; i < c.a.batch; i++)
				ops[i].cookie = (seq + i) % entries;
			now = now_ns();
			r = sacc_submit(dev, ops, (unsigned int)c.a.batch);
			if (r < 0) {
				fail("%s", sacc_errmsg(dev));
				goto out;
			}
			for (i = 0; i < (uint32_t)r; i++)
				ts[(seq + i) % entries] = now;
			seq += (uint64_t)r;
			inflight += (uint64_t)r;
			if ((uint64_t)r < c.a.batch)
				break;
		}
		if (!submitting && inflight == 0)
			break;
		r = sacc_poll(dev, res, entries);
		if (r < 0) {
			fail("%s", sacc_errmsg(dev));
			goto out;
		}
		now = now_ns();
		if (r > 0) {
			for (i = 0; i < (uint32_t)r; i++) {
				h_add(h, now - ts[res[i].cookie]);
				h_add(eh, res[i].engine_ns);
				if (res[i].status != SACC_STS_OK) {
					if (failed < 5)
						fprintf(stderr,
							"saccctl: req_id %u: "
							"status %u (%s)\n",
							res[i].req_id,
							res[i].status,
							sacc_status_str(
							    res[i].status));
					failed++;
				}
			}
			inflight -= (uint64_t)r;
			last_progress = now;
			continue;
		}
		if (now - last_progress > STALL_NS) {
			r = sacc_check(dev);
			fail("%s: no completion for %llu s with %llu "
			     "operations in flight%s%s",
			     c.bdf, STALL_NS / 1000000000ull,
			     (unsigned long long)inflight, r ? ": " : "",
			     r ? sacc_errmsg(dev) : "");
			goto out;
		}
		if (c.irq && inflight) {
			r = sacc_wait(dev, 100);
			if (r < 0) {
				fail("%s", sacc_errmsg(dev));
				goto out;
			}
			now = now_ns();
		}
	}
	t1 = now_ns();
	sacc_stats(dev, &st);

	secs = (double)(t1 - t0) / 1e9;
	ops_s = (double)h->n / secs;
	mib_s = data ? ops_s * (double)c.a.size / (1024.0 * 1024.0) : 0;
	db_op = st.submitted ? (double)st.doorbells / (double)st.submitted : 0;
	irq_op =
	    st.submitted ? (double)st.interrupts / (double)st.submitted : 0;
	mc = memcpy_mib_s(c.a.size, c.seconds / 4 > 0.5 ? 0.5 : c.seconds / 4);
	ratio = data && mc > 0 ? mib_s / mc : 0;

	if (c.json) {
		struct json_object *o = jobj(), *lat = jobj(), *eng = jobj();

		jset_str(o, "bdf", c.bdf);
		jset_str(o, "op", sacc_opcode_str(c.a.op));
		jset_u64(o, "size", data ? c.a.size : 0);
		jset_u64(o, "batch", c.a.batch);
		jset_u64(o, "queue_depth", c.qd);
		jset_str(o, "doorbell", doorbell_name(c.a.doorbell));
		jset_bool(o, "irq", c.irq);
		jset_double(o, "seconds", secs, "%.3f");
		jset_u64(o, "ops", h->n);
		jset_u64(o, "failed", failed);
		jset_double(o, "ops_per_sec", ops_s, "%.1f");
		jset_double(o, "mib_per_sec", mib_s, "%.3f");
		jset_double(o, "doorbells_per_op", db_op, "%.4f");
		jset_double(o, "interrupts_per_op", irq_op, "%.4f");
		jset_double(lat, "avg",
			    h->n ? (double)h->sum / (double)h->n : 0.0, "%.1f");
		jset_u64(lat, "min", h->min);
		jset_u64(lat, "max", h->max);
		jset_u64(lat, "p50", h_pct(h, 0.50));
		jset_u64(lat, "p90", h_pct(h, 0.90));
		jset_u64(lat, "p99", h_pct(h, 0.99));
		jset_u64(lat, "p999", h_pct(h, 0.999));
		jset(o, "lat_ns", lat);
		/* the device's own time per op (CQE engine time, MODE.V3) */
		jset_double(eng, "avg",
			    eh->n ? (double)eh->sum / (double)eh->n : 0.0,
			    "%.1f");
		jset_u64(eng, "p50", h_pct(eh, 0.50));
		jset_u64(eng, "p99", h_pct(eh, 0.99));
		jset(o, "engine_ns", eng);
		jset_u64(o, "memcpy_size", c.a.size);
		jset_double(o, "memcpy_mib_per_sec", mc, "%.1f");
		if (data)
			jset_double(o, "device_vs_memcpy", ratio, "%.6f");
		else
			jset_null(o, "device_vs_memcpy");
		if (jprint(o, JSON_SPACED))
			goto out; /* rc is EXIT_FAIL */
	} else {
		snprintf(label, sizeof(label), "%s %s%s%s", c.bdf,
			 sacc_opcode_str(c.a.op), data ? " " : "",
			 data ? sacc_fmt_bytes(c.a.size, sz, sizeof(sz)) : "");
		printf("SACC bench: %s, batch %llu, queue depth %llu, %s "
		       "doorbell, %s, %.1f s\n\n",
		       label, (unsigned long long)c.a.batch,
		       (unsigned long long)c.qd, doorbell_name(c.a.doorbell),
		       c.irq ? "interrupts" : "polling", c.seconds);
		printf(
		    "========================================================"
		    "================================\n");
		printf("%-31s   %11s %10s %32s\n", "", "", "", "Latency(us)");
		printf("%-31s : %11s %10s %10s %10s %10s\n",
		       "Device Information", "ops/s", "MiB/s", "Average", "min",
		       "max");
		printf("%-31s : %11.2f %10.2f %10.2f %10.2f %10.2f\n", label,
		       ops_s, mib_s,
		       h->n ? (double)h->sum / (double)h->n / 1e3 : 0.0,
		       (double)h->min / 1e3, (double)h->max / 1e3);
		printf(
		    "========================================================"
		    "================================\n\n");
		printf("Summary latency data for %s:\n", label);
		printf(
		    "========================================================"
		    "=========================\n");
		printf("%15.5f%% : %12.3fus\n", 50.0,
		       (double)h_pct(h, 0.50) / 1e3);
		printf("%15.5f%% : %12.3fus\n", 90.0,
		       (double)h_pct(h, 0.90) / 1e3);
		printf("%15.5f%% : %12.3fus\n", 99.0,
		       (double)h_pct(h, 0.99) / 1e3);
		printf("%15.5f%% : %12.3fus\n\n", 99.9,
		       (double)h_pct(h, 0.999) / 1e3);
		printf("operations           %llu (%llu failed)\n",
		       (unsigned long long)h->n, (unsigned long long)failed);
		printf("doorbells per op     %.3f\n", db_op);
		printf("interrupts per op    %.3f\n", irq_op);
		printf("engine time (device) %.3fus avg, %.3fus p50, %.3fus "
		       "p99\n",
		       eh->n ? (double)eh->sum / (double)eh->n / 1e3 : 0.0,
		       (double)h_pct(eh, 0.50) / 1e3,
		       (double)h_pct(eh, 0.99) / 1e3);
		printf("guest memcpy() %-6s %.1f MiB/s",
		       sacc_fmt_bytes(c.a.size, sz, sizeof(sz)), mc);
		if (data)
			printf("   (device: %.2f%% of memcpy)\n", ratio * 100);
		else
			printf("   (reference only: nop moves no data)\n");
	}
	if (failed) {
		fail("%llu of %llu operations completed with an error status",
		     (unsigned long long)failed, (unsigned long long)h->n);
		goto out;
	}
	rc = EXIT_OK;
out:
	sacc_close(root);
	free(ops);
	free(res);
	free(ts);
	free(h);
	free(eh);
	return rc;
}

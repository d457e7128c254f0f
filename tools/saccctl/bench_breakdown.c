// SPDX-License-Identifier: MIT
/*
 * bench_breakdown.c - saccctl bench --breakdown: API time against
 * engine time, per size, one operation at a time (the paper's profiler
 * table, for SACC).
 *
 * For each operation: t0 before sacc_submit(), t1 after it returned
 * (descriptor written, doorbell rung), t2 after the sacc_poll() that
 * reaped it, all guest CLOCK_MONOTONIC.  API time = t2 - t0 (what a
 * profiler shows as the operation's time); engine time = the device's
 * own figure from the completion (engine_ns: descriptor fetch to
 * completion post, measured by the device model on the host's clock);
 * the rest = API - engine is everything that is not the engine: the
 * software on both sides, the doorbell, the wait for the device to pick
 * the work up, the completion's way back and the poll that finds it.
 * Rows: NOP (nothing but that rest), MEMCPY (the DMA path) at every
 * size and WRITE_INLINE (the payload in the SQ) up to SACC_INLINE_MAX.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define WARMUP_OPS 3
#define MIN_OPS	   20
#define MAX_OPS	   200000
#define MAX_ROWS   (1 + 2 * BENCH_SWEEP_MAX)

static const uint64_t default_sizes[] = {8,	64,	512,	4096,
					 32768, 262144, 1048576};

/* The figures of one row in one run. */
enum {
	B_OPS,
	B_API_P50,
	B_API_P99,
	B_API_MIN,
	B_SUB_P50,
	B_ENG_P50,
	B_ENG_P99,
	B_REST,	   /* API p50 - engine p50 */
	B_SHARE,   /* B_REST / API p50 */
	B_REST_OP, /* p50 over the ops of (API - engine) */
	B_POLLS,   /* sacc_poll() calls per op, p50 */
	NB
};

static const struct {
	const char *key, *fmt;
} bkeys[NB] = {
    [B_OPS] = {"ops", "%.0f"},
    [B_API_P50] = {"api_ns_p50", "%.0f"},
    [B_API_P99] = {"api_ns_p99", "%.0f"},
    [B_API_MIN] = {"api_ns_min", "%.0f"},
    [B_SUB_P50] = {"submit_ns_p50", "%.0f"},
    [B_ENG_P50] = {"engine_ns_p50", "%.0f"},
    [B_ENG_P99] = {"engine_ns_p99", "%.0f"},
    [B_REST] = {"rest_ns", "%.0f"},
    [B_SHARE] = {"rest_share", "%.4f"},
    [B_REST_OP] = {"rest_ns_p50_per_op", "%.0f"},
    [B_POLLS] = {"polls_per_op_p50", "%.0f"},
};

struct row {
	uint16_t op;
	uint32_t size; /* 0 for NOP */
};

struct acc {
	struct hist api, sub, eng, rest, polls;
};

struct bd {
	struct bench_cfg *c;
	struct sacc_dev *h;
	struct sacc_buf *src, *dst;
	struct row rows[MAX_ROWS];
	unsigned int nrows;
	struct acc *acc;	   /* the row being run (run_row() clears it) */
	double (*f)[MAX_ROWS][NB]; /* [run][row][figure] */
	double clock_ns, poll_ns;
	/* event recording's cost: NOP API time p50 with it off and on */
	uint64_t ev_off_ns, ev_on_ns, ev_ops;
};

static const char *path_name(uint16_t op)
{
	return op == SACC_OP_MEMCPY	    ? "dma"
	       : op == SACC_OP_WRITE_INLINE ? "inline"
					    : "none";
}

/* One operation: submit, doorbell, poll until reaped. */
static int one_op(struct bd *b, const struct sacc_op *op, struct acc *a)
{
	struct sacc_result res;
	uint64_t t0, t1, t2, polls = 0, api;
	int r;

	t0 = now_ns();
	r = sacc_submit(b->h, op, 1);
	t1 = now_ns();
	if (r != 1)
		return fail("%s", r < 0 ? sacc_errmsg(b->h) : "SQ full");
	do {
		r = sacc_poll(b->h, &res, 1);
		polls++;
		if (r < 0)
			return fail("%s", sacc_errmsg(b->h));
		/* a clock read every 1024 empty polls only */
		if (!r && !(polls & 1023) && now_ns() - t1 > STALL_NS)
			return fail("%s: no completion for 5 s",
				    sacc_dev_bdf(b->h));
	} while (!r);
	t2 = now_ns();
	if (res.status != SACC_STS_OK)
		return fail("req_id %u (%s): status %s", res.req_id,
			    sacc_opcode_str(res.opcode),
			    sacc_status_str(res.status));
	if (!a)
		return 0;
	api = t2 - t0;
	h_add(&a->api, api);
	h_add(&a->sub, t1 - t0);
	h_add(&a->eng, res.engine_ns);
	h_add(&a->rest, api > res.engine_ns ? api - res.engine_ns : 0);
	h_add(&a->polls, polls);
	return 0;
}

static int run_row(struct bd *b, unsigned int i, double per_row, double f[NB])
{
	const struct row *w = &b->rows[i];
	struct sacc_op op = {.opcode = w->op};
	struct acc *a = b->acc;
	uint64_t end, api50, eng50;

	memset(a, 0, sizeof(*a));
	if (w->op == SACC_OP_MEMCPY) {
		op.len = w->size;
		op.src = b->src;
		op.dst = b->dst;
	} else if (w->op == SACC_OP_WRITE_INLINE) {
		op.len = w->size;
		op.dst = b->dst;
		op.data = sacc_buf_va(b->src);
	}
	for (int k = 0; k < WARMUP_OPS; k++)
		if (one_op(b, &op, NULL))
			return EXIT_FAIL;
	end = now_ns() + (uint64_t)(per_row * 1e9);
	while (a->api.n < MAX_OPS && (a->api.n < MIN_OPS || now_ns() < end))
		if (one_op(b, &op, a))
			return EXIT_FAIL;
	api50 = h_pct(&a->api, 0.5);
	eng50 = h_pct(&a->eng, 0.5);
	f[B_OPS] = (double)a->api.n;
	f[B_API_P50] = (double)api50;
	f[B_API_P99] = (double)h_pct(&a->api, 0.99);
	f[B_API_MIN] = (double)a->api.min;
	f[B_SUB_P50] = (double)h_pct(&a->sub, 0.5);
	f[B_ENG_P50] = (double)eng50;
	f[B_ENG_P99] = (double)h_pct(&a->eng, 0.99);
	f[B_REST] = api50 > eng50 ? (double)(api50 - eng50) : 0;
	f[B_SHARE] = api50 ? f[B_REST] / (double)api50 : 0;
	f[B_REST_OP] = (double)h_pct(&a->rest, 0.5);
	f[B_POLLS] = (double)h_pct(&a->polls, 0.5);
	return 0;
}

/* What one clock read and one empty sacc_poll() cost here. */
static void calibrate(struct bd *b)
{
	struct sacc_result res;
	uint64_t t0, sink = 0;
	const int n = 20000;

	t0 = now_ns();
	for (int i = 0; i < n; i++)
		sink += now_ns();
	b->clock_ns = (double)(now_ns() - t0) / n;
	t0 = now_ns();
	for (int i = 0; i < n; i++)
		sink += (uint64_t)sacc_poll(b->h, &res, 1);
	b->poll_ns = (double)(now_ns() - t0) / n;
	__asm__ volatile("" : : "r"(sink));
}

/*
 * What recording API events costs an operation: NOP round trips with
 * recording paused and on in turn, so the host's noise (other
 * processes, the emulator's threads) hits both alike; the difference
 * of the medians.  An op records three events (submit, doorbell, reap)
 * with two clock reads (one per submit batch, one per reap batch).
 */
#define EV_COST_OPS 2000

static int event_cost(struct bd *b)
{
	struct sacc_op nop = {.opcode = SACC_OP_NOP};
	bool own = !sacc_events_capacity(b->h);
	struct acc *a = calloc(2, sizeof(*a));
	int rc = EXIT_FAIL;

	if (!a)
		return fail("out of memory");
	if (own && sacc_events_enable(b->h, 4 * EV_COST_OPS)) {
		fail("%s", sacc_errmsg(b->h));
		goto out;
	}
	for (int i = 0; i < 2 * EV_COST_OPS; i++) {
		sacc_events_pause(b->h, !(i & 1));
		if (one_op(b, &nop, &a[i & 1]))
			goto out;
	}
	b->ev_off_ns = h_pct(&a[0].api, 0.5);
	b->ev_on_ns = h_pct(&a[1].api, 0.5);
	b->ev_ops = a[1].api.n;
	rc = 0;
out:
	sacc_events_pause(b->h, false);
	if (own)
		sacc_events_enable(b->h, 0);
	free(a);
	return rc;
}

static double ev_per_op(const struct bd *b)
{
	return b->ev_on_ns > b->ev_off_ns ? (double)(b->ev_on_ns - b->ev_off_ns)
					  : 0;
}

static void spread(struct bd *b, unsigned int i, int k, double s[3])
{
	double v[BENCH_REPEAT_MAX];

	for (unsigned int r = 0; r < b->c->repeat; r++)
		v[r] = b->f[r][i][k];
	bench_spread(v, b->c->repeat, s);
}

static int print_json(struct bd *b)
{
	struct json_object *o = jobj(), *rows = jarr();
	const struct bench_cfg *c = b->c;

	jset_str(o, "bdf", c->bdf);
	jset_str(o, "mode", "breakdown");
	jset_u64(o, "channel", sacc_dev_channel(b->h));
	jset_str(o, "doorbell", doorbell_name(c->a.doorbell));
	jset_u64(o, "queue_depth", 1);
	jset_u64(o, "repeat", c->repeat);
	jset_double(o, "seconds", c->seconds, "%.3f");
	jset_double(o, "clock_read_ns", b->clock_ns, "%.1f");
	jset_double(o, "empty_poll_ns", b->poll_ns, "%.1f");
	{
		struct json_object *e = jobj();

		jset_u64(e, "ops", b->ev_ops);
		jset_u64(e, "nop_api_ns_p50_off", b->ev_off_ns);
		jset_u64(e, "nop_api_ns_p50_on", b->ev_on_ns);
		jset_u64(e, "events_per_op", 3);
		jset_double(e, "ns_per_op", ev_per_op(b), "%.0f");
		jset_double(e, "ns_per_event", ev_per_op(b) / 3, "%.0f");
		jset(o, "event_recording", e);
	}
	for (unsigned int i = 0; i < b->nrows; i++) {
		struct json_object *e = jobj();

		jset_str(e, "op", sacc_opcode_str(b->rows[i].op));
		jset_str(e, "path", path_name(b->rows[i].op));
		jset_u64(e, "size", b->rows[i].size);
		for (int k = 0; k < NB; k++) {
			double s[3];

			if (c->repeat == 1) {
				jset_double(e, bkeys[k].key, b->f[0][i][k],
					    bkeys[k].fmt);
				continue;
			}
			struct json_object *m = jobj();

			spread(b, i, k, s);
			jset_double(m, "min", s[0], bkeys[k].fmt);
			jset_double(m, "median", s[1], bkeys[k].fmt);
			jset_double(m, "max", s[2], bkeys[k].fmt);
			jset(e, bkeys[k].key, m);
		}
		jpush(rows, e);
	}
	jset(o, "rows", rows);
	return jprint(o, JSON_SPACED);
}

static void print_table(struct bd *b)
{
	const struct bench_cfg *c = b->c;
	char sz[32];

	printf("SACC bench --breakdown: %s channel %u (MODE.V3), %s doorbell, "
	       "polling, one op at a time, %.1f s%s\n",
	       c->bdf, sacc_dev_channel(b->h), doorbell_name(c->a.doorbell),
	       c->seconds, c->repeat > 1 ? " per run" : "");
	printf("API = sacc_submit() .. the sacc_poll() that reaps it (guest "
	       "clock); submit = the\nsacc_submit() call; engine = the "
	       "device's own time (CQE engine_ns, host clock);\nrest = API - "
	       "engine (medians); share = rest / API\n");
	if (c->repeat > 1)
		printf("%u runs: each cell is the median over the runs "
		       "[min..max]\n",
		       c->repeat);
	printf("\n");
	if (c->repeat == 1) {
		printf("%8s %-7s %7s %11s %10s %10s %10s %7s %9s\n", "size",
		       "path", "ops", "API p50 us", "submit us", "engine us",
		       "rest us", "rest %", "polls p50");
		for (unsigned int i = 0; i < b->nrows; i++) {
			const double *f = b->f[0][i];

			printf("%8s %-7s %7.0f %11.2f %10.2f %10.2f %10.2f "
			       "%6.1f%% %9.0f\n",
			       b->rows[i].size ? sacc_fmt_bytes(b->rows[i].size,
								sz, sizeof(sz))
					       : "-",
			       path_name(b->rows[i].op), f[B_OPS],
			       f[B_API_P50] / 1e3, f[B_SUB_P50] / 1e3,
			       f[B_ENG_P50] / 1e3, f[B_REST] / 1e3,
			       f[B_SHARE] * 100, f[B_POLLS]);
		}
	} else {
		printf("%8s %-7s %22s %22s %22s\n", "size", "path",
		       "API p50 us", "engine p50 us", "rest %");
		for (unsigned int i = 0; i < b->nrows; i++) {
			double a[3], e[3], r[3];
			char ca[32], ce[32], cr[32];

			spread(b, i, B_API_P50, a);
			spread(b, i, B_ENG_P50, e);
			spread(b, i, B_SHARE, r);
			snprintf(ca, sizeof(ca), "%.2f [%.2f..%.2f]",
				 a[1] / 1e3, a[0] / 1e3, a[2] / 1e3);
			snprintf(ce, sizeof(ce), "%.2f [%.2f..%.2f]",
				 e[1] / 1e3, e[0] / 1e3, e[2] / 1e3);
			snprintf(cr, sizeof(cr), "%.1f [%.1f..%.1f]",
				 r[1] * 100, r[0] * 100, r[2] * 100);
			printf("%8s %-7s %22s %22s %22s\n",
			       b->rows[i].size ? sacc_fmt_bytes(b->rows[i].size,
								sz, sizeof(sz))
					       : "-",
			       path_name(b->rows[i].op), ca, ce, cr);
		}
	}
	printf("\nguest clock read (CLOCK_MONOTONIC) %.0f ns; empty "
	       "sacc_poll() %.0f ns\n",
	       b->clock_ns, b->poll_ns);
	printf("event recording: NOP API p50 %.2f us off, %.2f us on: %.0f ns "
	       "per op,\n                 %.0f ns per event (3 events and 2 "
	       "clock reads an op;\n                 %llu ops each way, in "
	       "turn)\n",
	       (double)b->ev_off_ns / 1e3, (double)b->ev_on_ns / 1e3,
	       ev_per_op(b), ev_per_op(b) / 3, (unsigned long long)b->ev_ops);
}

int bench_breakdown(struct bench_cfg *c, struct sacc_dev *h)
{
	struct bd b = {.c = c, .h = h};
	const uint64_t *sizes = c->nsweep ? c->sweep : default_sizes;
	unsigned int nsizes =
	    c->nsweep ? c->nsweep
		      : sizeof(default_sizes) / sizeof(default_sizes[0]);
	/* progress only when it is slow and someone watches */
	bool tty = isatty(STDERR_FILENO) && c->seconds * c->repeat >= 10;
	double per_row;
	int rc = EXIT_FAIL;
	char sz[32];

	b.rows[b.nrows++] = (struct row){SACC_OP_NOP, 0};
	for (unsigned int s = 0; s < nsizes; s++) {
		b.rows[b.nrows++] =
		    (struct row){SACC_OP_MEMCPY, (uint32_t)sizes[s]};
		if (sizes[s] <= SACC_INLINE_MAX)
			b.rows[b.nrows++] = (struct row){SACC_OP_WRITE_INLINE,
							 (uint32_t)sizes[s]};
	}
	per_row = c->seconds / b.nrows;
	b.acc = calloc(1, sizeof(*b.acc));
	b.f = calloc(c->repeat, sizeof(*b.f));
	if (!b.acc || !b.f) {
		fail("out of memory");
		goto out;
	}
	if (sacc_buf_alloc(h, SACC_MAX_XFER, SACC_DMA_TO_DEVICE,
			   "breakdown src", &b.src) ||
	    sacc_buf_alloc(h, SACC_MAX_XFER, SACC_DMA_FROM_DEVICE,
			   "breakdown dst", &b.dst)) {
		fail("%s", sacc_errmsg(h));
		goto out;
	}
	fill_pattern(sacc_buf_va(b.src), SACC_MAX_XFER, 5);
	calibrate(&b);
	if (event_cost(&b) || bev_drain(&c->ev, h))
		goto out;
	for (unsigned int r = 0; r < c->repeat; r++) {
		for (unsigned int i = 0; i < b.nrows; i++) {
			if (tty)
				fprintf(stderr,
					"\rbreakdown: run %u/%u, %s %s ...   ",
					r + 1, c->repeat,
					sacc_opcode_str(b.rows[i].op),
					b.rows[i].size
					    ? sacc_fmt_bytes(b.rows[i].size, sz,
							     sizeof(sz))
					    : "");
			if (run_row(&b, i, per_row, b.f[r][i]))
				goto out;
			/* between rows, outside the measurement */
			if (bev_drain(&c->ev, h))
				goto out;
		}
		if (bev_sync(&c->ev, h))
			goto out;
	}
	if (tty)
		fputs("\r\033[K", stderr);
	if (c->json) {
		rc = print_json(&b);
	} else {
		print_table(&b);
		rc = EXIT_OK;
	}
out:
	sacc_buf_free(b.src);
	sacc_buf_free(b.dst);
	free(b.acc);
	free(b.f);
	return rc;
}

// SPDX-License-Identifier: MIT
/*
 * bench_modes.c - saccctl bench's v0.3 modes: --channels N (one thread
 * and one channel each), --chain N (one prepared chain launch against N
 * single submissions) and --sweep (inline vs DMA writes, or MEMCPY, per
 * size, one operation in flight).  --events records on every channel;
 * the rings are drained after the threads are joined.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* Reap @want results from @h (none may fail); 0 or fail()'s 1. */
static int reap_all(struct sacc_dev *h, uint32_t want, struct hist *eh)
{
	struct sacc_result res[64];
	uint64_t t0 = now_ns();
	int r;

	while (want) {
		r = sacc_poll(h, res, want < 64 ? want : 64);
		if (r < 0)
			return fail("%s", sacc_errmsg(h));
		for (int i = 0; i < r; i++) {
			if (res[i].status != SACC_STS_OK)
				return fail("req_id %u: status %s",
					    res[i].req_id,
					    sacc_status_str(res[i].status));
			if (eh)
				h_add(eh, res[i].engine_ns);
		}
		want -= (uint32_t)r;
		if (r == 0 && now_ns() - t0 > STALL_NS)
			return fail("%s: no completion for 5 s",
				    sacc_dev_bdf(h));
	}
	return 0;
}

/* ---- --channels N ---- */

struct chan_job {
	const struct bench_cfg *c;
	struct sacc_dev *h;
	struct sacc_buf *src, *dst;
	uint64_t ops;
	double secs;
	struct hist lat, eng;
	int rc;
};

static void *chan_thread(void *arg)
{
	struct chan_job *j = arg;
	const struct bench_cfg *c = j->c;
	uint32_t b = (uint32_t)c->a.batch, inflight = 0;
	uint32_t qd = c->qd > 255 ? 255 : (uint32_t)c->qd;
	struct sacc_result res[256];
	struct sacc_op ops[256];
	uint64_t ts[256], seq = 0, t0, end, now;
	bool data = c->a.op != SACC_OP_NOP;
	int r;

	for (uint32_t i = 0; i < b; i++)
		ops[i] = (struct sacc_op){
		    .opcode = c->a.op,
		    .len = data ? (uint32_t)c->a.size : 0,
		    .src = c->a.op == SACC_OP_WRITE_INLINE ? NULL : j->src,
		    .dst = j->dst,
		    .data = c->a.op == SACC_OP_WRITE_INLINE
				? sacc_buf_va(j->src)
				: NULL};
	t0 = now = now_ns();
	end = t0 + (uint64_t)(c->seconds * 1e9);
	while (now < end || inflight) {
		while (now < end && inflight + b <= qd) {
			for (uint32_t i = 0; i < b; i++)
				ops[i].cookie = (seq + i) % 256;
			r = sacc_submit(j->h, ops, b);
			if (r < 0) {
				j->rc = fail("%s", sacc_errmsg(j->h));
				return NULL;
			}
			for (int i = 0; i < r; i++)
				ts[(seq + i) % 256] = now;
			seq += (uint64_t)r;
			inflight += (uint32_t)r;
			if ((uint32_t)r < b)
				break;
		}
		r = sacc_poll(j->h, res, 256);
		if (r < 0) {
			j->rc = fail("%s", sacc_errmsg(j->h));
			return NULL;
		}
		now = now_ns();
		for (int i = 0; i < r; i++) {
			h_add(&j->lat, now - ts[res[i].cookie]);
			h_add(&j->eng, res[i].engine_ns);
			if (res[i].status != SACC_STS_OK)
				j->rc = EXIT_FAIL;
		}
		inflight -= (uint32_t)r;
		j->ops += (uint64_t)r;
	}
	j->secs = (double)(now_ns() - t0) / 1e9;
	return NULL;
}

/* The per-channel table and the total, @mn and @mx the slowest and
 * fastest channel's ops/s (fairness: their ratio). */
static int print_channels(const struct bench_cfg *c, const struct chan_job *j,
			  double total, double mn, double mx)
{
	unsigned int k;

	if (c->json) {
		struct json_object *o = jobj(), *a = jarr();

		jset_str(o, "bdf", c->bdf);
		jset_str(o, "op", sacc_opcode_str(c->a.op));
		jset_u64(o, "size", c->a.size);
		jset_u64(o, "batch", c->a.batch);
		jset_u64(o, "queue_depth", c->qd);
		jset_str(o, "doorbell", doorbell_name(c->a.doorbell));
		jset_u64(o, "channels", c->channels);
		for (k = 0; k < c->channels; k++) {
			struct json_object *e = jobj(), *l = jobj(),
					   *g = jobj();
			const struct hist *h = &j[k].lat, *eh = &j[k].eng;

			jset_u64(e, "channel", sacc_dev_channel(j[k].h));
			jset_u64(e, "ops", j[k].ops);
			jset_double(e, "ops_per_sec",
				    (double)j[k].ops / j[k].secs, "%.1f");
			jset_double(l, "avg", (double)h->sum / (double)h->n,
				    "%.1f");
			jset_u64(l, "p50", h_pct(h, 0.5));
			jset_u64(l, "p99", h_pct(h, 0.99));
			jset(e, "lat_ns", l);
			jset_double(g, "avg", (double)eh->sum / (double)eh->n,
				    "%.1f");
			jset_u64(g, "p50", h_pct(eh, 0.5));
			jset_u64(g, "p99", h_pct(eh, 0.99));
			jset(e, "engine_ns", g);
			jpush(a, e);
		}
		jset(o, "per_channel", a);
		jset_double(o, "ops_per_sec", total, "%.1f");
		jset_double(o, "fairness", mx > 0 ? mn / mx : 0, "%.4f");
		return jprint(o, JSON_SPACED);
	}
	printf("SACC bench: %s %s, %u channels (one thread each), "
	       "batch %llu, queue depth %llu each, %s doorbell\n\n",
	       c->bdf, sacc_opcode_str(c->a.op), c->channels,
	       (unsigned long long)c->a.batch, (unsigned long long)c->qd,
	       doorbell_name(c->a.doorbell));
	printf("%8s %12s %12s %12s %12s\n", "channel", "ops/s", "lat avg us",
	       "lat p99 us", "engine us");
	for (k = 0; k < c->channels; k++) {
		const struct hist *h = &j[k].lat, *eh = &j[k].eng;

		printf("%8u %12.0f %12.2f %12.2f %12.2f\n",
		       sacc_dev_channel(j[k].h), (double)j[k].ops / j[k].secs,
		       (double)h->sum / (double)h->n / 1e3,
		       (double)h_pct(h, 0.99) / 1e3,
		       (double)eh->sum / (double)eh->n / 1e3);
	}
	printf("%8s %12.0f\nfairness (min/max ops/s) %.3f\n", "total", total,
	       mx > 0 ? mn / mx : 0);
	return 0;
}

int bench_channels(struct bench_cfg *c, struct sacc_dev *root,
		   struct sacc_dev *h0)
{
	struct sacc_open_opts o = {.doorbell = c->a.doorbell};
	struct chan_job *j = calloc(c->channels, sizeof(*j));
	pthread_t *t = calloc(c->channels, sizeof(*t));
	unsigned int first = c->a.doorbell == SACC_DOORBELL_PUT_TOKEN ? 1 : 0;
	double total = 0, mn = 0, mx = 0;
	int rc = EXIT_FAIL;
	unsigned int k;

	if (!j || !t) {
		fail("out of memory");
		goto out;
	}
	for (k = 0; k < c->channels; k++) {
		size_t len = c->a.size < 64 ? 64 : c->a.size;

		j[k].c = c;
		j[k].h = h0; /* channel 0, or 1 for token */
		if (k && sacc_chan_open(root, k + first, &o, &j[k].h)) {
			fail("%s", sacc_errmsg(root));
			goto out;
		}
		if (k && bev_attach(&c->ev, j[k].h))
			goto out;
		if (sacc_buf_alloc(j[k].h, len, SACC_DMA_TO_DEVICE, "src",
				   &j[k].src) ||
		    sacc_buf_alloc(j[k].h, len, SACC_DMA_FROM_DEVICE, "dst",
				   &j[k].dst)) {
			fail("%s", sacc_errmsg(j[k].h));
			goto out;
		}
		fill_pattern(sacc_buf_va(j[k].src), len, k + 1);
	}
	for (k = 0; k < c->channels; k++)
		pthread_create(&t[k], NULL, chan_thread, &j[k]);
	for (k = 0; k < c->channels; k++)
		pthread_join(t[k], NULL);
	/* channel 0's (or the first token channel's) events: cmd_bench */
	for (k = 1; k < c->channels; k++)
		if (bev_finish(&c->ev, j[k].h))
			goto out;
	for (k = 0; k < c->channels; k++) {
		double r = (double)j[k].ops / (j[k].secs ? j[k].secs : 1);

		if (j[k].rc)
			goto out;
		total += r;
		mn = !k || r < mn ? r : mn;
		mx = r > mx ? r : mx;
	}
	if (print_channels(c, j, total, mn, mx))
		goto out;
	rc = EXIT_OK;
out:
	free(j);
	free(t);
	return rc; /* the caller closes root, and with it the channels */
}

/* ---- --chain N ---- */

/* The two ways of running the same N operations, timed. */
struct chain_times {
	struct hist cl, ct;  /* chain: launch, round trip */
	struct hist sl, stt; /* singles: the N submits, round trip */
	uint64_t cdb, sdb;   /* doorbells rung by each */
};

/* Launch @chain (prepared descriptors + one doorbell) and reap it, again
 * and again for half the run. */
static int time_chain(const struct bench_cfg *c, struct sacc_dev *h,
		      struct sacc_chain *chain, uint32_t n,
		      struct chain_times *x)
{
	struct sacc_stats st;
	uint64_t t0, t1, end;

	sacc_stats_clear(h);
	end = now_ns() + (uint64_t)(c->seconds / 2 * 1e9);
	do {
		t0 = now_ns();
		if (sacc_chain_launch(chain) != (int)n)
			return fail("chain launch: %s", sacc_errmsg(h));
		t1 = now_ns();
		if (reap_all(h, n, NULL))
			return EXIT_FAIL;
		h_add(&x->cl, t1 - t0);
		h_add(&x->ct, now_ns() - t0);
	} while (now_ns() < end);
	sacc_stats(h, &st);
	x->cdb = st.doorbells;
	return 0;
}

/* The same @n operations as @n single submissions, one doorbell each. */
static int time_singles(const struct bench_cfg *c, struct sacc_dev *h,
			const struct sacc_op *ops, uint32_t n,
			struct chain_times *x)
{
	struct sacc_stats st;
	uint64_t t0, t1, end;

	sacc_stats_clear(h);
	end = now_ns() + (uint64_t)(c->seconds / 2 * 1e9);
	do {
		t0 = now_ns();
		for (uint32_t i = 0; i < n; i++)
			if (sacc_submit(h, &ops[i], 1) != 1)
				return fail("submit: %s", sacc_errmsg(h));
		t1 = now_ns();
		if (reap_all(h, n, NULL))
			return EXIT_FAIL;
		h_add(&x->sl, t1 - t0);
		h_add(&x->stt, now_ns() - t0);
	} while (now_ns() < end);
	sacc_stats(h, &st);
	x->sdb = st.doorbells;
	return 0;
}

static int print_chain(const struct bench_cfg *c, uint32_t n, size_t bytes,
		       const struct chain_times *x)
{
	const struct hist *cl = &x->cl, *ct = &x->ct, *sl = &x->sl,
			  *stt = &x->stt;
	bool data = c->a.op != SACC_OP_NOP;

	if (c->json) {
		struct json_object *o = jobj(), *a = jobj(), *b = jobj();

		jset_str(o, "bdf", c->bdf);
		jset_str(o, "op", sacc_opcode_str(c->a.op));
		jset_u64(o, "size", data ? c->a.size : 0);
		jset_u64(o, "chain", n);
		jset_str(o, "doorbell", doorbell_name(c->a.doorbell));
		jset_u64(a, "launches", cl->n);
		jset_double(a, "launch_ns_avg", (double)cl->sum / (double)cl->n,
			    "%.1f");
		jset_u64(a, "launch_ns_p50", h_pct(cl, 0.5));
		jset_double(a, "round_trip_ns_avg",
			    (double)ct->sum / (double)ct->n, "%.1f");
		jset_double(a, "doorbells_per_launch",
			    (double)x->cdb / (double)cl->n, "%.3f");
		jset_u64(a, "command_bytes_per_launch", bytes);
		jset(o, "chain_launch", a);
		jset_u64(b, "rounds", sl->n);
		jset_double(b, "submit_ns_avg", (double)sl->sum / (double)sl->n,
			    "%.1f");
		jset_u64(b, "submit_ns_p50", h_pct(sl, 0.5));
		jset_double(b, "round_trip_ns_avg",
			    (double)stt->sum / (double)stt->n, "%.1f");
		jset_double(b, "doorbells_per_round",
			    (double)x->sdb / (double)sl->n, "%.3f");
		jset_u64(b, "command_bytes_per_round", bytes);
		jset(o, "singles", b);
		return jprint(o, JSON_SPACED);
	}
	printf("SACC bench: %s, chain of %u %s%s, %s doorbell\n\n", c->bdf, n,
	       sacc_opcode_str(c->a.op), data ? "" : " (no data)",
	       doorbell_name(c->a.doorbell));
	printf("%-22s %10s %10s %14s %10s %10s\n", "", "rounds", "submit us",
	       "round trip us", "doorbells", "cmd bytes");
	printf("%-22s %10llu %10.2f %14.2f %10.2f %10zu\n", "chain launch",
	       (unsigned long long)cl->n, (double)cl->sum / (double)cl->n / 1e3,
	       (double)ct->sum / (double)ct->n / 1e3,
	       (double)x->cdb / (double)cl->n, bytes);
	printf("%-22s %10llu %10.2f %14.2f %10.2f %10zu\n",
	       "N single submissions", (unsigned long long)sl->n,
	       (double)sl->sum / (double)sl->n / 1e3,
	       (double)stt->sum / (double)stt->n / 1e3,
	       (double)x->sdb / (double)sl->n, bytes);
	printf("(submit: time in the launch / the N sacc_submit() "
	       "calls; round trip: until all N are reaped)\n");
	return 0;
}

int bench_chain(const struct bench_cfg *c, struct sacc_dev *h)
{
	uint32_t n = (uint32_t)c->chain;
	bool data = c->a.op != SACC_OP_NOP;
	struct sacc_buf *src = NULL, *dst = NULL;
	struct sacc_op *ops = calloc(n, sizeof(*ops));
	struct sacc_chain *chain = NULL;
	struct chain_times x = {0};
	size_t len = c->a.size < 64 ? 64 : c->a.size;
	int rc = EXIT_FAIL;

	if (!ops)
		return fail("out of memory");
	if (sacc_buf_alloc(h, len, SACC_DMA_TO_DEVICE, "chain src", &src) ||
	    sacc_buf_alloc(h, len, SACC_DMA_FROM_DEVICE, "chain dst", &dst)) {
		fail("%s", sacc_errmsg(h));
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		ops[i] = (struct sacc_op){
		    .opcode = c->a.op,
		    .len = data ? (uint32_t)c->a.size : 0,
		    .src = c->a.op == SACC_OP_WRITE_INLINE ? NULL : src,
		    .dst = dst,
		    .data = sacc_buf_va(src),
		    .cookie = i};
	if (sacc_chain_create(h, ops, n, &chain)) {
		fail("%s", sacc_errmsg(h));
		goto out;
	}
	if (time_chain(c, h, chain, n, &x) || time_singles(c, h, ops, n, &x) ||
	    print_chain(c, n, sacc_chain_bytes(chain), &x))
		goto out;
	rc = EXIT_OK;
out:
	sacc_chain_free(chain);
	sacc_buf_free(src);
	sacc_buf_free(dst);
	free(ops);
	return rc;
}

/* ---- --sweep ---- */

/* One write of @size by @mode (inline: 4 KiB pieces), all reaped: ns. */
static int one_write(struct sacc_dev *h, struct sacc_buf *dst,
		     const uint8_t *data, uint32_t size,
		     enum sacc_write_mode mode, uint64_t *ns)
{
	uint32_t piece = mode == SACC_WRITE_INLINE ? SACC_INLINE_MAX : size;
	uint32_t off = 0, sent = 0;
	uint64_t t0 = now_ns();
	int r;

	while (off < size) {
		uint32_t k = size - off < piece ? size - off : piece;

		r = sacc_write(h, dst, off, data + off, k, mode, 0, off);
		if (r < 0)
			return fail("%s", sacc_errmsg(h));
		if (r == 0) { /* SQ full: reap one and retry */
			if (reap_all(h, 1, NULL))
				return EXIT_FAIL;
			sent--;
			continue;
		}
		off += k;
		sent++;
	}
	if (reap_all(h, sent, NULL))
		return EXIT_FAIL;
	*ns = now_ns() - t0;
	return 0;
}

static int one_memcpy(struct sacc_dev *h, struct sacc_buf *src,
		      struct sacc_buf *dst, uint32_t size, uint64_t *ns)
{
	struct sacc_op op = {
	    .opcode = SACC_OP_MEMCPY, .len = size, .src = src, .dst = dst};
	uint64_t t0 = now_ns();

	if (sacc_submit(h, &op, 1) != 1)
		return fail("%s", sacc_errmsg(h));
	if (reap_all(h, 1, NULL))
		return EXIT_FAIL;
	*ns = now_ns() - t0;
	return 0;
}

/* One size's figures: a for inline writes (or MEMCPY), b for DMA writes
 * (inline sweep only); MiB/s and average latency in ns of each. */
struct sweep_row {
	uint32_t size;
	struct hist a, b;
	double am, bm, al, bl;
};

/*
 * Unmeasured rounds before each size's measured ones: the first ops of a
 * size pay for cold caches and the device's translation cache (the 8 B
 * point of the demo's first sweep sat 20x above its neighbours).
 */
#define SWEEP_WARMUP 8

/* Measure one size for @per seconds a way (at least 3 rounds each),
 * after SWEEP_WARMUP rounds each way. */
static int sweep_measure(struct sacc_dev *h, struct sacc_buf *src,
			 struct sacc_buf *dst, bool inl, double per,
			 struct sweep_row *r)
{
	uint64_t end, ns;

	for (int w = 0; w < SWEEP_WARMUP; w++)
		if ((inl ? one_write(h, dst, sacc_buf_va(src), r->size,
				     SACC_WRITE_INLINE, &ns)
			 : one_memcpy(h, src, dst, r->size, &ns)) ||
		    (inl && one_write(h, dst, sacc_buf_va(src), r->size,
				      SACC_WRITE_DMA, &ns)))
			return EXIT_FAIL;
	end = now_ns() + (uint64_t)(per * 1e9);
	do {
		if (inl ? one_write(h, dst, sacc_buf_va(src), r->size,
				    SACC_WRITE_INLINE, &ns)
			: one_memcpy(h, src, dst, r->size, &ns))
			return EXIT_FAIL;
		h_add(&r->a, ns);
	} while (now_ns() < end || r->a.n < 3);
	r->al = (double)r->a.sum / (double)r->a.n;
	r->am = (double)r->size / (1024.0 * 1024.0) / (r->al / 1e9);
	r->bm = r->bl = 0;
	if (!inl)
		return 0;
	end = now_ns() + (uint64_t)(per * 1e9);
	do {
		if (one_write(h, dst, sacc_buf_va(src), r->size, SACC_WRITE_DMA,
			      &ns))
			return EXIT_FAIL;
		h_add(&r->b, ns);
	} while (now_ns() < end || r->b.n < 3);
	r->bl = (double)r->b.sum / (double)r->b.n;
	r->bm = (double)r->size / (1024.0 * 1024.0) / (r->bl / 1e9);
	return 0;
}

static void sweep_header(const struct bench_cfg *c, bool inl)
{
	if (inl) {
		printf("SACC bench sweep: %s, sacc_write() inline vs DMA "
		       "(stage + MEMCPY), one write in flight, %s doorbell\n"
		       "inline carries at most %u bytes: a larger write is "
		       "that many inline writes of 4 KiB (column 'pieces')\n\n",
		       c->bdf, doorbell_name(c->a.doorbell), SACC_INLINE_MAX);
		printf("%8s %7s %12s %12s %12s %12s %s\n", "size", "pieces",
		       "inline MiB/s", "inline us", "DMA MiB/s", "DMA us",
		       "faster");
	} else {
		printf("SACC bench sweep: %s, MEMCPY buffer to buffer, one op "
		       "in flight, %s doorbell\n\n",
		       c->bdf, doorbell_name(c->a.doorbell));
		printf("%8s %12s %12s\n", "size", "MiB/s", "latency us");
	}
}

/* One row: a JSON object into @arr, or a line of the table. */
static void sweep_print_row(const struct bench_cfg *c, bool inl,
			    const struct sweep_row *r, struct json_object *arr)
{
	char sz[32];

	if (c->json) {
		struct json_object *e = jobj();

		jset_u64(e, "size", r->size);
		if (inl) {
			jset_u64(e, "inline_pieces",
				 (r->size + SACC_INLINE_MAX - 1) /
				     SACC_INLINE_MAX);
			jset_double(e, "inline_mib_per_sec", r->am, "%.2f");
			jset_double(e, "inline_lat_ns_avg", r->al, "%.1f");
			jset_u64(e, "inline_lat_ns_p50", h_pct(&r->a, 0.5));
			jset_double(e, "dma_mib_per_sec", r->bm, "%.2f");
			jset_double(e, "dma_lat_ns_avg", r->bl, "%.1f");
			jset_u64(e, "dma_lat_ns_p50", h_pct(&r->b, 0.5));
		} else {
			jset_double(e, "mib_per_sec", r->am, "%.2f");
			jset_double(e, "lat_ns_avg", r->al, "%.1f");
			jset_u64(e, "lat_ns_p50", h_pct(&r->a, 0.5));
		}
		jpush(arr, e);
	} else if (inl) {
		printf("%8s %7u %12.2f %12.2f %12.2f %12.2f %s\n",
		       sacc_fmt_bytes(r->size, sz, sizeof(sz)),
		       (r->size + SACC_INLINE_MAX - 1) / SACC_INLINE_MAX, r->am,
		       r->al / 1e3, r->bm, r->bl / 1e3,
		       r->bl < r->al ? "DMA" : "inline");
	} else {
		printf("%8s %12.2f %12.2f\n",
		       sacc_fmt_bytes(r->size, sz, sizeof(sz)), r->am,
		       r->al / 1e3);
	}
}

/* The crossover (0: none seen) after the rows; prints @o if JSON. */
static int sweep_footer(const struct bench_cfg *c, bool inl, uint64_t crossover,
			struct json_object *o, struct json_object *arr)
{
	char sz[32];

	if (c->json) {
		jset(o, "sweep", arr);
		if (!inl)
			jset_null(o, "crossover");
		else if (crossover)
			jset_u64(o, "crossover", crossover);
		else
			jset_null(o, "crossover");
		return jprint(o, JSON_SPACED);
	}
	if (!inl)
		return 0;
	if (crossover)
		printf("\ncrossover: DMA beats inline from %s on "
		       "(smallest size measured where it does)\n",
		       sacc_fmt_bytes(crossover, sz, sizeof(sz)));
	else
		printf("\ncrossover: inline was faster at every size "
		       "measured\n");
	return 0;
}

int bench_sweep(const struct bench_cfg *c, struct sacc_dev *h)
{
	bool inl = c->a.op == SACC_OP_WRITE_INLINE;
	struct sacc_buf *src = NULL, *dst = NULL;
	struct json_object *o = NULL, *arr = NULL;
	double per = c->seconds / (double)c->nsweep / (inl ? 2 : 1);
	struct sweep_row r;
	uint64_t crossover = 0;
	int rc = EXIT_FAIL;

	if (c->devtime)
		return bench_devtime(c, h);
	if (per < 0.05)
		per = 0.05;
	if (sacc_buf_alloc(h, SACC_MAX_XFER, SACC_DMA_TO_DEVICE, "sweep src",
			   &src) ||
	    sacc_buf_alloc(h, SACC_MAX_XFER, SACC_DMA_FROM_DEVICE, "sweep dst",
			   &dst))
		return fail("%s", sacc_errmsg(h));
	fill_pattern(sacc_buf_va(src), SACC_MAX_XFER, 3);
	if (c->json) {
		o = jobj();
		arr = jarr();
		jset_str(o, "bdf", c->bdf);
		jset_str(o, "op", sacc_opcode_str(c->a.op));
		jset_str(o, "doorbell", doorbell_name(c->a.doorbell));
		jset_u64(o, "inline_max", SACC_INLINE_MAX);
	} else {
		sweep_header(c, inl);
	}
	for (unsigned int s = 0; s < c->nsweep; s++) {
		memset(&r, 0, sizeof(r));
		r.size = (uint32_t)c->sweep[s];
		if (sweep_measure(h, src, dst, inl, per, &r))
			goto out;
		if (inl && !crossover && r.bl < r.al)
			crossover = r.size;
		sweep_print_row(c, inl, &r, arr);
	}
	rc = sweep_footer(c, inl, crossover, o, arr);
	o = NULL; /* jprint() took it */
	if (rc)
		goto out;
	rc = EXIT_OK;
out:
	if (o)
		json_object_put(o);
	sacc_buf_free(src);
	sacc_buf_free(dst);
	return rc;
}

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
		if (jprint(o, JSON_SPACED))
			goto out;
	} else {
		printf("SACC bench: %s %s, %u channels (one thread each), "
		       "batch %llu, queue depth %llu each, %s doorbell\n\n",
		       c->bdf, sacc_opcode_str(c->a.op), c->channels,
		       (unsigned long long)c->a.batch,
		       (unsigned long long)c->qd, doorbell_name(c->a.doorbell));
		printf("%8s %12s %12s %12s %12s\n", "channel", "ops/s",
		       "lat avg us", "lat p99 us", "engine us");
		for (k = 0; k < c->channels; k++) {
			const struct hist *h = &j[k].lat, *eh = &j[k].eng;

			printf("%8u %12.0f %12.2f %12.2f %12.2f\n",
			       sacc_dev_channel(j[k].h),
			       (double)j[k].ops / j[k].secs,
			       (double)h->sum / (double)h->n / 1e3,
			       (double)h_pct(h, 0.99) / 1e3,
			       (double)eh->sum / (double)eh->n / 1e3);
		}
		printf("%8s %12.0f\nfairness (min/max ops/s) %.3f\n", "total",
		       total, mx > 0 ? mn / mx : 0);
	}
	rc = EXIT_OK;
out:
	free(j);
	free(t);
	return rc; /* the caller closes root, and with it the channels */
}

/* ---- --chain N ---- */

int bench_chain(const struct bench_cfg *c, struct sacc_dev *h)
{
	uint32_t n = (uint32_t)c->chain;
	bool data = c->a.op != SACC_OP_NOP;
	struct sacc_buf *src = NULL, *dst = NULL;
	struct sacc_op *ops = calloc(n, sizeof(*ops));
	struct sacc_chain *chain = NULL;
	struct sacc_stats st;
	struct hist cl = {0}, ct = {0}, sl = {0}, stt = {0};
	uint64_t t0, t1, end, cdb, sdb;
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
	/* the chain: launch (prepared descriptors + one doorbell), reap */
	sacc_stats_clear(h);
	end = now_ns() + (uint64_t)(c->seconds / 2 * 1e9);
	do {
		t0 = now_ns();
		if (sacc_chain_launch(chain) != (int)n) {
			fail("chain launch: %s", sacc_errmsg(h));
			goto out;
		}
		t1 = now_ns();
		if (reap_all(h, n, NULL))
			goto out;
		h_add(&cl, t1 - t0);
		h_add(&ct, now_ns() - t0);
	} while (now_ns() < end);
	sacc_stats(h, &st);
	cdb = st.doorbells;
	/* the same N operations as N single submissions, one doorbell each */
	sacc_stats_clear(h);
	end = now_ns() + (uint64_t)(c->seconds / 2 * 1e9);
	do {
		t0 = now_ns();
		for (uint32_t i = 0; i < n; i++)
			if (sacc_submit(h, &ops[i], 1) != 1) {
				fail("submit: %s", sacc_errmsg(h));
				goto out;
			}
		t1 = now_ns();
		if (reap_all(h, n, NULL))
			goto out;
		h_add(&sl, t1 - t0);
		h_add(&stt, now_ns() - t0);
	} while (now_ns() < end);
	sacc_stats(h, &st);
	sdb = st.doorbells;
	if (c->json) {
		struct json_object *o = jobj(), *a = jobj(), *b = jobj();

		jset_str(o, "bdf", c->bdf);
		jset_str(o, "op", sacc_opcode_str(c->a.op));
		jset_u64(o, "size", data ? c->a.size : 0);
		jset_u64(o, "chain", n);
		jset_str(o, "doorbell", doorbell_name(c->a.doorbell));
		jset_u64(a, "launches", cl.n);
		jset_double(a, "launch_ns_avg", (double)cl.sum / (double)cl.n,
			    "%.1f");
		jset_u64(a, "launch_ns_p50", h_pct(&cl, 0.5));
		jset_double(a, "round_trip_ns_avg",
			    (double)ct.sum / (double)ct.n, "%.1f");
		jset_double(a, "doorbells_per_launch",
			    (double)cdb / (double)cl.n, "%.3f");
		jset_u64(a, "command_bytes_per_launch",
			 sacc_chain_bytes(chain));
		jset(o, "chain_launch", a);
		jset_u64(b, "rounds", sl.n);
		jset_double(b, "submit_ns_avg", (double)sl.sum / (double)sl.n,
			    "%.1f");
		jset_u64(b, "submit_ns_p50", h_pct(&sl, 0.5));
		jset_double(b, "round_trip_ns_avg",
			    (double)stt.sum / (double)stt.n, "%.1f");
		jset_double(b, "doorbells_per_round",
			    (double)sdb / (double)sl.n, "%.3f");
		jset_u64(b, "command_bytes_per_round", sacc_chain_bytes(chain));
		jset(o, "singles", b);
		if (jprint(o, JSON_SPACED))
			goto out;
	} else {
		printf("SACC bench: %s, chain of %u %s%s, %s doorbell\n\n",
		       c->bdf, n, sacc_opcode_str(c->a.op),
		       data ? "" : " (no data)", doorbell_name(c->a.doorbell));
		printf("%-22s %10s %10s %14s %10s %10s\n", "", "rounds",
		       "submit us", "round trip us", "doorbells", "cmd bytes");
		printf("%-22s %10llu %10.2f %14.2f %10.2f %10zu\n",
		       "chain launch", (unsigned long long)cl.n,
		       (double)cl.sum / (double)cl.n / 1e3,
		       (double)ct.sum / (double)ct.n / 1e3,
		       (double)cdb / (double)cl.n, sacc_chain_bytes(chain));
		printf("%-22s %10llu %10.2f %14.2f %10.2f %10zu\n",
		       "N single submissions", (unsigned long long)sl.n,
		       (double)sl.sum / (double)sl.n / 1e3,
		       (double)stt.sum / (double)stt.n / 1e3,
		       (double)sdb / (double)sl.n, sacc_chain_bytes(chain));
		printf("(submit: time in the launch / the N sacc_submit() "
		       "calls; round trip: until all N are reaped)\n");
	}
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

int bench_sweep(const struct bench_cfg *c, struct sacc_dev *h)
{
	bool inl = c->a.op == SACC_OP_WRITE_INLINE;
	struct sacc_buf *src = NULL, *dst = NULL;
	struct json_object *o = NULL, *arr = NULL;
	double per = c->seconds / (double)c->nsweep / (inl ? 2 : 1);
	uint64_t crossover = 0;
	int rc = EXIT_FAIL;
	char sz[32];

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
	} else if (inl) {
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
	for (unsigned int s = 0; s < c->nsweep; s++) {
		uint32_t size = (uint32_t)c->sweep[s];
		struct hist a = {0}, b = {0};
		uint64_t end, ns;
		double am, bm, al, bl;

		end = now_ns() + (uint64_t)(per * 1e9);
		do {
			if (inl ? one_write(h, dst, sacc_buf_va(src), size,
					    SACC_WRITE_INLINE, &ns)
				: one_memcpy(h, src, dst, size, &ns))
				goto out;
			h_add(&a, ns);
		} while (now_ns() < end || a.n < 3);
		al = (double)a.sum / (double)a.n;
		am = (double)size / (1024.0 * 1024.0) / (al / 1e9);
		bm = bl = 0;
		if (inl) {
			end = now_ns() + (uint64_t)(per * 1e9);
			do {
				if (one_write(h, dst, sacc_buf_va(src), size,
					      SACC_WRITE_DMA, &ns))
					goto out;
				h_add(&b, ns);
			} while (now_ns() < end || b.n < 3);
			bl = (double)b.sum / (double)b.n;
			bm = (double)size / (1024.0 * 1024.0) / (bl / 1e9);
			if (!crossover && bl < al)
				crossover = size;
		}
		if (c->json) {
			struct json_object *e = jobj();

			jset_u64(e, "size", size);
			if (inl) {
				jset_u64(e, "inline_pieces",
					 (size + SACC_INLINE_MAX - 1) /
					     SACC_INLINE_MAX);
				jset_double(e, "inline_mib_per_sec", am,
					    "%.2f");
				jset_double(e, "inline_lat_ns_avg", al, "%.1f");
				jset_u64(e, "inline_lat_ns_p50",
					 h_pct(&a, 0.5));
				jset_double(e, "dma_mib_per_sec", bm, "%.2f");
				jset_double(e, "dma_lat_ns_avg", bl, "%.1f");
				jset_u64(e, "dma_lat_ns_p50", h_pct(&b, 0.5));
			} else {
				jset_double(e, "mib_per_sec", am, "%.2f");
				jset_double(e, "lat_ns_avg", al, "%.1f");
				jset_u64(e, "lat_ns_p50", h_pct(&a, 0.5));
			}
			jpush(arr, e);
		} else if (inl) {
			printf("%8s %7u %12.2f %12.2f %12.2f %12.2f %s\n",
			       sacc_fmt_bytes(size, sz, sizeof(sz)),
			       (size + SACC_INLINE_MAX - 1) / SACC_INLINE_MAX,
			       am, al / 1e3, bm, bl / 1e3,
			       bl < al ? "DMA" : "inline");
		} else {
			printf("%8s %12.2f %12.2f\n",
			       sacc_fmt_bytes(size, sz, sizeof(sz)), am,
			       al / 1e3);
		}
	}
	if (c->json) {
		jset(o, "sweep", arr);
		if (!inl)
			jset_null(o, "crossover");
		else if (crossover)
			jset_u64(o, "crossover", crossover);
		else
			jset_null(o, "crossover");
		rc = jprint(o, JSON_SPACED);
		o = NULL;
		if (rc)
			goto out;
	} else if (inl) {
		if (crossover)
			printf("\ncrossover: DMA beats inline from %s on "
			       "(smallest size measured where it does)\n",
			       sacc_fmt_bytes(crossover, sz, sizeof(sz)));
		else
			printf("\ncrossover: inline was faster at every size "
			       "measured\n");
	}
	rc = EXIT_OK;
out:
	if (o)
		json_object_put(o);
	sacc_buf_free(src);
	sacc_buf_free(dst);
	return rc;
}

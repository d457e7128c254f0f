// SPDX-License-Identifier: MIT
/*
 * bench_devtime.c - saccctl bench --sweep LIST --device-time: inline
 * writes against the copy engine, the seed paper's way (issue 21).
 *
 * The paper timed a GPU's engines with no driver in the loop: one
 * submission holding warm-up work, a timestamp, K measured operations and
 * a timestamp.  Here that submission is a v0.4 graph (one SEGMENT entry,
 * docs/spec.md section 21) per size and kind:
 *
 *   W warm-up ops, TIMESTAMP -> ts[0], K ops, TIMESTAMP -> ts[1]
 *
 * launched DT_LAUNCH times; the device's time per op is (ts[1] - ts[0])
 * / K of the median launch, on the device's clock (CLOCK's timebase),
 * with nothing of the driver in it.
 * Beside it, the API time of the same op submitted one at a time
 * (submit to reap, after warm-up, median): what a profiler on the host
 * sees.  WRITE_INLINE runs up to SACC_INLINE_MAX, MEMCPY to 1 MiB; the
 * crossover is the first size at which an inline write costs the device
 * more than a copy of the same bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define DT_WARMUP 4	 /* warm-up ops in each segment */
#define DT_K_MAX  64	 /* measured ops per segment, at most */
#define DT_API_N  32	 /* ops submitted one by one for the API time */
#define DT_LAUNCH 5	 /* segments per point: the median launch counts */

struct dt_row {
	uint32_t size;
	double dev_ns[2]; /* per op, on the device: [0] inline, [1] memcpy */
	double api_ns[2]; /* per op, submit to reap, median */
	uint32_t k[2];	  /* measured ops in the segment */
};

/* The one result outstanding, polled (bounded: STALL_NS); 0 or 1. */
static int dt_reap(struct sacc_dev *h, struct sacc_result *r)
{
	const uint64_t end = now_ns() + STALL_NS;
	int n;

	while ((n = sacc_poll(h, r, 1)) == 0)
		if (now_ns() > end)
			return fail("no completion for %llu s",
				    STALL_NS / 1000000000ull);
	return n < 0 ? fail("%s", sacc_errmsg(h)) : 0;
}

/* K for @size: the segment holds W + K ops of @slots slots, and 2 more */
static uint32_t dt_k(uint32_t slots)
{
	uint32_t k = (SACC_GRAPH_MAX_OPS - 2) / slots - DT_WARMUP;

	return k > DT_K_MAX ? DT_K_MAX : k;
}

/* One graph: warm-up, TIMESTAMP, @k ops like @op, TIMESTAMP; launched,
 * reaped; the device's ns per op into *@ns.  0 or 1. */
static int dt_segment(struct sacc_dev *h, const struct sacc_op *op,
		      uint32_t k, struct sacc_buf *ts, double *ns)
{
	const uint32_t n = DT_WARMUP + k + 2;
	struct sacc_op *ops = calloc(n, sizeof(*ops));
	struct sacc_graph *g = NULL;
	struct sacc_result r;
	uint64_t t[2];
	int rc = EXIT_FAIL;

	if (!ops)
		return fail("out of memory");
	for (uint32_t i = 0; i < n; i++)
		ops[i] = *op;
	ops[DT_WARMUP] = (struct sacc_op){.opcode = SACC_OP_TIMESTAMP,
					  .dst = ts};
	ops[n - 1] = (struct sacc_op){
	    .opcode = SACC_OP_TIMESTAMP, .dst = ts, .dst_off = 8};
	if (sacc_graph_create(h, ops, n, 0, &g) ||
	    sacc_graph_launch(h, g, 0) != 1) {
		fail("%s", sacc_errmsg(h));
		goto out;
	}
	if (dt_reap(h, &r))
		goto out;
	if (r.status != SACC_STS_OK) {
		fail("segment: status %u (%s), op %u", r.status,
		     sacc_status_str(r.status), r.result_len);
		goto out;
	}
	memcpy(t, sacc_buf_va(ts), sizeof(t));
	if (t[1] < t[0]) {
		fail("segment: the second TIMESTAMP (%llu) is before the first "
		     "(%llu)", (unsigned long long)t[1],
		     (unsigned long long)t[0]);
		goto out;
	}
	*ns = (double)(t[1] - t[0]) / k;
	rc = 0;
out:
	sacc_graph_destroy(g);
	free(ops);
	return rc;
}

/* The API time of @op one at a time, after warm-up: median ns. */
static int dt_api(struct sacc_dev *h, const struct sacc_op *op, double *ns)
{
	double v[DT_API_N];
	double s[3];

	for (int i = -DT_WARMUP; i < DT_API_N; i++) {
		uint64_t t0 = now_ns();
		struct sacc_result r;

		if (sacc_submit(h, op, 1) != 1)
			return fail("%s", sacc_errmsg(h));
		if (dt_reap(h, &r))
			return EXIT_FAIL;
		if (r.status != SACC_STS_OK)
			return fail("%s of %u bytes: status %u (%s)",
				    sacc_opcode_str(op->opcode), op->len,
				    r.status, sacc_status_str(r.status));
		if (i >= 0)
			v[i] = (double)(now_ns() - t0);
	}
	bench_spread(v, DT_API_N, s);
	*ns = s[1];
	return 0;
}

static int dt_measure(struct sacc_dev *h, struct sacc_buf *src,
		      struct sacc_buf *dst, struct sacc_buf *ts,
		      struct dt_row *r)
{
	const struct sacc_op ops[2] = {
	    {.opcode = SACC_OP_WRITE_INLINE, .len = r->size, .dst = dst,
	     .data = sacc_buf_va(src)},
	    {.opcode = SACC_OP_MEMCPY, .len = r->size, .src = src, .dst = dst},
	};

	for (int kind = 0; kind < 2; kind++) {
		uint32_t slots = kind ? 1 : 1 + SACC_INLINE_SLOTS(r->size);

		r->dev_ns[kind] = r->api_ns[kind] = -1;
		if (kind == 0 && r->size > SACC_INLINE_MAX)
			continue;
		double v[DT_LAUNCH], s[3];

		r->k[kind] = dt_k(slots);
		/* the median of a few launches: one preempted engine thread
		 * (a busy host) must not make the point */
		for (int l = 0; l < DT_LAUNCH; l++)
			if (dt_segment(h, &ops[kind], r->k[kind], ts, &v[l]))
				return EXIT_FAIL;
		bench_spread(v, DT_LAUNCH, s);
		r->dev_ns[kind] = s[1];
		if (dt_api(h, &ops[kind], &r->api_ns[kind]))
			return EXIT_FAIL;
	}
	return 0;
}

static void dt_json_row(struct json_object *arr, const struct dt_row *r)
{
	static const char *const kind[2] = {"inline", "memcpy"};
	struct json_object *e = jobj();
	char key[32];

	jset_u64(e, "size", r->size);
	for (int i = 0; i < 2; i++) {
		if (r->dev_ns[i] < 0)
			continue;
		snprintf(key, sizeof(key), "%s_device_ns", kind[i]);
		jset_double(e, key, r->dev_ns[i], "%.1f");
		snprintf(key, sizeof(key), "%s_api_ns", kind[i]);
		jset_double(e, key, r->api_ns[i], "%.1f");
		snprintf(key, sizeof(key), "%s_k", kind[i]);
		jset_u64(e, key, r->k[i]);
	}
	jpush(arr, e);
}

static void dt_print_row(const struct dt_row *r)
{
	char sz[32];

	printf("%10s", sacc_fmt_bytes(r->size, sz, sizeof(sz)));
	for (int i = 0; i < 2; i++)
		if (r->dev_ns[i] < 0)
			printf(" %12s %12s", "-", "-");
		else
			printf(" %12.1f %12.1f", r->dev_ns[i], r->api_ns[i]);
	printf("\n");
}

int bench_devtime(const struct bench_cfg *c, struct sacc_dev *h)
{
	struct sacc_buf *src = NULL, *dst = NULL, *ts = NULL;
	struct json_object *o = NULL, *arr = NULL;
	uint64_t crossover = 0;
	struct dt_row r;
	int rc = EXIT_FAIL;

	if (sacc_buf_alloc(h, SACC_MAX_XFER, SACC_DMA_TO_DEVICE, "dt src",
			   &src) ||
	    sacc_buf_alloc(h, SACC_MAX_XFER, SACC_DMA_FROM_DEVICE, "dt dst",
			   &dst) ||
	    sacc_buf_alloc(h, 16, SACC_DMA_FROM_DEVICE, "dt timestamps", &ts)) {
		fail("%s", sacc_errmsg(h));
		goto out;
	}
	fill_pattern(sacc_buf_va(src), SACC_MAX_XFER, 5);
	if (c->json) {
		o = jobj();
		arr = jarr();
		jset_str(o, "bdf", c->bdf);
		jset_str(o, "mode", "device_time");
		jset_u64(o, "warmup", DT_WARMUP);
		jset_u64(o, "inline_max", SACC_INLINE_MAX);
	} else {
		printf("SACC bench --device-time: %s, per size one segment of %d "
		       "warm-up ops, a TIMESTAMP, K ops, a TIMESTAMP\n"
		       "(device ns per op, from the TIMESTAMPs) beside the API "
		       "time of one op (submit to reap, median)\n\n%10s %12s "
		       "%12s %12s %12s\n",
		       c->bdf, DT_WARMUP, "size", "inline dev", "inline API",
		       "memcpy dev", "memcpy API");
	}
	for (unsigned int s = 0; s < c->nsweep; s++) {
		memset(&r, 0, sizeof(r));
		r.size = (uint32_t)c->sweep[s];
		if (dt_measure(h, src, dst, ts, &r))
			goto out;
		if (!crossover && r.dev_ns[0] >= 0 && r.dev_ns[0] > r.dev_ns[1])
			crossover = r.size;
		if (c->json)
			dt_json_row(arr, &r);
		else
			dt_print_row(&r);
	}
	if (c->json) {
		jset(o, "sweep", arr);
		if (crossover)
			jset_u64(o, "crossover", crossover);
		else
			jset_null(o, "crossover");
		rc = jprint(o, JSON_SPACED);
		o = NULL;
	} else {
		printf("\ncrossover (an inline write costs the device more than "
		       "a copy): %s\n",
		       crossover ? sacc_fmt_bytes(crossover, (char[32]){0}, 32)
				 : "none in this sweep");
		rc = EXIT_OK;
	}
out:
	if (o)
		json_object_put(o);
	sacc_buf_free(src);
	sacc_buf_free(dst);
	sacc_buf_free(ts);
	return rc;
}

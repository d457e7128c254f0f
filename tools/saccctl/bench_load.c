// SPDX-License-Identifier: MIT
/*
 * bench_load.c - saccctl bench --load CH:OP:SIZE: other channels kept
 * busy while the bench measures its own, each ring kept full (QD = SQ
 * size - 1) of OP of SIZE bytes, every completion checked.  What a second
 * tenant, or a driver's health check, meets on a device that is busy
 * elsewhere (issue 19); the load's own rate is reported beside the
 * figures, so a run shows it was loaded.
 *
 * The measuring thread itself tops the rings up (bench_load_service()),
 * between two of its ops at QD 1 and whenever its own poll finds nothing
 * at a deeper queue: a full ring of MEMCPYs is 0.1 to 10 ms of the
 * device's work, so the top-ups keep it saturated, and no second guest
 * thread competes for the vCPUs.  (With a thread of
 * its own, under TCG's one thread for all vCPUs, the measured thread's
 * latency was that of the vCPUs' round robin, not the device's.)
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

int bench_load_parse(const char *arg, struct bench_load *l)
{
	char buf[64], *op, *size;
	uint64_t ch;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	op = strchr(buf, ':');
	size = op ? strchr(op + 1, ':') : NULL;
	if (!size)
		return -1;
	*op++ = 0;
	*size++ = 0;
	memset(l, 0, sizeof(*l));
	if (!parse_u64(buf, &ch) || ch < 1 || ch >= SACC_CHANNELS_MAX ||
	    !parse_opcode(op, &l->op) ||
	    (l->op != SACC_OP_NOP && l->op != SACC_OP_MEMCPY &&
	     l->op != SACC_OP_XFORM) ||
	    sacc_size_parse(size, &l->size) || l->size > SACC_MAX_XFER ||
	    (l->op != SACC_OP_NOP && !l->size))
		return -1;
	l->chan = (unsigned int)ch;
	return 0;
}

/*
 * Work per top-up, at most: one poll, one submission (one doorbell), so
 * the measuring loop is back at its own ring within microseconds.
 */
#define LOAD_BATCH 64

/* One load: its ring topped up and its completions checked; 0 or -1. */
static int service_one(struct bench_load *l)
{
	struct sacc_op op = {
	    .opcode = l->op,
	    .len = l->op == SACC_OP_NOP ? 0 : (uint32_t)l->size,
	    .src = l->src,
	    .dst = l->dst,
	};
	struct sacc_op ops[LOAD_BATCH];
	struct sacc_result r[LOAD_BATCH];
	uint32_t room;
	uint64_t now;
	int n;

	n = sacc_poll(l->h, r, LOAD_BATCH);
	if (n < 0) {
		snprintf(l->err, sizeof(l->err), "%s", sacc_errmsg(l->h));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (r[i].status != SACC_STS_OK) {
			snprintf(l->err, sizeof(l->err),
				 "req_id %u: status %u (%s)", r[i].req_id,
				 r[i].status, sacc_status_str(r[i].status));
			return -1;
		}
	}
	now = now_ns();
	if (n > 0) {
		l->ops += (uint64_t)n;
		l->last = now;
	} else if (sacc_outstanding(l->h) && now - l->last > STALL_NS) {
		snprintf(l->err, sizeof(l->err), "no completion for %llu s",
			 STALL_NS / 1000000000ull);
		return -1;
	}
	room = sacc_sq_free(l->h);
	if (room > LOAD_BATCH)
		room = LOAD_BATCH;
	for (uint32_t i = 0; i < room; i++)
		ops[i] = op;
	if (room && sacc_submit(l->h, ops, room) < 0) {
		snprintf(l->err, sizeof(l->err), "%s", sacc_errmsg(l->h));
		return -1;
	}
	return 0;
}

int bench_load_service(struct bench_load *l, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (l[i].h && service_one(&l[i]))
			return fail("--load %u: %s", l[i].chan, l[i].err);
	return 0;
}

int bench_load_start(struct bench_load *l, unsigned int n,
		     struct sacc_dev *root, unsigned int busy_chan)
{
	const struct sacc_open_opts o = {.flags = SACC_OPEN_V3};

	for (unsigned int i = 0; i < n; i++) {
		struct bench_load *x = &l[i];

		if (x->chan == busy_chan)
			return fail("--load %u: that is the channel the bench "
				    "measures; load another one",
				    x->chan);
		if (sacc_chan_open(root, x->chan, &o, &x->h))
			return fail("--load %u: %s", x->chan,
				    sacc_errmsg(root));
		if (x->op != SACC_OP_NOP &&
		    (sacc_buf_alloc(x->h, x->size, SACC_DMA_TO_DEVICE,
				    "load src", &x->src) ||
		     sacc_buf_alloc(x->h, x->size, SACC_DMA_FROM_DEVICE,
				    "load dst", &x->dst)))
			return fail("--load %u: %s", x->chan,
				    sacc_errmsg(x->h));
		x->t0 = x->last = now_ns();
		if (service_one(x))
			return fail("--load %u: %s", x->chan, x->err);
	}
	return 0;
}

void bench_load_stop(struct bench_load *l, unsigned int n)
{

	for (unsigned int i = 0; i < n; i++) {
		struct bench_load *x = &l[i];

		if (!x->h)
			continue;
		x->secs = (double)(now_ns() - x->t0) / 1e9;
		/* closing the channel's handle abandons its ring, frees its
		 * buffers */
		sacc_close(x->h);
		x->h = NULL;
	}
}

void bench_load_json(struct json_object *o, const struct bench_load *l,
		     unsigned int n)
{
	struct json_object *arr = jarr();

	for (unsigned int i = 0; i < n; i++) {
		struct json_object *e = jobj();

		jset_u64(e, "channel", l[i].chan);
		jset_str(e, "op", sacc_opcode_str(l[i].op));
		jset_u64(e, "size", l[i].op == SACC_OP_NOP ? 0 : l[i].size);
		jset_double(e, "ops_per_sec",
			    l[i].secs > 0 ? (double)l[i].ops / l[i].secs : 0,
			    "%.1f");
		jpush(arr, e);
	}
	jset(o, "load", arr);
}

void bench_load_print(const struct bench_load *l, unsigned int n)
{
	char sz[32];

	for (unsigned int i = 0; i < n; i++)
		printf("load on channel %-3u %s %s: %.0f ops/s\n", l[i].chan,
		       sacc_opcode_str(l[i].op),
		       l[i].op == SACC_OP_NOP
			   ? ""
			   : sacc_fmt_bytes(l[i].size, sz, sizeof(sz)),
		       l[i].secs > 0 ? (double)l[i].ops / l[i].secs : 0);
}

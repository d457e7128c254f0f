// SPDX-License-Identifier: MIT
/*
 * bench_load.c - saccctl bench --load CH:OP:SIZE: other channels kept
 * busy while the bench measures its own, each by a thread of its own that
 * keeps its ring full (QD = SQ size - 1) of OP of SIZE bytes and checks
 * every completion.  What a second tenant, or a driver's health check,
 * meets on a device that is busy elsewhere (issue 19): the load's own
 * rate is reported beside the figures, so a run shows it was loaded.
 */
#include <pthread.h>
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

/* The load's loop: ring kept full, every result checked, bounded. */
static void *load_thread(void *arg)
{
	struct bench_load *l = arg;
	struct sacc_op op = {
	    .opcode = l->op,
	    .len = l->op == SACC_OP_NOP ? 0 : (uint32_t)l->size,
	    .src = l->src,
	    .dst = l->dst,
	};
	struct sacc_result r[64];
	uint64_t last = now_ns();
	int n;

	while (!atomic_load(&l->stop)) {
		while (sacc_sq_free(l->h) && sacc_submit(l->h, &op, 1) == 1)
			;
		n = sacc_poll(l->h, r, 64);
		if (n < 0) {
			snprintf(l->err, sizeof(l->err), "%s",
				 sacc_errmsg(l->h));
			return NULL;
		}
		for (int i = 0; i < n; i++) {
			if (r[i].status != SACC_STS_OK) {
				snprintf(l->err, sizeof(l->err),
					 "req_id %u: status %u (%s)",
					 r[i].req_id, r[i].status,
					 sacc_status_str(r[i].status));
				return NULL;
			}
		}
		if (n > 0) {
			l->ops += (uint64_t)n;
			last = now_ns();
		} else if (now_ns() - last > STALL_NS) {
			snprintf(l->err, sizeof(l->err),
				 "no completion for %llu s",
				 STALL_NS / 1000000000ull);
			return NULL;
		}
	}
	return NULL;
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
		atomic_store(&x->stop, false);
		x->t0 = now_ns();
		if (pthread_create(&x->thread, NULL, load_thread, x))
			return fail("--load %u: cannot start its thread",
				    x->chan);
		x->started = true;
	}
	return 0;
}

int bench_load_stop(struct bench_load *l, unsigned int n)
{
	int rc = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct bench_load *x = &l[i];

		if (x->started) {
			atomic_store(&x->stop, true);
			pthread_join(x->thread, NULL);
			x->started = false;
			x->secs = (double)(now_ns() - x->t0) / 1e9;
			if (x->err[0])
				rc = fail("--load %u: %s", x->chan, x->err);
		}
		/* closing the channel's handle frees its buffers */
		sacc_close(x->h);
		x->h = NULL;
	}
	return rc;
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

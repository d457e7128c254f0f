// SPDX-License-Identifier: MIT
/*
 * bench_events.c - saccctl bench --events FILE: libsacc's API events
 * (submit, doorbell, reap), clock-sync samples and drop counts as JSON
 * Lines, in the shape docs/telemetry.md and the shared interface note
 * fix:
 *
 *   {"type":"api","ev":"submit","t_ns":..,"pid":..,"tid":..,"chan":0,
 *    "req_id":7,"opcode":1,"length":4096}
 *   {"type":"api","ev":"doorbell",...,"chan":0,"tail":14,"count":2}
 *   {"type":"api","ev":"reap",...,"req_id":7,"status":0,"engine_ns":812}
 *   {"type":"api","ev":"drops","count":N,"chan":0}
 *   {"type":"sync","chan":0,"guest_before_ns":..,"guest_after_ns":..,
 *    "device_ns":..}
 *
 * The ring is drained outside the measured loops (before and after a
 * run, between breakdown rows), so formatting JSON costs the benchmark
 * nothing; the ring (--events-max) must hold one run's events, and what
 * it could not hold is counted in the drops line and on stderr.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define DRAIN_CHUNK 4096

int bev_open(struct bench_events *e, const char *path, uint32_t capacity)
{
	e->path = path;
	e->capacity = capacity;
	e->buf = calloc(DRAIN_CHUNK, sizeof(*e->buf));
	if (!e->buf)
		return fail("out of memory");
	e->f = fopen(path, "w");
	if (!e->f) {
		free(e->buf);
		e->buf = NULL;
		return fail("--events %s: %s", path, strerror(errno));
	}
	return 0;
}

int bev_attach(struct bench_events *e, struct sacc_dev *h)
{
	if (!e->f)
		return 0;
	if (sacc_events_enable(h, e->capacity))
		return fail("%s", sacc_errmsg(h));
	return 0;
}

static const char *ev_name(uint16_t type)
{
	switch (type) {
	case SACC_EV_SUBMIT:
		return "submit";
	case SACC_EV_DOORBELL:
		return "doorbell";
	default:
		return "reap";
	}
}

static int write_event(struct bench_events *e, const struct sacc_event *v)
{
	struct json_object *o = jobj();

	jset_str(o, "type", "api");
	jset_str(o, "ev", ev_name(v->type));
	jset_u64(o, "t_ns", v->t_ns);
	jset_u64(o, "pid", v->pid);
	jset_u64(o, "tid", v->tid);
	jset_u64(o, "chan", v->chan);
	switch (v->type) {
	case SACC_EV_SUBMIT:
		jset_u64(o, "req_id", v->req_id);
		jset_u64(o, "opcode", v->opcode);
		jset_u64(o, "length", v->length);
		break;
	case SACC_EV_DOORBELL:
		jset_u64(o, "tail", v->tail);
		jset_u64(o, "count", v->count);
		break;
	default:
		jset_u64(o, "req_id", v->req_id);
		jset_u64(o, "status", v->status);
		jset_u64(o, "engine_ns", v->engine_ns);
		/* beyond the shared shape: readers ignore unknown keys */
		jset_u64(o, "opcode", v->opcode);
		break;
	}
	e->written++;
	return jfprint(e->f, o, JSON_COMPACT);
}

int bev_drain(struct bench_events *e, struct sacc_dev *h)
{
	unsigned int n;

	if (!e->f)
		return 0;
	while ((n = sacc_events_read(h, e->buf, DRAIN_CHUNK)) > 0)
		for (unsigned int i = 0; i < n; i++)
			if (write_event(e, &e->buf[i]))
				return EXIT_FAIL;
	return 0;
}

/*
 * A few OP_TIMESTAMP round trips per sync point, each written out: the
 * timeline aligns the clocks on the one with the shortest round trip,
 * whose midpoint is the tightest bound on when the device read its
 * clock (one slow round trip, a preempted vCPU, would cost precision).
 */
#define SYNC_SAMPLES 8

int bev_sync(struct bench_events *e, struct sacc_dev *h)
{
	struct sacc_clock_sample s;
	struct json_object *o;

	if (!e->f)
		return 0;
	for (int i = 0; i < SYNC_SAMPLES; i++) {
		if (sacc_clock_sync(h, 5000, &s))
			return fail("clock sync: %s", sacc_errmsg(h));
		if (bev_drain(e, h)) /* the TIMESTAMP's own events first */
			return EXIT_FAIL;
		o = jobj();
		jset_str(o, "type", "sync");
		jset_u64(o, "chan", s.chan);
		jset_u64(o, "guest_before_ns", s.guest_before_ns);
		jset_u64(o, "guest_after_ns", s.guest_after_ns);
		jset_u64(o, "device_ns", s.device_ns);
		e->syncs++;
		if (jfprint(e->f, o, JSON_COMPACT))
			return EXIT_FAIL;
	}
	return 0;
}

int bev_finish(struct bench_events *e, struct sacc_dev *h)
{
	struct json_object *o;
	uint64_t d;

	if (!e->f || !h)
		return 0;
	if (bev_drain(e, h))
		return EXIT_FAIL;
	d = sacc_events_drops(h);
	e->drops += d;
	/* always written: a reader knows nothing was lost */
	o = jobj();
	jset_str(o, "type", "api");
	jset_str(o, "ev", "drops");
	jset_u64(o, "count", d);
	jset_u64(o, "chan", sacc_dev_channel(h));
	sacc_events_enable(h, 0);
	return jfprint(e->f, o, JSON_COMPACT);
}

int bev_close(struct bench_events *e, struct sacc_dev *const *hs,
	      unsigned int n)
{
	int rc = 0;

	if (!e->f)
		return 0;
	for (unsigned int k = 0; k < n && !rc; k++)
		rc = bev_finish(e, hs[k]);
	if (fclose(e->f) && !rc)
		rc = fail("--events %s: %s", e->path, strerror(errno));
	e->f = NULL;
	free(e->buf);
	e->buf = NULL;
	if (rc)
		return rc;
	fprintf(stderr,
		"saccctl: %llu API events and %llu clock-sync samples "
		"written to %s",
		(unsigned long long)e->written, (unsigned long long)e->syncs,
		e->path);
	if (e->drops)
		fprintf(stderr,
			"; %llu events DROPPED (the %u-event ring was full: "
			"raise --events-max or shorten --seconds)\n",
			(unsigned long long)e->drops, e->capacity);
	else
		fputs(", none dropped\n", stderr);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * trace_poll.c - saccctl trace --poll HZ: the polling observer, the
 * method the watchpoint replaces, for comparison against the device's
 * own trace (telemetry/tools/check-poll).  It samples what a poller can
 * see of the channels' ring state at a fixed rate, through the tracer
 * module's SACC_WATCH_IOC_SAMPLE (include/sacc_watch.h): CTRL, MODE,
 * SQ_BASE, SQ_SIZE, a token channel's PUT word and the SQ slots.  No
 * register holds a tail doorbell's tail, so a new submission shows only
 * as SQ slots that changed since the last sample.  One JSON line per
 * slot that changed (poll_desc) and per PUT word that changed
 * (poll_put), then a summary (poll_done) with the rate achieved.
 */
#include <endian.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "sacc_hw.h"
#include "sacc_watch.h"
#include "saccctl.h"

struct poll_chan {
	bool valid; /* prev holds this ring's last sample */
	uint64_t sq_base;
	uint32_t sq_size, put;
	struct sacc_desc prev[SACC_WATCH_SAMPLE_SLOTS];
};

static volatile sig_atomic_t poll_stop;

static void on_poll_signal(int sig)
{
	(void)sig;
	poll_stop = 1;
}

static void emit_desc(uint64_t sample, uint64_t t_ns, uint32_t ch,
		      uint32_t slot, const struct sacc_desc *raw)
{
	struct json_object *o = jobj();

	jset_str(o, "type", "poll_desc");
	jset_u64(o, "sample", sample);
	jset_u64(o, "t_ns", t_ns);
	jset_u64(o, "chan", ch);
	jset_u64(o, "slot", slot);
	jset_u64(o, "opcode", le16toh(raw->opcode));
	jset_u64(o, "flags", le16toh(raw->flags));
	jset_u64(o, "length", le32toh(raw->length));
	jset_hex(o, "src", le64toh(raw->src));
	jset_hex(o, "dst", le64toh(raw->dst));
	jset_u64(o, "req_id", le32toh(raw->req_id));
	jset_u64(o, "reserved", le32toh(raw->reserved));
	jprint(o, JSON_COMPACT);
}

/* Compare one channel's sample with the last; print what changed. */
static void diff_chan(struct poll_chan *pc,
		      const struct sacc_watch_sample_chan *c, uint64_t sample,
		      uint64_t t_ns)
{
	const struct sacc_desc *slots = (const void *)(c + 1);
	uint32_t i;

	if (!(c->ctrl & SACC_CTRL_ENABLE) || !c->nslots) {
		pc->valid = false;
		return;
	}
	if (!pc->valid || pc->sq_base != c->sq_base ||
	    pc->sq_size != c->sq_size) {
		/* A ring the poller has not seen: fresh memory is zero
		 * (libsacc's rings and device memory are allocated zeroed). */
		memset(pc->prev, 0, sizeof(pc->prev));
		pc->put = 0;
		pc->valid = true;
		pc->sq_base = c->sq_base;
		pc->sq_size = c->sq_size;
	}
	if ((c->mode & SACC_MODE_TOKEN) && c->put != pc->put) {
		struct json_object *o = jobj();

		jset_str(o, "type", "poll_put");
		jset_u64(o, "sample", sample);
		jset_u64(o, "t_ns", t_ns);
		jset_u64(o, "chan", c->chan);
		jset_u64(o, "put", c->put);
		jprint(o, JSON_COMPACT);
		pc->put = c->put;
	}
	for (i = 0; i < c->nslots; i++) {
		if (!memcmp(&pc->prev[i], &slots[i], sizeof(slots[i])))
			continue;
		emit_desc(sample, t_ns, c->chan, i, &slots[i]);
		pc->prev[i] = slots[i];
	}
}

static int parse_bdf(const char *s, uint32_t *out)
{
	unsigned int dom, bus, dev, fn;
	char end;

	if (sscanf(s, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &end) != 4 ||
	    dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
		return -1;
	*out = dom << 16 | bus << 8 | dev << 3 | fn;
	return 0;
}

int trace_poll(int fd, uint64_t hz, const char *bdf, double seconds,
	       unsigned int nchan)
{
	size_t cap = SACC_WATCH_SAMPLE_CHANS *
		     (sizeof(struct sacc_watch_sample_chan) +
		      SACC_WATCH_SAMPLE_SLOTS * sizeof(struct sacc_desc));
	struct sigaction sa = {.sa_handler = on_poll_signal};
	uint64_t period = 1000000000ull / hz, t0, next, now, end, i;
	uint64_t samples = 0, late = 0, nodev = 0, errors = 0;
	uint64_t last_t = 0, max_gap = 0, gaps_1ms = 0;
	struct sacc_watch_sample_req r = {0};
	struct poll_chan *pcs;
	struct json_object *o;
	uint8_t *buf;

	if (parse_bdf(bdf, &r.bdf))
		return fail("--device '%s' is not a PCI address "
			    "(DDDD:BB:DD.F)",
			    bdf);
	buf = malloc(cap);
	pcs = calloc(nchan, sizeof(*pcs));
	if (!buf || !pcs) {
		free(buf);
		free(pcs);
		return fail("out of memory");
	}
	r.first_chan = 0;
	r.nchan = nchan;
	r.max_slots = SACC_WATCH_SAMPLE_SLOTS;
	r.buf = (uintptr_t)buf;
	r.buf_len = cap;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	t0 = now_ns();
	end = seconds > 0 ? t0 + (uint64_t)(seconds * 1e9) : UINT64_MAX;
	next = t0;
	for (i = 0; !poll_stop; i++) {
		size_t off = 0;

		/* A fixed rate: wait for the tick (spin below 200 us: a
		 * sleep's wake-up is that coarse); a poller that fell more
		 * than a period behind starts its schedule again from now
		 * (the ticks it lost are "late"). */
		now = now_ns();
		if (now >= end)
			break;
		if (now + period < next || now > next + period) {
			if (now > next + period)
				late += (now - next) / period;
			next = now;
		}
		while (now < next) {
			if (next - now > 200000) {
				struct timespec ts = {
				    .tv_sec = (time_t)(next / 1000000000ull),
				    .tv_nsec = (long)(next % 1000000000ull)};

				clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
						&ts, NULL);
			}
			now = now_ns();
		}
		next += period;
		if (ioctl(fd, SACC_WATCH_IOC_SAMPLE, &r)) {
			if (errno == ENODEV)
				nodev++; /* no watched process mapped it yet */
			else if (errno != EINTR)
				errors++;
			continue;
		}
		samples++;
		/* How evenly the samples fell: a poller that loses its CPU
		 * samples in bursts, whatever its average rate. */
		if (last_t && r.t_ns - last_t > max_gap)
			max_gap = r.t_ns - last_t;
		if (last_t && r.t_ns - last_t > 1000000)
			gaps_1ms++;
		last_t = r.t_ns;
		while (off + sizeof(struct sacc_watch_sample_chan) <= r.len) {
			const struct sacc_watch_sample_chan *c =
			    (const void *)(buf + off);

			if (c->chan < nchan)
				diff_chan(&pcs[c->chan], c, samples, r.t_ns);
			off +=
			    sizeof(*c) + c->nslots * sizeof(struct sacc_desc);
		}
	}
	now = now_ns();
	o = jobj();
	jset_str(o, "type", "poll_done");
	jset_u64(o, "hz", hz);
	jset_u64(o, "samples", samples);
	jset_u64(o, "ns", now - t0);
	jset_u64(o, "achieved_hz",
		 now > t0 ? samples * 1000000000ull / (now - t0) : 0);
	jset_u64(o, "late_ticks", late);
	jset_u64(o, "max_gap_ns", max_gap);
	jset_u64(o, "gaps_over_1ms", gaps_1ms);
	jset_u64(o, "no_device", nodev);
	jset_u64(o, "errors", errors);
	jprint(o, JSON_COMPACT);
	fflush(stdout);
	fprintf(stderr,
		"saccctl trace --poll %llu: %llu samples in %.3f s (%.0f/s), "
		"%llu ticks late, longest gap %.3f ms, %llu gaps over 1 ms\n",
		(unsigned long long)hz, (unsigned long long)samples,
		(now - t0) / 1e9, samples / ((now - t0) / 1e9),
		(unsigned long long)late, max_gap / 1e6,
		(unsigned long long)gaps_1ms);
	free(buf);
	free(pcs);
	return errors ? fail("%llu samples failed", (unsigned long long)errors)
		      : EXIT_OK;
}

// SPDX-License-Identifier: MIT
/*
 * events.c - API-side events (submit, doorbell, reap) in a bounded
 * per-handle ring.  The clock-sync samples that put them on the
 * device's timebase are clock.c's.
 *
 * A handle is used by one thread (libsacc.h, "Threads"), so the ring
 * has one producer: the hot path reserves a slot, fills it and
 * publishes it with a release store of head, no lock, no system call.
 * One reader may drain it from another thread meanwhile (it publishes
 * tail the same way).  A full ring drops the new event and counts it,
 * like perf's ring buffer: what was recorded stays intact and the loss
 * is never silent.  Off or paused (dev->ev NULL; the ring itself is
 * dev->ev_ring), the hot path pays one branch.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sacc_priv.h"

struct sacc_evring {
	uint32_t mask; /* capacity - 1 */
	/* written by the producer only; the reader loads it with acquire */
	_Alignas(64) uint64_t head;
	uint64_t drops;
	/* written by the reader only; the producer loads it with acquire */
	_Alignas(64) uint64_t tail;
	_Alignas(64) struct sacc_event ev[];
};

/*
 * pid and tid of the calling thread, cached per thread: getpid() and
 * gettid() are system calls, an event must not be one.  A fork()ed
 * child has one thread, the one that forked: its cache is cleared.
 */
static __thread uint32_t tls_pid, tls_tid;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void forget_ids(void)
{
	tls_pid = tls_tid = 0;
}

static void register_atfork(void)
{
	pthread_atfork(NULL, NULL, forget_ids);
}

static void ids_slow(void)
{
	pthread_once(&atfork_once, register_atfork);
	tls_pid = (uint32_t)getpid();
	tls_tid = (uint32_t)syscall(SYS_gettid);
}

/* A slot for one event, or NULL (counted as a drop) if the ring is full. */
static struct sacc_event *slot(struct sacc_dev *dev, uint16_t type, uint64_t t)
{
	struct sacc_evring *r = dev->ev;
	uint64_t h = r->head;
	struct sacc_event *e;

	if (h - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) > r->mask) {
		__atomic_store_n(&r->drops, r->drops + 1, __ATOMIC_RELAXED);
		return NULL;
	}
	if (__builtin_expect(!tls_tid, 0))
		ids_slow();
	e = &r->ev[h & r->mask];
	e->t_ns = t;
	e->pid = tls_pid;
	e->tid = tls_tid;
	e->type = type;
	e->chan = (uint16_t)dev->chan;
	return e;
}

static void publish(struct sacc_dev *dev)
{
	struct sacc_evring *r = dev->ev;

	/* The event's bytes before head: the reader loads head with
	 * acquire and then reads the slot. */
	__atomic_store_n(&r->head, r->head + 1, __ATOMIC_RELEASE);
}

void sacc_ev_submit(struct sacc_dev *dev, uint64_t t, uint32_t req_id,
		    uint16_t opcode, uint32_t len)
{
	struct sacc_event *e = slot(dev, SACC_EV_SUBMIT, t);

	if (!e)
		return;
	e->opcode = opcode;
	e->status = 0;
	e->req_id = req_id;
	e->length = len;
	e->tail = e->count = e->engine_ns = 0;
	publish(dev);
}

void sacc_ev_doorbell(struct sacc_dev *dev, uint64_t t, uint32_t tail,
		      uint32_t count)
{
	struct sacc_event *e = slot(dev, SACC_EV_DOORBELL, t);

	if (!e)
		return;
	e->opcode = e->status = 0;
	e->req_id = e->length = e->engine_ns = 0;
	e->tail = tail;
	e->count = count;
	publish(dev);
}

void sacc_ev_reap(struct sacc_dev *dev, uint64_t t,
		  const struct sacc_result *res)
{
	struct sacc_event *e = slot(dev, SACC_EV_REAP, t);

	if (!e)
		return;
	e->opcode = res->opcode;
	e->status = res->status;
	e->req_id = res->req_id;
	e->length = e->tail = e->count = 0;
	e->engine_ns = res->engine_ns;
	publish(dev);
}

int sacc_events_enable(struct sacc_dev *dev, uint32_t capacity)
{
	struct sacc_evring *r = NULL;
	uint32_t cap = 2;

	if (!dev)
		return sacc_seterr(NULL, EINVAL,
				   "sacc_events_enable: dev is NULL");
	if (capacity > SACC_EVENTS_MAX)
		return sacc_seterr(dev, EINVAL,
				   "sacc_events_enable: %u events is more than "
				   "the %u a ring may hold",
				   capacity, SACC_EVENTS_MAX);
	if (capacity) {
		while (cap < capacity)
			cap <<= 1;
		r = aligned_alloc(64,
				  sizeof(*r) + (size_t)cap * sizeof(r->ev[0]));
		if (!r)
			return sacc_seterr(
			    dev, ENOMEM,
			    "sacc_events_enable: no memory for "
			    "%u events (%zu bytes each); ask for "
			    "fewer",
			    cap, sizeof(r->ev[0]));
		/* every page touched now, not by the hot path's first
		 * lap (a page fault is dear, under TCG more so) */
		memset(r, 0, sizeof(*r) + (size_t)cap * sizeof(r->ev[0]));
		r->mask = cap - 1;
	}
	sacc_events_free(dev);
	dev->ev = dev->ev_ring = r;
	return 0;
}

int sacc_events_pause(struct sacc_dev *dev, bool paused)
{
	if (!dev)
		return sacc_seterr(NULL, EINVAL,
				   "sacc_events_pause: dev is NULL");
	if (!dev->ev_ring)
		return sacc_seterr(dev, ENOENT,
				   "sacc_events_pause: recording is off on %s "
				   "channel %u; sacc_events_enable() first",
				   dev->bdf, dev->chan);
	dev->ev = paused ? NULL : dev->ev_ring;
	return 0;
}

void sacc_events_free(struct sacc_dev *dev)
{
	free(dev->ev_ring);
	dev->ev = dev->ev_ring = NULL;
}

unsigned int sacc_events_read(struct sacc_dev *dev, struct sacc_event *out,
			      unsigned int max)
{
	struct sacc_evring *r = dev ? dev->ev_ring : NULL;
	uint64_t h, t;
	unsigned int n = 0;

	if (!r || !out)
		return 0;
	h = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	t = r->tail;
	while (t != h && n < max)
		out[n++] = r->ev[t++ & r->mask];
	/* Our reads of the slots before the producer may reuse them. */
	__atomic_store_n(&r->tail, t, __ATOMIC_RELEASE);
	return n;
}

uint64_t sacc_events_drops(const struct sacc_dev *dev)
{
	return dev && dev->ev_ring
		   ? __atomic_load_n(&dev->ev_ring->drops, __ATOMIC_RELAXED)
		   : 0;
}

uint32_t sacc_events_capacity(const struct sacc_dev *dev)
{
	return dev && dev->ev_ring ? dev->ev_ring->mask + 1 : 0;
}

uint32_t sacc_events_pending(const struct sacc_dev *dev)
{
	const struct sacc_evring *r = dev ? dev->ev_ring : NULL;

	if (!r)
		return 0;
	return (uint32_t)(__atomic_load_n(&r->head, __ATOMIC_ACQUIRE) -
			  __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE));
}

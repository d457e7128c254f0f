// SPDX-License-Identifier: MIT
/*
 * events.c - libsacc's API events (events.c): what is recorded, the ring
 * wrapping with drops counted, a reader beside the producers
 */
#include <pthread.h>

#include "fake_dev.h"

/* Read every pending event of @dev into @ev (at most @max). */
static unsigned int ev_drain(struct sacc_dev *dev, struct sacc_event *ev,
			     unsigned int max)
{
	unsigned int n = 0, k;

	while (n < max && (k = sacc_events_read(dev, ev + n, max - n)) > 0)
		n += k;
	return n;
}

static void nop_round_trip(struct sacc_dev *dev)
{
	struct sacc_op nop = {.opcode = SACC_OP_NOP};
	struct sacc_result r;

	ck_assert_int_eq(sacc_submit(dev, &nop, 1), 1);
	ck_assert_int_eq(reap_all(dev, &r, 1), 1);
}

/* Off by default; on: one submit per op, one doorbell per batch, one
 * reap per completion, in order, with the caller's pid and tid. */
START_TEST(test_events_record)
{
	struct sacc_dev *dev = fake_open(16, 16);
	struct sacc_buf *src, *dst;
	struct sacc_event ev[64];
	struct sacc_result r[8];
	struct sacc_op ops[3];
	struct sacc_chain *chain;
	struct sacc_desc d = {0};
	uint32_t id0;
	unsigned int n, i;

	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "src", &src), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "dst", &dst), 0);
	/* off: nothing recorded, nothing to read */
	nop_round_trip(dev);
	ck_assert_uint_eq(sacc_events_capacity(dev), 0);
	ck_assert_uint_eq(sacc_events_read(dev, ev, 64), 0);
	ck_assert_ptr_null(dev->ev);

	ck_assert_int_eq(sacc_events_enable(dev, 60), 0);
	ck_assert_uint_eq(sacc_events_capacity(dev), 64);
	ops[0] = (struct sacc_op){.opcode = SACC_OP_NOP};
	ops[1] = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 100, .src = src, .dst = dst};
	ops[2] = (struct sacc_op){
	    .opcode = SACC_OP_XFORM, .len = 4096, .src = src, .dst = dst};
	id0 = dev->next_req_id;
	ck_assert_int_eq(sacc_submit(dev, ops, 3), 3);
	ck_assert_uint_eq(sacc_events_pending(dev), 4);
	ck_assert_int_eq(reap_all(dev, r, 3), 3);
	n = ev_drain(dev, ev, 64);
	ck_assert_uint_eq(n, 7);
	for (i = 0; i < 3; i++) {
		ck_assert_uint_eq(ev[i].type, SACC_EV_SUBMIT);
		ck_assert_uint_eq(ev[i].req_id, id0 + i);
		ck_assert_uint_eq(ev[i].opcode, ops[i].opcode);
		ck_assert_uint_eq(ev[i].length, i ? ops[i].len : 0);
		ck_assert_uint_eq(ev[i].t_ns, ev[0].t_ns);
		ck_assert_uint_eq(ev[i].pid, (uint32_t)getpid());
		ck_assert_uint_eq(ev[i].tid, (uint32_t)gettid());
		ck_assert_uint_eq(ev[i].chan, 0);
	}
	ck_assert_uint_eq(ev[3].type, SACC_EV_DOORBELL);
	ck_assert_uint_eq(ev[3].count, 3);
	ck_assert_uint_eq(ev[3].tail, dev->db[0]);
	ck_assert_uint_eq(ev[3].t_ns, ev[0].t_ns); /* one read a batch */
	for (i = 4; i < 7; i++) {
		ck_assert_uint_eq(ev[i].type, SACC_EV_REAP);
		ck_assert_uint_eq(ev[i].req_id, id0 + i - 4);
		ck_assert_uint_eq(ev[i].req_id, r[i - 4].req_id);
		ck_assert_uint_eq(ev[i].opcode, ops[i - 4].opcode);
		ck_assert_uint_eq(ev[i].status, SACC_STS_OK);
		ck_assert_uint_ge(ev[i].t_ns, ev[3].t_ns);
	}
	ck_assert_uint_eq(sacc_events_pending(dev), 0);

	/* raw submits and chains are recorded too */
	d.opcode = SACC_OP_NOP;
	ck_assert_int_gt(sacc_submit_raw(dev, &d), 0);
	ck_assert_int_eq(sacc_chain_create(dev, ops, 2, &chain), 0);
	ck_assert_int_eq(sacc_chain_launch(chain), 2);
	ck_assert_int_eq(reap_all(dev, r, 3), 3);
	n = ev_drain(dev, ev, 64);
	ck_assert_uint_eq(n, 2 + 3 + 3);
	ck_assert_uint_eq(ev[0].type, SACC_EV_SUBMIT);
	ck_assert_uint_eq(ev[1].type, SACC_EV_DOORBELL);
	ck_assert_uint_eq(ev[1].count, 1);
	ck_assert_uint_eq(ev[2].type, SACC_EV_SUBMIT);
	ck_assert_uint_eq(ev[3].type, SACC_EV_SUBMIT);
	ck_assert_uint_eq(ev[3].req_id, ev[2].req_id + 1);
	ck_assert_uint_eq(ev[4].type, SACC_EV_DOORBELL);
	ck_assert_uint_eq(ev[4].count, 2);
	for (i = 5; i < 8; i++)
		ck_assert_uint_eq(ev[i].type, SACC_EV_REAP);
	ck_assert_uint_eq(ev[5].req_id, ev[0].req_id);
	sacc_chain_free(chain);
	ck_assert_uint_eq(sacc_events_drops(dev), 0);

	/* the clock sync needs MODE.V3, which the stand-in is not */
	{
		struct sacc_clock_sample cs;

		ck_assert_int_eq(sacc_clock_sync(dev, 100, &cs), -ENOTSUP);
		ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "MODE.V3"));
	}
	/* off again: freed, nothing recorded */
	ck_assert_int_eq(sacc_events_enable(dev, 0), 0);
	ck_assert_int_eq(sacc_events_pause(dev, false), -ENOENT);
	nop_round_trip(dev);
	ck_assert_uint_eq(sacc_events_read(dev, ev, 64), 0);
	ck_assert_int_eq(sacc_events_enable(dev, SACC_EVENTS_MAX + 1),
			 -EINVAL);
	ck_assert_int_eq(sacc_events_enable(dev, 8), 0);
	fake_close(dev); /* frees the ring (ASan would say) */
}
END_TEST

/* A small ring wraps many times in order; full, it keeps the oldest
 * events, counts every one it could not take, and goes on once read. */
START_TEST(test_events_wrap_drops)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_event ev[16];
	uint32_t last = 0;
	unsigned int n;

	ck_assert_int_eq(sacc_events_enable(dev, 3), 0);
	ck_assert_uint_eq(sacc_events_capacity(dev), 4);
	for (int round = 0; round < 50; round++) {
		nop_round_trip(dev);
		n = ev_drain(dev, ev, 16);
		ck_assert_uint_eq(n, 3);
		ck_assert_uint_eq(ev[0].type, SACC_EV_SUBMIT);
		ck_assert_uint_eq(ev[1].type, SACC_EV_DOORBELL);
		ck_assert_uint_eq(ev[2].type, SACC_EV_REAP);
		ck_assert_uint_eq(ev[2].req_id, ev[0].req_id);
		ck_assert_uint_gt(ev[0].req_id, last);
		ck_assert_uint_le(ev[0].t_ns, ev[1].t_ns);
		ck_assert_uint_le(ev[1].t_ns, ev[2].t_ns);
		last = ev[0].req_id;
	}
	ck_assert_uint_eq(sacc_events_drops(dev), 0);
	/* two round trips, nobody reading: 6 events into 4 slots */
	nop_round_trip(dev);
	nop_round_trip(dev);
	ck_assert_uint_eq(sacc_events_pending(dev), 4);
	ck_assert_uint_eq(sacc_events_drops(dev), 2);
	n = ev_drain(dev, ev, 16);
	ck_assert_uint_eq(n, 4); /* the oldest four, intact */
	ck_assert_uint_eq(ev[0].type, SACC_EV_SUBMIT);
	ck_assert_uint_eq(ev[0].req_id, last + 1);
	ck_assert_uint_eq(ev[2].type, SACC_EV_REAP);
	ck_assert_uint_eq(ev[3].type, SACC_EV_SUBMIT);
	ck_assert_uint_eq(ev[3].req_id, last + 2);
	/* room again: recording goes on, the count stays */
	nop_round_trip(dev);
	ck_assert_uint_eq(ev_drain(dev, ev, 16), 3);
	ck_assert_uint_eq(ev[0].req_id, last + 3);
	ck_assert_uint_eq(sacc_events_drops(dev), 2);
	/* paused: nothing recorded, nothing lost; resumed: recording */
	ck_assert_int_eq(sacc_events_pause(dev, true), 0);
	nop_round_trip(dev);
	ck_assert_uint_eq(sacc_events_pending(dev), 0);
	ck_assert_uint_eq(sacc_events_capacity(dev), 4);
	ck_assert_uint_eq(sacc_events_drops(dev), 2);
	ck_assert_int_eq(sacc_events_pause(dev, false), 0);
	nop_round_trip(dev);
	ck_assert_uint_eq(ev_drain(dev, ev, 16), 3);
	ck_assert_uint_eq(ev[0].req_id, last + 5);
	/* a new ring starts empty and uncounted */
	ck_assert_int_eq(sacc_events_enable(dev, 16), 0);
	ck_assert_uint_eq(sacc_events_drops(dev), 0);
	ck_assert_uint_eq(sacc_events_pending(dev), 0);
	fake_close(dev);
}
END_TEST

struct ev_producer {
	struct sacc_dev *dev;
	int rounds;
	volatile int done;
};

static void *ev_produce(void *arg)
{
	struct ev_producer *p = arg;
	struct sacc_op nop = {.opcode = SACC_OP_NOP};
	struct sacc_result r[4];
	int got;

	for (int i = 0; i < p->rounds; i++) {
		if (sacc_submit(p->dev, &nop, 1) != 1)
			break;
		got = 0;
		while (got < 1) {
			dev_run(1u << 20);
			got += sacc_poll(p->dev, r, 4);
		}
	}
	__atomic_store_n(&p->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The handle's thread records while another thread reads: every event
 * is read exactly once or counted as dropped, in order. */
START_TEST(test_events_concurrent_reader)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct ev_producer p = {.dev = dev, .rounds = 20000};
	struct sacc_event ev[64];
	uint64_t got = 0, last_t = 0;
	uint32_t last_submit = 0;
	pthread_t th;
	unsigned int n;
	int done;

	ck_assert_int_eq(sacc_events_enable(dev, 64), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, ev_produce, &p), 0);
	do {
		done = __atomic_load_n(&p.done, __ATOMIC_ACQUIRE);
		while ((n = sacc_events_read(dev, ev, 64)) > 0) {
			for (unsigned int i = 0; i < n; i++) {
				ck_assert_uint_ge(ev[i].t_ns, last_t);
				last_t = ev[i].t_ns;
				ck_assert(ev[i].type >= SACC_EV_SUBMIT &&
					  ev[i].type <= SACC_EV_REAP);
				if (ev[i].type != SACC_EV_SUBMIT)
					continue;
				ck_assert_uint_gt(ev[i].req_id, last_submit);
				last_submit = ev[i].req_id;
			}
			got += n;
		}
	} while (!done);
	pthread_join(th, NULL);
	got += ev_drain(dev, ev, 64);
	ck_assert_uint_eq(got + sacc_events_drops(dev), 3ull * 20000);
	fake_close(dev);
}
END_TEST

void event_tests(Suite *s)
{
	TCase *tc = tcase_create("events");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_events_record);
	tcase_add_test(tc, test_events_wrap_drops);
	tcase_add_test(tc, test_events_concurrent_reader);
	suite_add_tcase(s, tc);
}

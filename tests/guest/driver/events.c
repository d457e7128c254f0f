// SPDX-License-Identifier: MIT
/*
 * events.c - libsacc's API events and the clock sync (docs/telemetry.md)
 */
#include <sys/syscall.h>

#include "driver.h"

/*
 * A small run on a MODE.V3 channel with events on, between two clock
 * sync samples: one submit and one reap per operation, the reap after
 * the submit, doorbells that cover every submit, engine time on every
 * reap; and the device clock moved between the samples by what the
 * guest clock allows.  No timing thresholds: only order and causality.
 */
START_TEST(events_and_sync)
{
	enum { NOPS = 24, MAXEV = 512 };
	static struct sacc_event ev[MAXEV];
	struct sacc_clock_sample s0, s1;
	struct sacc_result r[8];
	struct sacc_dev *dev, *ch;
	struct sacc_buf *src, *dst;
	uint32_t sub_at[NOPS + 2], reap_at[NOPS + 2], req[NOPS + 2];
	uint64_t sub_t[NOPS + 2];
	unsigned int n = 0, k, nsub = 0, nreap = 0, dbsum = 0, nts = 0;
	struct sacc_op ops[4];
	uint8_t data[64];
	int ret;

	BEGIN();
	dev = guest_open(0, NULL);
	ch = open_chan(dev, 2, SACC_DOORBELL_MMAP, 64);
	src = guest_buf(ch, 4096, SACC_DMA_TO_DEVICE, "ev src");
	dst = guest_buf(ch, 4096, SACC_DMA_FROM_DEVICE, "ev dst");
	memset(data, 0x5a, sizeof(data));
	/* a v0.2 handle has no TIMESTAMP */
	ret = sacc_clock_sync(dev, 1000, &s0);
	ck_assert_int_eq(ret, -ENOTSUP);
	ck_assert_uint_eq(sacc_events_capacity(ch), 0);
	ck_assert_int_eq(sacc_events_enable(ch, MAXEV), 0);

	ret = sacc_clock_sync(ch, REAP_TIMEOUT_MS, &s0);
	ck_assert_msg(ret == 0, "clock sync: %d: %s", ret, sacc_errmsg(ch));
	/* 20 single ops (memcpy, inline, nop), then one batch of 4 */
	for (int i = 0; i < 20; i++) {
		struct sacc_op op = {.opcode = SACC_OP_MEMCPY,
				     .len = 4096,
				     .src = src,
				     .dst = dst};

		if (i % 3 == 1)
			op = (struct sacc_op){.opcode = SACC_OP_WRITE_INLINE,
					      .len = sizeof(data),
					      .dst = dst,
					      .data = data};
		else if (i % 3 == 2)
			op = (struct sacc_op){.opcode = SACC_OP_NOP};
		ck_assert_int_eq(sacc_submit(ch, &op, 1), 1);
		reap_n(ch, r, 1);
		ck_assert_uint_eq(r[0].status, SACC_STS_OK);
	}
	for (int i = 0; i < 4; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
					  .len = 1024,
					  .src = src,
					  .src_off = (size_t)i * 1024,
					  .dst = dst,
					  .dst_off = (size_t)i * 1024};
	ck_assert_int_eq(sacc_submit(ch, ops, 4), 4);
	reap_n(ch, r, 4);
	ret = sacc_clock_sync(ch, REAP_TIMEOUT_MS, &s1);
	ck_assert_msg(ret == 0, "clock sync: %d: %s", ret, sacc_errmsg(ch));
	/* busy: the sync refuses to eat other results */
	ck_assert_int_eq(sacc_submit(ch, ops, 1), 1);
	ck_assert_int_eq(sacc_clock_sync(ch, REAP_TIMEOUT_MS, &s0) == -EBUSY,
			 1);
	reap_n(ch, r, 1);

	while ((k = sacc_events_read(ch, ev + n, MAXEV - n)) > 0)
		n += k;
	ck_assert_uint_eq(sacc_events_drops(ch), 0);
	/* 24 ops + 2 timestamps + the busy check's op */
	for (unsigned int i = 0; i < n; i++) {
		const struct sacc_event *e = &ev[i];

		ck_assert_uint_eq(e->pid, (uint32_t)getpid());
		ck_assert_uint_eq(e->tid, (uint32_t)syscall(SYS_gettid));
		ck_assert_uint_eq(e->chan, 2);
		if (i)
			ck_assert_uint_ge(e->t_ns, ev[i - 1].t_ns);
		if (e->type == SACC_EV_SUBMIT) {
			ck_assert_uint_lt(nsub, NOPS + 2 + 1);
			if (nsub < NOPS + 2) {
				req[nsub] = e->req_id;
				sub_at[nsub] = i;
				sub_t[nsub] = e->t_ns;
			}
			nsub++;
			nts += e->opcode == SACC_OP_TIMESTAMP;
		} else if (e->type == SACC_EV_DOORBELL) {
			ck_assert_uint_ge(e->count, 1);
			dbsum += e->count;
		} else {
			ck_assert_uint_eq(e->type, SACC_EV_REAP);
			ck_assert_uint_eq(e->status, SACC_STS_OK);
			ck_assert_msg(e->engine_ns > 0,
				      "reap of req_id %u: engine_ns 0 on a "
				      "MODE.V3 channel",
				      e->req_id);
			/* its submit came first */
			for (k = 0; k < nsub && k < NOPS + 2; k++)
				if (req[k] == e->req_id)
					break;
			if (nsub > NOPS + 2 && k == NOPS + 2)
				continue; /* the busy check's op */
			ck_assert_msg(k < nsub, "reap of req_id %u before its "
						"submit",
				      e->req_id);
			ck_assert_uint_gt(i, sub_at[k]);
			ck_assert_uint_ge(e->t_ns, sub_t[k]);
			reap_at[k] = i;
			nreap++;
		}
	}
	ck_assert_uint_eq(nsub, NOPS + 2 + 1);
	ck_assert_uint_eq(nreap, NOPS + 2);
	ck_assert_uint_eq(dbsum, nsub); /* every submit under a doorbell */
	ck_assert_uint_eq(nts, 2);
	for (k = 1; k < NOPS + 2; k++) /* one reap each, in ring order */
		ck_assert_uint_gt(reap_at[k], reap_at[k - 1]);

	/* the sync samples: before < after, and the device clock moved
	 * between them by what the guest clock allows (causality: each
	 * TIMESTAMP happened inside its round trip), widened by 1000 ppm
	 * for the two clocks' NTP slew (Linux slews at most 500 ppm) */
	ck_assert_uint_lt(s0.guest_before_ns, s0.guest_after_ns);
	ck_assert_uint_lt(s1.guest_before_ns, s1.guest_after_ns);
	ck_assert_uint_gt(s0.device_ns, 0);
	ck_assert_uint_gt(s1.device_ns, s0.device_ns);
	ck_assert_uint_ge(s1.guest_before_ns, s0.guest_after_ns);
	{
		uint64_t dd = s1.device_ns - s0.device_ns;
		uint64_t lo = s1.guest_before_ns - s0.guest_after_ns;
		uint64_t hi = s1.guest_after_ns - s0.guest_before_ns;
		uint64_t slew = hi / 1000;

		ck_assert_msg(dd + slew >= lo && dd <= hi + slew,
			      "device clock moved %" PRIu64 " ns between "
			      "the samples, the guest saw %" PRIu64
			      "..%" PRIu64 " ns",
			      dd, lo, hi);
	}
	ck_assert_int_eq(sacc_events_enable(ch, 0), 0);
	ck_assert_uint_eq(sacc_events_capacity(ch), 0);
	sacc_close(dev);
}
END_TEST

void event_tests(Suite *s)
{
	TCase *tc = driver_tcase(s, "events");

	tcase_add_test(tc, events_and_sync);
}

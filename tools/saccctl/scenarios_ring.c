// SPDX-License-Identifier: MIT
/*
 * scenarios_ring.c - saccctl inject's ring attacks: the submission ring
 * in unmapped memory, the completion ring mapped read-only, and the v0.3
 * token doorbell's PUT word at an unmapped IOVA.  The device stops
 * (fatal); recovery resets it.  Also v0.3's per-descriptor WRITE_INLINE
 * and TIMESTAMP attacks, which need a MODE.V3 handle.
 */
#include <inttypes.h>
#include <time.h>

#include "scenarios.h"

/* ---- ring scenarios: the device stops (fatal), recovery resets it ---- */

static int reprogram(struct inj *s, uint32_t reg, uint64_t val)
{
	uint32_t st = 0;

	sacc_reg_write(s->dev, SACC_REG_CTRL, 0);
	sacc_reg_write(s->dev, reg, (uint32_t)val);
	sacc_reg_write(s->dev, reg + 4, (uint32_t)(val >> 32));
	sacc_reg_write(s->dev, SACC_REG_CTRL, SACC_CTRL_ENABLE);
	sacc_reg_read(s->dev, SACC_REG_STATUS, &st);
	if (!(st & SACC_STATUS_READY))
		return inj_fail(s,
				"re-enable after moving the ring failed "
				"(STATUS 0x%x)",
				st);
	inj_say(s, "ring register 0x%02x now 0x%" PRIx64 ", device enabled",
		reg, val);
	return 0;
}

static void ring_blocked(struct inj *s, uint32_t access, uint32_t req_id)
{
	uint32_t st = 0, err = 0, info = 0, req = 0;
	int stopped = inj_wait_stopped(s, 2000);

	inj_device_state(s, s->dev);
	sacc_reg_read(s->dev, SACC_REG_STATUS, &st);
	sacc_reg_read(s->dev, SACC_REG_ERR_CODE, &err);
	sacc_reg_read(s->dev, SACC_REG_FAULT_INFO, &info);
	sacc_reg_read(s->dev, SACC_REG_FAULT_REQ_ID, &req);
	s->blocked = stopped && (st & SACC_STATUS_ERROR) &&
		     err == SACC_ERR_DMA &&
		     (info & SACC_FAULT_ACCESS_MASK) == access && req == req_id;
	if (!s->blocked)
		inj_why(s,
			"expected the fatal ring error (STATUS.ERROR, ERR_CODE "
			"2, access %u, req_id %u): %s",
			access, req_id, s->device_state);
}

int sc_sq_unmapped(struct inj *s)
{
	const uint64_t sq = INJ_NEVER_MAPPED + 0x100000;
	struct std b;

	if (std_setup(s, &b, true) || never_mapped(s, sq) ||
	    reprogram(s, SACC_REG_SQ_BASE, sq))
		return -1;
	snprintf(s->note, sizeof(s->note),
		 "SQ_BASE at unmapped 0x%" PRIx64 ": descriptor fetch faults, "
		 "device stops",
		 sq);
	/* one descriptor's worth of tail: the fetch of slot 0 */
	sacc_reg_write(s->dev, SACC_DOORBELL_OFFSET, 1);
	inj_say(s, "doorbell: tail 1, the device fetches slot 0 at 0x%" PRIx64,
		sq);
	ring_blocked(s, SACC_FAULT_DESC_FETCH, 0);
	inj_expect(s, 0, sq, SACC_FAULT_DESC_FETCH, true);
	return 0;
}

int sc_cq_readonly(struct inj *s)
{
	struct sacc_desc nop = {.opcode = SACC_OP_NOP};
	struct sacc_buf *cq;
	struct std b;
	int id;

	if (std_setup(s, &b, true) ||
	    inj_buf(s, 4 * KiB, SACC_DMA_TO_DEVICE, "cq (mapped read-only)", 8,
		    true, &cq) ||
	    reprogram(s, SACC_REG_CQ_BASE, sacc_buf_iova(cq)))
		return -1;
	snprintf(s->note, sizeof(s->note),
		 "CQ_BASE on a read-only mapping: the completion write faults, "
		 "device stops");
	id = inj_submit(s, &nop, "-", "-");
	if (id < 0)
		return -1;
	ring_blocked(s, SACC_FAULT_CQ_WRITE, (uint32_t)id);
	inj_expect(s, (uint32_t)id, sacc_buf_iova(cq), SACC_FAULT_CQ_WRITE,
		   true);
	return 0;
}

/* ---- v0.3: the token doorbell's PUT word, inline writes, timestamps ---- */

/* Wait until @dev (a channel) reports itself stopped. */
static bool chan_stopped(struct inj *s, struct sacc_dev *dev, int timeout_ms)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;
	struct timespec ts = {0, 1000000};

	while (!sacc_check(dev)) {
		if (now_ns() > deadline)
			return false;
		nanosleep(&ts, NULL);
	}
	inj_say(s, "channel %u stopped: %s", sacc_dev_channel(dev),
		sacc_errmsg(dev));
	return true;
}

int sc_token_put_unmapped(struct inj *s)
{
	const struct sacc_open_opts tok = {.doorbell = SACC_DOORBELL_PUT_TOKEN};
	const uint64_t put = INJ_NEVER_MAPPED + 0x300000;
	struct sacc_desc nop = {.opcode = SACC_OP_NOP};
	uint32_t st = 0, err = 0, info = 0, req = 0, lo = 0, hi = 0;
	struct sacc_dev *ch, *other;
	char what[256];
	bool stopped;
	struct std b;
	int id;

	if (std_setup(s, &b, true) || never_mapped(s, put))
		return -1;
	if (sacc_dev_channels(s->dev) < 3)
		return inj_fail(
		    s, "needs 3 channels (a v0.3 device), %s has %u",
		    sacc_dev_bdf(s->dev), sacc_dev_channels(s->dev));
	if (sacc_chan_open(s->dev, 1, &tok, &ch))
		return inj_fail(s, "opening channel 1 (token doorbell): %s",
				sacc_errmsg(s->dev));
	if (sacc_chan_open(s->dev, 2, NULL, &other))
		return inj_fail(s, "opening channel 2: %s",
				sacc_errmsg(s->dev));
	s->ring_dev = ch;
	inj_say(s,
		"channel 1: MODE.TOKEN, its PUT word 'ch1:put word' at "
		"0x%" PRIx64 "; channel 2: tail doorbell",
		sacc_dev_put_iova(ch));
	/* PUT_ADDR is a ring register: locked while enabled */
	sacc_reg_write(ch, SACC_REG_CTRL, 0);
	sacc_reg_write(ch, SACC_REG_PUT_ADDR, (uint32_t)put);
	sacc_reg_write(ch, SACC_REG_PUT_ADDR + 4, (uint32_t)(put >> 32));
	sacc_reg_write(ch, SACC_REG_CTRL, SACC_CTRL_ENABLE);
	sacc_reg_read(ch, SACC_REG_STATUS, &st);
	if (!(st & SACC_STATUS_READY))
		return inj_fail(s,
				"channel 1: re-enable after moving PUT_ADDR "
				"failed (STATUS 0x%x)",
				st);
	inj_say(s, "channel 1: PUT_ADDR now 0x%" PRIx64 " (never mapped)", put);
	snprintf(s->note, sizeof(s->note),
		 "PUT_ADDR at unmapped 0x%" PRIx64 ": the PUT read faults, "
		 "channel 1 stops, 0 and 2 run on",
		 put);
	/* a NOP through the token doorbell: the device reads the PUT word */
	id = sacc_submit_raw(ch, &nop);
	if (id < 0)
		return inj_fail(s, "sacc_submit_raw on channel 1: %s",
				sacc_errmsg(ch));
	inj_say(s,
		"token doorbell: channel 1, NOP req_id %d; the device reads "
		"the PUT word at 0x%" PRIx64,
		id, put);
	stopped = chan_stopped(s, ch, 2000);
	inj_device_state(s, ch);
	sacc_reg_read(ch, SACC_REG_STATUS, &st);
	sacc_reg_read(ch, SACC_REG_ERR_CODE, &err);
	sacc_reg_read(ch, SACC_REG_FAULT_INFO, &info);
	sacc_reg_read(ch, SACC_REG_FAULT_REQ_ID, &req);
	sacc_reg_read(ch, SACC_REG_FAULT_ADDR, &lo);
	sacc_reg_read(ch, SACC_REG_FAULT_ADDR + 4, &hi);
	s->blocked = stopped && (st & SACC_STATUS_ERROR) &&
		     err == SACC_ERR_DMA &&
		     (info & SACC_FAULT_ACCESS_MASK) == SACC_FAULT_PUT_READ &&
		     !(info & SACC_FAULT_IS_WRITE) && req == 0 &&
		     ((uint64_t)hi << 32 | lo) == put;
	if (!s->blocked)
		inj_why(s,
			"expected channel 1's fatal ring error (STATUS.ERROR, "
			"ERR_CODE 2, access put_read, req_id 0, FAULT_ADDR "
			"0x%" PRIx64 "): %s",
			put, s->device_state);
	/* the fault is channel 1's alone */
	if (sacc_check(s->dev) ||
	    inj_memcpy_ok(s, s->dev, 4 * KiB, what, sizeof(what))) {
		s->blocked = false;
		inj_why(s, "channel 0 did not keep running: %s",
			sacc_check(s->dev) ? sacc_errmsg(s->dev) : what);
	} else {
		inj_say(s, "channel 0 runs on: %s", what);
	}
	if (inj_memcpy_ok(s, other, 4 * KiB, what, sizeof(what))) {
		s->blocked = false;
		inj_why(s, "channel 2 did not keep running: %s", what);
	} else {
		inj_say(s, "channel 2 runs on: %s", what);
	}
	inj_expect(s, 0, put, SACC_FAULT_PUT_READ, true);
	return 0;
}

int sc_inline_dst_readonly(struct inj *s)
{
	struct sacc_desc d = {.opcode = SACC_OP_WRITE_INLINE, .length = 256};
	uint8_t payload[256];
	struct sacc_buf *ro;
	struct std b;

	if (std_setup(s, &b, true) ||
	    inj_buf(s, 4 * KiB, SACC_DMA_TO_DEVICE, "ro (device may only read)",
		    5, true, &ro))
		return -1;
	fill_pattern(payload, sizeof(payload), 13);
	d.dst = sacc_buf_iova(ro);
	snprintf(s->note, sizeof(s->note),
		 "WRITE_INLINE of 256 bytes into a buffer mapped read-only: "
		 "fault, 'ro' unchanged");
	return reap_blocked(s,
			    inj_submit_inline(s, &d, payload,
					      "256 bytes inline in the SQ",
					      "'ro', mapped read-only"),
			    sacc_buf_iova(ro), SACC_FAULT_DST_WRITE);
}

int sc_timestamp_dst_unmapped(struct inj *s)
{
	struct sacc_desc d = {.opcode = SACC_OP_TIMESTAMP,
			      .dst = INJ_NEVER_MAPPED};
	struct std b;

	if (std_setup(s, &b, true) || never_mapped(s, INJ_NEVER_MAPPED))
		return -1;
	snprintf(s->note, sizeof(s->note),
		 "TIMESTAMP to IOVA 0x%llx, mapped by nobody: fault, nothing "
		 "written",
		 INJ_NEVER_MAPPED);
	return reap_blocked(
	    s, inj_submit(s, &d, "- (the device clock)", "never mapped"),
	    INJ_NEVER_MAPPED, SACC_FAULT_DST_WRITE);
}

// SPDX-License-Identifier: MIT
/*
 * clock.c - the device's clock: CLOCK read from BAR2 (sacc_dev_clock),
 * and a clock-sync sample (sacc_clock_sync): one TIMESTAMP round trip
 * between two reads of the CPU's clock, which ties the device's
 * timebase (engine times, TIMESTAMP results) to the guest's (API events,
 * events.c).  docs/telemetry.md says how the two are joined.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "sacc_mmio.h"
#include "sacc_priv.h"

uint64_t sacc_dev_clock(struct sacc_dev *dev)
{
	struct sacc_dev *root = dev ? (dev->root ? dev->root : dev) : NULL;
	uint64_t lo, hi, hi2;

	if (!root || !root->bar2_map)
		return 0;
	/* Two halves; re-read if the high word moved. */
	do {
		hi = sacc_mmio_read32(root->bar2_map, SACC_DEV_CLOCK + 4);
		lo = sacc_mmio_read32(root->bar2_map, SACC_DEV_CLOCK);
		hi2 = sacc_mmio_read32(root->bar2_map, SACC_DEV_CLOCK + 4);
	} while (hi != hi2);
	return hi << 32 | lo;
}

int sacc_clock_sync(struct sacc_dev *dev, int timeout_ms,
		    struct sacc_clock_sample *out)
{
	struct sacc_op op = {.opcode = SACC_OP_TIMESTAMP};
	struct sacc_result res;
	uint64_t before = 0, after, deadline, v;
	int ret;

	ret = sacc_queue_ready(dev, "sacc_clock_sync");
	if (ret)
		return ret;
	if (!out)
		return sacc_seterr(dev, EINVAL, "sacc_clock_sync: out is NULL");
	if (!(dev->mode & SACC_MODE_V3))
		return sacc_seterr(dev, ENOTSUP,
				   "sacc_clock_sync: %s channel %u is not "
				   "MODE.V3 (no TIMESTAMP): use a channel from "
				   "sacc_chan_open(), or sacc_open() with "
				   "SACC_OPEN_V3",
				   dev->bdf, dev->chan);
	if (sacc_outstanding(dev))
		return sacc_seterr(dev, EBUSY,
				   "sacc_clock_sync: %u operations are "
				   "outstanding on %s channel %u; reap them "
				   "first (the TIMESTAMP is a fence, and its "
				   "result must not be mixed with theirs)",
				   sacc_outstanding(dev), dev->bdf, dev->chan);
	if (!dev->sync_buf) {
		ret = sacc_buf_alloc_internal(
		    dev, SACC_TIMESTAMP_LEN, SACC_DMA_FROM_DEVICE, "clock sync",
		    true, &dev->sync_buf);
		if (ret)
			return ret;
	}
	memset(sacc_buf_va(dev->sync_buf), 0, SACC_TIMESTAMP_LEN);
	op.dst = dev->sync_buf;
	ret = sacc_queue_push(dev, &op, 1, &before);
	if (ret < 0)
		return ret;
	if (ret == 0) /* cannot happen: nothing is outstanding */
		return sacc_seterr(dev, EAGAIN, "sacc_clock_sync: SQ full");
	deadline =
	    before + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms) * 1000000;
	for (;;) {
		ret = sacc_poll(dev, &res, 1);
		if (ret < 0)
			return ret;
		after = sacc_monotonic_ns();
		if (ret == 1)
			break;
		if (after >= deadline)
			return sacc_seterr(dev, ETIMEDOUT,
					   "sacc_clock_sync: no TIMESTAMP "
					   "completion on %s channel %u within "
					   "%d ms; it is still outstanding: "
					   "reap it with sacc_poll() or "
					   "sacc_reset()",
					   dev->bdf, dev->chan, timeout_ms);
	}
	if (res.status != SACC_STS_OK)
		return sacc_seterr(dev, EIO,
				   "sacc_clock_sync: TIMESTAMP completed with "
				   "status %u (%s)",
				   res.status, sacc_status_str(res.status));
	memcpy(&v, sacc_buf_va(dev->sync_buf), sizeof(v));
	out->guest_before_ns = before;
	out->guest_after_ns = after;
	out->device_ns = le64toh(v);
	out->chan = dev->chan;
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * write.c - sacc_write(): bytes from the caller's memory to a buffer,
 * inline in the SQ (WRITE_INLINE, MODE.V3, up to 4 KiB) or staged in an
 * internal buffer and copied by DMA (MEMCPY), whichever the crossover
 * says is faster for the size.
 */
#include <errno.h>
#include <string.h>

#include "sacc_mmio.h"
#include "sacc_priv.h"

#define SACC_STAGE_BYTES SACC_MAX_XFER

void sacc_set_write_crossover(struct sacc_dev *dev, uint32_t bytes)
{
	if (dev)
		dev->inline_max =
		    bytes > SACC_INLINE_MAX ? SACC_INLINE_MAX : bytes;
}

uint32_t sacc_write_crossover(const struct sacc_dev *dev)
{
	return dev ? dev->inline_max : 0;
}

/* Room for @len bytes in the staging buffer, allocated at first use:
 * used as a ring, restarting at 0 only when nothing staged is in
 * flight, so a write never overwrites bytes the device may still read. */
static int stage(struct sacc_dev *dev, const void *data, uint32_t len,
		 size_t *off)
{
	int ret;

	if (!dev->stage) {
		ret = sacc_buf_alloc_internal(
		    dev, SACC_STAGE_BYTES, SACC_DMA_TO_DEVICE, "write staging",
		    true, &dev->stage);
		if (ret)
			return ret;
		dev->stage_pos = 0;
	}
	if (!dev->stage->inflight)
		dev->stage_pos = 0;
	if (len > SACC_STAGE_BYTES - dev->stage_pos)
		return sacc_seterr(dev, EAGAIN,
				   "sacc_write: the %u KiB staging buffer has "
				   "no room for %u bytes until earlier DMA "
				   "writes are reaped: sacc_poll() and retry",
				   SACC_STAGE_BYTES / 1024, len);
	memcpy((char *)sacc_buf_va(dev->stage) + dev->stage_pos, data, len);
	*off = dev->stage_pos;
	return 0;
}

int sacc_write(struct sacc_dev *dev, struct sacc_buf *dst, size_t dst_off,
	       const void *data, uint32_t len, enum sacc_write_mode mode,
	       uint16_t flags, uint64_t cookie)
{
	struct sacc_op op = {.flags = flags,
			     .len = len,
			     .dst = dst,
			     .dst_off = dst_off,
			     .cookie = cookie,
			     .data = data};
	size_t off = 0;
	int ret;

	ret = sacc_queue_ready(dev, "sacc_write");
	if (ret)
		return ret;
	if (!data)
		return sacc_seterr(dev, EINVAL, "sacc_write: data is NULL");
	if (mode == SACC_WRITE_AUTO)
		mode = (dev->mode & SACC_MODE_V3) && len <= dev->inline_max
			   ? SACC_WRITE_INLINE
			   : SACC_WRITE_DMA;
	if (mode == SACC_WRITE_INLINE) {
		op.opcode = SACC_OP_WRITE_INLINE;
		ret = sacc_check_op(dev, &op, 0);
		return ret ? ret : sacc_queue_push(dev, &op, 1, NULL);
	}
	if (mode != SACC_WRITE_DMA)
		return sacc_seterr(dev, EINVAL, "sacc_write: unknown mode %d",
				   (int)mode);
	op.opcode = SACC_OP_MEMCPY;
	op.data = NULL;
	if (len < 1 || len > SACC_MAX_XFER)
		return sacc_seterr(dev, EINVAL,
				   "sacc_write: length %u not in 1..%u", len,
				   SACC_MAX_XFER);
	ret = sacc_check_dst(dev, &op, 0, len);
	if (ret)
		return ret;
	if (sacc_sq_space(&dev->sq) == 0)
		return 0;
	ret = stage(dev, data, len, &off);
	if (ret)
		return ret;
	op.src = dev->stage;
	op.src_off = off;
	ret = sacc_queue_push(dev, &op, 1, NULL);
	if (ret == 1)
		dev->stage_pos = off + ((len + 63u) & ~63u);
	return ret;
}

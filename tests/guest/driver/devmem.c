// SPDX-License-Identifier: MIT
/*
 * devmem.c - device memory: copies in all four directions, FILL, device
 * addresses past the end, the SQ and PUT word in device memory
 */
#include "driver.h"

/* FILL @len bytes of @dst at @off with @pat, checked byte for byte, the
 * bytes around it untouched. */
static void fill_verified(struct sacc_dev *h, struct sacc_buf *dst, size_t off,
			  uint32_t len, uint64_t pat)
{
	struct sacc_op op = {.opcode = SACC_OP_FILL,
			     .len = len,
			     .dst = dst,
			     .dst_off = off,
			     .pattern = pat};
	struct sacc_result r;
	uint8_t *d = va(dst);

	memset(d, CANARY, sacc_buf_len(dst));
	ck_assert_msg(sacc_submit(h, &op, 1) == 1, "fill: %s", sacc_errmsg(h));
	reap_n(h, &r, 1);
	ck_assert_msg(r.status == SACC_STS_OK, "fill: status %u (%s)", r.status,
		      sacc_status_str(r.status));
	ck_assert_uint_eq(r.result_len, len);
	for (uint32_t i = 0; i < len; i++)
		ck_assert_msg(d[off + i] == (uint8_t)(pat >> (8 * (i % 8))),
			      "fill: byte %u is 0x%02x", i, d[off + i]);
	check_canary("fill before", d, off);
	check_canary("fill after", d + off + len,
		     sacc_buf_len(dst) - off - len);
}

/* MEMCPY and XFORM in all four directions, FILL into both memories, on
 * channel 0 (MODE.V3); device memory refused on a v0.2 channel 0. */
START_TEST(devmem_directions)
{
	struct sacc_open_opts o = {.flags = SACC_OPEN_V3};
	struct sacc_buf *hs, *hd, *ds, *dd, *src, *dst;
	struct sacc_dev *dev;

	BEGIN();
	dev = guest_open(0, &o);
	if (!has_devmem(dev)) {
		sacc_close(dev);
		return;
	}
	hs = guest_buf(dev, 64 * KiB, SACC_DMA_TO_DEVICE, "hs");
	hd = guest_buf(dev, 64 * KiB, SACC_DMA_FROM_DEVICE, "hd");
	ds = dev_buf(dev, 64 * KiB, "ds");
	dd = dev_buf(dev, 64 * KiB, "dd");
	for (int i = 0; i < 64; i++) {
		src = i & 2 ? ds : hs;
		dst = i & 4 ? dd : hd;
		one_verified_op(dev, i & 1 ? SACC_OP_XFORM : SACC_OP_MEMCPY,
				src, dst, 1 + (uint32_t)(rnd() % (64 * KiB)));
	}
	fill_verified(dev, dd, 5, 4099, 0x0807060504030201ull);
	fill_verified(dev, hd, 0, 64 * KiB, rnd());
	fill_verified(dev, dd, 64 * KiB - 1, 1, 0x77);
	sacc_close(dev);

	/* channel 0 as v0.2: device memory is refused, with what to do */
	dev = guest_open(0, NULL);
	hs = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "hs");
	dd = dev_buf(dev, 4096, "dd");
	{
		struct sacc_op op = {
		    .opcode = SACC_OP_MEMCPY, .len = 64, .src = hs, .dst = dd};

		ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
		assert_msg_has(sacc_errmsg(dev), "SACC_OPEN_V3");
	}
	sacc_close(dev);
	ck_assert_int_eq(vmlck_kb(), 0);
}
END_TEST

/* A device range past DEVMEM_SIZE: status DMA_FAULT, the fault record
 * says dev_read / dev_write at the device address, no byte moves, and
 * the channel goes on. */
START_TEST(devmem_fault)
{
	struct sacc_open_opts o = {.flags = SACC_OPEN_V3};
	struct sacc_devmem_info in;
	struct sacc_buf *hs, *hd, *dd;
	struct sacc_desc d = {.opcode = SACC_OP_MEMCPY, .length = 64};
	struct sacc_result r;
	struct sacc_dev *dev;
	uint32_t info, lo, hi;

	BEGIN();
	dev = guest_open(0, &o);
	if (!has_devmem(dev)) {
		sacc_close(dev);
		return;
	}
	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	hs = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "hs");
	hd = guest_buf(dev, 4096, SACC_DMA_FROM_DEVICE, "hd");
	dd = dev_buf(dev, 4096, "dd");
	memset(va(hd), CANARY, 4096);
	/* H2D, dst 8 bytes before the end: refused whole */
	d.flags = SACC_DESC_F_DST_DEV;
	d.src = sacc_buf_iova(hs);
	d.dst = in.size - 8;
	ck_assert_int_gt(sacc_submit_raw(dev, &d), 0);
	reap_n(dev, &r, 1);
	ck_assert_uint_eq(r.status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(r.result_len, 0);
	ck_assert_int_eq(sacc_reg_read(dev, SACC_REG_FAULT_INFO, &info), 0);
	ck_assert_uint_eq(info, SACC_FAULT_DEV_WRITE | SACC_FAULT_IS_WRITE);
	ck_assert_int_eq(sacc_reg_read(dev, SACC_REG_FAULT_ADDR, &lo), 0);
	ck_assert_int_eq(sacc_reg_read(dev, SACC_REG_FAULT_ADDR + 4, &hi), 0);
	ck_assert_uint_eq((uint64_t)hi << 32 | lo, in.size - 8);
	/* D2H, src past the end: dst untouched */
	d.flags = SACC_DESC_F_SRC_DEV;
	d.src = in.size;
	d.dst = sacc_buf_iova(hd);
	ck_assert_int_gt(sacc_submit_raw(dev, &d), 0);
	reap_n(dev, &r, 1);
	ck_assert_uint_eq(r.status, SACC_STS_DMA_FAULT);
	ck_assert_int_eq(sacc_reg_read(dev, SACC_REG_FAULT_INFO, &info), 0);
	ck_assert_uint_eq(info, SACC_FAULT_DEV_READ);
	check_canary("dev_read fault dst", va(hd), 4096);
	/* FILL wrapping past 2^64 */
	d = (struct sacc_desc){.opcode = SACC_OP_FILL,
			       .length = 16,
			       .flags = SACC_DESC_F_DST_DEV,
			       .dst = UINT64_MAX - 7};
	ck_assert_int_gt(sacc_submit_raw(dev, &d), 0);
	reap_n(dev, &r, 1);
	ck_assert_uint_eq(r.status, SACC_STS_DMA_FAULT);
	/* the channel goes on */
	ck_assert_int_eq(sacc_check(dev), 0);
	one_verified_op(dev, SACC_OP_MEMCPY, hs, dd, 4096);
	sacc_close(dev);
}
END_TEST

/* The SQ (and a token channel's PUT word) in device memory: channel 0,
 * a tail-doorbell channel and a token channel, inline writes included;
 * ring pages come back at close; device memory is full at some point,
 * and says so; it survives a channel reset. */
START_TEST(devmem_sq)
{
	struct sacc_open_opts o = {.flags = SACC_OPEN_V3 | SACC_OPEN_SQ_DEV,
				   .sq_entries = 256};
	struct sacc_devmem_info in, in2;
	struct sacc_dev *dev, *ch[2];
	struct sacc_buf *hs, *dd, *big;
	uint8_t payload[600];

	BEGIN();
	dev = guest_open(0, NULL);
	if (!has_devmem(dev)) {
		sacc_close(dev);
		return;
	}
	sacc_close(dev);
	dev = guest_open(0, &o);
	ck_assert_uint_eq(sacc_dev_sq_iova(dev), 0);
	for (unsigned int k = 0; k < 2; k++) {
		struct sacc_open_opts co = {.flags = SACC_OPEN_SQ_DEV,
					    .sq_entries = 256,
					    .doorbell =
						k ? SACC_DOORBELL_PUT_TOKEN
						  : SACC_DOORBELL_MMAP};

		ck_assert_msg(sacc_chan_open(dev, k + 1, &co, &ch[k]) == 0,
			      "channel %u: %s", k + 1, sacc_errmsg(dev));
	}
	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	ck_assert_uint_ge(in.used, 3 * 8 * KiB + 4 * KiB);
	for (unsigned int k = 0; k < 3; k++) {
		struct sacc_dev *h = k ? ch[k - 1] : dev;

		hs = guest_buf(h, 8 * KiB, SACC_DMA_TO_DEVICE, "hs");
		dd = dev_buf(h, 8 * KiB, "dd");
		for (int i = 0; i < 300; i++) /* past a lap of the SQ */
			one_verified_op(h, SACC_OP_MEMCPY, hs, dd,
					1 + (uint32_t)(rnd() % (8 * KiB)));
		fill_random(payload, sizeof(payload));
		ck_assert_int_eq(sacc_write(h, dd, 100, payload,
					    sizeof(payload), SACC_WRITE_INLINE,
					    0, 1),
				 1);
		{
			struct sacc_result r;

			reap_n(h, &r, 1);
			ck_assert_uint_eq(r.status, SACC_STS_OK);
		}
		ck_assert_mem_eq(va(dd) + 100, payload, sizeof(payload));
	}
	/* device memory survives a reset of the channel whose SQ (and PUT
	 * word) it holds, and the channel works after it */
	ck_assert_int_eq(sacc_reset(ch[1]), 0);
	ck_assert_mem_eq(va(dd) + 100, payload, sizeof(payload));
	one_verified_op(ch[1], SACC_OP_XFORM, hs, dd, 8 * KiB);
	/* full: the message says how much is in use */
	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	big = dev_buf(dev, in.largest_free, "big");
	ck_assert_int_eq(sacc_devmem_alloc(dev, in.size, "more", &hs), -ENOSPC);
	assert_msg_has(sacc_errmsg(dev), "out of device memory");
	ck_assert_int_eq(sacc_buf_free(big), 0);
	/* a channel's rings go back at its close */
	sacc_close(ch[1]);
	ck_assert_int_eq(sacc_devmem_info(dev, &in2), 0);
	ck_assert_uint_lt(in2.used, in.used);
	sacc_close(dev);
	ck_assert_int_eq(vmlck_kb(), 0);
}
END_TEST

void devmem_tests(Suite *s)
{
	TCase *tc = driver_tcase(s, "device memory");

	tcase_add_test(tc, devmem_directions);
	tcase_add_test(tc, devmem_fault);
	tcase_add_test(tc, devmem_sq);
}

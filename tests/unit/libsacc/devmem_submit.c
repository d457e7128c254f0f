// SPDX-License-Identifier: MIT
/*
 * devmem_submit.c - ops on device memory: every direction of MEMCPY and XFORM,
 * FILL, what sacc_submit() refuses, faults past DEVMEM_SIZE in the
 * journal
 */
#include <sys/stat.h>

#include "fake_dev.h"

/* Every direction of MEMCPY and XFORM, FILL into either memory: the
 * flags and addresses in the descriptors, then the bytes. */
START_TEST(test_devmem_submit)
{
	struct sacc_dev *dev = fake_open_mode(16, 16, SACC_MODE_V3, 16 * 4096);
	struct sacc_buf *hs, *hd, *ds, *dd;
	struct sacc_result r[8];
	struct sacc_desc d;
	struct sacc_op ops[6];
	uint8_t *hsv, *hdv, *dsv, *ddv;
	int i;

	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "hs", &hs), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "hd", &hd), 0);
	ck_assert_int_eq(sacc_devmem_alloc(dev, 4096, "ds", &ds), 0);
	ck_assert_int_eq(sacc_devmem_alloc(dev, 8192, "dd", &dd), 0);
	hsv = sacc_buf_va(hs);
	hdv = sacc_buf_va(hd);
	dsv = sacc_buf_va(ds);
	ddv = sacc_buf_va(dd);
	for (i = 0; i < 4096; i++) {
		hsv[i] = (uint8_t)(i * 3);
		dsv[i] = (uint8_t)(i * 5 + 1);
	}
	/* H2D, D2H, D2D, H2H (xform), FILL to device, FILL to host */
	ops[0] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
				  .len = 256,
				  .src = hs,
				  .src_off = 16,
				  .dst = dd,
				  .dst_off = 100,
				  .cookie = 0};
	ops[1] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
				  .len = 300,
				  .src = ds,
				  .src_off = 7,
				  .dst = hd,
				  .cookie = 1};
	ops[2] = (struct sacc_op){.opcode = SACC_OP_XFORM,
				  .len = 512,
				  .src = ds,
				  .dst = dd,
				  .dst_off = 4096,
				  .cookie = 2};
	ops[3] = (struct sacc_op){.opcode = SACC_OP_XFORM,
				  .len = 64,
				  .src = hs,
				  .dst = hd,
				  .dst_off = 1024,
				  .cookie = 3};
	ops[4] = (struct sacc_op){.opcode = SACC_OP_FILL,
				  .len = 21,
				  .dst = dd,
				  .dst_off = 5000,
				  .pattern = 0x0807060504030201ull,
				  .cookie = 4};
	ops[5] = (struct sacc_op){.opcode = SACC_OP_FILL,
				  .len = 10,
				  .dst = hd,
				  .dst_off = 2000,
				  .pattern = 0x1122334455667788ull,
				  .flags = SACC_OPF_IRQ,
				  .cookie = 5};
	ck_assert_int_eq(sacc_submit(dev, ops, 6), 6);
	d = sq_desc(dev, 0);
	ck_assert_uint_eq(d.flags, SACC_DESC_F_DST_DEV);
	ck_assert_uint_eq(d.src, sacc_buf_iova(hs) + 16);
	ck_assert_uint_eq(d.dst, sacc_buf_devaddr(dd) + 100);
	ck_assert_uint_eq(d.length, 256);
	d = sq_desc(dev, 1);
	ck_assert_uint_eq(d.flags, SACC_DESC_F_SRC_DEV);
	ck_assert_uint_eq(d.src, sacc_buf_devaddr(ds) + 7);
	ck_assert_uint_eq(d.dst, sacc_buf_iova(hd));
	d = sq_desc(dev, 2);
	ck_assert_uint_eq(d.flags, SACC_DESC_F_SRC_DEV | SACC_DESC_F_DST_DEV);
	ck_assert_uint_eq(d.dst, sacc_buf_devaddr(dd) + 4096);
	d = sq_desc(dev, 3);
	ck_assert_uint_eq(d.flags, 0);
	d = sq_desc(dev, 4);
	ck_assert_uint_eq(d.opcode, SACC_OP_FILL);
	ck_assert_uint_eq(d.flags, SACC_DESC_F_DST_DEV);
	ck_assert_uint_eq(d.src, 0x0807060504030201ull);
	ck_assert_uint_eq(d.dst, sacc_buf_devaddr(dd) + 5000);
	ck_assert_uint_eq(d.length, 21);
	d = sq_desc(dev, 5);
	ck_assert_uint_eq(d.flags, SACC_DESC_F_IRQ);
	ck_assert_uint_eq(d.src, 0x1122334455667788ull);
	ck_assert_uint_eq(d.dst, sacc_buf_iova(hd) + 2000);
	/* device buffers are pinned while named, as host ones are */
	ck_assert_int_eq(sacc_buf_free(dd), -EBUSY);
	ck_assert_int_eq(reap_all(dev, r, 6), 6);
	for (i = 0; i < 6; i++) {
		ck_assert_uint_eq(r[i].status, SACC_STS_OK);
		ck_assert_uint_eq(r[i].result_len, r[i].len);
	}
	ck_assert_mem_eq(ddv + 100, hsv + 16, 256);
	ck_assert_mem_eq(hdv, dsv + 7, 300);
	for (i = 0; i < 512; i++)
		ck_assert_uint_eq(ddv[4096 + i], dsv[i] ^ SACC_XFORM_KEY);
	for (i = 0; i < 64; i++)
		ck_assert_uint_eq(hdv[1024 + i], hsv[i] ^ SACC_XFORM_KEY);
	for (i = 0; i < 21; i++)
		ck_assert_uint_eq(ddv[5000 + i], 1 + i % 8);
	ck_assert_uint_eq(ddv[5021], 0);
	ck_assert_uint_eq(hdv[2000], 0x88);
	ck_assert_uint_eq(hdv[2007], 0x11);
	ck_assert_uint_eq(hdv[2008], 0x88);
	ck_assert_uint_eq(hdv[2009], 0x77);
	ck_assert_uint_eq(hdv[2010], 0);
	/* sacc_write() and timestamps into device memory: DST_DEV */
	ck_assert_int_eq(
	    sacc_write(dev, dd, 64, "hello", 5, SACC_WRITE_INLINE, 0, 9), 1);
	d = sq_desc(dev, 6);
	ck_assert_uint_eq(d.opcode, SACC_OP_WRITE_INLINE);
	ck_assert_uint_eq(d.flags, SACC_DESC_F_DST_DEV);
	ck_assert_uint_eq(d.dst, sacc_buf_devaddr(dd) + 64);
	ops[0] = (struct sacc_op){.opcode = SACC_OP_TIMESTAMP, .dst = dd};
	ck_assert_int_eq(sacc_submit(dev, ops, 1), 1);
	d = sq_desc(dev, 8);
	ck_assert_uint_eq(d.opcode, SACC_OP_TIMESTAMP);
	ck_assert_uint_eq(d.flags, SACC_DESC_F_DST_DEV);
	fake_close(dev);
}
END_TEST

/* What sacc_submit() refuses, all or nothing, with what to do. */
START_TEST(test_devmem_reject)
{
	struct sacc_dev *dev = fake_open_mode(8, 8, 0, 16 * 4096);
	struct sacc_buf *hs, *dd;
	struct sacc_op ok = {.opcode = SACC_OP_NOP}, op[2];

	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "hs", &hs), 0);
	ck_assert_int_eq(sacc_devmem_alloc(dev, 4096, "dd", &dd), 0);
	op[0] = ok;
	/* a v0.2 channel (no MODE.V3): no device memory, no FILL */
	op[1] = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 64, .src = hs, .dst = dd};
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "op 1 (memcpy)"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "dst 'dd'"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "SACC_OPEN_V3"));
	op[1] = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 64, .src = dd, .dst = dd};
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "src 'dd'"));
	op[1] = (struct sacc_op){.opcode = SACC_OP_FILL, .len = 64, .dst = dd};
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "MODE.V3"));
	/* MODE.V3 on a v0.3 device: it needs v0.4 */
	dev->mode = SACC_MODE_V3;
	dev->version = SACC_VERSION_V03;
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "v0.4 device"));
	op[1] = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 64, .src = hs, .dst = dd};
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "VERSION 3"));
	dev->version = SACC_VERSION;
	/* FILL: length, no src */
	op[1] = (struct sacc_op){.opcode = SACC_OP_FILL, .len = 0, .dst = dd};
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	op[1].len = SACC_MAX_XFER + 1;
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	op[1] = (struct sacc_op){
	    .opcode = SACC_OP_FILL, .len = 8, .src = hs, .dst = dd};
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "src must be NULL"));
	op[1] = (struct sacc_op){.opcode = SACC_OP_FILL, .len = 8};
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	/* bounds as for host buffers */
	op[1] = (struct sacc_op){
	    .opcode = SACC_OP_FILL, .len = 100, .dst = dd, .dst_off = 4000};
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "past its end"));
	op[1] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
				 .len = 4096,
				 .src = dd,
				 .src_off = 1,
				 .dst = dd};
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "src 'dd'"));
	/* nothing reached the device, nothing is pinned */
	ck_assert_uint_eq(dev->stats.doorbells, 0);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	ck_assert_int_eq(sacc_buf_free(dd), 0);
	/* open flags: SQ_DEV makes rings, NO_INIT has none */
	{
		struct sacc_open_opts o = {.flags = SACC_OPEN_SQ_DEV |
						    SACC_OPEN_NO_INIT};
		struct sacc_dev *x;

		ck_assert_int_eq(sacc_open("00:03.0", &o, &x), -EINVAL);
		ck_assert_ptr_nonnull(strstr(sacc_errmsg(NULL), "drop one"));
		o.flags = 1u << 7;
		ck_assert_int_eq(sacc_open("00:03.0", &o, &x), -EINVAL);
	}
	fake_close(dev);
}
END_TEST

/* A device memory range past DEVMEM_SIZE is a per-descriptor fault the
 * journal records as dev_read / dev_write at the device address, from
 * the device's record or, when that is a later descriptor's, rebuilt
 * from the descriptor against DEVMEM_SIZE (never the IOMMU). */
START_TEST(test_devmem_fault_journal)
{
	struct sacc_dev *dev = fake_open_mode(8, 8, SACC_MODE_V3, 16 * 4096);
	struct sacc_journal_event ev[16];
	char dir[] = "/tmp/sacc-journal-XXXXXX", path[64];
	struct sacc_journal *j;
	struct sacc_result r[4];
	struct sacc_desc d = {0};
	struct sacc_buf *hd;
	int id1, id2, id3, id4, n;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/j.jsonl", dir);
	ck_assert_int_eq(sacc_journal_open_path(&j, path, dev->bdf, NULL), 0);
	sacc_dev_journal_attach(dev, j);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "hd", &hd), 0);
	/* 1: D2H, src runs past the end (recorded by the device) */
	d.opcode = SACC_OP_MEMCPY;
	d.flags = SACC_DESC_F_SRC_DEV;
	d.src = 16 * 4096 - 8;
	d.dst = sacc_buf_iova(hd);
	d.length = 64;
	id1 = sacc_submit_raw(dev, &d);
	/* 2: FILL past the end; 3: H2D... wrapping past 2^64 (rebuilt) */
	d = (struct sacc_desc){.opcode = SACC_OP_FILL,
			       .flags = SACC_DESC_F_DST_DEV,
			       .src = 0x55,
			       .dst = 1ull << 40,
			       .length = 8};
	id2 = sacc_submit_raw(dev, &d);
	d = (struct sacc_desc){.opcode = SACC_OP_XFORM,
			       .flags =
				   SACC_DESC_F_SRC_DEV | SACC_DESC_F_DST_DEV,
			       .src = 0,
			       .dst = UINT64_MAX - 3,
			       .length = 8};
	id3 = sacc_submit_raw(dev, &d);
	/* 4: an unmapped host src, a device dst past the end: the device
	 * ranges are checked first, so dev_write (rebuilt) */
	d = (struct sacc_desc){.opcode = SACC_OP_MEMCPY,
			       .flags = SACC_DESC_F_DST_DEV,
			       .src = 0xdead0000,
			       .dst = 1ull << 40,
			       .length = 64};
	id4 = sacc_submit_raw(dev, &d);
	ck_assert_int_eq(dev_run(8), 4);
	set_fault_regs(dev, 16 * 4096 - 8, SACC_FAULT_DEV_READ, (uint32_t)id1,
		       1);
	ck_assert_int_eq(sacc_poll(dev, r, 1), 1);
	set_fault_regs(dev, 0x999, SACC_FAULT_SRC_READ, 999, 4);
	ck_assert_int_eq(sacc_poll(dev, r + 1, 3), 3);
	for (int i = 0; i < 4; i++)
		ck_assert_uint_eq(r[i].status, SACC_STS_DMA_FAULT);
	n = read_journal(path, ev, 16);
	ck_assert_int_eq(n, 7); /* ranges, reset, map hd, 4 faults */
	ck_assert_uint_eq(ev[3].req_id, (uint32_t)id1);
	ck_assert_uint_eq(ev[3].access, SACC_FAULT_DEV_READ);
	ck_assert_uint_eq(ev[3].addr, 16 * 4096 - 8);
	ck_assert(!ev[3].write);
	ck_assert_uint_eq(ev[4].req_id, (uint32_t)id2);
	ck_assert_uint_eq(ev[4].access, SACC_FAULT_DEV_WRITE);
	ck_assert(ev[4].write);
	ck_assert_uint_eq(ev[4].addr, 1ull << 40);
	ck_assert_uint_eq(ev[4].opcode, SACC_OP_FILL);
	ck_assert_uint_eq(ev[5].req_id, (uint32_t)id3);
	ck_assert_uint_eq(ev[5].access, SACC_FAULT_DEV_WRITE);
	ck_assert_uint_eq(ev[5].addr, UINT64_MAX - 3);
	ck_assert_uint_eq(ev[6].req_id, (uint32_t)id4);
	ck_assert_uint_eq(ev[6].access, SACC_FAULT_DEV_WRITE);
	ck_assert_uint_eq(ev[6].addr, 1ull << 40);
	ck_assert_str_eq(sacc_fault_access_name(ev[4].access), "dev_write");

	/* a fatal fault at a device address says so, not "IOVA" */
	dev->regs[SACC_REG_STATUS / 4] = SACC_STATUS_ERROR;
	dev->regs[SACC_REG_ERR_CODE / 4] = SACC_ERR_DMA;
	set_fault_regs(dev, 0x123, SACC_FAULT_DEV_WRITE | SACC_FAULT_IS_WRITE,
		       5, 4);
	ck_assert_int_eq(sacc_fatal_msg(dev, "test"), -EIO);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "device address 0x123"));
	ck_assert_ptr_null(strstr(sacc_errmsg(dev), "IOVA"));
	sacc_dev_journal_close(dev);
	fake_close(dev);
	unlink(path);
	rmdir(dir);
}
END_TEST

void devmem_submit_tests(Suite *s)
{
	TCase *tc = tcase_create("devmem submit");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_devmem_submit);
	tcase_add_test(tc, test_devmem_reject);
	tcase_add_test(tc, test_devmem_fault_journal);
	suite_add_tcase(s, tc);
}

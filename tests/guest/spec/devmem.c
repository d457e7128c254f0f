// SPDX-License-Identifier: MIT
/*
 * devmem.c - device memory (spec 1, 10, 13, 18, 19, probe by probe through
 * the raw-VFIO fixture): VERSION, DEVMEM_SIZE and BAR4; CPU loads and
 * stores through BAR4; device addresses in descriptors (SRC_DEV,
 * DST_DEV) in all four directions; FILL; WRITE_INLINE and TIMESTAMP
 * into device memory
 */
#include "devmem.h"

#define AREA   (MiB + 3 * PAGE) /* room before and after a 1 MiB dst */

/* ====================================================================
 * Identity: VERSION, DEVMEM_SIZE, BAR4 (spec 1, 10, 13, 18)
 * ==================================================================== */

START_TEST(test_devmem_identity)
{
	struct vfio_region_info ri = {.argsz = sizeof(ri),
				      .index = VFIO_PCI_BAR4_REGION_INDEX};
	uint32_t bar4;

	/* Spec 10.2: VERSION 4 is a v0.4 device. */
	ck_assert_uint_eq(rd32(&D, SACC_REG_VERSION), 4);
	/* Spec 13: DEVMEM_SIZE, RO, 64: one access or its LO/HI halves;
	 * a power of two from 4 KiB (0 would mean none). */
	ck_assert_uint_eq(b2_rd32(&D, SACC_DEV_DEVMEM_SIZE), (uint32_t)S);
	ck_assert_uint_eq(b2_rd32(&D, SACC_DEV_DEVMEM_SIZE + 4), S >> 32);
	ck_assert_msg(S >= PAGE && !(S & (S - 1)),
		      "DEVMEM_SIZE 0x%llx is not a power of two from 4 KiB",
		      (unsigned long long)S);
	b2_wr32(&D, SACC_DEV_DEVMEM_SIZE, PAGE);
	b2_wr32(&D, SACC_DEV_DEVMEM_SIZE + 4, 1);
	b2_wr64(&D, SACC_DEV_DEVMEM_SIZE, 0);
	ck_assert_uint_eq(b2_rd64(&D, SACC_DEV_DEVMEM_SIZE), S);
	/* A 64-bit access elsewhere is ignored and reads 0; the rest of
	 * the device page is reserved. */
	ck_assert_uint_eq(b2_rd64(&D, SACC_DEV_DEVMEM_SIZE + 4), 0);
	for (uint32_t o = SACC_DEV_DEVMEM_SIZE + 8; o < SACC_CHAN_BASE; o += 4)
		ck_assert_msg(!b2_rd32(&D, o), "device page 0x%x reads 0x%x", o,
			      b2_rd32(&D, o));

	/* Spec 1, 18: BAR4 is exactly DEVMEM_SIZE, 64-bit prefetchable
	 * memory (with BAR5), and VFIO can map it. */
	ck_assert_int_eq(ioctl(D.device, VFIO_DEVICE_GET_REGION_INFO, &ri), 0);
	ck_assert_msg(ri.size == S,
		      "BAR4 region 0x%llx bytes, DEVMEM_SIZE 0x%llx",
		      (unsigned long long)ri.size, (unsigned long long)S);
	ck_assert(ri.flags & VFIO_REGION_INFO_FLAG_READ);
	ck_assert(ri.flags & VFIO_REGION_INFO_FLAG_WRITE);
	ck_assert(ri.flags & VFIO_REGION_INFO_FLAG_MMAP);
	ck_assert_msg(D.bar4 && D.bar4_len == S, "BAR4 not mapped whole");
	ri = (struct vfio_region_info){.argsz = sizeof(ri),
				       .index = VFIO_PCI_BAR5_REGION_INDEX};
	ck_assert_int_eq(ioctl(D.device, VFIO_DEVICE_GET_REGION_INFO, &ri), 0);
	ck_assert_uint_eq(ri.size, 0);
	cfg_read(&D, PCI_BASE_ADDRESS_4, &bar4, 4);
	ck_assert_msg((bar4 & 0xf) == (PCI_BASE_ADDRESS_SPACE_MEMORY |
				       PCI_BASE_ADDRESS_MEM_TYPE_64 |
				       PCI_BASE_ADDRESS_MEM_PREFETCH),
		      "BAR4 flags 0x%x, expected 64-bit prefetchable memory",
		      bar4 & 0xf);

	/* Spec 13: MODE keeps TOKEN, V3 and SQ_DEV; other bits read 0.
	 * PUT_ADDR is a plain 64-bit register until enable. */
	q_wr32(&Q, SACC_REG_MODE, 0xffffffff);
	ck_assert_uint_eq(q_rd32(&Q, SACC_REG_MODE), SACC_MODE_MASK);
	ck_assert_uint_eq(SACC_MODE_MASK, 7);
	q_wr64(&Q, SACC_REG_PUT_ADDR, 0x123456789abcdef0ull);
	ck_assert_uint_eq(q_rd64(&Q, SACC_REG_PUT_ADDR), 0x123456789abcdef0ull);
	q_reset(&Q);
	ck_assert_uint_eq(q_rd32(&Q, SACC_REG_MODE), 0);
	ck_assert_uint_eq(q_rd64(&Q, SACC_REG_PUT_ADDR), 0);
	/* Page 0 has no MODE: 0x60 stays reserved. */
	wr32(&D, SACC_REG_MODE, SACC_MODE_MASK);
	ck_assert_uint_eq(rd32(&D, SACC_REG_MODE), 0);
}
END_TEST

/* ====================================================================
 * CPU loads and stores through BAR4 (spec 18: "like any RAM")
 * ==================================================================== */

START_TEST(test_devmem_bar4_cpu)
{
	const uint64_t at[] = {0, PAGE - 1, PAGE, 3 * MiB + 5, S - 2, S - 1};
	struct vfio_region_info ri = {.argsz = sizeof(ri),
				      .index = VFIO_PCI_BAR4_REGION_INDEX};
	volatile uint8_t *m = D.bar4, *last;
	uint8_t *buf = malloc(MiB), *back = malloc(MiB);
	uint64_t sum = 0;
	double t;

	ck_assert(buf && back);
	memset(dm(0), CANARY, 2 * PAGE);
	memset(dm(3 * MiB), CANARY, PAGE);
	memset(dm(S - 2 * PAGE), CANARY, 2 * PAGE);
	/* Single bytes, neighbours untouched: at the start, a page
	 * boundary, inside, and the last two bytes. */
	for (unsigned int i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		m[at[i]] = 0x5a;
		ck_assert_msg(m[at[i]] == 0x5a, "BAR4 byte 0x%llx reads 0x%02x",
			      (unsigned long long)at[i], m[at[i]]);
		if (at[i])
			ck_assert_uint_eq(m[at[i] - 1], CANARY);
		if (at[i] + 1 < S && at[i] + 1 != at[i + 1])
			ck_assert_uint_eq(m[at[i] + 1], CANARY);
		m[at[i]] = CANARY;
	}
	/* 16, 32 and 64-bit accesses, aligned or not, little endian. */
	*(volatile uint16_t *)(m + 0x101) = 0xbeef;
	ck_assert_uint_eq(m[0x101], 0xef);
	ck_assert_uint_eq(m[0x102], 0xbe);
	ck_assert_uint_eq(*(volatile uint16_t *)(m + 0x101), 0xbeef);
	*(volatile uint32_t *)(m + S - 4) = 0xdeadbeef;
	ck_assert_uint_eq(*(volatile uint32_t *)(m + S - 4), 0xdeadbeef);
	ck_assert_uint_eq(m[S - 1], 0xde);
	*(volatile uint64_t *)(m + S - 16) = 0x0123456789abcdefull;
	ck_assert_uint_eq(*(volatile uint64_t *)(m + S - 16),
			  0x0123456789abcdefull);
	ck_assert_uint_eq(*(volatile uint32_t *)(m + S - 12), 0x01234567);
	*(volatile uint64_t *)(m + 0x203) = 0x1122334455667788ull;
	ck_assert_uint_eq(*(volatile uint64_t *)(m + 0x203),
			  0x1122334455667788ull);
	ck_assert_uint_eq(m[0x202], CANARY);
	ck_assert_uint_eq(m[0x20b], CANARY);
	/* 1 MiB blocks at both ends. */
	fill_rand(buf, MiB, 41);
	memcpy(dm(0), buf, MiB);
	memcpy(back, dm(0), MiB);
	expect_bytes(back, buf, MiB, 0, "1 MiB at device address 0");
	fill_rand(buf, MiB, 42);
	memcpy(dm(S - MiB), buf, MiB);
	memcpy(back, dm(S - MiB), MiB);
	expect_bytes(back, buf, MiB, 0, "the last 1 MiB of device memory");
	/* Device address a is BAR4 offset a: a mapping of the last page
	 * alone sees the same bytes. */
	ck_assert_int_eq(ioctl(D.device, VFIO_DEVICE_GET_REGION_INFO, &ri), 0);
	last = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, D.device,
		    ri.offset + S - PAGE);
	ck_assert_msg(last != MAP_FAILED, "mmap BAR4's last page: %s",
		      strerror(errno));
	ck_assert(!memcmp((void *)last, buf + MiB - PAGE, PAGE));
	last[5] = 0x77;
	ck_assert_uint_eq(m[S - PAGE + 5], 0x77);
	munmap((void *)last, PAGE);
	/* Reading all of it (informative: what a scan costs here). */
	t = now_s();
	for (uint64_t i = 0; i < S / 8; i++)
		sum += ((const volatile uint64_t *)m)[i];
	fprintf(stderr,
		"test_devmem_bar4_cpu: %llu MiB read through BAR4 in "
		"%.2f s (sum %llx)\n",
		(unsigned long long)(S >> 20), now_s() - t,
		(unsigned long long)sum);
	free(buf);
	free(back);
}
END_TEST

/* ====================================================================
 * MEMCPY and XFORM in all four directions (spec 18)
 * ==================================================================== */

enum { HOST, DEV };

/* Loop _i: 0 MEMCPY, 1 XFORM.  H2H, D2H, H2D, D2D at 4 KiB and 1 MiB,
 * aligned and not; both sides checked: dst right and nothing around it,
 * the other side's buffer untouched, the source unchanged. */
START_TEST(test_devmem_copy)
{
	static const struct {
		uint32_t len, soff, doff;
	} cases[] = {
	    {PAGE, 0, 0},
	    {PAGE, 7, PAGE - 3},
	    {MiB, 0, 0},
	    {MiB, PAGE - 1, 1},
	};
	static const char *const dname[] = {"H2H", "D2H", "H2D", "D2D"};
	const uint16_t op = _i ? SACC_OP_XFORM : SACC_OP_MEMCPY;
	const uint8_t key = _i ? SACC_XFORM_KEY : 0;
	uint8_t *ref_h = malloc(AREA), *ref_d = malloc(AREA);
	struct dbuf *hs, *hd;
	struct sacc_cqe c;
	char what[96];

	ck_assert(ref_h && ref_d);
	q_alloc(&Q, 8, 8);
	q_config(&Q, SACC_MODE_V3, 0, 0);
	q_start(&Q);
	hs = buf_new(&D, AREA, R);
	hd = buf_new(&D, AREA, W);
	fill_rand(hs->va, AREA, 21 + _i);
	memcpy(ref_h, hs->va, AREA);
	fill_rand(ref_d, AREA, 31 + _i);
	memcpy(dm(DM_A), ref_d, AREA);

	for (unsigned int dir = 0; dir < 4; dir++) {
		const int ss = dir & 1 ? DEV : HOST, ds = dir & 2 ? DEV : HOST;
		const uint8_t *sview = ss == DEV ? dm(DM_A) : hs->va;
		uint8_t *dview = ds == DEV ? dm(DM_B) : hd->va;
		uint8_t *other = ds == DEV ? hd->va : dm(DM_B);
		const uint16_t flags = (ss == DEV ? SACC_DESC_F_SRC_DEV : 0) |
				       (ds == DEV ? SACC_DESC_F_DST_DEV : 0);

		for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]);
		     i++) {
			const uint32_t len = cases[i].len, so = cases[i].soff;
			const uint32_t doff = PAGE + cases[i].doff;
			const uint64_t src = (ss == DEV ? DM_A : hs->iova) + so;
			const uint64_t dst =
			    (ds == DEV ? DM_B : hd->iova) + doff;

			snprintf(what, sizeof(what),
				 "%s %s len %u soff %u doff %u",
				 _i ? "XFORM" : "MEMCPY", dname[dir], len, so,
				 cases[i].doff);
			memset(hd->va, CANARY, AREA);
			memset(dm(DM_B), CANARY, AREA);
			c = q_run1(&Q, op, src, dst, len, flags);
			ck_assert_msg(
			    c.status == SACC_STS_OK && c.result_len == len,
			    "%s: status %u result_len %u (FAULT_INFO 0x%x "
			    "FAULT_ADDR 0x%llx)",
			    what, c.status, c.result_len,
			    q_rd32(&Q, SACC_REG_FAULT_INFO),
			    (unsigned long long)q_rd64(&Q,
						       SACC_REG_FAULT_ADDR));
			expect_bytes(dview + doff, sview + so, len, key, what);
			ck_untouched(dview, doff, "bytes before dst");
			ck_untouched(dview + doff + len, AREA - doff - len,
				     "bytes after dst");
			ck_untouched(other, AREA, "the side that is not dst");
			expect_bytes(hs->va, ref_h, AREA, 0, "host source");
			expect_bytes(dm(DM_A), ref_d, AREA, 0, "device source");
			/* Spec 16: engine time, on a MODE.V3 channel. */
			if (len == MiB)
				ck_assert_msg(c.engine_ns, "%s: engine_ns 0",
					      what);
		}
	}
	ck_assert_uint_eq(q_rd32(&Q, SACC_REG_ERR_CODE), 0);
	ck_assert_uint_eq(q_rd32(&Q, SACC_REG_FAULT_COUNT), 0);

	/* Spec 6: all of src is read before any of dst is written, so an
	 * overlapping copy in device memory is a memmove, whichever way it
	 * overlaps; 1 MiB (spec 11: an overlapping big copy is moved whole,
	 * not in pieces), 4 KiB, and in place. */
	c = q_run1(&Q, op, DM_A, DM_A + PAGE + 7, MiB,
		   SACC_DESC_F_SRC_DEV | SACC_DESC_F_DST_DEV);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
	expect_bytes(dm(DM_A + PAGE + 7), ref_d, MiB, key,
		     "1 MiB D2D overlapping upwards");
	memcpy(dm(DM_A), ref_d, AREA);
	c = q_run1(&Q, op, DM_A + PAGE + 7, DM_A, MiB,
		   SACC_DESC_F_SRC_DEV | SACC_DESC_F_DST_DEV);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
	expect_bytes(dm(DM_A), ref_d + PAGE + 7, MiB, key,
		     "1 MiB D2D overlapping downwards");
	memcpy(dm(DM_A), ref_d, AREA);
	c = q_run1(&Q, op, DM_A, DM_A + 100, PAGE,
		   SACC_DESC_F_SRC_DEV | SACC_DESC_F_DST_DEV);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
	expect_bytes(dm(DM_A + 100), ref_d, PAGE, key, "overlapping D2D");
	expect_bytes(dm(DM_A), ref_d, 100, 0, "before an overlapping D2D");
	c = q_run1(&Q, op, DM_A + 100, DM_A + 100, PAGE,
		   SACC_DESC_F_SRC_DEV | SACC_DESC_F_DST_DEV);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
	expect_bytes(dm(DM_A + 100), ref_d, PAGE, 0, "D2D in place, twice");
	/* Channel 0 saw none of it (spec 12). */
	ck_assert_uint_eq(rd32(&D, SACC_REG_FAULT_COUNT), 0);
	ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE), 0);
	free(ref_h);
	free(ref_d);
}
END_TEST

/* ====================================================================
 * FILL (spec 19)
 * ==================================================================== */

START_TEST(test_devmem_fill)
{
	static const struct {
		uint32_t len, off;
		uint64_t pat;
	} cases[] = {
	    {1, 0, 0x00000000000000a7ull},
	    {1, PAGE - 1, 0x1122334455667788ull},
	    {10, 0, 0x8877665544332211ull},
	    {PAGE + 3, PAGE - 5, 0x0123456789abcdefull},
	    {4099, 13, 0x00ff00ff00ff00ffull},
	    {MiB, 0, 0xa5a5a5a5a5a5a5a5ull},
	    {MiB, 3, 0xfedcba9876543210ull},
	};
	/* The spec's own example: pattern 0x8877665544332211, length 10. */
	static const uint8_t example[10] = {0x11, 0x22, 0x33, 0x44, 0x55,
					    0x66, 0x77, 0x88, 0x11, 0x22};
	static const uint32_t bad[] = {0, MiB + 1, 0xffffffff};
	struct dbuf *hd;
	struct sacc_cqe c;

	q_alloc(&Q, 8, 8);
	q_config(&Q, SACC_MODE_V3, 0, 0);
	q_start(&Q);
	hd = buf_new(&D, AREA, W);

	for (int side = HOST; side <= DEV; side++) {
		uint8_t *view = side == DEV ? dm(DM_B) : hd->va;
		uint8_t *other = side == DEV ? hd->va : dm(DM_B);
		const uint64_t base = side == DEV ? DM_B : hd->iova;
		const uint16_t flags = side == DEV ? SACC_DESC_F_DST_DEV : 0;

		for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]);
		     i++) {
			const uint32_t len = cases[i].len,
				       off = PAGE + cases[i].off;

			memset(hd->va, CANARY, AREA);
			memset(dm(DM_B), CANARY, AREA);
			c = q_run1(&Q, SACC_OP_FILL, cases[i].pat, base + off,
				   len, flags);
			ck_assert_msg(
			    c.status == SACC_STS_OK && c.result_len == len,
			    "FILL %s len %u off %u: status %u result_len %u",
			    side == DEV ? "device" : "host", len, cases[i].off,
			    c.status, c.result_len);
			for (uint32_t k = 0; k < len; k++)
				if (view[off + k] != pat_byte(cases[i].pat, k))
					ck_abort_msg(
					    "FILL %s len %u off %u pattern "
					    "0x%016llx: byte %u is 0x%02x, "
					    "expected 0x%02x",
					    side == DEV ? "device" : "host",
					    len, cases[i].off,
					    (unsigned long long)cases[i].pat, k,
					    view[off + k],
					    pat_byte(cases[i].pat, k));
			if (len == 10)
				ck_assert(!memcmp(view + off, example, 10));
			ck_untouched(view, off, "bytes before FILL's dst");
			ck_untouched(view + off + len, AREA - off - len,
				     "bytes after FILL's dst");
			ck_untouched(other, AREA, "the other side");
		}
		/* SRC_DEV means nothing for FILL (spec 18): src is the
		 * pattern, even one that is no device address in range. */
		memset(view, CANARY, AREA);
		c = q_run1(&Q, SACC_OP_FILL, ~0ull, base + PAGE, 100,
			   flags | SACC_DESC_F_SRC_DEV);
		ck_assert_msg(c.status == SACC_STS_OK,
			      "FILL with SRC_DEV, pattern ~0: status %u",
			      c.status);
		ck_assert_int_eq(first_not(view + PAGE, 100, 0xff), -1);
		c = q_run1(&Q, SACC_OP_FILL, S, base + PAGE, 16,
			   flags | SACC_DESC_F_SRC_DEV);
		ck_assert_uint_eq(c.status, SACC_STS_OK);
		for (uint32_t k = 0; k < 16; k++)
			ck_assert_uint_eq(view[PAGE + k], pat_byte(S, k));
		/* Length 0 or over 1 MiB: status 3, ERR_CODE 3, no DMA. */
		memset(view, CANARY, AREA);
		for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]);
		     i++) {
			q_reset(&Q);
			q_start(&Q);
			c = q_run1(&Q, SACC_OP_FILL, 0x1234, base + PAGE,
				   bad[i], flags);
			ck_assert_msg(
			    c.status == SACC_STS_BAD_LENGTH && !c.result_len,
			    "FILL length 0x%x: status %u", bad[i], c.status);
			ck_assert_uint_eq(q_rd32(&Q, SACC_REG_ERR_CODE),
					  SACC_ERR_INVALID);
			ck_assert_uint_eq(q_rd32(&Q, SACC_REG_FAULT_COUNT), 0);
			q_expect_ready(&Q);
		}
		ck_untouched(view, AREA, "dst after FILLs of bad length");
	}
}
END_TEST

/* WRITE_INLINE and TIMESTAMP into device memory; NOP ignores the flags
 * (spec 6: its src, dst and length are ignored). */
START_TEST(test_devmem_inline_timestamp)
{
	uint8_t data[100];
	uint64_t t0, t1, ts;
	struct sacc_cqe c;
	uint32_t id;

	q_alloc(&Q, 16, 16);
	q_config(&Q, SACC_MODE_V3, 0, 0);
	q_start(&Q);
	memset(dm(DM_B), CANARY, 3 * PAGE);
	fill_rand(data, sizeof(data), 51);
	id = q_push_inline(&Q, DM_B + 5, data, sizeof(data),
			   SACC_DESC_F_DST_DEV | SACC_DESC_F_SRC_DEV);
	q_ring(&Q);
	c = q_take(&Q, id);
	q_ack(&Q);
	ck_assert_msg(c.status == SACC_STS_OK && c.result_len == sizeof(data),
		      "WRITE_INLINE to device memory: status %u", c.status);
	expect_bytes(dm(DM_B + 5), data, sizeof(data), 0, "inline payload");
	ck_untouched(dm(DM_B), 5, "before the inline dst");
	ck_untouched(dm(DM_B + 105), PAGE, "after the inline dst");

	/* 8 bytes, unaligned, across a page boundary of device memory. */
	t0 = b2_rd64(&D, SACC_DEV_CLOCK);
	c = q_run1(&Q, SACC_OP_TIMESTAMP, 0xdeadbeef, DM_B + 2 * PAGE - 3, 0,
		   SACC_DESC_F_DST_DEV | SACC_DESC_F_SRC_DEV);
	t1 = b2_rd64(&D, SACC_DEV_CLOCK);
	ck_assert_msg(c.status == SACC_STS_OK && c.result_len == 8,
		      "TIMESTAMP to device memory: status %u result_len %u",
		      c.status, c.result_len);
	memcpy(&ts, dm(DM_B + 2 * PAGE - 3), 8);
	ck_assert_msg(t0 <= ts && ts <= t1,
		      "timestamp %llu outside the CLOCK reads around it "
		      "[%llu, %llu]",
		      (unsigned long long)ts, (unsigned long long)t0,
		      (unsigned long long)t1);
	ck_assert_uint_eq(dm(DM_B + 2 * PAGE - 4)[0], CANARY);
	ck_assert_uint_eq(dm(DM_B + 2 * PAGE + 5)[0], CANARY);

	/* NOP with both flags and addresses that are no device addresses. */
	c = q_run1(&Q, SACC_OP_NOP, ~0ull, S, 5,
		   SACC_DESC_F_SRC_DEV | SACC_DESC_F_DST_DEV);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
	ck_assert_uint_eq(c.result_len, 0);
	ck_assert_uint_eq(q_rd32(&Q, SACC_REG_FAULT_COUNT), 0);
	ck_assert_uint_eq(q_rd32(&Q, SACC_REG_ERR_CODE), 0);
}
END_TEST

void devmem_tests(Suite *s)
{
	TCase *t = devmem_tc(s, "devmem");

	tcase_add_test(t, test_devmem_identity);
	tcase_add_test(t, test_devmem_bar4_cpu);
	tcase_add_loop_test(t, test_devmem_copy, 0, 2);
	tcase_add_test(t, test_devmem_fill);
	tcase_add_test(t, test_devmem_inline_timestamp);
}

// SPDX-License-Identifier: MIT
/*
 * dma_faults.c - DMA faults through the IOMMU (spec 8): status 2, the fault
 * record, the DMAR line, memory untouched, the device carrying on
 */
#include "spec.h"

static struct dbuf *fault_src, *fault_dst;

/* rings + a 3-page source (pattern) and a 3-page destination (canary) */
static void fault_setup(void)
{
	rings_init(&D, 8, 8);
	fault_src = buf_new(&D, 3 * PAGE, R);
	fault_dst = buf_new(&D, 3 * PAGE, W);
	fill_rand(fault_src->va, fault_src->len, 77);
	memset(fault_dst->va, CANARY, fault_dst->len);
}

/* Run one descriptor that must fail with status 2; returns its req_id. */
static uint32_t run_fault(uint16_t op, uint64_t src, uint64_t dst,
			  uint32_t len, uint64_t *mark)
{
	struct sacc_cqe c;

	dmar_budget(1);
	*mark = guest_kmsg_mark();
	c = run1(&D, op, src, dst, len, 0);
	ck_assert_msg(c.status == SACC_STS_DMA_FAULT,
		      "status %u, expected DMA_FAULT", c.status);
	ck_assert_uint_eq(c.result_len, 0);
	ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE), SACC_ERR_DMA);
	expect_ready(&D); /* not fatal */
	return c.req_id;
}

/* The device goes on after a descriptor fault. */
static void expect_still_works(void)
{
	memset(fault_dst->va, CANARY, fault_dst->len);
	ck_assert_uint_eq(run1(&D, SACC_OP_MEMCPY, fault_src->iova,
			       fault_dst->iova, 100, 0).status, SACC_STS_OK);
	ck_assert(!memcmp(fault_dst->va, fault_src->va, 100));
}

START_TEST(test_fault_dst_unmapped)
{
	const uint64_t dst = IOVA_HOLE + 0x123;
	uint64_t mark;
	uint32_t id;

	fault_setup();
	id = run_fault(SACC_OP_MEMCPY, fault_src->iova, dst, 256, &mark);
	expect_fault(&D, dst, SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE, id, 1);
	dmar_expect(&D, mark, dst, true);
	expect_still_works();
	ck_assert_uint_eq(rd32(&D, SACC_REG_FAULT_COUNT), 1);
}
END_TEST

START_TEST(test_fault_src_unmapped)
{
	const uint64_t src = IOVA_HOLE + 0x2040;
	uint64_t mark;
	uint32_t id;

	fault_setup();
	id = run_fault(SACC_OP_XFORM, src, fault_dst->iova, 64, &mark);
	expect_fault(&D, src, SACC_FAULT_SRC_READ, id, 1);
	ck_untouched(fault_dst->va, fault_dst->len, "dst after a source fault");
	dmar_expect(&D, mark, src, false);
	expect_still_works();
}
END_TEST

/* Destination mapped read-only for the device: nothing written. */
START_TEST(test_fault_dst_readonly)
{
	struct dbuf *ro;
	uint64_t mark;
	uint32_t id;

	fault_setup();
	ro = buf_new(&D, 2 * PAGE, R);
	memset(ro->va, CANARY, ro->len);
	id = run_fault(SACC_OP_MEMCPY, fault_src->iova, ro->iova + 8, 6000,
		       &mark);
	expect_fault(&D, ro->iova + 8, SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE,
		     id, 1);
	ck_untouched(ro->va, ro->len, "read-only destination");
	dmar_expect(&D, mark, ro->iova, true);
	expect_still_works();
}
END_TEST

/*
 * Source mapped write-only for the device.  The guest's VT-d driver
 * (Linux 6.1 __domain_mapping) ORs DMA_FL_PTE_PRESENT, which is bit 0,
 * the second-level Read bit, into every PTE, so VFIO write-only mappings
 * are readable on intel-iommu and the read does not fault.  Whatever
 * the IOMMU decides, the device must agree with it: a fault is a full
 * status 2 (record, DMAR line, dst untouched); no fault is a correct
 * copy with no fault recorded.
 */
START_TEST(test_fault_src_writeonly)
{
	struct sacc_cqe c;
	struct dbuf *wo;
	uint64_t mark;

	fault_setup();
	wo = buf_new(&D, PAGE, W);
	fill_rand(wo->va, wo->len, 3);
	dmar_budget(1);
	mark = guest_kmsg_mark();
	c = run1(&D, SACC_OP_MEMCPY, wo->iova, fault_dst->iova, 512, 0);
	if (c.status == SACC_STS_DMA_FAULT) {
		expect_fault(&D, wo->iova, SACC_FAULT_SRC_READ, c.req_id, 1);
		ck_untouched(fault_dst->va, fault_dst->len, "dst after a source fault");
		dmar_expect(&D, mark, wo->iova, false);
	} else {
		fprintf(stderr, "note: the IOMMU let the device read a write-only "
				"mapping (Linux VT-d sets R on every PTE)\n");
		ck_assert_uint_eq(c.status, SACC_STS_OK);
		ck_assert_uint_eq(c.result_len, 512);
		ck_assert(!memcmp(fault_dst->va, wo->va, 512));
		ck_untouched(fault_dst->va + 512, fault_dst->len - 512, "after dst");
		ck_assert_uint_eq(rd32(&D, SACC_REG_FAULT_COUNT), 0);
		ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE), 0);
	}
	expect_still_works();
}
END_TEST

/* A destination that worked, then was unmapped: fault, memory untouched. */
START_TEST(test_fault_after_unmap)
{
	struct dbuf *b;
	uint64_t mark;
	uint32_t id;

	fault_setup();
	b = buf_new(&D, 2 * PAGE, W);
	ck_assert_uint_eq(run1(&D, SACC_OP_MEMCPY, fault_src->iova, b->iova,
			       2 * PAGE, 0).status, SACC_STS_OK);
	ck_assert(!memcmp(b->va, fault_src->va, 2 * PAGE));
	dma_unmap(&D, b->iova, b->len);
	memset(b->va, CANARY, b->len);
	id = run_fault(SACC_OP_MEMCPY, fault_src->iova, b->iova, 2 * PAGE,
		       &mark);
	expect_fault(&D, b->iova, SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE,
		     id, 1);
	ck_untouched(b->va, b->len, "unmapped destination");
	dmar_expect(&D, mark, b->iova, true);
	expect_still_works();
}
END_TEST

/* Source fault on the second page: dst untouched, record = that page. */
START_TEST(test_fault_src_second_page)
{
	struct dbuf *s;
	uint64_t mark;
	uint32_t id;

	fault_setup();
	s = buf_at(&D, 2 * PAGE, IOVA_SPECIAL, 0);
	fill_rand(s->va, s->len, 8);
	ck_assert_int_eq(dma_map(&D, s->va, s->iova, PAGE, R), 0);
	id = run_fault(SACC_OP_MEMCPY, s->iova + 100, fault_dst->iova,
		       2 * PAGE, &mark);
	expect_fault(&D, s->iova + PAGE, SACC_FAULT_SRC_READ, id, 1);
	ck_untouched(fault_dst->va, fault_dst->len,
		     "dst after a source fault on page 2");
	dmar_expect(&D, mark, s->iova + PAGE, false);
}
END_TEST

/* Destination fault on the middle page: nothing after it written, the
 * fault counted once. */
START_TEST(test_fault_dst_middle_page)
{
	const uint32_t off = 50, len = 3 * PAGE - 100;
	struct dbuf *d;
	uint64_t mark;
	uint32_t id;

	fault_setup();
	d = buf_at(&D, 3 * PAGE, IOVA_SPECIAL, 0);
	memset(d->va, CANARY, d->len);
	ck_assert_int_eq(dma_map(&D, d->va, d->iova, PAGE, W), 0);
	ck_assert_int_eq(dma_map(&D, d->va + 2 * PAGE, d->iova + 2 * PAGE, PAGE,
				 W), 0);
	id = run_fault(SACC_OP_MEMCPY, fault_src->iova, d->iova + off, len,
		       &mark);
	expect_fault(&D, d->iova + PAGE, SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE,
		     id, 1);
	ck_untouched(d->va + PAGE, 2 * PAGE, "dst after the faulting page");
	/* Before it: untouched or the right bytes, nothing else. */
	ck_untouched(d->va, off, "bytes before dst");
	for (uint32_t k = off; k < PAGE; k++)
		ck_assert_msg(d->va[k] == CANARY || d->va[k] == fault_src->va[k - off],
			      "dst byte %u before the faulting page is garbage", k);
	dmar_expect(&D, mark, d->iova + PAGE, true);
}
END_TEST

/* Ranges that wrap past 2^64 fault at their start with no DMA; faults
 * beyond the IOMMU's address width; the record follows the latest. */
START_TEST(test_fault_wrap_and_record)
{
	const uint64_t wsrc = 0xfffffffffffff000ull, wdst = 0xffffffffffffff00ull;
	const uint64_t far = 1ull << 45;
	uint64_t mark, m2;
	uint32_t id;
	char needle[64];

	fault_setup();
	id = run_fault(SACC_OP_MEMCPY, wsrc, fault_dst->iova, 2 * PAGE, &mark);
	expect_fault(&D, wsrc, SACC_FAULT_SRC_READ, id, 1);
	ck_untouched(fault_dst->va, fault_dst->len, "dst after a wrapping source");
	id = run_fault(SACC_OP_XFORM, fault_src->iova, wdst, 512, &m2);
	expect_fault(&D, wdst, SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE, id, 2);
	/* No DMA was issued for either: no DMAR line names them. */
	guest_sleep_ms(500);
	snprintf(needle, sizeof(needle), "fault addr 0x%llx",
		 (unsigned long long)wsrc);
	ck_assert_int_eq(guest_kmsg_grep(mark, needle, NULL, 0), 0);
	snprintf(needle, sizeof(needle), "fault addr 0x%llx",
		 (unsigned long long)(wdst & ~0xfffull));
	ck_assert_int_eq(guest_kmsg_grep(mark, needle, NULL, 0), 0);

	id = run_fault(SACC_OP_MEMCPY, fault_src->iova, far + 4, 16, &mark);
	expect_fault(&D, far + 4, SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE,
		     id, 3);
	/* A success does not touch the record. */
	expect_still_works();
	expect_fault(&D, far + 4, SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE,
		     id, 3);
	/* CTRL.RESET clears it. */
	wr32(&D, SACC_REG_CTRL, SACC_CTRL_RESET);
	expect_fault(&D, 0, 0, 0, 0);
}
END_TEST

/* DMA aimed at the device's own BAR0 is refused (re-entrancy guard):
 * status 2, no register changed, QEMU alive. */
START_TEST(test_fault_own_bar)
{
	const uint64_t iova = IOVA_SPECIAL + 0x100000;
	struct sacc_cqe c;
	uint32_t word[SACC_PAGE_SIZE / 4];
	int ret;

	fault_setup();
	ret = dma_map(&D, (void *)D.bar0, iova, SACC_BAR0_SIZE, R | W);
	ck_assert_msg(!ret, "MAP_DMA of BAR0's mmap: %s", strerror(-ret));
	wr32(&D, SACC_REG_SCRATCH, 0x600df00d);
	/* A source whose SCRATCH word would be a new value, CTRL 0. */
	memset(word, 0, sizeof(word));
	word[SACC_REG_SCRATCH / 4] = 0xbadbad;
	memcpy(fault_src->va, word, sizeof(word));

	c = run1(&D, SACC_OP_MEMCPY, fault_src->iova, iova, 0x80, 0);
	ck_assert_uint_eq(c.status, SACC_STS_DMA_FAULT);
	expect_fault(&D, iova, SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE,
		     c.req_id, 1);
	c = run1(&D, SACC_OP_MEMCPY, fault_src->iova, iova + SACC_DOORBELL_OFFSET,
		 4, 0);
	ck_assert_uint_eq(c.status, SACC_STS_DMA_FAULT);
	c = run1(&D, SACC_OP_MEMCPY, iova, fault_dst->iova, 0x60, 0);
	ck_assert_uint_eq(c.status, SACC_STS_DMA_FAULT);
	expect_fault(&D, iova, SACC_FAULT_SRC_READ, c.req_id, 3);
	ck_untouched(fault_dst->va, fault_dst->len, "dst after reading BAR0");
	ck_assert_uint_eq(rd32(&D, SACC_REG_SCRATCH), 0x600df00d);
	expect_ready(&D);
	expect_still_works();
	dma_unmap(&D, iova, SACC_BAR0_SIZE);
}
END_TEST

void dma_fault_tests(Suite *s)
{
	TCase *t = spec_tc(s, "dma-faults");

	/* They wait out the kernel's DMAR ratelimit windows: ci/test
	 * runs them in a boot of their own (CK_INCLUDE_TAGS=dmar /
	 * CK_EXCLUDE_TAGS=dmar). */
	tcase_set_tags(t, "dmar");
	tcase_add_test(t, test_fault_dst_unmapped);
	tcase_add_test(t, test_fault_src_unmapped);
	tcase_add_test(t, test_fault_dst_readonly);
	tcase_add_test(t, test_fault_src_writeonly);
	tcase_add_test(t, test_fault_after_unmap);
	tcase_add_test(t, test_fault_src_second_page);
	tcase_add_test(t, test_fault_dst_middle_page);
	tcase_add_test(t, test_fault_wrap_and_record);
	tcase_add_test(t, test_fault_own_bar);
}

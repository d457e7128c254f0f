// SPDX-License-Identifier: MIT
/*
 * ring_faults.c - ring faults are fatal (spec 8): a descriptor fetch or a
 * completion post the IOMMU refuses stops the device until CTRL.RESET
 */
#include "spec.h"

static void expect_fatal(struct vdev *d, uint64_t addr, uint32_t info,
			 uint32_t req, uint32_t count)
{
	ck_assert_msg(rd32(d, SACC_REG_STATUS) == SACC_STATUS_ERROR,
		      "STATUS 0x%x after a ring fault", rd32(d, SACC_REG_STATUS));
	ck_assert_uint_eq(rd32(d, SACC_REG_ERR_CODE), SACC_ERR_DMA);
	expect_fault(d, addr, info, req, count);
	ck_assert_uint_eq(rd32(d, SACC_REG_IRQ_STATUS), SACC_IRQ_FATAL);
	ck_assert_msg(irq_wait(d, 2000), "no MSI-X interrupt for a ring fault");
	wr32(d, SACC_REG_IRQ_ACK, SACC_IRQ_COMPLETION);
	ck_assert_uint_eq(rd32(d, SACC_REG_IRQ_STATUS), SACC_IRQ_FATAL);
	wr32(d, SACC_REG_IRQ_ACK, SACC_IRQ_FATAL);
	ck_assert_uint_eq(rd32(d, SACC_REG_IRQ_STATUS), 0);
	/* Still stopped after the ack. */
	ck_assert_uint_eq(rd32(d, SACC_REG_STATUS), SACC_STATUS_ERROR);
}

/* After a fatal error and CTRL.RESET, the device works again. */
void expect_recovers(struct vdev *d, struct dbuf *src)
{
	struct dbuf *dst = buf_new(d, PAGE, W);
	struct sacc_cqe c;

	wr32(d, SACC_REG_CTRL, SACC_CTRL_RESET);
	expect_power_on(d, "CTRL.RESET after a ring fault");
	rings_start(d);
	c = run1(d, SACC_OP_XFORM, src->iova, dst->iova, 333, 0);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
	for (unsigned int k = 0; k < 333; k++)
		ck_assert_uint_eq(dst->va[k], src->va[k] ^ SACC_XFORM_KEY);
}

START_TEST(test_ring_fault_sq_unmapped)
{
	struct dbuf *src = buf_new(&D, PAGE, R), *dst = buf_new(&D, PAGE, W);
	uint64_t mark;

	fill_rand(src->va, PAGE, 4);
	memset(dst->va, CANARY, PAGE);
	irq_setup(&D);
	rings_alloc(&D, 8, 8, 0, W); /* the SQ is not mapped */
	rings_start(&D);
	push(&D, SACC_OP_MEMCPY, src->iova, dst->iova, 64, 0);
	push(&D, SACC_OP_MEMCPY, src->iova, dst->iova, 64, 0);
	dmar_budget(1);
	mark = guest_kmsg_mark();
	ring(&D);
	guest_sleep_ms(QUIET_MS);
	expect_fatal(&D, IOVA_SQ, SACC_FAULT_DESC_FETCH, 0, 1);
	dmar_expect(&D, mark, IOVA_SQ, false);
	ck_assert(!cqe_ready(&D));

	/* Nothing more is processed: not even once the SQ becomes
	 * reachable and the doorbell rings again. */
	ck_assert_int_eq(dma_map(&D, D.sq->va, D.sq->iova, D.sq->len, R), 0);
	push(&D, SACC_OP_MEMCPY, src->iova, dst->iova, 64, SACC_DESC_F_IRQ);
	ring(&D);
	ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE), SACC_ERR_NOT_READY);
	expect_no_cqe(&D, "after a fetch fault");
	ck_untouched(dst->va, PAGE, "dst after a fetch fault");
	ck_assert_uint_eq(rd32(&D, SACC_REG_FAULT_COUNT), 1);
	expect_recovers(&D, src);
}
END_TEST

START_TEST(test_ring_fault_cq_readonly)
{
	struct dbuf *src = buf_new(&D, PAGE, R);
	struct dbuf *dst1 = buf_new(&D, PAGE, W), *dst2 = buf_new(&D, PAGE, W);
	uint64_t mark;
	uint32_t id;

	fill_rand(src->va, PAGE, 5);
	memset(dst2->va, CANARY, PAGE);
	irq_setup(&D);
	rings_alloc(&D, 8, 8, R, R); /* CQ read-only for the device */
	rings_start(&D);
	/* The IRQ flag must not raise bit 0: nothing was posted. */
	id = push(&D, SACC_OP_MEMCPY, src->iova, dst1->iova, 128,
		  SACC_DESC_F_IRQ);
	push(&D, SACC_OP_MEMCPY, src->iova, dst2->iova, 128, SACC_DESC_F_IRQ);
	dmar_budget(1);
	mark = guest_kmsg_mark();
	ring(&D);
	guest_sleep_ms(QUIET_MS);
	expect_fatal(&D, IOVA_CQ, SACC_FAULT_CQ_WRITE | SACC_FAULT_IS_WRITE, id, 1);
	dmar_expect(&D, mark, IOVA_CQ, true);
	ck_untouched(dst2->va, PAGE, "second descriptor's dst after a CQ fault");
	ck_assert_msg(first_not(D.cq->va, D.cq->len, 0) < 0,
		      "read-only CQ was written");
	expect_no_cqe(&D, "after a CQ fault");
	/* Setting ENABLE again without clearing it changes nothing. */
	wr32(&D, SACC_REG_CTRL, SACC_CTRL_ENABLE);
	ck_assert_uint_eq(rd32(&D, SACC_REG_STATUS), SACC_STATUS_ERROR);
	expect_no_cqe(&D, "ENABLE rewritten after a CQ fault");

	/* Recovery without reset: clear ENABLE, fix the CQ, enable (spec 7). */
	wr32(&D, SACC_REG_CTRL, 0);
	dma_unmap(&D, D.cq->iova, D.cq->len);
	ck_assert_int_eq(dma_map(&D, D.cq->va, D.cq->iova, D.cq->len, W), 0);
	rings_start(&D);
	ck_assert_uint_eq(run1(&D, SACC_OP_MEMCPY, src->iova, dst2->iova, 128,
			       0).status, SACC_STS_OK);
	ck_assert(!memcmp(dst2->va, src->va, 128));
	expect_recovers(&D, src);
}
END_TEST

/* A fetch fault in the middle of the ring: everything before it is
 * completed, nothing after it. */
START_TEST(test_ring_fault_sq_midring)
{
	const uint32_t n = 130, per_page = PAGE / 32;
	struct dbuf *src = buf_new(&D, PAGE, R), *dst = buf_new(&D, PAGE, W);
	struct sacc_cqe c;
	uint64_t mark;

	fill_rand(src->va, PAGE, 9);
	memset(dst->va, CANARY, PAGE);
	irq_setup(&D);
	rings_alloc(&D, 256, 256, 0, W);
	/* Only the SQ's first page is mapped. */
	ck_assert_int_eq(dma_map(&D, D.sq->va, D.sq->iova, PAGE, R), 0);
	rings_start(&D);
	for (uint32_t i = 0; i < n; i++)
		push(&D, i < per_page ? SACC_OP_NOP : SACC_OP_MEMCPY, src->iova,
		     dst->iova, 64, 0);
	dmar_budget(1);
	mark = guest_kmsg_mark();
	ring(&D);
	for (uint32_t i = 0; i < per_page; i++) {
		ck_assert_msg(wait_cqe(&D, &c, CQE_TIMEOUT_MS),
			      "completion %u of %u missing", i, per_page);
		ck_assert_uint_eq(c.status, SACC_STS_OK);
	}
	guest_sleep_ms(QUIET_MS);
	ck_assert(!cqe_ready(&D));
	expect_fatal(&D, IOVA_SQ + PAGE, SACC_FAULT_DESC_FETCH, 0, 1);
	dmar_expect(&D, mark, IOVA_SQ + PAGE, false);
	ck_untouched(dst->va, PAGE, "dst of descriptors after the fetch fault");
	expect_recovers(&D, src);
}
END_TEST

/* Bus mastering off: the device cannot fetch; a ring fault, not a hang. */
START_TEST(test_ring_fault_no_bus_master)
{
	struct dbuf *src = buf_new(&D, PAGE, R);
	uint16_t cmd;

	fill_rand(src->va, PAGE, 10);
	irq_setup(&D);
	rings_init(&D, 8, 8);
	cfg_read(&D, PCI_COMMAND, &cmd, 2);
	cmd &= ~PCI_COMMAND_MASTER;
	cfg_write(&D, PCI_COMMAND, &cmd, 2);
	push(&D, SACC_OP_NOP, 0, 0, 0, SACC_DESC_F_IRQ);
	ring(&D);
	guest_sleep_ms(QUIET_MS);
	ck_assert(!cqe_ready(&D));
	ck_assert_uint_eq(rd32(&D, SACC_REG_STATUS), SACC_STATUS_ERROR);
	ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE), SACC_ERR_DMA);
	ck_assert_uint_eq(rd32(&D, SACC_REG_FAULT_INFO), SACC_FAULT_DESC_FETCH);
	ck_assert_uint_eq(rd64(&D, SACC_REG_FAULT_ADDR), IOVA_SQ);
	ck_assert_uint_eq(rd32(&D, SACC_REG_IRQ_STATUS), SACC_IRQ_FATAL);
	cmd |= PCI_COMMAND_MASTER;
	cfg_write(&D, PCI_COMMAND, &cmd, 2);
	expect_recovers(&D, src);
}
END_TEST

void ring_fault_tests(Suite *s)
{
	TCase *t = spec_tc(s, "ring-faults");

	/* They wait out the kernel's DMAR ratelimit windows: ci/test
	 * runs them in a boot of their own (CK_INCLUDE_TAGS=dmar /
	 * CK_EXCLUDE_TAGS=dmar). */
	tcase_set_tags(t, "dmar");
	tcase_add_test(t, test_ring_fault_sq_unmapped);
	tcase_add_test(t, test_ring_fault_cq_readonly);
	tcase_add_test(t, test_ring_fault_sq_midring);
	tcase_add_test(t, test_ring_fault_no_bus_master);
}

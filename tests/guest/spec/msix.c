// SPDX-License-Identifier: MIT
/*
 * msix.c - MSI-X (spec 7): a flagged completion raises vector 0 on the
 * eventfd, IRQ_STATUS and IRQ_ACK
 */
#include "spec.h"

START_TEST(test_msix)
{
	struct sacc_cqe c;

	irq_setup(&D);
	rings_init(&D, 8, 8);

	/* Without the flag: no interrupt, IRQ_STATUS stays 0. */
	c = run1(&D, SACC_OP_NOP, 0, 0, 0, 0);
	ck_assert_uint_eq(c.status, SACC_STS_OK);
	ck_assert_uint_eq(irq_wait(&D, QUIET_MS), 0);
	ck_assert_uint_eq(rd32(&D, SACC_REG_IRQ_STATUS), 0);

	/* With the flag: the eventfd fires, IRQ_STATUS bit 0. */
	for (unsigned int i = 0; i < 3; i++) {
		push(&D, SACC_OP_NOP, 0, 0, 0, SACC_DESC_F_IRQ);
		ring(&D);
		ck_assert_msg(irq_wait(&D, 5000) >= 1, "no MSI-X interrupt (%u)", i);
		ck_assert(cqe_ready(&D)); /* posted before the interrupt */
		ck_assert_uint_eq(rd32(&D, SACC_REG_IRQ_STATUS), SACC_IRQ_COMPLETION);
		/* Acking other bits does not clear it; acking it does. */
		wr32(&D, SACC_REG_IRQ_ACK, 0);
		wr32(&D, SACC_REG_IRQ_ACK, SACC_IRQ_FATAL);
		ck_assert_uint_eq(rd32(&D, SACC_REG_IRQ_STATUS), SACC_IRQ_COMPLETION);
		wr32(&D, SACC_REG_IRQ_ACK, SACC_IRQ_COMPLETION);
		ck_assert_uint_eq(rd32(&D, SACC_REG_IRQ_STATUS), 0);
		ck_assert(wait_cqe(&D, &c, 1000));
		cq_ack(&D);
	}
	/* In a batch only the flagged descriptor's completion interrupts. */
	push(&D, SACC_OP_NOP, 0, 0, 0, 0);
	push(&D, SACC_OP_NOP, 0, 0, 0, 0);
	ring(&D);
	ck_assert(wait_cqe(&D, &c, 2000) && wait_cqe(&D, &c, 2000));
	cq_ack(&D);
	ck_assert_uint_eq(irq_wait(&D, QUIET_MS), 0);
	push(&D, SACC_OP_NOP, 0, 0, 0, 0);
	push(&D, SACC_OP_NOP, 0, 0, 0, SACC_DESC_F_IRQ);
	ring(&D);
	ck_assert(irq_wait(&D, 5000) >= 1);
	ck_assert_uint_eq(rd32(&D, SACC_REG_IRQ_STATUS), SACC_IRQ_COMPLETION);
	/* A failing descriptor with the flag interrupts too. */
	ck_assert(wait_cqe(&D, &c, 2000) && wait_cqe(&D, &c, 2000));
	cq_ack(&D);
	wr32(&D, SACC_REG_IRQ_ACK, ~0u);
	c = run1(&D, 0x55, 0, 0, 1, SACC_DESC_F_IRQ);
	ck_assert_uint_eq(c.status, SACC_STS_BAD_OPCODE);
	ck_assert(irq_wait(&D, 5000) >= 1);
	/* CTRL.RESET clears IRQ_STATUS but leaves config space (MSI-X) alone. */
	wr32(&D, SACC_REG_CTRL, SACC_CTRL_RESET);
	ck_assert_uint_eq(rd32(&D, SACC_REG_IRQ_STATUS), 0);
	rings_start(&D);
	run1(&D, SACC_OP_NOP, 0, 0, 0, SACC_DESC_F_IRQ);
	ck_assert_msg(irq_wait(&D, 5000) >= 1, "no MSI-X after CTRL.RESET");
}
END_TEST

void msix_tests(Suite *s)
{
	TCase *t = spec_tc(s, "msix");

	tcase_add_test(t, test_msix);
}

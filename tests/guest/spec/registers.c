// SPDX-License-Identifier: MIT
/*
 * registers.c - registers (spec 2): power-on values, access widths, the ring
 * registers locked while enabled
 */
#include "spec.h"

START_TEST(test_reset_values)
{
	expect_power_on(&D, "CTRL.RESET");
	/* The RESET bit reads 0; RESET wins over ENABLE in the same write. */
	wr32(&D, SACC_REG_SQ_SIZE, 8);
	wr32(&D, SACC_REG_CQ_SIZE, 8);
	wr32(&D, SACC_REG_CTRL, SACC_CTRL_RESET | SACC_CTRL_ENABLE);
	expect_power_on(&D, "CTRL = RESET|ENABLE");
	/* Reserved CTRL bits are ignored: ENABLE among them still enables. */
	wr32(&D, SACC_REG_SQ_SIZE, 8);
	wr32(&D, SACC_REG_CQ_SIZE, 8);
	wr32(&D, SACC_REG_CTRL, ~SACC_CTRL_RESET);
	ck_assert_uint_eq(rd32(&D, SACC_REG_CTRL), SACC_CTRL_ENABLE);
	ck_assert_uint_eq(rd32(&D, SACC_REG_STATUS), SACC_STATUS_READY);
	wr32(&D, SACC_REG_CTRL, ~(SACC_CTRL_RESET | SACC_CTRL_ENABLE));
	ck_assert_uint_eq(rd32(&D, SACC_REG_CTRL), 0);
	ck_assert_uint_eq(rd32(&D, SACC_REG_STATUS), 0);
}
END_TEST

START_TEST(test_register_access)
{
	static const uint32_t pat[] = {0, 0xffffffff, 0xa5a5a5a5, 0x12345678};
	static const uint32_t ro[] = {
		SACC_REG_STATUS, SACC_REG_IRQ_STATUS, SACC_REG_ERR_CODE,
		SACC_REG_FAULT_ADDR, SACC_REG_FAULT_ADDR + 4, SACC_REG_FAULT_INFO,
		SACC_REG_FAULT_REQ_ID, SACC_REG_FAULT_COUNT,
	};
	static const uint32_t base[] = {SACC_REG_SQ_BASE, SACC_REG_CQ_BASE};

	/* MAGIC, VERSION: constants. */
	wr32(&D, SACC_REG_MAGIC, 0);
	wr32(&D, SACC_REG_VERSION, 7);
	ck_assert_uint_eq(rd32(&D, SACC_REG_MAGIC), SACC_MAGIC);
	ck_assert_uint_eq(rd32(&D, SACC_REG_VERSION), SACC_VERSION);

	/* SCRATCH, SQ_SIZE, CQ_SIZE: plain RW (validated only at enable). */
	for (unsigned int i = 0; i < 4; i++) {
		wr32(&D, SACC_REG_SCRATCH, pat[i]);
		ck_assert_uint_eq(rd32(&D, SACC_REG_SCRATCH), pat[i]);
		wr32(&D, SACC_REG_SQ_SIZE, pat[i]);
		ck_assert_uint_eq(rd32(&D, SACC_REG_SQ_SIZE), pat[i]);
		wr32(&D, SACC_REG_CQ_SIZE, ~pat[i]);
		ck_assert_uint_eq(rd32(&D, SACC_REG_CQ_SIZE), ~pat[i]);
	}

	/* SQ_BASE, CQ_BASE: LO/HI halves and one 64-bit access agree. */
	for (unsigned int i = 0; i < 2; i++) {
		uint32_t o = base[i];

		wr32(&D, o, 0x89abcde0);
		wr32(&D, o + 4, 0x01234567);
		ck_assert_uint_eq(rd64(&D, o), 0x0123456789abcde0ull);
		wr32(&D, o + 4, 0x7654321f); /* HI alone keeps LO */
		ck_assert_uint_eq(rd64(&D, o), 0x7654321f89abcde0ull);
		wr64(&D, o, 0xfedcba9876543200ull);
		ck_assert_uint_eq(rd32(&D, o), 0x76543200);
		ck_assert_uint_eq(rd32(&D, o + 4), 0xfedcba98);
		ck_assert_uint_eq(rd64(&D, o), 0xfedcba9876543200ull);
	}

	/* CTRL: RESET self-clears; reserved bits ignored, read 0. */
	wr32(&D, SACC_REG_CTRL, ~(SACC_CTRL_ENABLE | SACC_CTRL_RESET));
	ck_assert_uint_eq(rd32(&D, SACC_REG_CTRL), 0);
	ck_assert_uint_eq(rd32(&D, SACC_REG_STATUS), 0);

	/* Read-only registers ignore writes. */
	for (unsigned int i = 0; i < sizeof(ro) / sizeof(ro[0]); i++) {
		wr32(&D, ro[i], 0xffffffff);
		ck_assert_msg(!rd32(&D, ro[i]), "RO register 0x%x took a write",
			      ro[i]);
	}
	wr64(&D, SACC_REG_FAULT_ADDR, ~0ull);
	ck_assert_uint_eq(rd64(&D, SACC_REG_FAULT_ADDR), 0);

	/* Write-only registers read 0.  CQ_HEAD while not READY: ignored,
	 * ERR_CODE unchanged (spec 3). */
	wr32(&D, SACC_REG_CQ_HEAD, 1);
	ck_assert_uint_eq(rd32(&D, SACC_REG_CQ_HEAD), 0);
	wr32(&D, SACC_REG_CQ_HEAD, 0xffffffff);
	ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE), 0);
	wr32(&D, SACC_REG_IRQ_ACK, 0xffffffff);
	ck_assert_uint_eq(rd32(&D, SACC_REG_IRQ_ACK), 0);

	/* Reserved offsets of page 0: read 0, ignore writes. */
	wr32(&D, SACC_REG_SCRATCH, 0x5a5a0001);
	wr64(&D, SACC_REG_SQ_BASE, 0x1000);
	for (uint32_t o = 0x44; o < PAGE; o += 4) {
		if (o == SACC_REG_FAULT_ADDR)
			o = SACC_REG_FAULT_COUNT + 4;
		wr32(&D, o, 0xffffffff);
		ck_assert_msg(!rd32(&D, o), "reserved 0x%x reads 0x%x", o,
			      rd32(&D, o));
	}
	ck_assert_uint_eq(rd32(&D, SACC_REG_SCRATCH), 0x5a5a0001);
	ck_assert_uint_eq(rd64(&D, SACC_REG_SQ_BASE), 0x1000);
	ck_assert_uint_eq(rd32(&D, SACC_REG_CTRL), 0);
	ck_assert_uint_eq(rd32(&D, SACC_REG_STATUS), 0);
	ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE), 0);
	ck_assert_uint_eq(rd32(&D, SACC_REG_FAULT_COUNT), 0);

	/* Page 1: everything, the doorbell included, reads 0. */
	for (uint32_t o = SACC_DOORBELL_OFFSET; o < SACC_BAR0_SIZE; o += 4)
		ck_assert_msg(!rd32(&D, o), "doorbell page 0x%x reads 0x%x", o,
			      rd32(&D, o));

	/* Other access sizes: ignored, reads 0 (spec 2). */
	wr32(&D, SACC_REG_SCRATCH, 0x11223344);
	ck_assert_uint_eq(*(volatile uint8_t *)(D.bar0 + SACC_REG_MAGIC), 0);
	ck_assert_uint_eq(*(volatile uint16_t *)(D.bar0 + SACC_REG_MAGIC), 0);
	ck_assert_uint_eq(*(volatile uint8_t *)(D.bar0 + SACC_REG_SCRATCH), 0);
	ck_assert_uint_eq(*(volatile uint16_t *)(D.bar0 + SACC_REG_SCRATCH + 2), 0);
	*(volatile uint8_t *)(D.bar0 + SACC_REG_SCRATCH) = 0xff;
	*(volatile uint16_t *)(D.bar0 + SACC_REG_SCRATCH + 2) = 0xffff;
	ck_assert_uint_eq(rd32(&D, SACC_REG_SCRATCH), 0x11223344);
	/* 64-bit accesses only at 0x10, 0x20, 0x48. */
	ck_assert_uint_eq(rd64(&D, SACC_REG_MAGIC), 0);
	ck_assert_uint_eq(rd64(&D, SACC_REG_SQ_SIZE), 0);
	ck_assert_uint_eq(rd64(&D, SACC_REG_SCRATCH), 0);
	wr64(&D, SACC_REG_SCRATCH, 0x9999999999999999ull);
	ck_assert_uint_eq(rd32(&D, SACC_REG_SCRATCH), 0x11223344);
	ck_assert_uint_eq(rd32(&D, SACC_REG_SCRATCH + 4), 0);
	wr64(&D, SACC_REG_SQ_SIZE, 0x400000004ull);
	ck_assert_uint_eq(rd32(&D, SACC_REG_SQ_SIZE), 0x12345678);
	/* None of that was an error the device records. */
	ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE), 0);
}
END_TEST

START_TEST(test_ring_regs_locked)
{
	uint64_t sqb, cqb;
	struct sacc_cqe c;

	rings_init(&D, 8, 8);
	sqb = rd64(&D, SACC_REG_SQ_BASE);
	cqb = rd64(&D, SACC_REG_CQ_BASE);
	ck_assert_uint_eq(sqb, IOVA_SQ);
	ck_assert_uint_eq(cqb, IOVA_CQ);

	wr32(&D, SACC_REG_SQ_BASE, 0x2000);
	wr32(&D, SACC_REG_SQ_BASE + 4, 1);
	wr64(&D, SACC_REG_SQ_BASE, 0x3000);
	wr32(&D, SACC_REG_SQ_SIZE, 16);
	wr32(&D, SACC_REG_CQ_BASE, 0x4000);
	wr32(&D, SACC_REG_CQ_BASE + 4, 1);
	wr64(&D, SACC_REG_CQ_BASE, 0x5000);
	wr32(&D, SACC_REG_CQ_SIZE, 3);
	ck_assert_uint_eq(rd64(&D, SACC_REG_SQ_BASE), sqb);
	ck_assert_uint_eq(rd64(&D, SACC_REG_CQ_BASE), cqb);
	ck_assert_uint_eq(rd32(&D, SACC_REG_SQ_SIZE), 8);
	ck_assert_uint_eq(rd32(&D, SACC_REG_CQ_SIZE), 8);
	ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE), 0);
	expect_ready(&D);
	c = run1(&D, SACC_OP_NOP, 0, 0, 0, 0); /* still works as programmed */
	ck_assert_uint_eq(c.status, SACC_STS_OK);

	/* Clearing ENABLE stops the device and unlocks the registers. */
	wr32(&D, SACC_REG_CTRL, 0);
	ck_assert_uint_eq(rd32(&D, SACC_REG_STATUS), 0);
	wr32(&D, SACC_REG_SQ_SIZE, 16);
	wr64(&D, SACC_REG_CQ_BASE, 0x5000);
	ck_assert_uint_eq(rd32(&D, SACC_REG_SQ_SIZE), 16);
	ck_assert_uint_eq(rd64(&D, SACC_REG_CQ_BASE), 0x5000);

	/* After an invalid enable ENABLE reads 1: still locked. */
	wr32(&D, SACC_REG_CQ_SIZE, 3);
	wr32(&D, SACC_REG_CTRL, SACC_CTRL_ENABLE);
	ck_assert_uint_eq(rd32(&D, SACC_REG_CTRL), SACC_CTRL_ENABLE);
	wr32(&D, SACC_REG_CQ_SIZE, 8);
	ck_assert_uint_eq(rd32(&D, SACC_REG_CQ_SIZE), 3);
}
END_TEST

void register_tests(Suite *s)
{
	TCase *t = spec_tc(s, "registers");

	tcase_add_test(t, test_reset_values);
	tcase_add_test(t, test_register_access);
	tcase_add_test(t, test_ring_regs_locked);
}

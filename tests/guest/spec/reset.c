// SPDX-License-Identifier: MIT
/*
 * reset.c - reset (spec 9): CTRL.RESET and FLR (VFIO_DEVICE_RESET) bring
 * every register back to its power-on value and stop all DMA, even with
 * copies in flight
 */
#include "spec.h"

/* Put something non-zero in every RW/RO register that can hold state. */
static void dirty_everything(struct vdev *d, struct dbuf *src)
{
	struct sacc_cqe c;

	wr32(d, SACC_REG_SCRATCH, 0xfeedf00d);
	c = run1(d, SACC_OP_MEMCPY, src->iova, IOVA_HOLE + 0x80, 64,
		 SACC_DESC_F_IRQ); /* fault record, ERR_CODE 2, IRQ bit 0 */
	ck_assert_uint_eq(c.status, SACC_STS_DMA_FAULT);
	ck_assert_uint_ne(rd32(d, SACC_REG_FAULT_COUNT), 0);
	ck_assert_uint_ne(rd32(d, SACC_REG_IRQ_STATUS), 0);
	ck_assert_uint_ne(rd32(d, SACC_REG_ERR_CODE), 0);
	ck_assert_uint_ne(rd32(d, SACC_REG_CTRL), 0);
}

/* Queue a lot of copying, reset right after the doorbell: after the
 * reset returns, neither dst nor the CQ may change any more. */
static const char *const stop_name[] = {"CTRL.RESET", "FLR", "disable"};

void reset_in_flight(struct vdev *d, enum stop how)
{
	enum { N = 12 };
	struct dbuf *src = buf_new(d, MiB, R), *dst[N];
	uint8_t *snap, *cqsnap;

	fill_rand(src->va, MiB, 6);
	for (unsigned int i = 0; i < N; i++) {
		dst[i] = buf_new(d, MiB, W);
		memset(dst[i]->va, CANARY, MiB);
	}
	rings_start(d);
	for (unsigned int i = 0; i < N; i++)
		push(d, SACC_OP_XFORM, src->iova, dst[i]->iova, MiB, 0);
	ring(d);
	if (how == STOP_FLR)
		ck_assert_int_eq(ioctl(d->device, VFIO_DEVICE_RESET), 0);
	else
		wr32(d, SACC_REG_CTRL, how == STOP_RESET ? SACC_CTRL_RESET : 0);
	ck_assert_uint_eq(rd32(d, SACC_REG_STATUS), 0);
	snap = malloc((size_t)N * MiB);
	cqsnap = malloc(d->cq->len);
	ck_assert(snap && cqsnap);
	for (unsigned int i = 0; i < N; i++)
		memcpy(snap + (size_t)i * MiB, dst[i]->va, MiB);
	memcpy(cqsnap, d->cq->va, d->cq->len);
	guest_sleep_ms(2 * QUIET_MS);
	for (unsigned int i = 0; i < N; i++)
		ck_assert_msg(!memcmp(snap + (size_t)i * MiB, dst[i]->va, MiB),
			      "dst %u changed after the %s returned", i,
			      stop_name[how]);
	ck_assert_msg(!memcmp(cqsnap, d->cq->va, d->cq->len),
		      "CQ changed after the %s returned", stop_name[how]);
	free(snap);
	free(cqsnap);
}

START_TEST(test_ctrl_reset)
{
	struct dbuf *src;

	irq_setup(&D);
	rings_init(&D, 16, 16);
	src = buf_new(&D, PAGE, R);
	fill_rand(src->va, PAGE, 7);
	dmar_budget(1);
	dirty_everything(&D, src);
	wr32(&D, SACC_REG_CTRL, SACC_CTRL_RESET);
	expect_power_on(&D, "CTRL.RESET");
	reset_in_flight(&D, STOP_RESET);
	expect_power_on(&D, "CTRL.RESET in flight");
	expect_recovers(&D, src);
}
END_TEST

START_TEST(test_flr)
{
	struct dbuf *src;
	uint16_t cmd;

	irq_setup(&D);
	rings_init(&D, 16, 16);
	src = buf_new(&D, PAGE, R);
	fill_rand(src->va, PAGE, 8);
	dmar_budget(1);
	dirty_everything(&D, src);
	ck_assert_int_eq(ioctl(D.device, VFIO_DEVICE_RESET), 0);
	expect_power_on(&D, "VFIO_DEVICE_RESET");
	/* vfio-pci restores config space around the FLR. */
	cfg_read(&D, PCI_COMMAND, &cmd, 2);
	ck_assert(cmd & PCI_COMMAND_MASTER);
	reset_in_flight(&D, STOP_FLR);
	expect_power_on(&D, "VFIO_DEVICE_RESET in flight");
	/* Usable after re-init, MSI-X included. */
	rings_start(&D);
	run1(&D, SACC_OP_NOP, 0, 0, 0, SACC_DESC_F_IRQ);
	ck_assert_msg(irq_wait(&D, 5000) >= 1, "no MSI-X after FLR + re-init");
	expect_recovers(&D, src);
}
END_TEST

void reset_tests(Suite *s)
{
	TCase *t = spec_tc(s, "reset");

	tcase_add_test(t, test_ctrl_reset);
	tcase_add_test(t, test_flr);
}

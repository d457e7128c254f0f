// SPDX-License-Identifier: MIT
/*
 * two_devices.c - two devices at once (spec 10): separate IOMMU groups and IOVA
 * spaces, interleaved work, a fault on one that leaves the other alone
 */
#include "spec.h"

START_TEST(test_two_devices)
{
	struct vdev *E = calloc(1, sizeof(*E));
	struct dbuf *s0, *d0, *s1, *d1;
	uint32_t id0[4], id1[4];
	uint64_t mark;
	struct sacc_cqe c;

	ck_assert_msg(guest_nr_devices() >= 2,
		      "needs two SACC devices (ci/vm --devices 2)");
	vd_open(E, 1);
	rings_init(&D, 8, 8);
	rings_init(E, 8, 8);
	/* Same IOVAs in both containers, different memory behind them. */
	s0 = buf_new(&D, MiB, R);
	d0 = buf_new(&D, 4 * MiB, W);
	s1 = buf_new(E, MiB, R);
	d1 = buf_new(E, 4 * MiB, W);
	ck_assert_uint_eq(s0->iova, s1->iova);
	fill_rand(s0->va, MiB, 10);
	fill_rand(s1->va, MiB, 11);
	for (unsigned int i = 0; i < 4; i++) {
		id0[i] = push(&D, SACC_OP_MEMCPY, s0->iova, d0->iova + i * MiB, MiB, 0);
		id1[i] = push(E, SACC_OP_XFORM, s1->iova, d1->iova + i * MiB, MiB, 0);
	}
	ring(&D);
	ring(E);
	for (unsigned int i = 0; i < 4; i++) {
		ck_assert_uint_eq(take(&D, id0[i]).status, SACC_STS_OK);
		ck_assert_uint_eq(take(E, id1[i]).status, SACC_STS_OK);
	}
	cq_ack(&D);
	cq_ack(E);
	for (unsigned int i = 0; i < 4; i++) {
		ck_assert(!memcmp(d0->va + (size_t)i * MiB, s0->va, MiB));
		for (size_t k = 0; k < MiB; k += 997)
			ck_assert_uint_eq(d1->va[(size_t)i * MiB + k],
					  s1->va[k] ^ SACC_XFORM_KEY);
	}
	/* A fault on device 1 is attributed to it, not to device 0. */
	dmar_budget(1);
	mark = guest_kmsg_mark();
	c = run1(E, SACC_OP_MEMCPY, s1->iova, IOVA_HOLE + 0x5000, 8, 0);
	ck_assert_uint_eq(c.status, SACC_STS_DMA_FAULT);
	dmar_expect(E, mark, IOVA_HOLE + 0x5000, true);
	ck_assert_uint_eq(rd32(&D, SACC_REG_FAULT_COUNT), 0);
	ck_assert_uint_eq(rd32(&D, SACC_REG_ERR_CODE), 0);
	ck_assert_uint_eq(rd32(E, SACC_REG_FAULT_COUNT), 1);
	/* A reset of one does not disturb the other. */
	wr32(E, SACC_REG_CTRL, SACC_CTRL_RESET);
	expect_ready(&D);
	ck_assert_uint_eq(run1(&D, SACC_OP_NOP, 0, 0, 0, 0).status, SACC_STS_OK);

	/* Peer to peer: each device DMAs garbage into the other's BAR0
	 * (registers and doorbell) at the same time.  Not in the spec's
	 * success paths; QEMU must survive it and both devices must work
	 * after a reset. */
	{
		const uint64_t peer = IOVA_SPECIAL;

		ck_assert_int_eq(dma_map(&D, (void *)E->bar0, peer, SACC_BAR0_SIZE,
					 R | W), 0);
		ck_assert_int_eq(dma_map(E, (void *)D.bar0, peer, SACC_BAR0_SIZE,
					 R | W), 0);
		rings_start(E);
		for (unsigned int i = 0; i < 4; i++) {
			push(&D, SACC_OP_MEMCPY, s0->iova + i * 64, peer + i * PAGE / 2,
			     PAGE / 2, 0);
			push(E, SACC_OP_MEMCPY, s1->iova + i * 64, peer + i * PAGE / 2,
			     PAGE / 2, 0);
		}
		ring(&D);
		ring(E);
		guest_sleep_ms(QUIET_MS);
		ck_assert_uint_eq(rd32(&D, SACC_REG_MAGIC), SACC_MAGIC);
		ck_assert_uint_eq(rd32(E, SACC_REG_MAGIC), SACC_MAGIC);
		wr32(&D, SACC_REG_CTRL, SACC_CTRL_RESET);
		wr32(E, SACC_REG_CTRL, SACC_CTRL_RESET);
		dma_unmap(&D, peer, SACC_BAR0_SIZE);
		dma_unmap(E, peer, SACC_BAR0_SIZE);
		rings_start(&D);
		rings_start(E);
		ck_assert_uint_eq(run1(&D, SACC_OP_MEMCPY, s0->iova, d0->iova, MiB,
				       0).status, SACC_STS_OK);
		ck_assert_uint_eq(run1(E, SACC_OP_MEMCPY, s1->iova, d1->iova, MiB,
				       0).status, SACC_STS_OK);
		ck_assert(!memcmp(d0->va, s0->va, MiB));
		ck_assert(!memcmp(d1->va, s1->va, MiB));
		dmar_exhausted(); /* the garbage may have made IOMMU faults */
	}
	vd_close(E);
	free(E);
}
END_TEST

void two_device_tests(Suite *s)
{
	TCase *t = spec_tc(s, "multi");

	tcase_add_test(t, test_two_devices);
}

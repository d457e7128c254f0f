// SPDX-License-Identifier: MIT
/*
 * test_dmadev_fp.c - the SACC dmadev fast path (sacc_dmadev_fp.c) on the
 * host, against a stand-in for the device: BARs are plain memory (the
 * driver's doorbell and CQ_HEAD stores land there, the fault record is
 * what the test writes), and the test plays the engine, reading the SQ
 * up to the doorbell and posting completions, true or forged.
 *
 * What the guest cannot show: the driver never believes a completion
 * that is not its slot's (another req_id, a wrong length, an unknown
 * status), never reads past what it published, and survives it.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_dmadev.h>

#include "saccdma_internal.h"

int saccdma_logtype = RTE_LOGTYPE_USER1;

#define NB 32u

static struct saccdma_dev *sd;
static struct saccdma_vchan *vc;
static struct rte_dma_fp_object fp;
static uint8_t *bar0, *bar2, *rings;
/* the engine stand-in: its SQ head, CQ tail and phase */
static uint32_t e_head, e_tail;
static uint16_t e_phase;

static uint32_t reg(uint8_t *base, uint32_t off)
{
	uint32_t v;

	memcpy(&v, base + off, 4);
	return rte_le_to_cpu_32(v);
}

static void set_reg(uint8_t *base, uint32_t off, uint32_t v)
{
	v = rte_cpu_to_le_32(v);
	memcpy(base + off, &v, 4);
}

static void setup(void)
{
	sd = calloc(1, sizeof(*sd));
	bar0 = calloc(1, SACC_BAR0_SIZE);
	bar2 = calloc(1, SACC_BAR2_SIZE);
	rings = aligned_alloc(4096, sacc_sq_bytes(NB) + sacc_cq_bytes(NB));
	ck_assert(sd && bar0 && bar2 && rings);
	sd->bar0 = bar0;
	sd->bar2 = bar2;
	sd->channels = 8;
	sd->nb_vchans = 1;
	vc = &sd->vc[0];
	vc->blk = bar2 + SACC_CHAN_BLOCK(0);
	vc->doorbell = bar0 + SACC_DOORBELL(0);
	vc->nb_desc = NB;
	ck_assert_int_eq(sacc_sq_init(&vc->sq, rings, NB), 0);
	ck_assert_int_eq(sacc_cq_init(&vc->cq, rings + sacc_sq_bytes(NB), NB),
			 0);
	memset(&fp, 0, sizeof(fp));
	saccdma_fp_install(&fp);
	e_head = e_tail = 0;
	e_phase = 1;
}

static void teardown(void)
{
	free(sd);
	free(bar0);
	free(bar2);
	free(rings);
}

/* Forgeries the engine can apply to the next completion it posts. */
enum forge { TRUE_CQE, OTHER_REQ_ID, SHORT_LEN, BAD_STATUS };

/* Post the next completion: @status, or a forgery. */
static void post(uint16_t status, enum forge f)
{
	const struct sacc_desc *d = &vc->sq.entries[e_head];
	struct sacc_cqe *c = &vc->cq.entries[e_tail];

	c->req_id = f == OTHER_REQ_ID ? d->req_id + 7 : d->req_id;
	c->result_len = status ? 0 : d->length - (f == SHORT_LEN);
	c->engine_ns = 100;
	c->status = f == BAD_STATUS ? 9 : status;
	__atomic_store_n(&c->phase, e_phase, __ATOMIC_RELEASE);
	e_head = (e_head + 1) % NB;
	if (++e_tail == NB) {
		e_tail = 0;
		e_phase ^= 1;
	}
}

/* Run every descriptor up to the doorbell, all successful. */
static uint32_t engine_run(void)
{
	uint32_t n = 0, tail = reg(bar0, SACC_DOORBELL(0));

	while (e_head != tail) {
		post(SACC_STS_OK, TRUE_CQE);
		n++;
	}
	return n;
}

static int copy(uint64_t flags)
{
	return fp.copy(sd, 0, 0x1000, 0x2000, 64, flags);
}

START_TEST(test_enqueue_submit)
{
	const struct sacc_desc *d = &vc->sq.entries[0];

	ck_assert_int_eq(copy(0), 0);
	ck_assert_int_eq(fp.fill(sd, 0, 0x8877665544332211ull, 0x3000, 10, 0),
			 1);
	ck_assert_uint_eq(reg(bar0, SACC_DOORBELL(0)), 0); /* not yet */
	ck_assert_uint_eq(vc->stats.submitted, 0);
	ck_assert_int_eq(fp.submit(sd, 0), 0);
	ck_assert_uint_eq(reg(bar0, SACC_DOORBELL(0)), 2);
	ck_assert_uint_eq(vc->stats.submitted, 2);
	ck_assert_uint_eq(d[0].opcode, SACC_OP_MEMCPY);
	ck_assert_uint_eq(d[0].src, 0x1000);
	ck_assert_uint_eq(d[0].length, 64);
	ck_assert_uint_eq(d[0].flags, 0);
	ck_assert_uint_eq(d[1].opcode, SACC_OP_FILL);
	ck_assert_uint_eq(d[1].src, 0x8877665544332211ull);
	ck_assert_uint_eq(d[1].req_id, 1);
	/* SUBMIT in the flags rings at once; a second submit rings no more */
	ck_assert_int_eq(copy(RTE_DMA_OP_FLAG_SUBMIT), 2);
	ck_assert_uint_eq(reg(bar0, SACC_DOORBELL(0)), 3);
	set_reg(bar0, SACC_DOORBELL(0), 99);
	ck_assert_int_eq(fp.submit(sd, 0), 0);
	ck_assert_uint_eq(reg(bar0, SACC_DOORBELL(0)), 99);
	ck_assert_uint_eq(vc->stats.submitted, 3);
}
END_TEST

START_TEST(test_completed_in_order)
{
	uint16_t last = 0;
	bool err = false;

	ck_assert_uint_eq(fp.completed(sd, 0, 8, &last, &err), 0);
	ck_assert_uint_eq(last, 0xffff); /* nothing handed back yet */
	for (int i = 0; i < 5; i++)
		copy(0);
	fp.submit(sd, 0);
	ck_assert_uint_eq(engine_run(), 5);
	ck_assert_uint_eq(fp.completed(sd, 0, 3, &last, &err), 3);
	ck_assert_uint_eq(last, 2);
	ck_assert(!err);
	ck_assert_uint_eq(reg(vc->blk, SACC_REG_CQ_HEAD), 3);
	ck_assert_uint_eq(fp.completed(sd, 0, 8, &last, &err), 2);
	ck_assert_uint_eq(last, 4);
	ck_assert_uint_eq(vc->stats.completed, 5);
	ck_assert_uint_eq(fp.burst_capacity(sd, 0), NB - 1);
}
END_TEST

/* Completions for what was never published are not read. */
START_TEST(test_unpublished_ignored)
{
	uint16_t last;
	bool err = false;

	copy(0);
	copy(0);
	/* the device forges both, with every field right */
	post(SACC_STS_OK, TRUE_CQE);
	post(SACC_STS_OK, TRUE_CQE);
	ck_assert_uint_eq(fp.completed(sd, 0, 8, &last, &err), 0);
	ck_assert(!err);
	fp.submit(sd, 0);
	ck_assert_uint_eq(fp.completed(sd, 0, 8, &last, &err), 2);
}
END_TEST

/* A forged completion is an error for its op, never a crash; the ops
 * around it are handed back as usual. */
static void forged(enum forge f)
{
	enum rte_dma_status_code st[4];
	uint16_t last;
	bool err = false;

	for (int i = 0; i < 3; i++)
		copy(0);
	fp.submit(sd, 0);
	post(SACC_STS_OK, TRUE_CQE);
	post(SACC_STS_OK, f);
	post(SACC_STS_OK, TRUE_CQE);
	ck_assert_uint_eq(fp.completed(sd, 0, 8, &last, &err), 1);
	ck_assert(err);
	ck_assert_uint_eq(last, 0);
	err = false;
	ck_assert_uint_eq(fp.completed(sd, 0, 8, &last, &err), 0);
	ck_assert(err);
	ck_assert_uint_eq(last, 0);
	ck_assert_uint_eq(fp.completed_status(sd, 0, 4, &last, st), 2);
	ck_assert_int_eq(st[0], RTE_DMA_STATUS_ERROR_UNKNOWN);
	ck_assert_int_eq(st[1], RTE_DMA_STATUS_SUCCESSFUL);
	ck_assert_uint_eq(last, 2);
	ck_assert_uint_eq(vc->bad_cqe, 1);
	ck_assert_uint_eq(vc->stats.errors, 1);
	ck_assert_uint_eq(vc->stats.completed, 3);
}

START_TEST(test_forged_req_id)
{
	forged(OTHER_REQ_ID);
}
END_TEST

START_TEST(test_forged_length)
{
	forged(SHORT_LEN);
}
END_TEST

START_TEST(test_forged_status)
{
	forged(BAD_STATUS);
}
END_TEST

/* SACC's statuses, and a DMA fault told by the channel's fault record. */
START_TEST(test_status_mapping)
{
	static const struct {
		uint16_t sts;
		int rec_req; /* the record's req_id: the op's (1) or not (0) */
		uint32_t info;
		enum rte_dma_status_code want;
	} t[] = {
	    {SACC_STS_BAD_OPCODE, 0, 0, RTE_DMA_STATUS_INVALID_OPCODE},
	    {SACC_STS_BAD_LENGTH, 0, 0, RTE_DMA_STATUS_INVALID_LENGTH},
	    {SACC_STS_DMA_FAULT, 1, SACC_FAULT_SRC_READ,
	     RTE_DMA_STATUS_INVALID_SRC_ADDR},
	    {SACC_STS_DMA_FAULT, 1, SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE,
	     RTE_DMA_STATUS_INVALID_DST_ADDR},
	    {SACC_STS_DMA_FAULT, 1, SACC_FAULT_DEV_READ,
	     RTE_DMA_STATUS_INVALID_SRC_ADDR},
	    {SACC_STS_DMA_FAULT, 1, SACC_FAULT_DEV_WRITE | SACC_FAULT_IS_WRITE,
	     RTE_DMA_STATUS_INVALID_DST_ADDR},
	    {SACC_STS_DMA_FAULT, 0, SACC_FAULT_SRC_READ,
	     RTE_DMA_STATUS_INVALID_ADDR},
	    {SACC_STS_DMA_FAULT, 1, SACC_FAULT_CQ_WRITE,
	     RTE_DMA_STATUS_INVALID_ADDR},
	};
	enum rte_dma_status_code st;
	uint16_t last;

	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int id = copy(RTE_DMA_OP_FLAG_SUBMIT);

		set_reg(vc->blk, SACC_REG_FAULT_REQ_ID,
			t[i].rec_req ? id : 12345);
		set_reg(vc->blk, SACC_REG_FAULT_INFO, t[i].info);
		post(t[i].sts, TRUE_CQE);
		ck_assert_uint_eq(fp.completed_status(sd, 0, 1, &last, &st), 1);
		ck_assert_uint_eq(last, (uint16_t)id);
		ck_assert_msg(st == t[i].want, "case %u: status %d, want %d", i,
			      st, t[i].want);
	}
	ck_assert_uint_eq(vc->stats.errors, sizeof(t) / sizeof(t[0]));
	ck_assert_uint_eq(vc->bad_cqe, 0);
}
END_TEST

START_TEST(test_ring_full)
{
	uint16_t last;
	bool err;

	for (uint32_t i = 0; i < NB - 1; i++) {
		ck_assert_uint_eq(fp.burst_capacity(sd, 0), NB - 1 - i);
		ck_assert_int_eq(copy(0), (int)i);
	}
	ck_assert_int_eq(copy(0), -ENOSPC);
	ck_assert_uint_eq(fp.burst_capacity(sd, 0), 0);
	fp.submit(sd, 0);
	ck_assert_uint_eq(fp.burst_capacity(sd, 0), 0); /* not on submit */
	engine_run();
	ck_assert_uint_eq(fp.burst_capacity(sd, 0), 0); /* nor on progress */
	ck_assert_uint_eq(fp.completed(sd, 0, 10, &last, &err), 10);
	ck_assert_uint_eq(fp.burst_capacity(sd, 0), 10);
}
END_TEST

/* Job ids wrap at 2^16, ring slots and the phase at every lap. */
START_TEST(test_id_wrap)
{
	uint32_t done = 0;
	uint16_t last;
	bool err = false;

	while (done < 70000) {
		for (int i = 0; i < 20; i++)
			ck_assert_int_eq(copy(0), (uint16_t)(done + i));
		fp.submit(sd, 0);
		engine_run();
		ck_assert_uint_eq(fp.completed(sd, 0, 64, &last, &err), 20);
		ck_assert(!err);
		done += 20;
		ck_assert_uint_eq(last, (uint16_t)(done - 1));
	}
	ck_assert_uint_eq(vc->bad_cqe, 0);
}
END_TEST

START_TEST(test_bad_vchan)
{
	enum rte_dma_status_code st;
	uint16_t last;
	bool err;

	ck_assert_int_eq(fp.copy(sd, 1, 0, 0, 64, 0), -EINVAL);
	ck_assert_int_eq(fp.fill(sd, 7, 0, 0, 64, 0), -EINVAL);
	ck_assert_int_eq(fp.submit(sd, 64), -EINVAL);
	ck_assert_uint_eq(fp.completed(sd, 1, 8, &last, &err), 0);
	ck_assert_uint_eq(fp.completed_status(sd, 1, 8, &last, &st), 0);
	ck_assert_uint_eq(fp.burst_capacity(sd, 1), 0);
}
END_TEST

START_TEST(test_idle)
{
	ck_assert(saccdma_vchan_idle(vc));
	copy(0);
	ck_assert(saccdma_vchan_idle(vc)); /* not handed to the device */
	fp.submit(sd, 0);
	ck_assert(!saccdma_vchan_idle(vc));
	engine_run();
	ck_assert(saccdma_vchan_idle(vc));
}
END_TEST

static Suite *fp_suite(void)
{
	Suite *s = suite_create("dmadev_fp");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_enqueue_submit);
	tcase_add_test(tc, test_completed_in_order);
	tcase_add_test(tc, test_unpublished_ignored);
	tcase_add_test(tc, test_forged_req_id);
	tcase_add_test(tc, test_forged_length);
	tcase_add_test(tc, test_forged_status);
	tcase_add_test(tc, test_status_mapping);
	tcase_add_test(tc, test_ring_full);
	tcase_add_test(tc, test_id_wrap);
	tcase_add_test(tc, test_bad_vchan);
	tcase_add_test(tc, test_idle);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fp_suite());
	int failed;

	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

// SPDX-License-Identifier: MIT
/*
 * segment_util.c - a segment, as a driver builds one (spec 21), and the
 * segment probes' fixture
 */
#include "segment.h"

static void seg_setup(void)
{
	setup();
	S = b2_rd64(&D, SACC_DEV_DEVMEM_SIZE);
	ck_assert_msg(D.bar4 && S >= 16 * MiB,
		      "these probes need device memory of 16 MiB or more");
	ck_assert_msg(b2_rd32(&D, SACC_DEV_CHANNELS) > CH,
		      "these probes need channel %u", CH);
	q_init(&Q, &D, CH, false);
}

void expect_same(const uint8_t *got, const uint8_t *exp, size_t len,
		 const char *what)
{
	if (!memcmp(got, exp, len))
		return;
	for (size_t k = 0; k < len; k++)
		if (got[k] != exp[k])
			ck_abort_msg("%s: byte %zu is 0x%02x, expected 0x%02x",
				     what, k, got[k], exp[k]);
}

const char *const where_name[] = {"host", "device"};

void seg_init(struct seg *g, int where, struct dbuf *hb, uint64_t dev)
{
	memset(g, 0, sizeof(*g));
	if (where == DEV) {
		g->va = dm(dev);
		g->addr = dev;
		g->flags = SACC_DESC_F_SRC_DEV;
	} else {
		g->va = hb->va;
		g->addr = hb->iova;
	}
}

void seg_put(struct seg *g, uint32_t slot, uint16_t op, uint64_t src,
	     uint64_t dst, uint32_t len, uint16_t flags, uint32_t req)
{
	struct sacc_desc d = {.src = src,
			      .dst = dst,
			      .length = len,
			      .opcode = op,
			      .flags = flags,
			      .req_id = req};

	memcpy(g->va + (size_t)slot * 32, &d, sizeof(d));
}

/* Append a command; returns its index among the commands. */
uint32_t seg_cmd(struct seg *g, uint16_t op, uint64_t src, uint64_t dst,
		 uint32_t len, uint16_t flags)
{
	seg_put(g, g->n++, op, src, dst, len, flags, SEG_REQ(g->cmds));
	return g->cmds++;
}

/* WRITE_INLINE and its payload in the slots after it (spec 15, 21). */
uint32_t seg_inline(struct seg *g, uint64_t dst, const void *data, uint32_t len,
		    uint16_t flags)
{
	uint32_t idx = seg_cmd(g, SACC_OP_WRITE_INLINE, 0, dst, len, flags);

	for (uint32_t i = 0; i < SACC_INLINE_SLOTS(len); i++) {
		uint8_t slot[32] = {0};

		memcpy(slot, (const uint8_t *)data + i * 32,
		       len - i * 32 < 32 ? len - i * 32 : 32);
		memcpy(g->va + (size_t)g->n++ * 32, slot, 32);
	}
	return idx;
}

struct sacc_cqe seg_launch_len(struct seg *g, uint32_t len, uint16_t extra)
{
	return q_run1(&Q, SACC_OP_SEGMENT, g->addr, 0, len, g->flags | extra);
}

struct sacc_cqe seg_launch(struct seg *g)
{
	return seg_launch_len(g, g->n * 32, 0);
}

void start_q(uint32_t sq, uint32_t cq)
{
	q_alloc(&Q, sq, cq);
	q_config(&Q, SACC_MODE_V3, 0, 0);
	q_start(&Q);
}

uint64_t ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

void pat_fill(uint8_t *p, uint64_t pat, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(pat >> (8 * (i % 8)));
}

TCase *seg_tc(Suite *s, const char *name)
{
	TCase *t = tcase_create(name);

	tcase_set_timeout(t, GUEST_TEST_TIMEOUT);
	tcase_add_checked_fixture(t, seg_setup, teardown);
	suite_add_tcase(s, t);
	return t;
}

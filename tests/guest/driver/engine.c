// SPDX-License-Identifier: MIT
/*
 * engine.c - the op engine: random verified ops (every opcode, log-uniform
 * sizes, the edges first) through a pipeline of up to ENG_SLOTS slots,
 * each result checked in ring order, byte for byte, with canaries around
 * every destination; eng_finish() compares libsacc's counters and the
 * device's registers with what was done
 */
#include "driver.h"

void eng_init(struct eng *e, struct sacc_dev *dev, const char *tag,
	      unsigned int nslots, uint32_t max_len)
{
	char name[32];

	memset(e, 0, sizeof(*e));
	ck_assert_uint_le(nslots, ENG_SLOTS);
	e->dev = dev;
	e->tag = tag;
	e->nslots = nslots;
	e->max_len = max_len;
	e->src_len = 2 * (size_t)max_len < 4096 ? 4096 : 2 * (size_t)max_len;
	e->src = guest_buf(dev, e->src_len, SACC_DMA_TO_DEVICE, "eng src");
	fill_random(va(e->src), e->src_len);
	e->dst_len = max_len + 2 * MARGIN;
	for (unsigned int i = 0; i < nslots; i++) {
		snprintf(name, sizeof(name), "eng dst %u", i);
		e->dst[i] = guest_buf(dev, e->dst_len, SACC_DMA_FROM_DEVICE,
				      name);
	}
	e->max_per_poll = sacc_dev_cq_entries(dev) - 1;
	sacc_stats_clear(dev);
}

static void eng_prepare(struct eng *e, unsigned int slot)
{
	struct sacc_op *op = &e->op[slot];
	uint32_t len;
	uint16_t opc;
	size_t so, dof;
	uint8_t *d;
	const uint8_t *s;

	/* The edges first: 1 byte and max_len, both data opcodes. */
	switch (e->issued) {
	case 0: opc = SACC_OP_MEMCPY; len = 1; break;
	case 1: opc = SACC_OP_XFORM; len = e->max_len; break;
	case 2: opc = SACC_OP_MEMCPY; len = e->max_len; break;
	case 3: opc = SACC_OP_XFORM; len = 1; break;
	default:
		opc = (uint16_t)(rnd() % 3);
		len = rand_len(e->max_len);
	}
	memset(op, 0, sizeof(*op));
	op->opcode = opc;
	op->flags = e->flags;
	op->cookie = (e->issued << 8) | slot;
	e->by_op[opc]++;
	if (opc == SACC_OP_NOP)
		return;
	so = (size_t)(rnd() % (e->src_len - len + 1));
	dof = MARGIN + (size_t)(rnd() % (e->dst_len - 2 * MARGIN - len + 1));
	op->len = len;
	op->src = e->src;
	op->src_off = so;
	op->dst = e->dst[slot];
	op->dst_off = dof;
	e->by_octave[octave(len)]++;
	/* Canaries around the destination; inside it bytes that differ from
	 * the expected result everywhere, so a skipped write is caught. */
	s = va(e->src) + so;
	d = va(op->dst) + dof;
	memset(d - MARGIN, CANARY, MARGIN);
	memset(d + len, CANARY, MARGIN);
	if (opc == SACC_OP_XFORM) {
		memcpy(d, s, len);
	} else {
		for (uint32_t i = 0; i < len; i++)
			d[i] = (uint8_t)~s[i];
	}
}

/* Fill up to @max free slots and submit them as one batch. */
void eng_submit(struct eng *e, uint64_t max)
{
	struct sacc_op ops[ENG_SLOTS];
	unsigned int n = 0;
	int ret;

	for (unsigned int s = 0; s < e->nslots && n < max; s++) {
		if (e->busy[s])
			continue;
		eng_prepare(e, s);
		e->busy[s] = true;
		e->issued++;
		ops[n++] = e->op[s];
	}
	if (!n)
		return;
	ret = sacc_submit(e->dev, ops, n);
	ck_assert_msg(ret == (int)n, "%s: sacc_submit(%u ops): %d: %s", e->tag,
		      n, ret, sacc_errmsg(e->dev));
	e->nbusy += n;
	e->submits++;
}

static void eng_check(struct eng *e, const struct sacc_result *r)
{
	unsigned int slot = (unsigned int)(r->cookie & 0xff);
	uint64_t seq = r->cookie >> 8;
	const struct sacc_op *op;
	char what[96];

	ck_assert_msg(slot < e->nslots && e->busy[slot],
		      "%s: completion with unknown cookie 0x%" PRIx64, e->tag,
		      r->cookie);
	ck_assert_msg(seq == e->expect,
		      "%s: completion of op #%" PRIu64 " while #%" PRIu64
		      " is the oldest: not in ring order",
		      e->tag, seq, e->expect);
	e->expect++;
	op = &e->op[slot];
	snprintf(what, sizeof(what), "%s op #%" PRIu64 " (%s, %u bytes)",
		 e->tag, seq, sacc_opcode_str(op->opcode), op->len);
	ck_assert_msg(r->status == SACC_STS_OK, "%s: status %u (%s)", what,
		      r->status, sacc_status_str(r->status));
	ck_assert_msg(!r->raw, "%s: marked raw", what);
	ck_assert_uint_eq(r->opcode, op->opcode);
	if (op->opcode == SACC_OP_NOP) {
		ck_assert_uint_eq(r->result_len, 0);
	} else {
		const uint8_t *d = va(op->dst) + op->dst_off;

		ck_assert_msg(r->len == op->len && r->result_len == op->len,
			      "%s: len %u result_len %u", what, r->len,
			      r->result_len);
		check_copy(what, op->opcode, d, va(op->src) + op->src_off,
			   op->len);
		check_canary(what, d - MARGIN, MARGIN);
		check_canary(what, d + op->len, MARGIN);
		e->bytes += op->len;
	}
	e->busy[slot] = false;
	e->nbusy--;
	e->done++;
}

void eng_reap(struct eng *e)
{
	struct sacc_result res[ENG_SLOTS];
	uint64_t t0 = sacc_monotonic_ns();
	int r;

	if (!e->nbusy)
		return;
	if (e->use_wait) {
		r = sacc_wait(e->dev, REAP_TIMEOUT_MS);
		ck_assert_msg(r == 1, "%s: sacc_wait: %d: %s", e->tag, r,
			      r < 0 ? sacc_errmsg(e->dev) : "timed out");
		r = sacc_poll(e->dev, res, ENG_SLOTS);
		ck_assert_msg(r >= 1,
			      "%s: sacc_wait said a completion is ready, "
			      "sacc_poll returned %d: %s",
			      e->tag, r, sacc_errmsg(e->dev));
	} else {
		for (;;) {
			r = sacc_poll(e->dev, res, ENG_SLOTS);
			ck_assert_msg(r >= 0, "%s: sacc_poll: %d: %s", e->tag,
				      r, sacc_errmsg(e->dev));
			if (r)
				break;
			if (sacc_monotonic_ns() - t0 > REAP_TIMEOUT_MS * 1000000ull)
				ck_abort_msg("%s: no completion within %d ms "
					     "(outstanding %u, STATUS 0x%x)",
					     e->tag, REAP_TIMEOUT_MS,
					     sacc_outstanding(e->dev),
					     reg(e->dev, SACC_REG_STATUS));
		}
	}
	ck_assert_msg((unsigned int)r <= e->nbusy,
		      "%s: %d results for %u outstanding", e->tag, r, e->nbusy);
	/* The device never has more than CQ_SIZE - 1 completions posted. */
	ck_assert_msg((unsigned int)r <= e->max_per_poll,
		      "%s: %d completions in one poll from a %u-entry CQ", e->tag,
		      r, sacc_dev_cq_entries(e->dev));
	for (int i = 0; i < r; i++)
		eng_check(e, &res[i]);
}

void eng_run(struct eng *e, uint64_t nops)
{
	uint64_t target = e->issued + nops;

	while (e->issued < target || e->nbusy) {
		if (e->issued < target)
			eng_submit(e, target - e->issued);
		eng_reap(e);
	}
}

/* Counters and device state after a clean run. */
void eng_finish(struct eng *e)
{
	struct sacc_stats st;

	sacc_stats(e->dev, &st);
	ck_assert_uint_eq(sacc_outstanding(e->dev), 0);
	ck_assert_uint_eq(st.submitted, e->issued);
	ck_assert_uint_eq(st.completed, e->done);
	ck_assert_uint_eq(st.by_status[SACC_STS_OK], e->done);
	ck_assert_uint_eq(st.by_status[SACC_STS_DMA_FAULT], 0);
	ck_assert_uint_eq(st.device_errors, 0);
	/* One doorbell per sacc_submit() batch, never one per op. */
	ck_assert_uint_eq(st.doorbells, e->submits);
	ck_assert_uint_ge(st.cq_head_writes, 1);
	ck_assert_uint_le(st.cq_head_writes, st.completed);
	ck_assert_uint_eq(reg(e->dev, SACC_REG_STATUS), SACC_STATUS_READY);
	ck_assert_uint_eq(reg(e->dev, SACC_REG_ERR_CODE), SACC_ERR_NONE);
	ck_assert_uint_eq(reg(e->dev, SACC_REG_FAULT_COUNT), 0);
}

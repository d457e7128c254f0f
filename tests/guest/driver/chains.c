// SPDX-License-Identifier: MIT
/*
 * chains.c - chains: ops prepared once and launched with one doorbell each,
 * inline payloads included
 */
#include "driver.h"

/* Chains: 64 NOP/MEMCPY prepared once, launched with one doorbell each;
 * on a channel, with inline writes and a ring too small for the chain. */
START_TEST(chain_64_one_doorbell)
{
	struct sacc_dev *dev, *ch;
	struct sacc_buf *src, *dst;
	struct sacc_chain *chain;
	struct sacc_op ops[64];
	struct sacc_result res[64];
	struct sacc_stats st;
	unsigned char data[3][1500];
	const uint32_t chunk = 4 * KiB;
	const int launches = 8;
	int ret;

	BEGIN();
	dev = guest_open(0, NULL);
	src = guest_buf(dev, 64 * chunk, SACC_DMA_TO_DEVICE, "chain src");
	dst = guest_buf(dev, 64 * chunk, SACC_DMA_FROM_DEVICE, "chain dst");
	for (unsigned int i = 0; i < 64; i++) {
		uint16_t opc = i % 4 == 3 ? SACC_OP_NOP : SACC_OP_MEMCPY;

		ops[i] = (struct sacc_op){
		    .opcode = opc,
		    .len = opc ? 1 + (uint32_t)(rnd() % chunk) : 0,
		    .src = opc ? src : NULL,
		    .src_off = i * chunk,
		    .dst = opc ? dst : NULL,
		    .dst_off = i * chunk,
		    .cookie = 1000 + i};
	}
	ret = sacc_chain_create(dev, ops, 64, &chain);
	ck_assert_msg(ret == 0, "%d: %s", ret, sacc_errmsg(dev));
	ck_assert_uint_eq(sacc_chain_ops(chain), 64);
	ck_assert_uint_eq(sacc_chain_bytes(chain), 64 * 32);
	/* pinned while the chain exists */
	ck_assert_int_eq(sacc_buf_free(src), -EBUSY);
	sacc_stats_clear(dev);
	for (int l = 0; l < launches; l++) {
		fill_random(va(src), 64 * chunk);
		memset(va(dst), CANARY, 64 * chunk);
		ret = sacc_chain_launch(chain);
		ck_assert_msg(ret == 64, "%d: %s", ret, sacc_errmsg(dev));
		sacc_stats(dev, &st);
		ck_assert_uint_eq(st.doorbells, (uint64_t)l + 1);
		reap_n(dev, res, 64);
		for (unsigned int i = 0; i < 64; i++) {
			const struct sacc_op *op = &ops[i];

			ck_assert_uint_eq(res[i].cookie, op->cookie);
			ck_assert_uint_eq(res[i].opcode, op->opcode);
			ck_assert_uint_eq(res[i].status, SACC_STS_OK);
			ck_assert_uint_eq(res[i].result_len, op->len);
			if (op->opcode) {
				check_copy("chain", op->opcode,
					   va(dst) + op->dst_off,
					   va(src) + op->src_off, op->len);
				check_canary("chain",
					     va(dst) + op->dst_off + op->len,
					     chunk - op->len);
			} else {
				check_canary("chain nop", va(dst) + i * chunk,
					     chunk);
			}
		}
	}
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.doorbells, (uint64_t)launches);
	ck_assert_uint_eq(st.submitted, (uint64_t)launches * 64);
	ck_assert_uint_eq(st.completed, (uint64_t)launches * 64);
	/* two launches in flight at once, then the SQ (256) has no room for
	 * a fourth: all or nothing */
	ck_assert_int_eq(sacc_chain_launch(chain), 64);
	ck_assert_int_eq(sacc_chain_launch(chain), 64);
	ck_assert_int_eq(sacc_chain_launch(chain), 64);
	ck_assert_int_eq(sacc_chain_launch(chain), 0);
	reap_n(dev, res, 64);
	reap_n(dev, res, 64);
	reap_n(dev, res, 64);
	ck_assert_uint_eq(res[63].cookie, 1063);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	sacc_chain_free(chain);
	ck_assert_int_eq(sacc_buf_free(src), 0);

	/* a channel: inline payloads travel with the chain */
	ch = open_chan(dev, 1, SACC_DOORBELL_PUT_TOKEN, 64);
	dst = guest_buf(ch, 3 * 1024, SACC_DMA_FROM_DEVICE, "chain inl dst");
	for (int k = 0; k < 3; k++) {
		fill_random(data[k], 700);
		ops[k] = (struct sacc_op){.opcode = SACC_OP_WRITE_INLINE,
					  .len = 700 - 100 * k,
					  .dst = dst,
					  .dst_off = 1024 * k,
					  .cookie = k,
					  .data = data[k]};
	}
	ops[3] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = 3};
	ret = sacc_chain_create(ch, ops, 4, &chain);
	ck_assert_msg(ret == 0, "%d: %s", ret, sacc_errmsg(ch));
	ck_assert_uint_eq(sacc_chain_bytes(chain),
			  32 * (4 + SACC_INLINE_SLOTS(700) +
				SACC_INLINE_SLOTS(600) +
				SACC_INLINE_SLOTS(500)));
	for (int l = 0; l < 5; l++) { /* 61 slots a launch: laps the SQ */
		memset(va(dst), CANARY, sacc_buf_len(dst));
		ck_assert_int_eq(sacc_chain_launch(chain), 4);
		reap_n(ch, res, 4);
		for (int k = 0; k < 3; k++) {
			ck_assert_uint_eq(res[k].status, SACC_STS_OK);
			ck_assert_uint_eq(res[k].result_len, 700 - 100 * k);
			ck_assert(!memcmp(va(dst) + 1024 * k, data[k],
					  700 - 100 * k));
		}
		ck_assert_uint_eq(res[3].cookie, 3);
	}
	sacc_stats(ch, &st);
	ck_assert_uint_eq(st.doorbells, 5);
	sacc_chain_free(chain);
	/* more than one launch may use: refused, said why */
	for (int k = 0; k < 3; k++)
		ops[k].len = 1500; /* 48 slots each, 63 free */
	ck_assert_int_eq(sacc_chain_create(ch, ops, 3, &chain), -EINVAL);
	assert_msg_has(sacc_errmsg(ch), "split the chain");
	ck_assert_ptr_null(chain);
	sacc_close(dev);
}
END_TEST

void chain_tests(Suite *s)
{
	TCase *tc = driver_tcase(s, "chains");

	tcase_add_test(tc, chain_64_one_doorbell);
}

// SPDX-License-Identifier: MIT
/*
 * test_store_decode.c - the tracer's decoder of the trapped doorbell
 * store (store_decode.c, shared with sacc_watch.ko), on instruction bytes
 * taken from GNU as; and the byte-exact layout of the record ABI.
 */
#include <check.h>
#include <stddef.h>
#include <string.h>

#include "sacc_hw.h"
#include "sacc_watch.h"
#include "store_decode.h"

#define DB 0x7f0000001000ull /* a doorbell page's user address */
#define IP 0x401000ull	     /* the IP after the store */

/* Decode @insn, preceded by @pad filler bytes, as the trap sees it. */
static int decode(const uint8_t *insn, unsigned int len, unsigned int pad,
		  const uint8_t *filler, struct sw_regs *r, uint64_t lo,
		  uint64_t hi, struct sw_store *st)
{
	uint8_t buf[SW_INSN_MAX];
	unsigned int i;

	ck_assert_uint_le(len + pad, SW_INSN_MAX);
	for (i = 0; i < pad; i++)
		buf[i] = filler ? filler[i] : 0x90; /* nop */
	memcpy(buf + pad, insn, len);
	r->ip = IP;
	return sw_decode_store(buf, pad + len, r, lo, hi, st);
}

START_TEST(mov_reg_base)
{
	static const uint8_t insn[] = {0x89, 0x02}; /* mov %eax,(%rdx) */
	struct sw_regs r = {0};
	struct sw_store st;

	r.r[0] = 0xdead000e; /* only the low 32 bits are stored */
	r.r[2] = DB;
	ck_assert_int_eq(decode(insn, 2, 6, NULL, &r, DB, DB + 8, &st), 0);
	ck_assert_uint_eq(st.addr, DB);
	ck_assert_uint_eq(st.value, 0xdead000e);
	ck_assert_uint_eq(st.len, 2);
}
END_TEST

START_TEST(mov_disp8_and_sib)
{
	static const uint8_t a[] = {0x89, 0x48, 0x04}; /* mov %ecx,0x4(%rax) */
	/* mov %r9d,0x8(%r8,%r10,4) */
	static const uint8_t b[] = {0x47, 0x89, 0x4c, 0x90, 0x08};
	struct sw_regs r = {0};
	struct sw_store st;

	r.r[0] = DB;
	r.r[1] = 5;
	ck_assert_int_eq(decode(a, 3, 12, NULL, &r, DB, DB + 8, &st), 0);
	ck_assert_uint_eq(st.addr, DB + 4);
	ck_assert_uint_eq(st.value, 5);

	memset(&r, 0, sizeof(r));
	r.r[8] = DB;
	r.r[9] = 77;
	r.r[10] = 2; /* 0x8 + 2 * 4 = channel 4's doorbell */
	ck_assert_int_eq(decode(b, 5, 3, NULL, &r, DB + 16, DB + 24, &st), 0);
	ck_assert_uint_eq(st.addr, DB + 16);
	ck_assert_uint_eq(st.value, 77);
}
END_TEST

START_TEST(mov_imm_and_rip)
{
	/* movl $0x7,0x400(%rdi): the token doorbell, channel 7 */
	static const uint8_t a[] = {0xc7, 0x87, 0x00, 0x04, 0x00,
				    0x00, 0x07, 0x00, 0x00, 0x00};
	static const uint8_t b[] = {0x89, 0x05, 0x10, 0x00, 0x00, 0x00};
	struct sw_regs r = {0};
	struct sw_store st;

	r.r[7] = DB;
	ck_assert_int_eq(
	    decode(a, 10, 5, NULL, &r, DB + 0x400, DB + 0x404, &st), 0);
	ck_assert_uint_eq(st.addr, DB + 0x400);
	ck_assert_uint_eq(st.value, 7);

	/* mov %eax,0x10(%rip): from the end of the instruction */
	r.r[0] = 3;
	ck_assert_int_eq(decode(b, 6, 0, NULL, &r, IP + 0x10, IP + 0x18, &st),
			 0);
	ck_assert_uint_eq(st.addr, IP + 0x10);
	ck_assert_uint_eq(st.value, 3);
}
END_TEST

START_TEST(rex_special_bases)
{
	static const uint8_t a[] = {0x45, 0x89, 0x24,
				    0x24}; /* mov %r12d,(%r12) */
	static const uint8_t b[] = {0x41, 0x89, 0x5d,
				    0x00}; /* mov %ebx,0x0(%r13) */
	/* mov %edx,0x1000(,%rcx,8): no base */
	static const uint8_t c[] = {0x89, 0x14, 0xcd, 0x00, 0x10, 0x00, 0x00};
	struct sw_regs r = {0};
	struct sw_store st;

	r.r[12] = DB;
	ck_assert_int_eq(decode(a, 4, 2, NULL, &r, DB, DB + 8, &st), 0);
	ck_assert_uint_eq(st.value, (uint32_t)DB);
	r.r[13] = DB + 4;
	r.r[3] = 9;
	ck_assert_int_eq(decode(b, 4, 2, NULL, &r, DB, DB + 8, &st), 0);
	ck_assert_uint_eq(st.addr, DB + 4);
	ck_assert_uint_eq(st.value, 9);
	r.r[1] = (DB - 0x1000) / 8;
	r.r[2] = 11;
	ck_assert_int_eq(decode(c, 7, 0, NULL, &r, DB, DB + 8, &st), 0);
	ck_assert_uint_eq(st.addr, DB);
	ck_assert_uint_eq(st.value, 11);
}
END_TEST

START_TEST(refused)
{
	static const uint8_t wide[] = {0x48, 0x89, 0x02}; /* mov %rax,(%rdx) */
	static const uint8_t xchg[] = {0x87, 0x02};	  /* xchg %eax,(%rdx) */
	static const uint8_t mov[] = {0x89, 0x02};
	static const uint8_t fs[] = {0x64, 0x89,
				     0x02}; /* mov %eax,%fs:(%rdx) */
	struct sw_regs r = {0};
	struct sw_store st;

	r.r[2] = DB;
	/* 64-bit store: not a doorbell write (and must not decode as the
	 * 32-bit mov its last two bytes are: REX.W is part of it) */
	ck_assert_int_eq(decode(wide, 3, 0, NULL, &r, DB, DB + 8, &st), -1);
	/* xchg leaves the old memory value in the register: lost */
	ck_assert_int_eq(decode(xchg, 2, 4, NULL, &r, DB, DB + 8, &st), -1);
	/* outside the watched range, misaligned */
	ck_assert_int_eq(decode(mov, 2, 4, NULL, &r, DB + 8, DB + 16, &st), -1);
	r.r[2] = DB + 2;
	ck_assert_int_eq(decode(mov, 2, 4, NULL, &r, DB, DB + 8, &st), -1);
	/* an FS-relative address is not the register's */
	r.r[2] = DB;
	ck_assert_int_eq(decode(fs, 3, 0, NULL, &r, DB, DB + 8, &st), -1);
	/* nothing before ip */
	ck_assert_int_eq(sw_decode_store(mov, 0, &r, DB, DB + 8, &st), -1);
}
END_TEST

START_TEST(ambiguous_is_refused)
{
	/* The two bytes before ip decode as mov %eax,(%rdx) and the ten
	 * before as movl $imm,(%rdx) whose immediate ends in 89 02: both
	 * store to the doorbell, with different values: no guess. */
	static const uint8_t bytes[] = {0xc7, 0x02, 0x00, 0x00, 0x89, 0x02};
	struct sw_regs r = {0};
	struct sw_store st;

	r.r[0] = 1;
	r.r[2] = DB;
	ck_assert_int_eq(decode(bytes, 6, 0, NULL, &r, DB, DB + 8, &st), -1);
}
END_TEST

START_TEST(record_abi)
{
	/* The module and saccctl agree on these by sharing the header;
	 * this pins the layout so an edit cannot change it silently. */
	ck_assert_uint_eq(offsetof(struct sacc_watch_rec, seq), 8);
	ck_assert_uint_eq(offsetof(struct sacc_watch_rec, t_ns), 16);
	ck_assert_uint_eq(offsetof(struct sacc_watch_rec, pid), 24);
	ck_assert_uint_eq(offsetof(struct sacc_watch_rec, bdf), 32);
	ck_assert_uint_eq(offsetof(struct sacc_watch_rec, chan), 36);
	ck_assert_uint_eq(offsetof(struct sacc_watch_rec, old_tail), 40);
	ck_assert_uint_eq(offsetof(struct sacc_watch_rec, ndesc), 48);
	ck_assert_uint_eq(offsetof(struct sacc_watch_rec, value64), 56);
	ck_assert_uint_eq(offsetof(struct sacc_watch_desc, raw), 8);
	ck_assert_uint_eq(sizeof(((struct sacc_watch_desc *)0)->raw),
			  sizeof(struct sacc_desc));
	/* ABI 3: a record holds every descriptor a doorbell can publish,
	 * and a read takes the largest; the stats grew after seg_kib. */
	ck_assert_uint_eq(SACC_WATCH_ABI, 3);
	ck_assert_uint_eq(SACC_WATCH_MAX_DESCS, SACC_RING_MAX_ENTRIES - 1);
	ck_assert_uint_eq(SACC_WATCH_READ_MIN, 64 + 65535 * 40);
	ck_assert_uint_eq(SACC_WATCH_REC_UNTRACED, 6);
	ck_assert_uint_eq(offsetof(struct sacc_watch_stats, seg_kib), 120);
	ck_assert_uint_eq(offsetof(struct sacc_watch_stats, untraced), 128);
	ck_assert_uint_eq(offsetof(struct sacc_watch_stats, memory_bytes), 160);
	ck_assert_uint_eq(sizeof(struct sacc_watch_stats), 192);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("store_decode");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, mov_reg_base);
	tcase_add_test(tc, mov_disp8_and_sib);
	tcase_add_test(tc, mov_imm_and_rip);
	tcase_add_test(tc, rex_special_bases);
	tcase_add_test(tc, refused);
	tcase_add_test(tc, ambiguous_is_refused);
	tcase_add_test(tc, record_abi);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

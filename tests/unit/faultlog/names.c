// SPDX-License-Identifier: MIT
/*
 * names.c - the names faultlog prints and parses: fault accesses, opcodes,
 * DMAR reasons, attributions, journal kinds
 */
#include "faultlog_test.h"

START_TEST(test_names)
{
	unsigned int a;

	ck_assert_str_eq(sacc_fault_access_name(SACC_FAULT_DESC_FETCH),
			 "desc_fetch");
	ck_assert_str_eq(sacc_fault_access_name(SACC_FAULT_CQ_WRITE),
			 "cq_write");
	ck_assert_ptr_null(sacc_fault_access_name(200));
	ck_assert_int_eq(sacc_fault_access_parse("src_read", &a), 0);
	ck_assert_uint_eq(a, SACC_FAULT_SRC_READ);
	ck_assert_int_eq(sacc_fault_access_parse("read", &a), -EINVAL);
	ck_assert_str_eq(sacc_op_name(SACC_OP_MEMCPY), "memcpy");
	ck_assert_ptr_null(sacc_op_name(9));
	ck_assert_str_eq(sacc_dmar_reason_text(5),
			 "PTE Write access is not set");
	ck_assert_str_eq(sacc_dmar_reason_text(0x25),
			 "Blocked a compatibility format interrupt request");
	ck_assert_ptr_null(sacc_dmar_reason_text(0xe));
	ck_assert_ptr_null(sacc_dmar_reason_text(0x27));
	ck_assert_str_eq(sacc_fault_attr_name(SACC_ATTR_GUARD), "guard");
	ck_assert_str_eq(sacc_fault_attr_name(SACC_ATTR_UNATTRIBUTED),
			 "unattributed");
	ck_assert_str_eq(sacc_journal_kind_name(SACC_JEV_RANGES), "ranges");
	ck_assert_ptr_null(sacc_journal_kind_name(0));
}
END_TEST

void name_tests(Suite *s)
{
	TCase *tc = tcase_create("names");

	/* Check's default is 4 s per test; slow or loaded CI needs more */
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
}

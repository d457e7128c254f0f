// SPDX-License-Identifier: MIT
/*
 * names.c - the names libsacc parses and prints: PCI addresses, opcodes,
 * statuses, error codes, fault accesses
 */
#include "fake_dev.h"

START_TEST(test_bdf_parse)
{
	char out[SACC_BDF_MAX];

	ck_assert_int_eq(sacc_bdf_parse("0000:00:03.0", out), 0);
	ck_assert_str_eq(out, "0000:00:03.0");
	ck_assert_int_eq(sacc_bdf_parse("00:1F.7", out), 0);
	ck_assert_str_eq(out, "0000:00:1f.7");
	ck_assert_int_eq(sacc_bdf_parse("abcd:ff:1f.7", out), 0);
	ck_assert_str_eq(out, "abcd:ff:1f.7");
	ck_assert_int_eq(sacc_bdf_parse("00:20.0", out), -EINVAL);
	ck_assert_int_eq(sacc_bdf_parse("00:03.8", out), -EINVAL);
	ck_assert_int_eq(sacc_bdf_parse("00:03", out), -EINVAL);
	ck_assert_int_eq(sacc_bdf_parse("12345:00:03.0", out), -EINVAL);
	ck_assert_int_eq(sacc_bdf_parse("0000:00:03.0x", out), -EINVAL);
	ck_assert_int_eq(sacc_bdf_parse("", out), -EINVAL);
	ck_assert_int_eq(sacc_bdf_parse("../../etc", out), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(NULL), "not a PCI address"));
}
END_TEST

/* The texts libsacc's messages and saccctl's output are built from. */
START_TEST(test_hw_names)
{
	unsigned int op;

	ck_assert_str_eq(sacc_opcode_str(SACC_OP_XFORM), "xform");
	ck_assert_str_eq(sacc_opcode_str(7), "unknown");
	ck_assert_int_eq(sacc_op_parse("memcpy", &op), 0);
	ck_assert_uint_eq(op, SACC_OP_MEMCPY);
	ck_assert_int_eq(sacc_op_parse("copy", &op), -EINVAL);
	ck_assert_str_eq(sacc_status_str(SACC_STS_DMA_FAULT), "DMA fault");
	ck_assert_str_eq(sacc_status_str(4), "unknown status");
	ck_assert_str_eq(sacc_err_code_str(SACC_ERR_NOT_READY),
			 "doorbell while not READY");
	ck_assert_str_eq(sacc_err_code_str(5), "unknown error code");
	ck_assert_str_eq(sacc_fault_access_str(SACC_FAULT_CQ_WRITE |
					       SACC_FAULT_IS_WRITE),
			 "completion write");
	ck_assert_str_eq(sacc_fault_access_str(200), "unknown access");
}
END_TEST

void name_tests(Suite *s)
{
	TCase *tc = tcase_create("names");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_bdf_parse);
	tcase_add_test(tc, test_hw_names);
	suite_add_tcase(s, tc);
}

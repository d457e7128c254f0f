// SPDX-License-Identifier: MIT
/*
 * test_base.c - host unit tests for base/'s one parser of each shared
 * format: PCI addresses and sizes, by the rules sacc_base.h states.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sacc_base.h"
#include "sacc_types.h"

/* @s as an address, written back canonical ("" if refused). */
static const char *canon(const char *s)
{
	static char buf[SACC_BDF_MAX];
	uint32_t dom;
	uint16_t sid;

	if (sacc_bdf_to_sid(s, &dom, &sid, NULL))
		return "";
	return sacc_bdf_format(dom, sid, buf, sizeof(buf));
}

START_TEST(test_bdf_accepted)
{
	uint32_t dom;
	uint16_t sid;

	ck_assert_int_eq(sacc_bdf_to_sid("0000:01:00.0", &dom, &sid, NULL), 0);
	ck_assert_uint_eq(dom, 0);
	ck_assert_uint_eq(sid, 0x100);
	ck_assert_int_eq(sacc_bdf_to_sid("0001:02:1f.7", &dom, &sid, NULL), 0);
	ck_assert_uint_eq(dom, 1);
	ck_assert_uint_eq(sid, 0x2ff);
	/* both forms, either case, short fields: canonical out */
	ck_assert_str_eq(canon("01:00.0"), "0000:01:00.0");
	ck_assert_str_eq(canon("00:1F.7"), "0000:00:1f.7");
	ck_assert_str_eq(canon("ABCD:FF:1f.7"), "abcd:ff:1f.7");
	ck_assert_str_eq(canon("1:3.0"), "0000:01:03.0");
	ck_assert_str_eq(canon("1:2:3.4"), "0001:02:03.4");
	ck_assert_str_eq(canon("ffff:ff:1f.7"), "ffff:ff:1f.7");
	/* NULL outputs: only a check */
	ck_assert_int_eq(sacc_bdf_to_sid("00:03.0", NULL, NULL, NULL), 0);
}
END_TEST

START_TEST(test_bdf_refused)
{
	static const char *const bad[] = {
	    "",		     /* empty */
	    "00:20.0",	     /* device past 1f */
	    "00:03.8",	     /* function past 7 */
	    "00:03.a",	     /* function is one digit 0-7 */
	    "00:03.00",	     /* ... one digit */
	    "00:03",	     /* no function */
	    "1:2",	     /* no device */
	    "12345:00:03.0", /* domain of five digits */
	    "100:00.0",	     /* bus of three digits */
	    "0001:00.0",     /* ... four, without a domain */
	    "0000:001:00.0", /* bus of three digits */
	    "0000:00:003.0", /* device of three digits */
	    "0x00:03.0",     /* no "0x" */
	    "00:0x3.0",	     /* ... anywhere */
	    "0000:00:03.0x", /* nothing after */
	    "0000:01:00.0 ", /* no blanks */
	    " 0000:01:00.0",
	    "+00:03.0",
	    "00:-3.0",
	    "zz:00.0",	    /* hexadecimal */
	    "0000:00:03:0", /* a '.' before the function */
	    "0000.00:03.0",
	    "../../etc",
	    "00:03.0/..",
	};
	struct sacc_err e = {0};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(sacc_bdf_to_sid(bad[i], NULL, NULL, NULL) ==
				  -EINVAL,
			      "'%s' accepted", bad[i]);
	ck_assert_int_eq(sacc_bdf_to_sid(NULL, NULL, NULL, NULL), -EINVAL);

	/* the messages say what to give */
	ck_assert_int_eq(sacc_bdf_to_sid("00:20.0", NULL, NULL, &e), -EINVAL);
	ck_assert_int_eq(e.code, -EINVAL);
	ck_assert_str_eq(e.msg,
			 "'00:20.0' is not a PCI address: expected "
			 "DDDD:BB:DD.F (e.g. 0000:00:03.0) or BB:DD.F in "
			 "hexadecimal, device 00-1f, function 0-7");
	ck_assert_int_eq(sacc_bdf_to_sid("", NULL, NULL, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "empty PCI address: expected"));
}
END_TEST

START_TEST(test_bdf_format)
{
	char buf[SACC_BDF_MAX];

	ck_assert_str_eq(sacc_bdf_format(0, 0x18, buf, sizeof(buf)),
			 "0000:00:03.0");
	ck_assert_str_eq(
	    sacc_bdf_format(0x10000 | 0xab, 0xffff, buf, sizeof(buf)),
	    "00ab:ff:1f.7");
}
END_TEST

static uint64_t size_of(const char *s)
{
	uint64_t v = 0xdead;

	ck_assert_msg(!sacc_size_parse(s, &v), "'%s' refused", s);
	return v;
}

START_TEST(test_size_accepted)
{
	ck_assert_uint_eq(size_of("0"), 0);
	ck_assert_uint_eq(size_of("4096"), 4096);
	ck_assert_uint_eq(size_of("4096B"), 4096);
	ck_assert_uint_eq(size_of("4096b"), 4096);
	ck_assert_uint_eq(size_of("64K"), 64 << 10);
	ck_assert_uint_eq(size_of("64k"), 64 << 10);
	ck_assert_uint_eq(size_of("64KB"), 64 << 10);
	ck_assert_uint_eq(size_of("64kb"), 64 << 10);
	ck_assert_uint_eq(size_of("64KiB"), 64 << 10);
	ck_assert_uint_eq(size_of("64KIB"), 64 << 10);
	ck_assert_uint_eq(size_of("1M"), 1 << 20);
	ck_assert_uint_eq(size_of("1MiB"), 1 << 20);
	ck_assert_uint_eq(size_of("8m"), 8 << 20);
	ck_assert_uint_eq(size_of("2G"), 2ull << 30);
	ck_assert_uint_eq(size_of("007"), 7);
	ck_assert_uint_eq(size_of("18446744073709551615"), UINT64_MAX);
	ck_assert_uint_eq(size_of("17179869183G"), 17179869183ull << 30);
}
END_TEST

START_TEST(test_size_refused)
{
	static const char *const bad[] = {
	    "",	  "K",	   "-1",  "+1",	 " 1",	"1 ",	"1 K", "0x10",	"1.5M",
	    "1T", "1KiBB", "1Ki", "1iB", "1BB", "1KB ", "1kk", "64KiX", "1e3",
	};
	uint64_t v = 42;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(sacc_size_parse(bad[i], &v) == -EINVAL,
			      "'%s' accepted", bad[i]);
	ck_assert_int_eq(sacc_size_parse(NULL, &v), -EINVAL);
	/* past 2^64 - 1 */
	ck_assert_int_eq(sacc_size_parse("18446744073709551616", &v), -ERANGE);
	ck_assert_int_eq(sacc_size_parse("17179869184G", &v), -ERANGE);
	ck_assert_int_eq(sacc_size_parse("18014398509481984K", &v), -ERANGE);
	ck_assert_uint_eq(v, 42); /* untouched on failure */
}
END_TEST

START_TEST(test_file_type)
{
	ck_assert_str_eq(sacc_file_type(S_IFIFO | 0644), "a FIFO");
	ck_assert_str_eq(sacc_file_type(S_IFLNK | 0777), "a symbolic link");
	ck_assert_str_eq(sacc_file_type(S_IFREG), "a regular file");
}
END_TEST

static Suite *base_suite(void)
{
	Suite *s = suite_create("base");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_bdf_accepted);
	tcase_add_test(tc, test_bdf_refused);
	tcase_add_test(tc, test_bdf_format);
	tcase_add_test(tc, test_size_accepted);
	tcase_add_test(tc, test_size_refused);
	tcase_add_test(tc, test_file_type);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(base_suite());
	int failed;

	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

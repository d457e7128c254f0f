// SPDX-License-Identifier: MIT
/*
 * trace.c - QEMU trace lines (the device's and intel-iommu's trace events),
 * and the file the Python reader (telemetry/tools/qemu_trace.py) reads
 * the same way
 */
#include "faultlog_test.h"

START_TEST(test_trace)
{
	struct lines l = read_lines(fixture("qemu_trace.log"));
	struct sacc_trace_event e;
	size_t faults = 0, frr = 0;

	ck_assert_int_eq(sacc_trace_parse_line(line_with(&l, "0x40000000 write"),
					       &e),
			 1);
	ck_assert_int_eq(e.kind, SACC_TRACE_DMAR_FAULT);
	ck_assert(e.has_time);
	ck_assert_uint_eq(e.tid, 4242);
	ck_assert_uint_eq(e.wall_ns, 1700000010099990000ull);
	ck_assert_uint_eq(e.sid, 0x100);
	ck_assert_uint_eq(e.reason, 5);
	ck_assert_uint_eq(e.addr, 0x40000000);
	ck_assert(e.write);

	ck_assert_int_eq(sacc_trace_parse_line(
				 "vtd_dmar_fault sid 0x0100 fault 5 addr 0x900000 write 1",
				 &e),
			 1);
	ck_assert(!e.has_time);
	ck_assert_uint_eq(e.sid, 0x100);
	ck_assert_uint_eq(e.addr, 0x900000);

	ck_assert_int_eq(sacc_trace_parse_line(line_with(&l, "0x4000010680000100"),
					       &e),
			 1);
	ck_assert_int_eq(e.kind, SACC_TRACE_FRR_NEW);
	ck_assert_uint_eq(e.sid, 0x100);
	ck_assert_uint_eq(e.reason, 6);
	ck_assert(!e.write);
	ck_assert_uint_eq(e.addr, 0x90000000);

	for (size_t i = 0; i < l.n; i++) {
		int r = sacc_trace_parse_line(l.v[i], &e);

		ck_assert_int_ge(r, 0);
		faults += r == 1 && e.kind == SACC_TRACE_DMAR_FAULT;
		frr += r == 1 && e.kind == SACC_TRACE_FRR_NEW;
	}
	ck_assert_uint_eq(faults, 11);
	ck_assert_uint_eq(frr, 9);

	ck_assert_int_eq(sacc_trace_parse_line("vtd_fsts_ppf FSTS PPF bit set to 1",
					       &e),
			 0);
	ck_assert_int_eq(sacc_trace_parse_line("qemu-system-x86_64: warning: x", &e),
			 0);
	ck_assert_int_eq(sacc_trace_parse_line("", &e), 0);
	ck_assert_int_eq(sacc_trace_parse_line("vtd_dmar_fault sid 0x100 fault 5 addr",
					       &e),
			 -EINVAL);
	ck_assert_int_eq(sacc_trace_parse_line(
				 "vtd_dmar_fault sid 0x100 fault 5 addr 0x1000 write 2",
				 &e),
			 -EINVAL);
	ck_assert_int_eq(sacc_trace_parse_line(
				 "vtd_dmar_fault sid 0x10000 fault 5 addr 0x1000 write 1",
				 &e),
			 -EINVAL);
	ck_assert_int_eq(sacc_trace_parse_line(
				 "42@17.x:vtd_dmar_fault sid 0x100 fault 5 addr 0x1000 write 1",
				 &e),
			 -EINVAL);
	ck_assert_int_eq(sacc_trace_parse_line("vtd_frr_new index 0 high 0x5", &e),
			 -EINVAL);
	ck_assert_int_eq(sacc_trace_parse_line(NULL, &e), -EINVAL);
	free_lines(&l);
}
END_TEST

/*
 * "key value ..." of an expectation line: the value of @key as a
 * number (strtoull base 0: "0x100" or "5"), or @key's text into @str.
 */
static bool want_field(const char *want, const char *key, uint64_t *v,
		       char *str, size_t size)
{
	char pat[32];
	const char *p;
	size_t n;

	snprintf(pat, sizeof(pat), " %s ", key);
	p = strstr(want, pat);
	if (!p)
		return false;
	p += strlen(pat);
	n = strcspn(p, " ");
	if (str)
		snprintf(str, size, "%.*s", (int)n, p);
	if (v)
		*v = strtoull(p, NULL, 0);
	return true;
}

/*
 * tests/fixtures/qemu_trace/lines.txt: each trace line and the fields
 * every reader must take from it.  telemetry/tests/test_qemu_trace.py
 * checks telemetry/tools/qemu_trace.py on the same file; here the C
 * reader, for the two events it reads.
 */
START_TEST(test_trace_shared)
{
	const char *dir = getenv("SACC_FIXTURES");
	char path[4096], event[64];
	struct sacc_trace_event e;
	struct lines l;
	size_t checked = 0, vtd = 0;

	snprintf(path, sizeof(path), "%s/qemu_trace/lines.txt",
		 dir && *dir ? dir : "tests/fixtures");
	l = read_lines(path);
	for (size_t i = 0; i + 1 < l.n; i++) {
		const char *line = l.v[i], *want = l.v[i + 1];
		uint64_t tid, t_us, a, b, c, d;
		char w[1024];
		int r;

		if (line[0] == '#' || line[0] == '=' || !line[0])
			continue;
		ck_assert_msg(want[0] == '=', "no '=' line after '%s'", line);
		snprintf(w, sizeof(w), "%s ", want); /* every key " k v " */
		r = sacc_trace_parse_line(line, &e);
		checked++;
		if (!strcmp(want, "= none")) {
			ck_assert_msg(r == 0, "'%s': %d", line, r);
			continue;
		}
		ck_assert(want_field(w, "tid", &tid, NULL, 0));
		ck_assert(want_field(w, "t_us", &t_us, NULL, 0));
		ck_assert(want_field(w, "event", NULL, event, sizeof(event)));
		if (strcmp(event, "vtd_dmar_fault") &&
		    strcmp(event, "vtd_frr_new")) {
			ck_assert_msg(r == 0, "'%s': %d", line, r);
			continue;
		}
		ck_assert_msg(r == 1, "'%s': %d", line, r);
		ck_assert(e.has_time);
		ck_assert_uint_eq(e.tid, tid);
		ck_assert_uint_eq(e.wall_ns, t_us * 1000);
		if (!strcmp(event, "vtd_dmar_fault")) {
			ck_assert_int_eq(e.kind, SACC_TRACE_DMAR_FAULT);
			ck_assert(want_field(w, "sid", &a, NULL, 0));
			ck_assert(want_field(w, "fault", &b, NULL, 0));
			ck_assert(want_field(w, "addr", &c, NULL, 0));
			ck_assert(want_field(w, "write", &d, NULL, 0));
			ck_assert_uint_eq(e.sid, a);
			ck_assert_uint_eq(e.reason, b);
			ck_assert_uint_eq(e.addr, c);
			ck_assert_uint_eq(e.write, d);
		} else {
			ck_assert_int_eq(e.kind, SACC_TRACE_FRR_NEW);
			ck_assert(want_field(w, "index", &a, NULL, 0));
			ck_assert(want_field(w, "high", &b, NULL, 0));
			ck_assert(want_field(w, "low", &c, NULL, 0));
			ck_assert_uint_eq(e.frr_index, a);
			ck_assert_uint_eq(e.sid, b & 0xffff);
			ck_assert_uint_eq(e.reason, (b >> 32) & 0xff);
			ck_assert_uint_eq(e.write, !(b & (1ull << 62)));
			ck_assert_uint_eq(e.addr, c & ~0xfffull);
		}
		vtd++;
	}
	ck_assert_uint_ge(checked, 10);
	ck_assert_uint_ge(vtd, 5);
	free_lines(&l);
}
END_TEST

void trace_tests(Suite *s)
{
	TCase *tc = tcase_create("trace");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_trace);
	tcase_add_test(tc, test_trace_shared);
	suite_add_tcase(s, tc);
}

// SPDX-License-Identifier: MIT
/*
 * journal_lines.c - the fault journal's lines: the fixture parsed, what the
 * reader tolerates and refuses, the formatter's lines read back, and
 * json-c agreeing with them
 */
#include "faultlog_test.h"

START_TEST(test_journal_parse_fixture)
{
	struct lines l = read_lines(fixture("journal.jsonl"));
	struct sacc_journal_event e;
	size_t kinds[SACC_JEV_RESET + 1] = { 0 };

	for (size_t i = 0; i < l.n; i++) {
		ck_assert_msg(sacc_journal_parse_line(l.v[i], &e) == 1,
			      "line %zu rejected: %s", i + 1, l.v[i]);
		kinds[e.ev]++;
	}
	ck_assert_uint_eq(kinds[SACC_JEV_MAP], 8);
	ck_assert_uint_eq(kinds[SACC_JEV_UNMAP], 5);
	ck_assert_uint_eq(kinds[SACC_JEV_RANGES], 2);
	ck_assert_uint_eq(kinds[SACC_JEV_FAULT], 9);
	ck_assert_uint_eq(kinds[SACC_JEV_RESET], 2);

	ck_assert_int_eq(sacc_journal_parse_line(line_with(&l, "\"req_id\":4,"),
						 &e),
			 1);
	ck_assert_int_eq(e.ev, SACC_JEV_FAULT);
	ck_assert_uint_eq(e.t_ns, 10500000000ull);
	ck_assert_uint_eq(e.pid, 321);
	ck_assert_str_eq(e.bdf, "0000:01:00.0");
	ck_assert_uint_eq(e.sid, 0x100);
	ck_assert_uint_eq(e.req_id, 4);
	ck_assert_uint_eq(e.opcode, SACC_OP_XFORM);
	ck_assert_uint_eq(e.status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(e.addr, 0x7100);
	ck_assert_uint_eq(e.access, SACC_FAULT_DST_WRITE);
	ck_assert(e.write);
	ck_assert(!e.fatal);
	ck_assert(e.has_fault_count);
	ck_assert_uint_eq(e.fault_count, 4);

	ck_assert_int_eq(sacc_journal_parse_line(line_with(&l, "\"cq_write\""),
						 &e),
			 1);
	ck_assert(e.fatal);
	ck_assert_uint_eq(e.access, SACC_FAULT_CQ_WRITE);

	ck_assert_int_eq(sacc_journal_parse_line(line_with(&l, "\"ev\":\"map\",\"t_ns\":10000300000"),
						 &e),
			 1);
	ck_assert_int_eq(e.ev, SACC_JEV_MAP);
	ck_assert_str_eq(e.name, "src");
	ck_assert_uint_eq(e.iova, 0x7000);
	ck_assert_uint_eq(e.len, 8192);
	ck_assert_uint_eq(e.perm, SACC_JOURNAL_PERM_READ);

	ck_assert_int_eq(sacc_journal_parse_line(l.v[1], &e), 1);
	ck_assert_int_eq(e.ev, SACC_JEV_RANGES);
	ck_assert_uint_eq(e.nr_ranges, 2);
	ck_assert_uint_eq(e.ranges[0].start, 0);
	ck_assert_uint_eq(e.ranges[0].end, 0xfedfffff);
	ck_assert_uint_eq(e.ranges[1].start, 0xfef00000);
	ck_assert_uint_eq(e.ranges[1].end, 0x7fffffffffull);
	free_lines(&l);
}
END_TEST

START_TEST(test_journal_tolerant)
{
	struct sacc_journal_event e;

	/* any key order, whitespace, unknown keys (nested), numbers for
	 * addresses, a short BDF, no "write" (derived from access) */
	ck_assert_int_eq(sacc_journal_parse_line(
				 " { \"access\" : \"dst_write\", \"extra\": {\"a\":[1,2,{\"b\":null}]},"
				 " \"addr\": 4096, \"bdf\": \"01:00.0\", \"t_ns\": 5, \"ev\": \"fault\" }\r\n",
				 &e),
			 1);
	ck_assert_str_eq(e.bdf, "0000:01:00.0");
	ck_assert_uint_eq(e.addr, 4096);
	ck_assert(e.write);
	ck_assert(!e.has_fault_count);
	ck_assert_int_eq(sacc_journal_parse_line(
				 "{\"ev\":\"map\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"name\":\"a\\\"b\\\\c\\u00e9\\n\",\"iova\":\"0X1000\",\"len\":\"0x1000\",\"perm\":\"rw\"}",
				 &e),
			 1);
	ck_assert_str_eq(e.name, "a\"b\\c\xc3\xa9\n");
	ck_assert_uint_eq(e.iova, 0x1000);
	ck_assert_uint_eq(e.perm, 3);
	/* a newer writer's event, and blank lines, are not errors */
	ck_assert_int_eq(sacc_journal_parse_line(
				 "{\"ev\":\"note\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"text\":\"hi\"}",
				 &e),
			 0);
	ck_assert_int_eq(sacc_journal_parse_line("", &e), 0);
	ck_assert_int_eq(sacc_journal_parse_line("  \n", &e), 0);
	/* unmap without perm */
	ck_assert_int_eq(sacc_journal_parse_line(
				 "{\"ev\":\"unmap\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"iova\":\"0x1000\",\"len\":4096}",
				 &e),
			 1);
	ck_assert_uint_eq(e.perm, 0);
}
END_TEST

START_TEST(test_journal_malformed)
{
	static const char *const bad[] = {
		"not json",
		"{",
		"{}",
		"[1,2]",
		"{\"ev\":\"map\"}",
		"{\"ev\":\"map\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"iova\":\"0x1000\",\"len\":4096}",
		"{\"ev\":\"map\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"iova\":\"0x1000\",\"len\":4096,\"perm\":\"x\"}",
		"{\"ev\":\"map\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"iova\":\"0x1000\",\"len\":0,\"perm\":\"r\"}",
		"{\"ev\":\"map\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"iova\":\"0xfffffffffffff000\",\"len\":8192,\"perm\":\"r\"}",
		"{\"ev\":\"fault\",\"t_ns\":-1,\"bdf\":\"0000:01:00.0\",\"addr\":\"0x1\",\"access\":\"src_read\"}",
		"{\"ev\":\"fault\",\"t_ns\":1.5,\"bdf\":\"0000:01:00.0\",\"addr\":\"0x1\",\"access\":\"src_read\"}",
		"{\"ev\":\"fault\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"addr\":\"0x1\",\"access\":\"sideways\"}",
		"{\"ev\":\"fault\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"addr\":\"0x1\",\"access\":200}",
		"{\"ev\":\"fault\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"addr\":\"0x1\",\"access\":\"src_read\",\"write\":1}",
		"{\"ev\":\"fault\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"addr\":\"0x1\",\"access\":\"src_read\",\"req_id\":4294967296}",
		"{\"ev\":\"fault\",\"t_ns\":99999999999999999999,\"bdf\":\"0000:01:00.0\",\"addr\":\"0x1\",\"access\":\"src_read\"}",
		"{\"ev\":\"fault\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"access\":\"src_read\"}",
		"{\"ev\":\"ranges\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"ranges\":[[\"0x2\",\"0x1\"]]}",
		"{\"ev\":\"ranges\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"ranges\":[[\"0x1\"]]}",
		"{\"ev\":\"ranges\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",\"ranges\":[\"0x1\"]}",
		"{\"ev\":\"reset\",\"t_ns\":1,\"bdf\":\"0000:01:20.0\"}",
		"{\"ev\":\"reset\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\"} x",
		"{\"ev\":\"reset\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\",}",
		"{\"ev\":\"reset\",\"t_ns\":1,\"bdf\":\"0000:01:00.0\"",
		"{\"ev\":\"reset\" \"t_ns\":1}",
		"{\"ev\":\"reset\",\"t_ns\":1,\"bdf\":\"bad\\q\"}",
		"{\"ev\":\"reset\",\"t_ns\":01,\"bdf\":\"0000:01:00.0\"}",
		"{\"ev\":7,\"t_ns\":1,\"bdf\":\"0000:01:00.0\"}",
	};
	struct sacc_journal_event e;
	char deep[400];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(sacc_journal_parse_line(bad[i], &e) == -EINVAL,
			      "'%s' not rejected", bad[i]);
	/* nesting beyond the depth limit is refused, not recursed into */
	n += (size_t)snprintf(deep, sizeof(deep), "{\"ev\":\"reset\",\"x\":");
	for (int i = 0; i < 100; i++)
		deep[n++] = '[';
	for (int i = 0; i < 100; i++)
		deep[n++] = ']';
	snprintf(deep + n, sizeof(deep) - n, "}");
	ck_assert_int_eq(sacc_journal_parse_line(deep, &e), -EINVAL);
	ck_assert_int_eq(sacc_journal_parse_line(NULL, &e), -EINVAL);
}
END_TEST

START_TEST(test_journal_format_roundtrip)
{
	struct sacc_journal_event in, out;
	char buf[4096];
	int n;

	memset(&in, 0, sizeof(in));
	in.ev = SACC_JEV_MAP;
	in.t_ns = UINT64_MAX;
	in.pid = 7;
	snprintf(in.bdf, sizeof(in.bdf), "0000:02:00.0");
	snprintf(in.name, sizeof(in.name), "we\"ird\\name\t\x01");
	in.iova = 0xfffff000;
	in.len = 4096;
	in.perm = SACC_JOURNAL_PERM_WRITE;
	n = sacc_journal_format(&in, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	ck_assert_uint_eq(strlen(buf), (size_t)n);
	ck_assert_int_eq(buf[n - 1], '\n');
	ck_assert_int_eq(sacc_journal_parse_line(buf, &out), 1);
	ck_assert_str_eq(out.name, in.name);
	ck_assert_uint_eq(out.t_ns, UINT64_MAX);
	ck_assert_uint_eq(out.iova, in.iova);
	ck_assert_uint_eq(out.perm, in.perm);
	ck_assert_uint_eq(out.pid, 7);
	ck_assert_str_eq(out.bdf, "0000:02:00.0");

	in.ev = SACC_JEV_RANGES;
	in.nr_ranges = SACC_IOMMU_MAX_RANGES;
	for (uint32_t i = 0; i < in.nr_ranges; i++) {
		in.ranges[i].start = (uint64_t)i << 32;
		in.ranges[i].end = ((uint64_t)i << 32) | 0xffffffffu;
	}
	ck_assert_int_gt(sacc_journal_format(&in, buf, sizeof(buf)), 0);
	ck_assert_int_eq(sacc_journal_parse_line(buf, &out), 1);
	ck_assert_uint_eq(out.nr_ranges, SACC_IOMMU_MAX_RANGES);
	ck_assert_uint_eq(out.ranges[63].end, (63ull << 32) | 0xffffffffu);
	ck_assert_int_eq(sacc_journal_format(&in, buf, 100), -EMSGSIZE);
	in.nr_ranges = SACC_IOMMU_MAX_RANGES + 1;
	ck_assert_int_eq(sacc_journal_format(&in, buf, sizeof(buf)), -EINVAL);

	in.ev = SACC_JEV_FAULT;
	in.access = 9;
	ck_assert_int_eq(sacc_journal_format(&in, buf, sizeof(buf)), -EINVAL);
	in.access = SACC_FAULT_DESC_FETCH;
	in.fatal = true;
	in.addr = 0x1230;
	ck_assert_int_gt(sacc_journal_format(&in, buf, sizeof(buf)), 0);
	ck_assert_int_eq(sacc_journal_parse_line(buf, &out), 1);
	ck_assert(out.fatal);
	ck_assert(!out.write);
	ck_assert(!out.has_fault_count);
	ck_assert_uint_eq(out.addr, 0x1230);

	in.ev = SACC_JEV_MAP;
	in.perm = 0;
	ck_assert_int_eq(sacc_journal_format(&in, buf, sizeof(buf)), -EINVAL);
	in.ev = 0;
	ck_assert_int_eq(sacc_journal_format(&in, buf, sizeof(buf)), -EINVAL);
}
END_TEST

/*
 * The reference for journal/format.c: the json-c code that wrote journal
 * lines before the writer left faultlog/ (same members, same flags).
 * Journals written by either must be the same bytes.
 */
static int json_c_line(const struct sacc_journal_event *ev, char *buf,
		       size_t len)
{
	static const char *const perms[] = {NULL, "r", "w", "rw"};
	struct json_object *o = json_object_new_object(), *ranges;
	int ret = 0;

	ret |= fl_json_str(o, "ev", sacc_journal_kind_name(ev->ev));
	ret |= fl_json_u64(o, "t_ns", true, ev->t_ns);
	if (ev->pid)
		ret |= fl_json_u64(o, "pid", true, ev->pid);
	ret |= fl_json_str(o, "bdf", ev->bdf);
	switch (ev->ev) {
	case SACC_JEV_MAP:
	case SACC_JEV_UNMAP:
		ret |= fl_json_str(o, "name", ev->name);
		ret |= fl_json_hex(o, "iova", true, ev->iova);
		ret |= fl_json_u64(o, "len", true, ev->len);
		if (ev->perm)
			ret |= fl_json_str(o, "perm", perms[ev->perm]);
		break;
	case SACC_JEV_RANGES:
		ranges = json_object_new_array();
		ret |= fl_json_add(o, "ranges", ranges);
		for (uint32_t i = 0; i < ev->nr_ranges; i++) {
			struct json_object *pair = json_object_new_array();

			ret |= fl_json_push(ranges, pair);
			ret |= fl_json_push(pair,
					    fl_json_hexval(ev->ranges[i].start));
			ret |= fl_json_push(pair,
					    fl_json_hexval(ev->ranges[i].end));
		}
		break;
	case SACC_JEV_FAULT:
		ret |= fl_json_u64(o, "req_id", true, ev->req_id);
		ret |= fl_json_u64(o, "opcode", true, ev->opcode);
		ret |= fl_json_u64(o, "status", true, ev->status);
		ret |= fl_json_hex(o, "addr", true, ev->addr);
		ret |= fl_json_str(o, "access",
				   sacc_fault_access_name(ev->access));
		ret |= fl_json_bool(o, "write", true, ev->write);
		ret |= fl_json_bool(o, "fatal", true, ev->fatal);
		if (ev->has_fault_count)
			ret |= fl_json_u64(o, "fault_count", true,
					   ev->fault_count);
		if (ev->has_length)
			ret |= fl_json_u64(o, "length", true, ev->length);
		if (ev->has_chan)
			ret |= fl_json_u64(o, "chan", true, ev->chan);
		break;
	case SACC_JEV_RESET:
		break;
	case SACC_JEV_ROTATED:
		ret |= fl_json_u64(o, "rotations", true, ev->rotations);
		ret |= fl_json_u64(o, "faults", true, ev->rotated_faults);
		ret |= fl_json_u64(o, "bytes", true, ev->rotated_bytes);
		break;
	}
	ck_assert_int_eq(ret, 0);
	ret = fl_json_format(o, "\n", buf, len);
	json_object_put(o);
	return ret;
}

static uint64_t rnd(uint64_t *x)
{
	/* xorshift64: the same events on every run */
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A number of every width, small ones often (json-c prints them all
 * the same way, but the edges are where a hand writer slips). */
static uint64_t rnd_num(uint64_t *x)
{
	uint64_t v = rnd(x);

	switch (v & 3) {
	case 0:
		return v >> 60;
	case 1:
		return v >> (rnd(x) & 63);
	case 2:
		return (v & 4) ? UINT64_MAX : 0;
	}
	return v;
}

START_TEST(test_journal_format_is_json_c)
{
	static const uint32_t kinds[] = {SACC_JEV_MAP,	 SACC_JEV_UNMAP,
					 SACC_JEV_RANGES, SACC_JEV_FAULT,
					 SACC_JEV_RESET,  SACC_JEV_ROTATED};
	static const char *const bdfs[] = {"0000:01:00.0", "ffff:ff:1f.7",
					   "0000:00:03.0"};
	char mine[4096], ref[4096];
	uint64_t x = 0x5acc5acc5acc5accull;
	struct sacc_journal_event ev;

	for (int n = 0; n < 20000; n++) {
		size_t nlen;

		memset(&ev, 0, sizeof(ev));
		ev.ev = kinds[rnd(&x) % 6];
		ev.t_ns = rnd_num(&x);
		ev.pid = (uint32_t)rnd_num(&x);
		snprintf(ev.bdf, sizeof(ev.bdf), "%s", bdfs[rnd(&x) % 3]);
		/* every byte value in names: escapes, DEL, UTF-8 and not */
		nlen = rnd(&x) % SACC_DMA_NAME_MAX;
		for (size_t i = 0; i < nlen; i++)
			ev.name[i] = (char)(1 + rnd(&x) % 255);
		ev.iova = rnd_num(&x);
		ev.len = rnd_num(&x);
		ev.perm = (uint32_t)(rnd(&x) % 4);
		if (ev.ev == SACC_JEV_MAP && !ev.perm)
			ev.perm = SACC_JOURNAL_PERM_READ;
		ev.nr_ranges = (uint32_t)(rnd(&x) % (SACC_IOMMU_MAX_RANGES + 1));
		for (uint32_t i = 0; i < ev.nr_ranges; i++) {
			ev.ranges[i].start = rnd_num(&x);
			ev.ranges[i].end = rnd_num(&x);
		}
		ev.req_id = (uint32_t)rnd_num(&x);
		ev.opcode = (uint32_t)rnd_num(&x);
		ev.status = (uint32_t)rnd_num(&x);
		ev.addr = rnd_num(&x);
		ev.access = (uint32_t)(rnd(&x) % 4);
		ev.write = rnd(&x) & 1;
		ev.fatal = rnd(&x) & 1;
		ev.has_fault_count = rnd(&x) & 1;
		ev.fault_count = (uint32_t)rnd_num(&x);
		ev.has_length = rnd(&x) & 1;
		ev.length = (uint32_t)rnd_num(&x);
		ev.has_chan = rnd(&x) & 1;
		ev.chan = (uint32_t)rnd_num(&x);
		ev.rotations = rnd_num(&x);
		ev.rotated_faults = rnd_num(&x);
		ev.rotated_bytes = rnd_num(&x);

		ck_assert_int_eq(sacc_journal_format(&ev, mine, sizeof(mine)),
				 json_c_line(&ev, ref, sizeof(ref)));
		ck_assert_msg(!strcmp(mine, ref), "event %d:\n%s\n%s", n,
			      mine, ref);
	}
	/* too small by one byte (the NUL): both refuse */
	{
		int len = json_c_line(&ev, ref, sizeof(ref));

		ck_assert_int_gt(len, 0);
		ck_assert_int_eq(json_c_line(&ev, ref, (size_t)len),
				 -EMSGSIZE);
		ck_assert_int_eq(sacc_journal_format(&ev, mine, (size_t)len),
				 -EMSGSIZE);
		ck_assert_int_eq(
		    sacc_journal_format(&ev, mine, (size_t)len + 1), len);
	}
}
END_TEST

void journal_line_tests(Suite *s)
{
	TCase *tc = tcase_create("journal lines");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_journal_parse_fixture);
	tcase_add_test(tc, test_journal_tolerant);
	tcase_add_test(tc, test_journal_malformed);
	tcase_add_test(tc, test_journal_format_roundtrip);
	tcase_add_test(tc, test_journal_format_is_json_c);
	suite_add_tcase(s, tc);
}

// SPDX-License-Identifier: MIT
/*
 * graph_failures.c - graphs that fail: the failing command and
 * sacc_graph_explain(), a fetch fault, a lying device; the journal's
 * record of a graph's or a raw segment's fault
 */
#include <sys/stat.h>

#include "fake_dev.h"

/* A failing command: the entry's status and the command's index, and
 * sacc_graph_explain() says which op and why; a fetch fault; a raw
 * segment's bad opcode; a device that lies about a segment. */
START_TEST(test_graph_failures)
{
	struct sacc_dev *dev = fake_open_mode(16, 16, SACC_MODE_V3, 16 * 4096);
	struct sacc_buf *hs, *hd;
	struct sacc_graph *g, *raw;
	struct sacc_result r[2];
	struct sacc_op ops[5];
	struct sacc_desc cmds[3] = {{.opcode = SACC_OP_NOP},
				    {.opcode = SACC_OP_SEGMENT, .length = 32},
				    {.opcode = SACC_OP_NOP}};
	char msg[512];

	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "hs", &hs), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "hd", &hd), 0);
	for (int k = 0; k < 5; k++)
		ops[k] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
					  .len = 100,
					  .src = hs,
					  .dst = hd,
					  .dst_off = 100 * (size_t)k};
	ck_assert_int_eq(sacc_graph_create(dev, ops, 5, 0, &g), 0);
	/* op 2 faults: status 2, result_len 2 */
	F.seg_fail_cmd = 3;
	F.seg_status = SACC_STS_DMA_FAULT;
	launch_reap(dev, g, 1, r);
	ck_assert_uint_eq(r[0].status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(r[0].result_len, 2);
	ck_assert_uint_eq(r[0].len, 5);
	sacc_graph_explain(g, r, msg, sizeof(msg));
	ck_assert_ptr_nonnull(strstr(msg, "op 2 of the graph's 5"));
	ck_assert_ptr_nonnull(strstr(msg, "memcpy of 100 bytes from 'hs'+0 "
					  "to 'hd'+200"));
	ck_assert_ptr_nonnull(strstr(msg, "DMA fault"));
	ck_assert_ptr_nonnull(strstr(msg, "destination write at IOVA"));
	ck_assert_ptr_nonnull(strstr(msg, "inside buffer 'hd'"));
	ck_assert_int_eq(sacc_check(dev), 0); /* the channel goes on */
	F.seg_fail_cmd = 0;
	launch_reap(dev, g, 2, r);
	ck_assert_uint_eq(r[0].status, SACC_STS_OK);
	sacc_graph_explain(g, r, msg, sizeof(msg));
	ck_assert_str_eq(msg, "ok: the graph's 5 ops ran (0 ns on the engine)");
	/* the fetch fails: no op ran, and that is what it says */
	F.seg_fetch_fault = true;
	launch_reap(dev, g, 3, r);
	F.seg_fetch_fault = false;
	ck_assert_uint_eq(r[0].status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(r[0].result_len, 0);
	sacc_graph_explain(g, r, msg, sizeof(msg));
	ck_assert_ptr_nonnull(strstr(msg, "fetching its segment"));
	ck_assert_ptr_nonnull(strstr(msg, "segment fetch at IOVA"));
	/* op 0 faulted and the record is another's: it cannot say which */
	F.seg_fail_cmd = 1;
	ck_assert_int_eq(sacc_graph_launch(dev, g, 4), 1);
	dev_run(8);
	set_fault_regs(dev, 0x1000, SACC_FAULT_SRC_READ, 12345, 2);
	ck_assert_int_eq(reap_all(dev, r, 1), 1);
	F.seg_fail_cmd = 0;
	sacc_graph_explain(g, r, msg, sizeof(msg));
	ck_assert_ptr_nonnull(strstr(msg, "op 0 of"));
	ck_assert_ptr_nonnull(strstr(msg, "overwritten"));
	ck_assert_ptr_nonnull(strstr(msg, "cannot say which"));
	/* a raw segment: a SEGMENT inside is bad opcode at its index */
	ck_assert_int_eq(sacc_graph_create_raw(dev, cmds, 3, 0, &raw), 0);
	ck_assert_uint_eq(sacc_graph_ops(raw), 3);
	launch_reap(dev, raw, 5, r);
	ck_assert(r[0].raw);
	ck_assert_uint_eq(r[0].status, SACC_STS_BAD_OPCODE);
	ck_assert_uint_eq(r[0].result_len, 1);
	sacc_graph_explain(raw, r, msg, sizeof(msg));
	ck_assert_ptr_nonnull(strstr(msg, "op 1 of the graph's 3 (segment"));
	ck_assert_ptr_nonnull(strstr(msg, "bad opcode"));
	ck_assert_int_eq(sacc_graph_update(raw, ops, 1), -EINVAL);
	ck_assert_int_eq(sacc_graph_destroy(raw), 0);
	/* not a graph's result */
	r[1] = (struct sacc_result){.opcode = SACC_OP_MEMCPY};
	sacc_graph_explain(g, &r[1], msg, sizeof(msg));
	ck_assert_ptr_nonnull(strstr(msg, "not a graph"));

	/* a device that lies: ok with a count not the graph's */
	F.seg_lie = -1;
	ck_assert_int_eq(sacc_graph_launch(dev, g, 6), 1);
	ck_assert_int_eq(poll_until(dev, r, 1, 100, true), -EIO);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "5 commands completed "
						       "ok with result_len 4"));
	fake_reset(dev);
	/* a failing index past the last */
	F.seg_lie = 5;
	F.seg_fail_cmd = 2;
	ck_assert_int_eq(sacc_graph_launch(dev, g, 7), 1);
	ck_assert_int_eq(poll_until(dev, r, 1, 100, true), -EIO);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "past its last"));
	fake_reset(dev);
	/* bad opcode for a graph libsacc validated */
	F.seg_lie = 0;
	F.seg_status = SACC_STS_BAD_OPCODE;
	ck_assert_int_eq(sacc_graph_launch(dev, g, 8), 1);
	ck_assert_int_eq(poll_until(dev, r, 1, 100, true), -EIO);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "validated"));
	fake_reset(dev);
	F.seg_fail_cmd = 0;
	ck_assert_int_eq(sacc_graph_destroy(g), 0);
	fake_close(dev);
}
END_TEST

/* The journal's fault record of a graph's launch: the device's when it
 * is the launch's, else rebuilt from the segment and the failing
 * command (the fetch first). */
START_TEST(test_graph_journal)
{
	struct sacc_dev *dev = fake_open_mode(8, 8, SACC_MODE_V3, 16 * 4096);
	struct sacc_journal_event ev[16];
	char dir[] = "/tmp/sacc-journal-XXXXXX", path[64];
	struct sacc_journal *j;
	struct sacc_result r[2];
	struct sacc_desc cmds[2] = {
	    {.opcode = SACC_OP_NOP},
	    {.opcode = SACC_OP_MEMCPY,
	     .src = 0x7000000,
	     .length = 8,
	     .req_id = 0x4321}};
	struct sacc_buf *hd;
	struct sacc_graph *g;
	int n;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/j.jsonl", dir);
	ck_assert_int_eq(sacc_journal_open_path(&j, path, dev->bdf, NULL), 0);
	sacc_dev_journal_attach(dev, j);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "hd", &hd), 0);
	cmds[1].dst = sacc_buf_iova(hd);
	ck_assert_int_eq(sacc_graph_create_raw(dev, cmds, 2, 0, &g), 0);
	/* the device's own record: its command's source read */
	ck_assert_int_eq(sacc_graph_launch(dev, g, 1), 1);
	dev_run(8);
	set_fault_regs(dev, 0x7000000, SACC_FAULT_SRC_READ, 0x4321, 1);
	ck_assert_int_eq(reap_all(dev, r, 1), 1);
	ck_assert_uint_eq(r[0].status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(r[0].result_len, 1);
	/* overwritten: rebuilt from command 1 (unmapped src) */
	ck_assert_int_eq(sacc_graph_launch(dev, g, 2), 1);
	dev_run(8);
	set_fault_regs(dev, 0x1234, SACC_FAULT_DST_WRITE, 999, 2);
	ck_assert_int_eq(reap_all(dev, r, 1), 1);
	n = read_journal(path, ev, 16);
	/* ranges, reset, map hd, map the segment, 2 faults */
	ck_assert_int_eq(n, 6);
	ck_assert_str_eq(ev[3].name, "graph segment");
	for (int k = 4; k < 6; k++) {
		ck_assert_uint_eq(ev[k].opcode, SACC_OP_SEGMENT);
		ck_assert_uint_eq(ev[k].access, SACC_FAULT_SRC_READ);
		ck_assert_uint_eq(ev[k].addr, 0x7000000);
		ck_assert_uint_eq(ev[k].length, 8); /* command 1's */
	}
	ck_assert_int_eq(sacc_graph_destroy(g), 0);
	sacc_dev_journal_close(dev);
	fake_close(dev);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* A raw SEGMENT entry (sacc_submit_raw(), no graph): the journal finds
 * its failing command in the segment's buffer, so a command's fault is
 * recorded (or rebuilt) as that command's, never as a fetch fault; a
 * fetch fault is the entry's. */
START_TEST(test_raw_segment_journal)
{
	struct sacc_dev *dev = fake_open_mode(8, 8, SACC_MODE_V3, 16 * 4096);
	struct sacc_journal_event ev[16];
	char dir[] = "/tmp/sacc-journal-XXXXXX", path[64];
	struct sacc_buf *seg, *ro, *hd;
	struct sacc_desc *c, d = {.opcode = SACC_OP_SEGMENT, .length = 4 * 32};
	struct sacc_journal *j;
	struct sacc_result r[2];
	int n;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/j.jsonl", dir);
	ck_assert_int_eq(sacc_journal_open_path(&j, path, dev->bdf, NULL), 0);
	sacc_dev_journal_attach(dev, j);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "seg", &seg), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "ro", &ro), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "hd", &hd), 0);
	/* command 0 in slots 0-2 (40 bytes inline), command 1 in slot 3 */
	c = sacc_buf_va(seg);
	c[0] = (struct sacc_desc){.opcode = SACC_OP_WRITE_INLINE,
				  .dst = sacc_buf_iova(hd),
				  .length = 40};
	c[3] = (struct sacc_desc){.opcode = SACC_OP_MEMCPY,
				  .src = sacc_buf_iova(seg),
				  .dst = sacc_buf_iova(ro),
				  .length = 8,
				  .req_id = 0x4321};
	d.src = sacc_buf_iova(seg);
	F.seg_fail_cmd = 2;
	F.seg_status = SACC_STS_DMA_FAULT;
	/* the device's own record: command 1's, with its req_id */
	ck_assert_int_gt(sacc_submit_raw(dev, &d), 0);
	ck_assert_int_eq(reap_all(dev, r, 1), 1);
	ck_assert_uint_eq(r[0].status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(r[0].result_len, 1);
	/* overwritten: rebuilt from command 1 ('ro' is read-only) */
	ck_assert_int_gt(sacc_submit_raw(dev, &d), 0);
	dev_run(8);
	set_fault_regs(dev, 0x1234, SACC_FAULT_DST_WRITE, 999, 2);
	ck_assert_int_eq(reap_all(dev, r, 1), 1);
	ck_assert_uint_eq(r[0].result_len, 1);
	/* a fetch fault: the entry's record */
	F.seg_fail_cmd = 0;
	d.src = 0x7000000;
	ck_assert_int_gt(sacc_submit_raw(dev, &d), 0);
	ck_assert_int_eq(reap_all(dev, r, 1), 1);
	ck_assert_uint_eq(r[0].status, SACC_STS_DMA_FAULT);
	n = read_journal(path, ev, 16);
	/* ranges, reset, 3 maps, 3 faults */
	ck_assert_int_eq(n, 8);
	for (int k = 5; k < 7; k++) {
		ck_assert_uint_eq(ev[k].opcode, SACC_OP_SEGMENT);
		ck_assert_uint_eq(ev[k].access, SACC_FAULT_DST_WRITE);
		ck_assert_uint_eq(ev[k].addr, sacc_buf_iova(ro));
		ck_assert(ev[k].write);
		ck_assert_uint_eq(ev[k].length, 8); /* the command's */
	}
	ck_assert_uint_eq(ev[7].access, SACC_FAULT_SEGMENT_READ);
	ck_assert_uint_eq(ev[7].addr, 0x7000000);
	ck_assert(!ev[7].write);
	ck_assert_uint_eq(ev[7].length, 4 * 32); /* the segment's */
	sacc_dev_journal_close(dev);
	fake_close(dev);
	unlink(path);
	rmdir(dir);
}
END_TEST

void graph_failure_tests(Suite *s)
{
	TCase *tc = tcase_create("graph failures");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_graph_failures);
	tcase_add_test(tc, test_graph_journal);
	tcase_add_test(tc, test_raw_segment_journal);
	suite_add_tcase(s, tc);
}

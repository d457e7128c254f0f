// SPDX-License-Identifier: MIT
/*
 * journal.c - the fault journal libsacc writes: its lines, rotation past
 * the size cap, a path that is a FIFO
 */
#include <sys/stat.h>

#include "fake_dev.h"

START_TEST(test_journal)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_journal_event ev[32];
	struct sacc_buf *src, *dst;
	struct sacc_journal *j;
	struct sacc_result r[3];
	struct sacc_desc d = {0};
	char dir[] = "/tmp/sacc-journal-XXXXXX", path[64];
	const char *why = "unset";
	uint64_t src_iova;
	int id1, id2, id3, n;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/j.jsonl", dir);
	ck_assert_ptr_null(sacc_dev_journal(dev, &why));
	ck_assert_int_eq(sacc_journal_open_path(&j, path, dev->bdf, NULL), 0);
	sacc_dev_journal_attach(dev, j);
	ck_assert_str_eq(sacc_dev_journal(dev, &why), path);
	ck_assert_ptr_null(why);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 100, SACC_DMA_TO_DEVICE, "src", &src), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 8192, SACC_DMA_FROM_DEVICE, "dst", &dst), 0);
	src_iova = sacc_buf_iova(src);

	/* 1: the record is its own (FAULT_REQ_ID matches) */
	d.opcode = SACC_OP_MEMCPY;
	d.src = sacc_buf_iova(src);
	d.dst = 0x40000000;
	d.length = 64;
	id1 = sacc_submit_raw(dev, &d);
	/* 2: overruns dst into its guard page; 3: unmapped src */
	d.dst = sacc_buf_iova(dst) + 8000;
	d.length = 300;
	id2 = sacc_submit_raw(dev, &d);
	d.src = 0x50000010;
	d.opcode = SACC_OP_XFORM;
	id3 = sacc_submit_raw(dev, &d);
	ck_assert_int_eq(dev_run(8), 3);
	/* the device recorded id1 ... and a later one overwrote it */
	set_fault_regs(dev, 0x40000000,
		       SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE,
		       (uint32_t)id1, 1);
	ck_assert_int_eq(sacc_poll(dev, r, 1), 1);
	set_fault_regs(dev, 0x1234, SACC_FAULT_SRC_READ, 999, 3);
	ck_assert_int_eq(sacc_poll(dev, r + 1, 2), 2);
	ck_assert_uint_eq(r[2].status, SACC_STS_DMA_FAULT);

	/* a ring fault stops the device: one fatal event */
	dev->regs[SACC_REG_STATUS / 4] = SACC_STATUS_ERROR;
	dev->regs[SACC_REG_ERR_CODE / 4] = SACC_ERR_DMA;
	set_fault_regs(dev, sacc_buf_iova(dev->sq_buf), SACC_FAULT_DESC_FETCH,
		       0, 4);
	ck_assert_int_eq(sacc_check(dev), -EIO);
	ck_assert_int_eq(sacc_check(dev), -EIO);
	ck_assert_int_eq(sacc_buf_free(src), 0);

	n = read_journal(path, ev, 32);
	ck_assert_int_eq(n, 9);
	ck_assert_int_eq(ev[0].ev, SACC_JEV_RANGES);
	ck_assert_uint_eq(ev[0].nr_ranges, 1);
	ck_assert_uint_eq(ev[0].ranges[0].end, (1ull << 39) - 1);
	ck_assert_str_eq(ev[0].bdf, "0000:00:03.0");
	ck_assert_int_eq(ev[1].ev, SACC_JEV_RESET);
	ck_assert_int_eq(ev[2].ev, SACC_JEV_MAP);
	ck_assert_str_eq(ev[2].name, "src");
	ck_assert_uint_eq(ev[2].iova, src_iova);
	ck_assert_uint_eq(ev[2].perm, SACC_JOURNAL_PERM_READ);
	ck_assert_int_eq(ev[3].ev, SACC_JEV_MAP);
	ck_assert_uint_eq(ev[3].len, 8192);
	ck_assert_uint_eq(ev[3].perm, SACC_JOURNAL_PERM_WRITE);
	/* the device's own record */
	ck_assert_int_eq(ev[4].ev, SACC_JEV_FAULT);
	ck_assert_uint_eq(ev[4].req_id, (uint32_t)id1);
	ck_assert_uint_eq(ev[4].addr, 0x40000000);
	ck_assert_uint_eq(ev[4].access, SACC_FAULT_DST_WRITE);
	ck_assert(ev[4].write && !ev[4].fatal);
	ck_assert_uint_eq(ev[4].opcode, SACC_OP_MEMCPY);
	ck_assert_uint_eq(ev[4].status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(ev[4].fault_count, 1);
	/* rebuilt from the descriptor: the guard page after dst */
	ck_assert_uint_eq(ev[5].req_id, (uint32_t)id2);
	ck_assert_uint_eq(ev[5].access, SACC_FAULT_DST_WRITE);
	ck_assert_uint_eq(ev[5].addr, ev[3].iova + 8192);
	ck_assert_uint_eq(ev[5].fault_count, 3);
	/* rebuilt: the source faults first, at its exact address */
	ck_assert_uint_eq(ev[6].req_id, (uint32_t)id3);
	ck_assert_uint_eq(ev[6].access, SACC_FAULT_SRC_READ);
	ck_assert(!ev[6].write);
	ck_assert_uint_eq(ev[6].addr, 0x50000010);
	ck_assert_uint_eq(ev[6].opcode, SACC_OP_XFORM);
	/* fatal, once */
	ck_assert_int_eq(ev[7].ev, SACC_JEV_FAULT);
	ck_assert(ev[7].fatal);
	ck_assert_uint_eq(ev[7].access, SACC_FAULT_DESC_FETCH);
	ck_assert_uint_eq(ev[7].fault_count, 4);
	ck_assert_int_eq(ev[8].ev, SACC_JEV_UNMAP);
	ck_assert_str_eq(ev[8].name, "src");
	ck_assert_uint_eq(ev[8].iova, ev[2].iova);

	sacc_dev_journal_close(dev);
	fake_close(dev);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* Past its size cap the journal rotates, and the new file starts with
 * the "rotated" line, the ranges and every live mapping again. */
START_TEST(test_journal_rotation)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_dma_registry *reg = sacc_dma_ctx_registry(dev->dma);
	struct sacc_journal_event ev[64];
	char dir[] = "/tmp/sacc-journal-XXXXXX", path[64], old[72];
	struct sacc_buf *src, *dst;
	struct sacc_journal *j;
	const char *why = "unset";
	size_t live;
	int n, maps = 0, resets = 0;
	bool saw_src = false, saw_dst = false;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/j.jsonl", dir);
	snprintf(old, sizeof(old), "%s.1", path);
	ck_assert_int_eq(sacc_journal_open_path(&j, path, dev->bdf, NULL), 0);
	sacc_journal_set_max(j, 4096);
	sacc_dev_journal_attach(dev, j);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 100, SACC_DMA_TO_DEVICE, "src", &src), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 8192, SACC_DMA_FROM_DEVICE, "dst", &dst), 0);
	live = sacc_dma_registry_count(reg);
	ck_assert_uint_ge(live, 4); /* sq, cq, src, dst */
	while (access(old, F_OK) && resets++ < 1000)
		sacc_dev_journal_reset(dev);
	ck_assert_int_eq(access(old, F_OK), 0);
	ck_assert_str_eq(sacc_dev_journal(dev, &why), path);
	ck_assert_ptr_null(why);

	n = read_journal(path, ev, 64);
	ck_assert_int_ge(n, 2 + (int)live);
	ck_assert_int_eq(ev[0].ev, SACC_JEV_ROTATED);
	ck_assert_uint_eq(ev[0].rotations, 1);
	ck_assert_uint_eq(ev[0].rotated_faults, 0);
	ck_assert_int_eq(ev[1].ev, SACC_JEV_RANGES);
	ck_assert_uint_gt(ev[1].nr_ranges, 0);
	for (int i = 2; i < n && ev[i].ev == SACC_JEV_MAP; i++) {
		maps++;
		saw_src |= !strcmp(ev[i].name, "src") &&
			   ev[i].iova == sacc_buf_iova(src) &&
			   ev[i].perm == SACC_JOURNAL_PERM_READ;
		saw_dst |= !strcmp(ev[i].name, "dst") &&
			   ev[i].iova == sacc_buf_iova(dst) &&
			   ev[i].perm == SACC_JOURNAL_PERM_WRITE;
	}
	ck_assert_int_eq(maps, (int)live);
	ck_assert(saw_src && saw_dst);

	sacc_dev_journal_close(dev);
	fake_close(dev);
	unlink(path);
	unlink(old);
	rmdir(dir);
}
END_TEST

/* A journal path that is a FIFO: opening the device's journal returns
 * at once, the device goes on without one, and says why. */
START_TEST(test_journal_fifo)
{
	struct sacc_dev *dev = fake_open(8, 8);
	char dir[] = "/tmp/sacc-journal-XXXXXX", path[64];
	const char *why = NULL;
	uint64_t t0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/%s.jsonl", dir, dev->bdf);
	ck_assert_int_eq(mkfifo(path, 0644), 0);
	setenv(SACC_JOURNAL_DIR_ENV, dir, 1);
	t0 = sacc_monotonic_ns();
	sacc_dev_journal_open(dev);
	ck_assert_uint_lt(sacc_monotonic_ns() - t0, 2000000000ull);
	ck_assert_ptr_null(sacc_dev_journal(dev, &why));
	ck_assert_ptr_nonnull(why);
	ck_assert_ptr_nonnull(strstr(why, "no fault journal"));
	ck_assert_ptr_nonnull(strstr(why, "is a FIFO, not a regular file"));
	ck_assert_ptr_nonnull(strstr(why, path));
	unsetenv(SACC_JOURNAL_DIR_ENV);
	sacc_dev_journal_close(dev);
	fake_close(dev);
	unlink(path);
	rmdir(dir);
}
END_TEST

void journal_tests(Suite *s)
{
	TCase *tc = tcase_create("journal");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_journal);
	tcase_add_test(tc, test_journal_fifo);
	tcase_add_test(tc, test_journal_rotation);
	suite_add_tcase(s, tc);
}

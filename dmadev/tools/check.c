// SPDX-License-Identifier: MIT
/*
 * sacc-dma-check - what dmadev_autotest does not ask of the SACC driver,
 * through the public dmadev API only:
 *
 *   sacc-dma-check [EAL options] -- [--dev NAME]
 *
 * every vchan (one per SACC channel) at once; copies and fills of 1 B to
 * 1 MiB with the bytes around them untouched; source and destination
 * faults told apart (RTE_DMA_STATUS_INVALID_SRC_ADDR / _DST_ADDR, from
 * the device's fault record); bad lengths; several faults in one burst;
 * a full ring; stop and start with copies in flight; the dump.  One line
 * per check, "check NAME: ok" or "check NAME: FAILED (why)", then a
 * tally; exit 0 only if every check passed.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_eal.h>

#include "common.h"

#define TIMEOUT_MS 10000u
#define GUARD	   64u /* bytes after a destination that must stay */
#define MIB	   (1u << 20)
#define PATTERN	   0x8877665544332211ull

static int16_t dev = -1;
static struct dma_buf src, dst; /* 1 MiB + GUARD each */
static char why[256];

static int failf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return -1;
}

/* One op on vchan 0, submitted, gathered: its status (or -1 on timeout). */
static int one_status(int id, enum rte_dma_status_code *st)
{
	if (id < 0)
		return failf("enqueue: %s", strerror(-id));
	if (gather(dev, 0, 1, st, TIMEOUT_MS) != 1)
		return failf("no completion in %u ms", TIMEOUT_MS);
	return 0;
}

static void prepare(uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		src.va[i] = (uint8_t)rand();
	memset(dst.va, 0xAA, len + GUARD);
}

static int guard_intact(uint32_t len)
{
	for (uint32_t i = len; i < len + GUARD; i++)
		if (dst.va[i] != 0xAA)
			return failf("byte %u after %u written", i - len, len);
	return 0;
}

static int check_copy_sizes(void)
{
	static const uint32_t sizes[] = {1, 63, 4096, 65536 + 3, MIB};
	enum rte_dma_status_code st;

	for (unsigned int i = 0; i < RTE_DIM(sizes); i++) {
		prepare(sizes[i]);
		if (one_status(rte_dma_copy(dev, 0, src.iova, dst.iova,
					    sizes[i], RTE_DMA_OP_FLAG_SUBMIT),
			       &st))
			return -1;
		if (st != RTE_DMA_STATUS_SUCCESSFUL)
			return failf("%u B: %s", sizes[i], status_name(st));
		if (memcmp(src.va, dst.va, sizes[i]))
			return failf("%u B: destination differs", sizes[i]);
		if (guard_intact(sizes[i]))
			return -1;
	}
	return 0;
}

static int check_fill_sizes(void)
{
	static const uint32_t sizes[] = {1, 8, 13, 5000, MIB};
	const uint8_t *pat;
	enum rte_dma_status_code st;
	uint64_t p = rte_cpu_to_le_64(PATTERN);

	pat = (const uint8_t *)&p;
	for (unsigned int i = 0; i < RTE_DIM(sizes); i++) {
		prepare(sizes[i]);
		if (one_status(rte_dma_fill(dev, 0, PATTERN, dst.iova, sizes[i],
					    RTE_DMA_OP_FLAG_SUBMIT),
			       &st))
			return -1;
		if (st != RTE_DMA_STATUS_SUCCESSFUL)
			return failf("%u B: %s", sizes[i], status_name(st));
		for (uint32_t j = 0; j < sizes[i]; j++)
			if (dst.va[j] != pat[j % 8])
				return failf("%u B: byte %u is %#x, not %#x",
					     sizes[i], j, dst.va[j],
					     pat[j % 8]);
		if (guard_intact(sizes[i]))
			return -1;
	}
	return 0;
}

/* An op expected to fail with @want, leaving dst as it was. */
static int expect_status(const char *what, int id,
			 enum rte_dma_status_code want)
{
	enum rte_dma_status_code st;

	if (one_status(id, &st))
		return -1;
	if (st != want)
		return failf("%s: %s, not %s", what, status_name(st),
			     status_name(want));
	return guard_intact(0);
}

static int check_faults(void)
{
	prepare(4096);
	/* IOVA 0 is never in DPDK's VFIO container: the vIOMMU refuses it */
	if (expect_status(
		"copy from IOVA 0",
		rte_dma_copy(dev, 0, 0, dst.iova, 4096, RTE_DMA_OP_FLAG_SUBMIT),
		RTE_DMA_STATUS_INVALID_SRC_ADDR) ||
	    expect_status(
		"copy to IOVA 0",
		rte_dma_copy(dev, 0, src.iova, 0, 4096, RTE_DMA_OP_FLAG_SUBMIT),
		RTE_DMA_STATUS_INVALID_DST_ADDR) ||
	    expect_status(
		"fill at IOVA 0",
		rte_dma_fill(dev, 0, PATTERN, 0, 64, RTE_DMA_OP_FLAG_SUBMIT),
		RTE_DMA_STATUS_INVALID_DST_ADDR))
		return -1;
	return 0;
}

static int check_lengths(void)
{
	prepare(0);
	if (expect_status("copy of 0 B",
			  rte_dma_copy(dev, 0, src.iova, dst.iova, 0,
				       RTE_DMA_OP_FLAG_SUBMIT),
			  RTE_DMA_STATUS_INVALID_LENGTH) ||
	    expect_status("copy of 1 MiB + 1",
			  rte_dma_copy(dev, 0, src.iova, dst.iova, MIB + 1,
				       RTE_DMA_OP_FLAG_SUBMIT),
			  RTE_DMA_STATUS_INVALID_LENGTH) ||
	    expect_status("fill of 0 B",
			  rte_dma_fill(dev, 0, PATTERN, dst.iova, 0,
				       RTE_DMA_OP_FLAG_SUBMIT),
			  RTE_DMA_STATUS_INVALID_LENGTH))
		return -1;
	return 0;
}

/* 8 copies, 1, 3 and 6 from IOVA 0: completed() stops before 1, the
 * statuses say which failed; the last failure is the fault record's. */
static int check_faults_in_burst(void)
{
	enum rte_dma_status_code st[8];
	struct rte_dma_stats s;
	bool err = false;
	uint16_t last, n;

	rte_dma_stats_reset(dev, 0);
	for (unsigned int i = 0; i < 8; i++)
		rte_dma_copy(dev, 0,
			     (i == 1 || i == 3 || i == 6) ? 0 : src.iova,
			     dst.iova + 64 * i, 64, 0);
	rte_dma_submit(dev, 0);
	if (wait_idle(dev, 0, TIMEOUT_MS))
		return failf("vchan 0 not idle after %u ms", TIMEOUT_MS);
	n = rte_dma_completed(dev, 0, 8, &last, &err);
	if (n != 1 || !err)
		return failf("completed() gave %u, has_error %d; want 1, 1", n,
			     err);
	if (gather(dev, 0, 7, st + 1, TIMEOUT_MS) != 7)
		return failf("completed_status() did not give the other 7");
	for (unsigned int i = 1; i < 8; i++) {
		bool bad = i == 1 || i == 3 || i == 6;

		if (bad == (st[i] == RTE_DMA_STATUS_SUCCESSFUL))
			return failf("op %u: %s", i, status_name(st[i]));
	}
	if (st[6] != RTE_DMA_STATUS_INVALID_SRC_ADDR)
		return failf("the last fault: %s", status_name(st[6]));
	rte_dma_stats_get(dev, 0, &s);
	if (s.errors != 3 || s.completed != s.submitted || s.submitted != 8)
		return failf("stats: submitted %" PRIu64 " completed %" PRIu64
			     " errors %" PRIu64,
			     s.submitted, s.completed, s.errors);
	return 0;
}

/* Enqueue until the ring says no: exactly burst_capacity ops fit. */
static int check_ring_full(void)
{
	uint16_t cap = rte_dma_burst_capacity(dev, 0);
	uint32_t n = 0;
	int id;

	while ((id = rte_dma_copy(dev, 0, src.iova, dst.iova, 64, 0)) >= 0)
		n++;
	if (id != -ENOSPC || n != cap)
		return failf("%u ops fitted (capacity %u), then %d", n, cap,
			     id);
	rte_dma_submit(dev, 0);
	if (gather(dev, 0, n, NULL, TIMEOUT_MS) != n)
		return failf("not all %u completed", n);
	if (rte_dma_burst_capacity(dev, 0) != cap)
		return failf("capacity %u after, %u before",
			     rte_dma_burst_capacity(dev, 0), cap);
	return 0;
}

/* Stop with copies in flight, start: ids from 0, stats 0, copies work. */
static int check_restart(void)
{
	enum rte_dma_status_code st;
	struct rte_dma_stats s;

	for (unsigned int i = 0; i < 32; i++)
		rte_dma_copy(dev, 0, src.iova, dst.iova, 65536, 0);
	rte_dma_submit(dev, 0);
	if (rte_dma_stop(dev) || rte_dma_start(dev))
		return failf("stop or start failed");
	rte_dma_stats_get(dev, 0, &s);
	if (s.submitted || s.completed || s.errors)
		return failf("stats not 0 after start");
	prepare(4096);
	if (one_status(rte_dma_copy(dev, 0, src.iova, dst.iova, 4096,
				    RTE_DMA_OP_FLAG_SUBMIT),
		       &st))
		return -1;
	if (st != RTE_DMA_STATUS_SUCCESSFUL || memcmp(src.va, dst.va, 4096))
		return failf("the copy after the restart: %s", status_name(st));
	return 0;
}

/* Every vchan: a copy and a fill on each, all submitted before any is
 * gathered, each in its own part of the buffers. */
static int check_every_vchan(uint16_t nb)
{
	enum rte_dma_status_code st[2];
	struct rte_dma_stats s;

	for (uint16_t k = 0; k < nb; k++) {
		uint32_t off = k * 8192u;

		memset(src.va + off, k + 1, 4096);
		memset(dst.va + off, 0, 8192);
		if (rte_dma_copy(dev, k, src.iova + off, dst.iova + off, 4096,
				 0) != 0 ||
		    rte_dma_fill(dev, k, PATTERN, dst.iova + off + 4096, 100,
				 RTE_DMA_OP_FLAG_SUBMIT) != 1)
			return failf("vchan %u: job ids are not 0, 1", k);
	}
	for (uint16_t k = 0; k < nb; k++) {
		uint32_t off = k * 8192u;

		if (gather(dev, k, 2, st, TIMEOUT_MS) != 2 ||
		    st[0] != RTE_DMA_STATUS_SUCCESSFUL ||
		    st[1] != RTE_DMA_STATUS_SUCCESSFUL)
			return failf("vchan %u: the copy or fill failed", k);
		if (memcmp(src.va + off, dst.va + off, 4096) ||
		    dst.va[off + 4096] != 0x11 || dst.va[off + 4196] != 0)
			return failf("vchan %u: wrong bytes", k);
		rte_dma_stats_get(dev, k, &s);
		if (s.submitted != 2 || s.completed != 2 || s.errors)
			return failf("vchan %u: stats", k);
	}
	return 0;
}

static int check_info(struct rte_dma_info *info)
{
	const uint64_t want = RTE_DMA_CAPA_MEM_TO_MEM | RTE_DMA_CAPA_OPS_COPY |
			      RTE_DMA_CAPA_OPS_FILL |
			      RTE_DMA_CAPA_HANDLES_ERRORS;

	if (rte_dma_info_get(dev, info))
		return failf("rte_dma_info_get");
	printf("  %s: capa %#" PRIx64 ", %u vchans, %u..%u descriptors\n",
	       info->dev_name, info->dev_capa, info->max_vchans, info->min_desc,
	       info->max_desc);
	if ((info->dev_capa & want) != want)
		return failf("capabilities %#" PRIx64 " lack %#" PRIx64,
			     info->dev_capa, want & ~info->dev_capa);
	if (info->dev_capa & RTE_DMA_CAPA_SVA)
		return failf("SVA claimed");
	return 0;
}

static int check_dump(void)
{
	return rte_dma_dump(dev, stdout) ? failf("rte_dma_dump") : 0;
}

static int passed, failed;

static void report(const char *name, int rc)
{
	if (rc == 0) {
		passed++;
		printf("check %s: ok\n", name);
	} else {
		failed++;
		printf("check %s: FAILED (%s)\n", name, why);
	}
	fflush(stdout);
}

#define RUN(name, call) report(name, (call))

static void run_checks(void)
{
	struct rte_dma_info info;
	int rc;

	rc = check_info(&info);
	RUN("info", rc);
	if (rc)
		return;
	rc = setup_dmadev(dev, info.max_vchans, 64)
		 ? failf("setting up %u vchans", info.max_vchans)
		 : check_every_vchan(info.max_vchans);
	RUN("every-vchan", rc);
	rte_dma_stop(dev);
	if (setup_dmadev(dev, 1, 256)) {
		RUN("setup", failf("1 vchan of 256"));
		return;
	}
	RUN("copy-sizes", check_copy_sizes());
	RUN("fill-sizes", check_fill_sizes());
	RUN("src-dst-faults", check_faults());
	RUN("bad-lengths", check_lengths());
	RUN("faults-in-a-burst", check_faults_in_burst());
	RUN("ring-full", check_ring_full());
	RUN("stop-start", check_restart());
	RUN("dump", check_dump());
	rte_dma_stop(dev);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"dev", required_argument, NULL, 'd'},
	    {NULL, 0, NULL, 0},
	};
	const char *name = NULL;
	int n, ch;

	n = rte_eal_init(argc, argv);
	if (n < 0)
		return 1;
	argc -= n;
	argv += n;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (ch != 'd') {
			fputs("usage: sacc-dma-check [EAL options] -- "
			      "[--dev NAME]\n",
			      stderr);
			return 2;
		}
		name = optarg;
	}
	dev = find_dmadev(name);
	if (dev < 0 || buf_alloc(&src, MIB + GUARD) ||
	    buf_alloc(&dst, MIB + GUARD))
		return 1;
	run_checks();
	printf("sacc-dma-check: %d passed, %d failed\n", passed, failed);
	buf_free(&src);
	buf_free(&dst);
	rte_eal_cleanup();
	return failed ? 1 : 0;
}

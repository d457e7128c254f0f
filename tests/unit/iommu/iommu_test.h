/* SPDX-License-Identifier: MIT */
/*
 * iommu_test.h - what iommu/'s unit tests share: sizes, the fake
 * map/unmap backend a DMA context runs on (fake_vfio.c; no VFIO
 * needed), and each file's test cases (added to the suite by main.c,
 * in its order).
 */
#ifndef SACC_TEST_IOMMU_H
#define SACC_TEST_IOMMU_H

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/vfio.h>

#include "sacc_iommu.h"
#define KiB 1024ull
#define MiB (1024ull * KiB)
#define PG  4096ull

/* What the fake backend was asked to do. */
struct fake_vfio {
	int maps, unmaps;
	int fail_map;	      /* -errno to return from the next map */
	uint64_t failed_iova; /* where the failed map was to go */
	uint64_t short_unmap; /* bytes to under-report on unmap */
	struct {
		uint64_t vaddr, iova, len;
		uint32_t flags;
		bool live;
	} m[128];
};

/* Mappings the fake backend holds. */
int fake_live(const struct fake_vfio *f);
/* A DMA context on the fake backend @f: q35's IOVA ranges, @memlock
 * bytes of RLIMIT_MEMLOCK, @avail DMA mappings (0: not reported). */
struct sacc_dma_ctx *mkctx(struct fake_vfio *f, uint64_t memlock,
			   uint32_t avail);

/* Each file's test cases, in the order main.c runs them. */
void info_tests(Suite *s);
void alloc_tests(Suite *s);
void limit_tests(Suite *s);
void registry_tests(Suite *s);
void dma_ctx_tests(Suite *s);
void quarantine_tests(Suite *s);

#endif /* SACC_TEST_IOMMU_H */

// SPDX-License-Identifier: MIT
/*
 * common.c - helpers of sacc-dma-bench and sacc-dma-check (common.h).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_malloc.h>
#include <rte_pause.h>

#include "common.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int16_t find_dmadev(const char *name)
{
	int16_t dev;

	if (rte_dma_count_avail() == 0) {
		fprintf(stderr, "no dmadev: is the SACC bound to vfio-pci, "
				"allowed (-a BDF) and its driver loaded "
				"(-d librte_dma_sacc.so)?\n");
		return -1;
	}
	if (name == NULL)
		return (int16_t)rte_dma_next_dev(0);
	dev = (int16_t)rte_dma_get_dev_id_by_name(name);
	if (dev < 0)
		fprintf(stderr, "no dmadev named %s\n", name);
	return dev;
}

int setup_dmadev(int16_t dev, uint16_t nb_vchans, uint16_t nb_desc)
{
	const struct rte_dma_conf conf = {.nb_vchans = nb_vchans};
	const struct rte_dma_vchan_conf qconf = {
	    .direction = RTE_DMA_DIR_MEM_TO_MEM,
	    .nb_desc = nb_desc,
	};
	int ret;

	ret = rte_dma_configure(dev, &conf);
	if (ret) {
		fprintf(stderr, "rte_dma_configure(%u vchans): %s\n", nb_vchans,
			strerror(-ret));
		return -1;
	}
	for (uint16_t k = 0; k < nb_vchans; k++) {
		ret = rte_dma_vchan_setup(dev, k, &qconf);
		if (ret) {
			fprintf(stderr, "rte_dma_vchan_setup(%u, %u): %s\n", k,
				nb_desc, strerror(-ret));
			return -1;
		}
	}
	ret = rte_dma_start(dev);
	if (ret) {
		fprintf(stderr, "rte_dma_start: %s\n", strerror(-ret));
		return -1;
	}
	return 0;
}

int buf_alloc(struct dma_buf *b, size_t size)
{
	b->size = size;
	b->va = rte_zmalloc("sacc_dma_buf", size, 4096);
	if (b->va == NULL) {
		fprintf(stderr,
			"rte_zmalloc(%zu): out of DPDK memory "
			"(hugepages, or -m with --no-huge)\n",
			size);
		return -1;
	}
	b->iova = rte_malloc_virt2iova(b->va);
	return 0;
}

void buf_free(struct dma_buf *b)
{
	rte_free(b->va);
	b->va = NULL;
}

uint32_t gather(int16_t dev, uint16_t vchan, uint32_t n,
		enum rte_dma_status_code *st, unsigned int timeout_ms)
{
	enum rte_dma_status_code scratch[64];
	uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000ull;
	uint32_t got = 0;
	uint16_t last;

	while (got < n) {
		uint32_t want = n - got;
		uint16_t r;

		if (st == NULL && want > 64)
			want = 64;
		if (want > UINT16_MAX)
			want = UINT16_MAX;
		r = rte_dma_completed_status(dev, vchan, (uint16_t)want, &last,
					     st ? st + got : scratch);
		got += r;
		if (r == 0) {
			if (now_ns() > end)
				break;
			rte_pause();
		}
	}
	return got;
}

int wait_idle(int16_t dev, uint16_t vchan, unsigned int timeout_ms)
{
	uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000ull;
	enum rte_dma_vchan_status vs;

	do {
		if (rte_dma_vchan_status(dev, vchan, &vs) == 0 &&
		    vs == RTE_DMA_VCHAN_IDLE)
			return 0;
		rte_pause();
	} while (now_ns() < end);
	return -1;
}

const char *status_name(enum rte_dma_status_code s)
{
	switch (s) {
	case RTE_DMA_STATUS_SUCCESSFUL:
		return "SUCCESSFUL";
	case RTE_DMA_STATUS_NOT_ATTEMPTED:
		return "NOT_ATTEMPTED";
	case RTE_DMA_STATUS_INVALID_SRC_ADDR:
		return "INVALID_SRC_ADDR";
	case RTE_DMA_STATUS_INVALID_DST_ADDR:
		return "INVALID_DST_ADDR";
	case RTE_DMA_STATUS_INVALID_ADDR:
		return "INVALID_ADDR";
	case RTE_DMA_STATUS_INVALID_LENGTH:
		return "INVALID_LENGTH";
	case RTE_DMA_STATUS_INVALID_OPCODE:
		return "INVALID_OPCODE";
	case RTE_DMA_STATUS_PAGE_FAULT:
		return "PAGE_FAULT";
	case RTE_DMA_STATUS_ERROR_UNKNOWN:
		return "ERROR_UNKNOWN";
	default:
		return "another status";
	}
}

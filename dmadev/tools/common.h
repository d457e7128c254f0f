/* SPDX-License-Identifier: MIT */
/*
 * common.h - what sacc-dma-bench and sacc-dma-check share: finding the
 * dmadev, setting it up, DMA buffers in DPDK memory, a bounded wait for
 * completions.  Plain dmadev API: they would drive any DMA engine.
 */
#ifndef SACC_DMA_TOOLS_COMMON_H
#define SACC_DMA_TOOLS_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_dmadev.h>

/* A buffer the device can reach: DPDK memory, its IOVA, its size. */
struct dma_buf {
	uint8_t *va;
	rte_iova_t iova;
	size_t size;
};

uint64_t now_ns(void);

/* The dmadev named @name (a PCI address, e.g. 0000:01:00.0), or the
 * first one if @name is NULL; -1 with a message if there is none. */
int16_t find_dmadev(const char *name);

/* Configure @nb_vchans vchans of @nb_desc descriptors and start; 0 or -1
 * with a message. */
int setup_dmadev(int16_t dev, uint16_t nb_vchans, uint16_t nb_desc);

int buf_alloc(struct dma_buf *b, size_t size);
void buf_free(struct dma_buf *b);

/*
 * Gather @n ops of @vchan through rte_dma_completed_status(), waiting at
 * most @timeout_ms: the number gathered (statuses in @st, may be NULL
 * for none kept), stops early at the timeout.
 */
uint32_t gather(int16_t dev, uint16_t vchan, uint32_t n,
		enum rte_dma_status_code *st, unsigned int timeout_ms);

/* Wait until rte_dma_vchan_status() says IDLE, at most @timeout_ms:
 * 0, or -1 if it never did. */
int wait_idle(int16_t dev, uint16_t vchan, unsigned int timeout_ms);

const char *status_name(enum rte_dma_status_code s);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * saccdma_internal.h - the SACC dmadev PMD's private state, shared by the
 * control path (sacc_dmadev.c) and the fast path (sacc_dmadev_fp.c).
 *
 * One dmadev per SACC PCI function; vchan k is SACC channel k (its BAR2
 * block, its tail doorbell), enabled with MODE.V3 (FILL needs it).  The
 * rings are DPDK memory (one IOVA-contiguous memzone per vchan) and are
 * driven through rings/ (struct sacc_sq, struct sacc_cq): the same index,
 * phase and full rules as libsacc and the device model.
 *
 * Job ids: a vchan counts the ops it was given since start (next_id, 32
 * bits).  The dmadev job id is its low 16 bits, the descriptor's req_id
 * all 32, and its SQ slot next_id & (nb_desc - 1); the SQ and CQ have the
 * same size, so a slot's completion is in the same CQ slot.  A completion
 * must echo the req_id its slot was given: anything else is counted as a
 * bad completion and reported as RTE_DMA_STATUS_ERROR_UNKNOWN.
 *
 * The driver's own names are saccdma_ (as DPDK's idxd_, skeldma_): sacc_
 * is the hardware contract's (sacc_hw.h) and rings/', which this driver
 * shares with libsacc and the device, and libsacc's own API.
 */
#ifndef SACCDMA_INTERNAL_H
#define SACCDMA_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_dmadev.h>
#include <rte_io.h>
#include <rte_log.h>
#include <rte_memzone.h>

#include "sacc_hw.h"
#include "sacc_ring.h"

extern int saccdma_logtype;
#define SACCDMA_LOG(lvl, fmt, ...)                                             \
	rte_log(RTE_LOG_##lvl, saccdma_logtype, "sacc_dma: %s(): " fmt "\n",   \
		__func__, ##__VA_ARGS__)

#define SACCDMA_MIN_DESC 32u
/* nb_desc is a uint16_t in struct rte_dma_vchan_conf: 32768 is the
 * largest power of two it holds (every power of two divides 2^16, so a
 * job id's low bits are its slot across the id wrap). */
#define SACCDMA_MAX_DESC 32768u

struct saccdma_vchan {
	/* fast path */
	struct sacc_sq sq; /* rings/: tail, published, head (retired) */
	struct sacc_cq cq; /* rings/: head and expected phase */
	uint8_t *blk;	   /* BAR2 channel block */
	uint8_t *doorbell; /* BAR0 tail doorbell of this channel */
	uint32_t next_id;  /* ops enqueued since start */
	uint32_t done_id;  /* ops handed back since start */
	struct rte_dma_stats stats;
	/* error path and dump */
	uint64_t bad_cqe;  /* completions that failed the checks */
	uint64_t err_src;  /* DMA faults the record put on the source */
	uint64_t err_dst;  /* ... on the destination */
	uint64_t err_addr; /* ... the record had moved on: either */
	/* control path */
	const struct rte_memzone *mz;
	rte_iova_t sq_iova, cq_iova;
	uint32_t nb_desc;
	uint16_t chan;
};

struct saccdma_dev {
	uint8_t *bar0, *bar2;
	uint32_t version;   /* VERSION: 3 (v0.3) or 4 and up (FILL) */
	uint16_t channels;  /* CHANNELS: max_vchans */
	uint16_t nb_vchans; /* configured */
	int16_t dev_id;
	struct saccdma_vchan vc[SACC_CHANNELS_MAX];
};

static inline uint32_t saccdma_rd32(const uint8_t *base, uint32_t off)
{
	return rte_le_to_cpu_32(rte_read32(base + off));
}

static inline void saccdma_wr32(uint8_t *base, uint32_t off, uint32_t v)
{
	rte_write32(rte_cpu_to_le_32(v), base + off);
}

/* The fast path (sacc_dmadev_fp.c), installed in the fp object. */
void saccdma_fp_install(struct rte_dma_fp_object *fp);
/* True once every op handed to the device has its completion posted. */
bool saccdma_vchan_idle(const struct saccdma_vchan *vc);

#endif /* SACCDMA_INTERNAL_H */

// SPDX-License-Identifier: MIT
/*
 * sacc_dmadev_fp.c - the SACC dmadev fast path: copy, fill, submit,
 * completed, completed_status and burst_capacity.
 *
 * Enqueue writes one descriptor into the SQ slot at the rings/ tail
 * (sacc_sq_push); submit publishes the batch (one release fence) and
 * rings the channel's tail doorbell once.  Completions are read in ring
 * order with sacc_cq_peek_at, and only up to what was published: the
 * device cannot make the driver read past what it was given.  Each is
 * checked against its slot (req_id, status, result_len) before it is
 * believed.  CQ_HEAD is written once per call that consumed something.
 *
 * A failed descriptor does not stop a SACC channel (spec section 6), so
 * completed() stops before it (has_error) and completed_status() hands it
 * back with its status; the ops after it ran and carry their own status.
 */
#include <errno.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_dmadev.h>

#include "saccdma_internal.h"

/* At most this many bad completions are logged per vchan start. */
#define SACCDMA_BAD_CQE_LOG 8

static inline struct saccdma_vchan *vchan_of(void *priv, uint16_t vchan)
{
	struct saccdma_dev *sd = priv;

	if (unlikely(vchan >= sd->nb_vchans))
		return NULL;
	return &sd->vc[vchan];
}

/* Publish what was enqueued (one release fence) and ring once. */
static inline void doorbell(struct saccdma_vchan *vc)
{
	uint32_t n = sacc_sq_unpublished(&vc->sq);

	if (n == 0)
		return;
	rte_write32_relaxed(rte_cpu_to_le_32(sacc_sq_publish(&vc->sq)),
			    vc->doorbell);
	vc->stats.submitted += n;
}

/* One descriptor at the tail; its job id, or -ENOSPC. */
static inline int enqueue(struct saccdma_vchan *vc, uint16_t opcode,
			  uint64_t src, rte_iova_t dst, uint32_t len,
			  uint64_t flags)
{
	uint32_t id = vc->next_id;
	const struct sacc_desc d = {
	    .src = rte_cpu_to_le_64(src),
	    .dst = rte_cpu_to_le_64(dst),
	    .length = rte_cpu_to_le_32(len),
	    .opcode = rte_cpu_to_le_16(opcode),
	    .flags = 0, /* polled: dmadev has no completion interrupt */
	    .req_id = rte_cpu_to_le_32(id),
	};

	if (unlikely(sacc_sq_push(&vc->sq, &d, NULL) != 0))
		return -ENOSPC;
	vc->next_id = id + 1;
	/*
	 * RTE_DMA_OP_FLAG_FENCE needs nothing: a channel fetches descriptor
	 * n + 1 only after posting n's completion (spec section 11).
	 * RTE_DMA_OP_FLAG_LLC is a hint SACC has no use for.
	 */
	if (flags & RTE_DMA_OP_FLAG_SUBMIT)
		doorbell(vc);
	return (uint16_t)id;
}

static int saccdma_copy(void *priv, uint16_t vchan, rte_iova_t src,
			rte_iova_t dst, uint32_t length, uint64_t flags)
{
	struct saccdma_vchan *vc = vchan_of(priv, vchan);

	if (unlikely(vc == NULL))
		return -EINVAL;
	return enqueue(vc, SACC_OP_MEMCPY, src, dst, length, flags);
}

/* FILL (spec section 19): src carries the pattern, byte i of dst is byte
 * i % 8 of it (little endian), as rte_dma_fill() defines it. */
static int saccdma_fill(void *priv, uint16_t vchan, uint64_t pattern,
			rte_iova_t dst, uint32_t length, uint64_t flags)
{
	struct saccdma_vchan *vc = vchan_of(priv, vchan);

	if (unlikely(vc == NULL))
		return -EINVAL;
	return enqueue(vc, SACC_OP_FILL, pattern, dst, length, flags);
}

static int saccdma_submit(void *priv, uint16_t vchan)
{
	struct saccdma_vchan *vc = vchan_of(priv, vchan);

	if (unlikely(vc == NULL))
		return -EINVAL;
	doorbell(vc);
	return 0;
}

/* Ops published to the device and not yet handed back. */
static inline uint32_t outstanding(const struct saccdma_vchan *vc)
{
	return sacc_ring_used(vc->sq.head, vc->sq.published, vc->sq.size);
}

bool saccdma_vchan_idle(const struct saccdma_vchan *vc)
{
	uint32_t n = outstanding(vc);

	/* completions are posted in ring order: the last one is enough */
	return n == 0 || sacc_cq_peek_at(&vc->cq, n - 1, NULL);
}

static enum rte_dma_status_code bad_cqe(struct saccdma_vchan *vc,
					const struct sacc_cqe *e, uint32_t id,
					const char *what)
{
	if (vc->bad_cqe++ < SACCDMA_BAD_CQE_LOG)
		SACCDMA_LOG(
		    ERR,
		    "channel %u: completion for req_id %u has %s "
		    "(req_id %u, status %u, result_len %u): not believed",
		    vc->chan, id, what, rte_le_to_cpu_32(e->req_id),
		    rte_le_to_cpu_16(e->status),
		    rte_le_to_cpu_32(e->result_len));
	return RTE_DMA_STATUS_ERROR_UNKNOWN;
}

/*
 * A DMA fault: the channel's fault record says which address, if it is
 * still this descriptor's.  The record holds the channel's latest fault
 * only (spec section 12), so after several faults in one batch the
 * earlier ones can say no more than "an address".  FAULT_REQ_ID is read
 * before and after FAULT_INFO: req_ids are unique, so equal reads mean
 * the access code belongs to this descriptor.
 */
static enum rte_dma_status_code fault_status(struct saccdma_vchan *vc,
					     uint32_t id)
{
	uint32_t r1 = saccdma_rd32(vc->blk, SACC_REG_FAULT_REQ_ID);
	uint32_t info = saccdma_rd32(vc->blk, SACC_REG_FAULT_INFO);
	uint32_t r2 = saccdma_rd32(vc->blk, SACC_REG_FAULT_REQ_ID);

	if (r1 == id && r2 == id) {
		switch (info & SACC_FAULT_ACCESS_MASK) {
		case SACC_FAULT_SRC_READ: /* the IOMMU refused the source */
		case SACC_FAULT_DEV_READ: /* out of device memory */
			vc->err_src++;
			return RTE_DMA_STATUS_INVALID_SRC_ADDR;
		case SACC_FAULT_DST_WRITE:
		case SACC_FAULT_DEV_WRITE:
			vc->err_dst++;
			return RTE_DMA_STATUS_INVALID_DST_ADDR;
		}
	}
	vc->err_addr++;
	return RTE_DMA_STATUS_INVALID_ADDR;
}

/* The status of the completion @e of the op with req_id @id. */
static enum rte_dma_status_code
cqe_status(struct saccdma_vchan *vc, const struct sacc_cqe *e, uint32_t id)
{
	const struct sacc_desc *d = sacc_sq_slot(&vc->sq, id);

	if (unlikely(rte_le_to_cpu_32(e->req_id) != id))
		return bad_cqe(vc, e, id, "another req_id");
	switch (rte_le_to_cpu_16(e->status)) {
	case SACC_STS_OK:
		/* the SQ is ours (the device only reads it) */
		if (unlikely(e->result_len != d->length))
			return bad_cqe(vc, e, id, "a wrong result_len");
		return RTE_DMA_STATUS_SUCCESSFUL;
	case SACC_STS_BAD_OPCODE:
		return RTE_DMA_STATUS_INVALID_OPCODE;
	case SACC_STS_BAD_LENGTH: /* 0 or over 1 MiB (SACC_MAX_XFER) */
		return RTE_DMA_STATUS_INVALID_LENGTH;
	case SACC_STS_DMA_FAULT:
		return fault_status(vc, id);
	default:
		return bad_cqe(vc, e, id, "an unknown status");
	}
}

/* A successful completion of req_id @id, by every check: completed()
 * stops at anything else and leaves it to cqe_status(). */
static inline bool cqe_ok(const struct saccdma_vchan *vc,
			  const struct sacc_cqe *e, uint32_t id)
{
	return e->status == 0 && rte_le_to_cpu_32(e->req_id) == id &&
	       e->result_len == sacc_sq_slot(&vc->sq, id)->length;
}

/* Hand back @n ops: the rings move on, CQ_HEAD is written once. */
static inline void consume(struct saccdma_vchan *vc, uint32_t n)
{
	uint32_t head;

	if (n == 0)
		return;
	/* every one was seen posted by sacc_cq_peek_at(): reap takes n */
	sacc_cq_reap(&vc->cq, NULL, n, &head);
	sacc_sq_complete(&vc->sq, n);
	vc->done_id += n;
	vc->stats.completed += n;
	saccdma_wr32(vc->blk, SACC_REG_CQ_HEAD, head);
}

/*
 * Successful ops only, up to @nb_cpls: stop before the first that is
 * not and leave it for completed_status() (the dmadev contract:
 * has_error, the same last_idx again until it is gathered).
 */
static uint16_t saccdma_completed(void *priv, uint16_t vchan,
				  const uint16_t nb_cpls, uint16_t *last_idx,
				  bool *has_error)
{
	struct saccdma_vchan *vc = vchan_of(priv, vchan);
	uint32_t n = 0, max;
	struct sacc_cqe e;

	if (unlikely(vc == NULL))
		return 0;
	max = RTE_MIN((uint32_t)nb_cpls, outstanding(vc));
	while (n < max && sacc_cq_peek_at(&vc->cq, n, &e)) {
		if (unlikely(!cqe_ok(vc, &e, vc->done_id + n))) {
			*has_error = true;
			break;
		}
		n++;
	}
	consume(vc, n);
	*last_idx = (uint16_t)(vc->done_id - 1);
	return (uint16_t)n;
}

/* Up to @nb_cpls ops, failed ones included, one status each. */
static uint16_t saccdma_completed_status(void *priv, uint16_t vchan,
					 const uint16_t nb_cpls,
					 uint16_t *last_idx,
					 enum rte_dma_status_code *status)
{
	struct saccdma_vchan *vc = vchan_of(priv, vchan);
	uint32_t n = 0, max;
	struct sacc_cqe e;

	if (unlikely(vc == NULL))
		return 0;
	max = RTE_MIN((uint32_t)nb_cpls, outstanding(vc));
	while (n < max && sacc_cq_peek_at(&vc->cq, n, &e)) {
		status[n] = cqe_status(vc, &e, vc->done_id + n);
		if (status[n] != RTE_DMA_STATUS_SUCCESSFUL)
			vc->stats.errors++;
		n++;
	}
	consume(vc, n);
	*last_idx = (uint16_t)(vc->done_id - 1);
	return (uint16_t)n;
}

/* Counted from the ops handed back, not from the device's progress: it
 * falls by one per enqueue and never rises on submit. */
static uint16_t saccdma_burst_capacity(const void *priv, uint16_t vchan)
{
	const struct saccdma_dev *sd = priv;

	if (unlikely(vchan >= sd->nb_vchans))
		return 0;
	return (uint16_t)sacc_sq_space(&sd->vc[vchan].sq);
}

void saccdma_fp_install(struct rte_dma_fp_object *fp)
{
	fp->copy = saccdma_copy;
	fp->fill = saccdma_fill;
	fp->submit = saccdma_submit;
	fp->completed = saccdma_completed;
	fp->completed_status = saccdma_completed_status;
	fp->burst_capacity = saccdma_burst_capacity;
}

/* SPDX-License-Identifier: MIT */
/*
 * libsacc_unsafe.h - hooks that bypass libsacc's safety checks, for
 * fault injection (saccctl inject) and the tests.  Nothing in the
 * normal path uses them, and they are not installed: a program that
 * includes this header can make the device DMA anywhere its container
 * maps, and write any register behind libsacc's back.
 */
#ifndef LIBSACC_UNSAFE_H
#define LIBSACC_UNSAFE_H

#include <stdint.h>

#include "libsacc.h"
#include "sacc_iommu.h" /* struct sacc_dma_ctx and what maps through it */

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Submit @d as it is (any opcode, length, flags, src/dst IOVA) with one
 * doorbell, except req_id, which the driver assigns so the completion
 * can still be checked.  Returns that req_id (> 0) or -errno; the
 * result comes back from sacc_poll() with raw = true.
 */
int sacc_submit_raw(struct sacc_dev *dev, const struct sacc_desc *d);

/*
 * As sacc_submit_raw(), for a SACC_OP_WRITE_INLINE descriptor @d (any
 * dst, d->length 1..SACC_INLINE_MAX): its payload @data (d->length
 * bytes) goes into the SQ slots after it, as sacc_submit() puts it.
 * Needs MODE.V3.  -EINVAL for another opcode or length.
 */
int sacc_submit_raw_inline(struct sacc_dev *dev, const struct sacc_desc *d,
			   const void *data);

/*
 * @nslots SQ slots as they are in @slots (any bytes: what a stray or
 * hostile store into the ring would leave there), written into the SQ
 * from its tail (through BAR4 with SACC_OPEN_SQ_DEV) and handed to the
 * device with ONE doorbell that covers them all.  @cmd_slots[0..@ncmds)
 * say how the device is expected to walk them (docs/spec.md section
 * 15): command i starts in the slot after command i - 1 and takes
 * cmd_slots[i] slots, 1 or 1 + the inline payload slots the device
 * consumes after it; they add up to @nslots.  As with sacc_submit_raw(),
 * the driver writes a req_id of its own into each command's slot (and
 * into @req_ids[i] unless it is NULL) so the completions can be
 * checked: one per command, from sacc_poll() with raw = true.  Every
 * other byte goes in as given.  Returns @ncmds, -EINVAL (the counts do
 * not add up), -EAGAIN (the SQ has less room) or -errno as sacc_submit().
 * A device that walks the slots otherwise shows as a completion out of
 * ring order (-EIO).
 */
int sacc_submit_raw_slots(struct sacc_dev *dev, const struct sacc_desc *slots,
			  uint32_t nslots, const uint32_t *cmd_slots,
			  unsigned int ncmds, uint32_t *req_ids);

/*
 * A graph whose segment is @slots 32-byte slots (1..2048) of @cmds as
 * they are: any opcode, flags, addresses and lengths (a SEGMENT inside,
 * an inline payload past the end, an unmapped IOVA), on any handle
 * (no version or MODE check: a v0.2 channel answers bad opcode).
 * @flags as sacc_graph_create()'s.  Launched with sacc_graph_launch();
 * its results come back with raw = true and len = @slots (a bound on
 * the commands run), checked only as a raw descriptor's are;
 * sacc_graph_explain() names commands by their fields.
 */
int sacc_graph_create_raw(struct sacc_dev *dev, const struct sacc_desc *cmds,
			  unsigned int slots, unsigned int flags,
			  struct sacc_graph **out);

/*
 * 32-bit write to BAR0 (offset 4-aligned, < 0x2000: page 1 is the
 * doorbell).  -EINVAL for a bad offset.  libsacc does not learn of it:
 * ring registers, CTRL or the doorbell written here desynchronise it
 * until sacc_reset().
 */
int sacc_reg_write(struct sacc_dev *dev, uint32_t off, uint32_t val);

/*
 * Write the SQ tail the device already has (the last one rung) to the
 * channel's tail doorbell again, @n times: valid, and no new work
 * (docs/spec.md section 3).  What `saccctl bench` times as the bare cost
 * of a doorbell store.  -ENOTSUP unless the doorbell is the mmapped tail
 * doorbell; -errno as sacc_submit() for a device that is not usable.
 */
int sacc_doorbell_repeat(struct sacc_dev *dev, unsigned int n);

/*
 * The device's DMA context (iommu/): map any page-aligned memory with
 * any permission (sacc_dma_map), unmap, look up the registry for fault
 * attribution.  Valid until sacc_close().  Mappings made through it are
 * the caller's to unmap, before freeing the memory.
 */
struct sacc_dma_ctx *sacc_dev_dma(struct sacc_dev *dev);

/* The VFIO container fd (raw sacc_vfio_map_dma at a chosen IOVA). */
int sacc_dev_container_fd(const struct sacc_dev *dev);

/* IOVAs of the SQ and CQ ring memory (for ring attacks / attribution);
 * the SQ's is 0 when it is in device memory (SACC_OPEN_SQ_DEV). */
uint64_t sacc_dev_sq_iova(const struct sacc_dev *dev);
uint64_t sacc_dev_cq_iova(const struct sacc_dev *dev);
/* IOVA of a token-doorbell channel's PUT word, 0 if it has none. */
uint64_t sacc_dev_put_iova(const struct sacc_dev *dev);

/*
 * The SQ's memory as the CPU writes it (sacc_dev_sq_entries() slots of
 * 32 bytes): host memory, or the BAR4 mapping with SACC_OPEN_SQ_DEV.
 * With nothing outstanding, any slot may be written and is never seen
 * by the device until a doorbell covers it: libsacc's next submission
 * writes its own descriptors over it.  What `saccctl bench --sq-write`
 * times; NULL if the handle has no rings.
 */
struct sacc_desc *sacc_dev_sq_va(const struct sacc_dev *dev);

/*
 * The mmapped BAR0 doorbell page (4 KiB, page aligned), NULL if BAR0 is
 * not mmapped.  A VM_PFNMAP mapping of the device's own MMIO: VFIO can
 * DMA-map it into the container (sacc_dma_map() on sacc_dev_dma()),
 * which is how a device is pointed at its own BAR.
 */
volatile void *sacc_dev_doorbell_page(const struct sacc_dev *dev);

#ifdef __cplusplus
}
#endif

#endif /* LIBSACC_UNSAFE_H */

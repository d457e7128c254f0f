// SPDX-License-Identifier: MIT
/*
 * journal.c - the device's fault journal (journal/, docs/faults.md):
 * one JSON line per event in $SACC_JOURNAL_DIR/<bdf>.jsonl (default
 * /run/sacc), so another process (saccctl faults) can attribute every
 * blocked DMA to the buffer, mapping and descriptor behind it.
 *
 * What is written, and from where:
 *   ranges, reset   sacc_open() (vfio-pci resets the function when the
 *                   device is opened, so FAULT_COUNT restarts)
 *   map, unmap      the DMA context's observer (iommu/), in the order the
 *                   mappings change, rings and buffers alike
 *   fault           sacc_poll() reaping a DMA_FAULT completion (the slow
 *                   error path: the fault record registers are read only
 *                   then; a graph's launch, one SEGMENT entry, is one
 *                   fault, of its fetch or of its failing command);
 *                   sacc_check() finding the device stopped by a
 *                   ring fault (fatal).  v0.4: a device memory range
 *                   past DEVMEM_SIZE is one too, access dev_read or
 *                   dev_write and a device address (no IOMMU fault,
 *                   no DMAR line)
 *   reset           sacc_reset()
 * Submission and successful completions never touch the journal.
 *
 * A journal that cannot be opened (also one that is not a regular file:
 * a FIFO, a symbolic link) does not fail sacc_open(): the device works
 * without it and sacc_dev_journal() says why.
 *
 * The journal is bounded ($SACC_JOURNAL_MAX, default 8 MiB): past it
 * journal/ rotates it to <bdf>.jsonl.1, and the new file starts with a
 * "rotated" line, then the ranges and every live mapping again, so a
 * reader of the new file alone still attributes later faults.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sacc_track.h"

static void note_error(struct sacc_dev *dev, const struct sacc_err *e)
{
	if (!dev->journal_errors++)
		dev->journal_err = *e;
}

static void on_mapped(void *opaque, const struct sacc_map_entry *m)
{
	struct sacc_dev *dev = opaque;
	struct sacc_err e = {0};

	if (dev->journal && sacc_journal_map(dev->journal, m->name, m->iova,
					     m->len, m->perm, &e))
		note_error(dev, &e);
}

static void on_unmapped(void *opaque, const struct sacc_map_entry *m)
{
	struct sacc_dev *dev = opaque;
	struct sacc_err e = {0};

	if (dev->journal && sacc_journal_unmap(dev->journal, m->name, m->iova,
					       m->len, m->perm, &e))
		note_error(dev, &e);
}

static void journal_ranges(struct sacc_dev *dev, struct sacc_journal *j)
{
	struct sacc_iova_range r[SACC_IOMMU_MAX_RANGES];
	struct sacc_err e = {0};
	int n;

	n = sacc_dev_iova_ranges(dev, r, SACC_IOMMU_MAX_RANGES, NULL);
	if (n > SACC_IOMMU_MAX_RANGES)
		n = SACC_IOMMU_MAX_RANGES;
	if (n > 0 && sacc_journal_ranges(j, r, (size_t)n, &e))
		note_error(dev, &e);
}

/* The journal was rotated: the new one gets the ranges and the live
 * mappings (rings and buffers), as if they were mapped now. */
static void on_rotated(void *opaque, struct sacc_journal *j)
{
	struct sacc_dev *dev = opaque;
	struct sacc_dma_registry *reg = sacc_dma_ctx_registry(dev->dma);
	size_t n = sacc_dma_registry_count(reg);
	struct sacc_map_entry *live = calloc(n ? n : 1, sizeof(*live));
	struct sacc_err e = {0};

	journal_ranges(dev, j);
	if (!live) {
		sacc_err_set(&e, ENOMEM,
			     "journal rotated: no memory to "
			     "write the live mappings again");
		note_error(dev, &e);
		return;
	}
	n = sacc_dma_registry_snapshot(reg, live, n);
	for (size_t i = 0; i < n; i++)
		if (sacc_journal_map(j, live[i].name, live[i].iova, live[i].len,
				     live[i].perm, &e))
			note_error(dev, &e);
	free(live);
}

int sacc_dev_journal_attach(struct sacc_dev *dev, struct sacc_journal *j)
{
	struct sacc_dma_observer obs = {on_mapped, on_unmapped, dev};

	dev->journal = j;
	if (!j || !dev->dma)
		return 0;
	sacc_dma_ctx_set_observer(dev->dma, &obs);
	sacc_journal_set_rotate_hook(j, on_rotated, dev);
	journal_ranges(dev, j);
	sacc_dev_journal_reset(dev);
	return 0;
}

void sacc_dev_journal_open(struct sacc_dev *dev)
{
	struct sacc_journal *j = NULL;
	struct sacc_err e = {0};

	dev->journal_err = (struct sacc_err){0};
	if (sacc_journal_open(&j, dev->bdf, &e)) {
		sacc_err_set(&dev->journal_err, e.code,
			     "no fault journal: %s (set %s to a writable "
			     "directory)",
			     e.msg, SACC_JOURNAL_DIR_ENV);
		return;
	}
	sacc_dev_journal_attach(dev, j);
}

void sacc_dev_journal_close(struct sacc_dev *dev)
{
	if (dev->dma)
		sacc_dma_ctx_set_observer(dev->dma, NULL);
	sacc_journal_close(dev->journal);
	dev->journal = NULL;
}

void sacc_dev_journal_reset(struct sacc_dev *dev)
{
	struct sacc_err e = {0};

	if (dev->journal && sacc_journal_reset(dev->journal, &e))
		note_error(dev, &e);
}

/*
 * Where would the device fault on [a, a + len) with this access?  Spec
 * section 6: a range running past 2^64 faults at its start with no DMA;
 * otherwise the first page the IOMMU would refuse, at the exact address
 * if it is the first page.  Judged against the mapping registry.
 */
static bool range_faults(struct sacc_dev *dev, uint64_t a, uint32_t len,
			 bool write, uint64_t *at)
{
	uint32_t need = write ? 2u : 1u; /* VFIO_DMA_MAP_FLAG_WRITE / READ */
	struct sacc_iova_lookup lk;
	uint64_t p = a, end;

	if (!len)
		return false;
	if (len - 1 > UINT64_MAX - a) {
		*at = a;
		return true;
	}
	end = a + (len - 1);
	for (;;) {
		if (sacc_dma_lookup(dev->dma, p, 0, &lk) ||
		    lk.kind != SACC_IOVA_MAPPED || !(lk.buf.perm & need)) {
			*at = p == a ? a : p & ~(uint64_t)(SACC_PAGE_SIZE - 1);
			return true;
		}
		p = (p | (SACC_PAGE_SIZE - 1));
		if (p >= end)
			return false;
		p++;
	}
}

/* v0.4: does [a, a + len) run past device memory's @size bytes (or
 * wrap)?  The device then moves no byte and records the start. */
static bool dev_range_faults(uint64_t a, uint32_t len, uint64_t size)
{
	return len && (a >= size || len > size - a);
}

/*
 * The fault record belongs to a later descriptor (several faulted before
 * we reaped): rebuild what the device would have recorded for this one
 * from its descriptor, still in the SQ slot (host memory, or device
 * memory through BAR4), and the registry.  Only MEMCPY and XFORM read a
 * src (FILL's is its pattern).  v0.4's SRC_DEV / DST_DEV sides are
 * judged against the size of device memory, never the IOMMU, and before
 * either host side (spec section 18: src, then dst, before a byte
 * moves): a device dst past the end is dev_write even when the host src
 * is unmapped too.
 */
static void infer_record(struct sacc_dev *dev, const struct sacc_desc *d,
			 uint64_t *addr, uint32_t *info)
{
	bool src = d->opcode == SACC_OP_MEMCPY || d->opcode == SACC_OP_XFORM;
	bool src_dev = src && (d->flags & SACC_DESC_F_SRC_DEV);
	uint32_t dst_len = sacc_desc_dst_len(d);
	uint64_t size = sacc_devmem_size(dev);

	if (src_dev && dev_range_faults(d->src, d->length, size)) {
		*addr = d->src;
		*info = SACC_FAULT_DEV_READ;
		return;
	}
	if ((d->flags & SACC_DESC_F_DST_DEV) &&
	    dev_range_faults(d->dst, dst_len, size)) {
		*addr = d->dst;
		*info = SACC_FAULT_DEV_WRITE | SACC_FAULT_IS_WRITE;
		return;
	}
	if (src && !src_dev &&
	    range_faults(dev, d->src, d->length, false, addr)) {
		*info = SACC_FAULT_SRC_READ;
		return;
	}
	if (d->flags & SACC_DESC_F_DST_DEV) {
		*addr = d->dst;
		*info = SACC_FAULT_DEV_WRITE | SACC_FAULT_IS_WRITE;
		return;
	}
	*info = SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE;
	if (!range_faults(dev, d->dst, dst_len, true, addr))
		*addr = d->dst; /* mapped, yet refused: its target said no */
}

/*
 * The same for a SEGMENT entry (section 21): its fetch first (the
 * segment's range, access segment_read, or dev_read in device memory),
 * else the failing command @cmd as any descriptor (NULL: unknown, the
 * segment's start is the best there is).  True if it is @cmd's.
 */
static bool infer_segment(struct sacc_dev *dev, const struct sacc_desc *d,
			  const struct sacc_desc *cmd, uint64_t *addr,
			  uint32_t *info)
{
	if (d->flags & SACC_DESC_F_SRC_DEV) {
		if (dev_range_faults(d->src, d->length,
				     sacc_devmem_size(dev))) {
			*addr = d->src;
			*info = SACC_FAULT_DEV_READ;
			return false;
		}
	} else if (range_faults(dev, d->src, d->length, false, addr)) {
		*info = SACC_FAULT_SEGMENT_READ;
		return false;
	}
	if (cmd) {
		infer_record(dev, cmd, addr, info);
		return true;
	}
	*addr = d->src;
	*info = d->flags & SACC_DESC_F_SRC_DEV ? SACC_FAULT_DEV_READ
					       : SACC_FAULT_SEGMENT_READ;
	return false;
}

/*
 * Command @index of a SEGMENT entry @e that is no graph's (a raw one,
 * sacc_submit_raw()), read back from the libsacc buffer its segment
 * lies in whole (host memory, or device memory through BAR4): the
 * commands the device ran, unless the caller rewrote them since.  False
 * if the segment is in no buffer of @dev or has no command @index.
 */
static bool raw_segment_cmd(const struct sacc_dev *dev,
			    const struct sacc_desc *e, uint32_t index,
			    struct sacc_desc *out)
{
	const bool in_dev = e->flags & SACC_DESC_F_SRC_DEV;
	const uint32_t slots = e->length / (uint32_t)sizeof(*out);
	const struct sacc_desc *seg = NULL;
	uint32_t j = 0;

	if (!slots || e->length % sizeof(*out) || e->length > SACC_SEGMENT_MAX)
		return false;
	for (const struct sacc_buf *b = dev->bufs; b && !seg; b = b->next) {
		uint64_t a = sacc_buf_addr(b);

		if (b->is_dev == in_dev && e->src >= a &&
		    e->src - a <= b->dma.map_len &&
		    e->length <= b->dma.map_len - (e->src - a))
			seg =
			    (const struct sacc_desc *)((const char *)b->dma.va +
						       (e->src - a));
	}
	for (uint32_t k = 0; seg && j < slots; k++) {
		if (k == index) {
			memcpy(out, &seg[j], sizeof(*out));
			return true;
		}
		j = sacc_segment_next(&seg[j], j);
	}
	return false;
}

void sacc_dev_journal_fault(struct sacc_dev *dev, uint32_t slot,
			    uint32_t req_id, uint16_t opcode,
			    const struct sacc_graph *g, uint32_t index)
{
	const struct sacc_desc *cmd = g ? sacc_graph_cmd(g, index) : NULL;
	const struct sacc_desc *d = &dev->sq.entries[slot];
	const bool seg = d->opcode == SACC_OP_SEGMENT;
	struct sacc_journal_fault f = {0};
	struct sacc_fault_regs r;
	struct sacc_err e = {0};
	struct sacc_desc raw;
	bool fetch = false;

	if (!dev->journal)
		return;
	if (seg && !g && raw_segment_cmd(dev, d, index, &raw))
		cmd = &raw;
	sacc_fault_regs_read(dev, &r);
	f.req_id = req_id;
	f.opcode = opcode;
	f.status = SACC_STS_DMA_FAULT;
	f.length = d->length;
	f.has_chan = true;
	f.chan = dev->chan;
	f.fault_count = r.count;
	if (seg ? sacc_segment_record_is(req_id, index, cmd, r.req_id, r.info,
					 &fetch)
		: r.req_id == req_id) {
		f.addr = r.addr;
		f.info = r.info;
	} else if (seg) {
		fetch = !infer_segment(dev, d, cmd, &f.addr, &f.info);
	} else {
		infer_record(dev, d, &f.addr, &f.info);
	}
	/* a command's fault: its length, as a descriptor's (a reader tells
	 * a range that wraps past 2^64 by it), not the segment's */
	if (seg && cmd && !fetch)
		f.length = cmd->length;
	if (sacc_journal_fault(dev->journal, &f, &e))
		note_error(dev, &e);
}

void sacc_dev_journal_fatal(struct sacc_dev *dev)
{
	struct sacc_journal_fault f = {0};
	struct sacc_fault_regs r;
	struct sacc_err e = {0};
	uint32_t i, n;

	if (!dev->journal)
		return;
	sacc_fault_regs_read(dev, &r);
	if (!r.count || r.err_code != SACC_ERR_DMA)
		return;
	f.fatal = true;
	f.addr = r.addr;
	f.info = r.info;
	f.req_id = r.req_id;
	f.fault_count = r.count;
	f.has_chan = true;
	f.chan = dev->chan;
	/* A completion write fault names a descriptor we submitted. */
	n = dev->track && dev->sq.size ? sacc_sq_in_flight(&dev->sq) : 0;
	for (i = 0; f.req_id && i < n; i++) {
		const struct sacc_track *t =
		    &dev->track[sacc_ring_add(dev->sq.head, i, dev->sq.size)];

		if (t->req_id == f.req_id) {
			f.opcode = t->opcode;
			break;
		}
	}
	if (sacc_journal_fault(dev->journal, &f, &e))
		note_error(dev, &e);
}

const char *sacc_dev_journal(const struct sacc_dev *dev, const char **why)
{
	const char *path = dev ? sacc_journal_path(dev->journal) : NULL;

	if (!why)
		return path;
	if (!dev)
		*why = "no device";
	else if (!path)
		*why = dev->journal_err.code ? dev->journal_err.msg
					     : "no fault journal was opened";
	else
		*why = dev->journal_errors ? dev->journal_err.msg : NULL;
	return path;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * sacc_watch_capture.c - what the device will read, read at the trap:
 * SQ slots and the PUT word through the IOMMU domain the process
 * attached (iommu_iova_to_phys, the pinned pages through the direct
 * map) or through BAR4 (MODE.SQ_DEV), the new descriptors from the old
 * tail to the new one, and the segment of every new SEGMENT entry cut
 * into its commands.  With interrupts off: no locks, no faults.
 */
#include "sacc_watch_int.h"

static void **sw_scratch_cpu; /* one record being built per CPU */
static void **sw_segbuf_cpu;  /* one segment being cut per CPU */

static_assert(SACC_WATCH_SEG_MAX_CMDS == SACC_SEGMENT_MAX / SACC_SEGMENT_ALIGN);
static_assert(SACC_WATCH_MAX_DESCS == SACC_RING_MAX_ENTRIES - 1);

/* Copy @len bytes (not crossing a page) at @iova of @dom: what the device
 * will read.  Pages mapped for DMA by VFIO are pinned RAM. */
static int sw_read_iova(struct iommu_domain *dom, u64 iova, void *dst,
			u32 len)
{
	phys_addr_t pa;

	if (!dom)
		return -1;
	pa = iommu_iova_to_phys(dom, iova);
	if (!pa || !pfn_valid(PHYS_PFN(pa)) ||
	    (pa & ~PAGE_MASK) + len > PAGE_SIZE)
		return -1;
	memcpy(dst, phys_to_virt(pa), len);
	return 0;
}

/* The same for @len bytes at @iova, page by page (a segment). */
int sw_read_iova_range(struct iommu_domain *dom, u64 iova, void *dst,
		       u32 len)
{
	while (len) {
		u32 n = min_t(u64, len, PAGE_SIZE - (iova & ~PAGE_MASK));

		if (sw_read_iova(dom, iova, dst, n))
			return -1;
		iova += n;
		dst += n;
		len -= n;
	}
	return 0;
}

/* Copy @len bytes at device address @addr (BAR4), as the device reads
 * its own memory: the range must lie inside it. */
int sw_read_dev(const struct sw_dev *d, u64 addr, void *dst, u32 len)
{
	if (!d->bar4 || len > d->devmem || addr > d->devmem - len)
		return -1;
	memcpy_fromio(dst, d->bar4 + addr, len);
	return 0;
}

/* Ring memory (SQ slots, the PUT word): device memory with MODE.SQ_DEV,
 * else an IOVA. */
int sw_read_ring(const struct sw_dev *d, struct iommu_domain *dom, u32 mode,
		 u64 addr, void *dst, u32 len)
{
	if (mode & SACC_MODE_SQ_DEV)
		return sw_read_dev(d, addr, dst, len);
	return sw_read_iova(dom, addr, dst, len);
}

/* The SQ page a walk translated last: each page is translated once,
 * not each slot (a doorbell may publish 65,535 slots, 128 a page). */
struct sw_sq_page {
	u64 iova;
	const u8 *va; /* NULL: none yet */
};

/* SQ slot at @addr into @dst, as sw_read_ring() would read it. */
static int sw_read_slot(const struct sw_dev *d, struct iommu_domain *dom,
			u32 mode, u64 addr, void *dst, struct sw_sq_page *pg)
{
	u32 off = addr & ~PAGE_MASK;
	phys_addr_t pa;

	if (mode & SACC_MODE_SQ_DEV)
		return sw_read_dev(d, addr, dst, sizeof(struct sacc_desc));
	if (off + sizeof(struct sacc_desc) > PAGE_SIZE)
		return -1;
	if (!pg->va || pg->iova != (addr & PAGE_MASK)) {
		pa = dom ? iommu_iova_to_phys(dom, addr & PAGE_MASK) : 0;
		if (!pa || !pfn_valid(PHYS_PFN(pa)))
			return -1;
		pg->iova = addr & PAGE_MASK;
		pg->va = phys_to_virt(pa & PAGE_MASK);
	}
	memcpy(dst, pg->va + off, sizeof(struct sacc_desc));
	return 0;
}

void __iomem *sw_chan_regs(const struct sw_dev *d, u32 ch)
{
	if (d->bar2 && ch < d->channels)
		return d->bar2 + SACC_CHAN_BLOCK(ch);
	if (ch == 0)
		return d->bar0;
	return NULL;
}

/*
 * Read the descriptors of @ch from @old up to @new into @rec.  Returns
 * false if the device refuses @new (out of its SQ), so it keeps its tail
 * and so must the shadow.
 */
bool sw_read_descs(struct sw_proc *p, struct iommu_domain *dom,
		   void __iomem *cr, u32 mode, struct sacc_watch_rec *rec)
{
	struct sacc_watch_desc *out = (struct sacc_watch_desc *)(rec + 1);
	u64 sq_base = readl(cr + SACC_REG_SQ_BASE) |
		      (u64)readl(cr + SACC_REG_SQ_BASE + 4) << 32;
	u32 size = readl(cr + SACC_REG_SQ_SIZE);
	u32 i = rec->old_tail, new = rec->new_tail;
	struct sw_sq_page pg = {};

	if (size < SACC_RING_MIN_ENTRIES || size > SACC_RING_MAX_ENTRIES ||
	    i >= size || new >= size) {
		rec->torn = SACC_WATCH_TORN_RANGE;
		/* The device refuses a new tail out of range and keeps its
		 * own; an old one out of range only means the SQ shrank at
		 * a re-enable we did not see: follow the new tail. */
		return size >= SACC_RING_MIN_ENTRIES &&
		       size <= SACC_RING_MAX_ENTRIES && new < size;
	}
	/* Every descriptor from the old tail to the new one, however many:
	 * at most size - 1, which the record has room for. */
	while (i != new) {
		struct sacc_desc d;

		if (sw_read_slot(p->dev, dom, mode,
				 sq_base + (u64)i * sizeof(d), &d, &pg)) {
			rec->torn = SACC_WATCH_TORN_SQ_UNREADABLE;
			return true;
		}
		out->index = i;
		out->inline_len = 0;
		memcpy(out->raw, &d, sizeof(d));
		i = (i + 1) % size;
		if ((mode & SACC_MODE_V3) &&
		    le16_to_cpu(d.opcode) == SACC_OP_WRITE_INLINE) {
			/* The payload slots after it are not descriptors;
			 * the device consumes them, at most up to the tail. */
			u32 len = le32_to_cpu(d.length);
			u64 slots = SACC_INLINE_SLOTS(len);
			u32 avail = (new + size - i) % size;

			out->inline_len = len;
			i = (i + (u32)min_t(u64, slots, avail)) % size;
		}
		out++;
		rec->ndesc++;
	}
	return true;
}

/*
 * Cut the @len bytes of segment @raw into commands at @out, as the device
 * runs them (docs/spec.md section 21): 32-byte slots in order; a
 * WRITE_INLINE's payload takes the slots after it, and one that does not
 * fit (the device fails it, status 3) consumes the rest.  Returns the
 * number of commands.
 */
static u32 sw_cut_segment(const u8 *raw, u32 len, struct sacc_watch_desc *out)
{
	u32 off = 0, n = 0;

	while (off + sizeof(struct sacc_desc) <= len) {
		const struct sacc_desc *c = (const void *)(raw + off);

		out[n].index = off / sizeof(*c);
		out[n].inline_len = 0;
		memcpy(out[n].raw, c, sizeof(*c));
		off += sizeof(*c);
		if (le16_to_cpu(c->opcode) == SACC_OP_WRITE_INLINE) {
			u32 l = le32_to_cpu(c->length);
			u64 bytes = SACC_INLINE_SLOTS(l) * SACC_SEGMENT_ALIGN;

			out[n].inline_len = l;
			if (l < 1 || l > SACC_INLINE_MAX || bytes > len - off)
				off = len;
			else
				off += bytes;
		}
		n++;
	}
	return n;
}

/*
 * Capture the segment of SEGMENT entry @e (SQ slot @index) into a
 * segment record at @sg, within *@budget segment bytes.  The segment is
 * read as the device will fetch it: through the IOMMU domain @dom, or
 * BAR4 with SRC_DEV.  A segment that cannot be read whole is a torn
 * record without commands.
 */
static void sw_capture_seg(struct sw_proc *p, struct iommu_domain *dom,
			   const struct sacc_watch_rec *rec,
			   const struct sacc_watch_desc *e,
			   struct sacc_watch_seg *sg, u32 *budget)
{
	u8 *raw = sw_segbuf_cpu[smp_processor_id()];
	struct sacc_desc d;
	int err;

	memcpy(&d, e->raw, sizeof(d));
	memset(sg, 0, sizeof(*sg));
	sg->size = sizeof(*sg);
	sg->type = SACC_WATCH_REC_SEGMENT;
	sg->t_ns = rec->t_ns;
	sg->pid = rec->pid;
	sg->tid = rec->tid;
	sg->bdf = rec->bdf;
	sg->chan = rec->chan;
	sg->flags = le16_to_cpu(d.flags);
	sg->sq_index = e->index;
	sg->req_id = le32_to_cpu(d.req_id);
	sg->length = le32_to_cpu(d.length);
	sg->addr = le64_to_cpu(d.src);
	sg->where = sg->flags & SACC_DESC_F_SRC_DEV ? SACC_WATCH_SEG_DEV :
						     SACC_WATCH_SEG_HOST;
	if (sg->length < SACC_SEGMENT_ALIGN || sg->length > SACC_SEGMENT_MAX ||
	    sg->length % SACC_SEGMENT_ALIGN) {
		sg->torn = SACC_WATCH_TORN_SEG_LENGTH;
		return;
	}
	if (sg->length > *budget) {
		sg->torn = SACC_WATCH_TORN_SEG_BUDGET;
		return;
	}
	if (sg->where == SACC_WATCH_SEG_DEV) {
		err = sw_read_dev(p->dev, sg->addr, raw, sg->length);
		if (err)
			sg->torn = SACC_WATCH_TORN_SEG_RANGE;
	} else {
		/* A range that wraps faults in the device, too. */
		err = sg->addr + sg->length < sg->addr ||
		      sw_read_iova_range(dom, sg->addr, raw, sg->length);
		if (err)
			sg->torn = SACC_WATCH_TORN_SEG_UNREADABLE;
	}
	if (err)
		return;
	*budget -= sg->length;
	sg->ncmd = sw_cut_segment(raw, sg->length,
				  (struct sacc_watch_desc *)(sg + 1));
	sg->size += sg->ncmd * sizeof(struct sacc_watch_desc);
}

/*
 * After doorbell record @rec: a segment record for each of its SEGMENT
 * entries (MODE.V3 channels only: elsewhere opcode 6 is no SEGMENT).
 * Returns the bytes of records written after @rec.
 */
u32 sw_capture_segs(struct sw_proc *p, struct iommu_domain *dom, u32 mode,
		    struct sacc_watch_rec *rec)
{
	const struct sacc_watch_desc *e = (const void *)(rec + 1);
	u8 *pos = (u8 *)rec + rec->size;
	u32 budget = seg_kib * 1024, i;

	if (!(mode & SACC_MODE_V3))
		return 0;
	for (i = 0; i < rec->ndesc; i++, e++) {
		struct sacc_watch_seg *sg = (void *)pos;
		__le16 op;

		memcpy(&op, e->raw + offsetof(struct sacc_desc, opcode),
		       sizeof(op));
		if (le16_to_cpu(op) != SACC_OP_SEGMENT)
			continue;
		sw_capture_seg(p, dom, rec, e, sg, &budget);
		pos += sg->size;
		rec->nseg++;
	}
	return pos - ((u8 *)rec + rec->size);
}

/* The record being built on this CPU (the trap runs with interrupts
 * off, so it is this trap's alone). */
struct sacc_watch_rec *sw_scratch(void)
{
	return sw_scratch_cpu[smp_processor_id()];
}

/*
 * The largest record group one doorbell makes: its record with every
 * descriptor it can publish (SQ_SIZE - 1 at most), then at most one
 * segment record header per descriptor, and the commands cut from
 * seg_kib KiB of segments (a 40-byte command per 32-byte slot at most).
 * 2.5 MiB + 4 MiB + 1.25 MiB with the default seg_kib.
 */
size_t sw_group_max(void)
{
	return sizeof(struct sacc_watch_rec) +
	       SACC_WATCH_MAX_DESCS * sizeof(struct sacc_watch_desc) +
	       SACC_WATCH_MAX_DESCS * sizeof(struct sacc_watch_seg) +
	       (size_t)seg_kib * 1024 / SACC_SEGMENT_ALIGN *
		       sizeof(struct sacc_watch_desc);
}

/* A group is built on its CPU, then copied into the ring whole (or not
 * at all): one group's room and one segment's per CPU.  Returns the
 * bytes allocated in *@bytes. */
int sw_capture_alloc(u64 *bytes)
{
	size_t rec_max = sw_group_max();
	unsigned int cpu;

	sw_scratch_cpu = kcalloc(nr_cpu_ids, sizeof(void *), GFP_KERNEL);
	sw_segbuf_cpu = kcalloc(nr_cpu_ids, sizeof(void *), GFP_KERNEL);
	if (!sw_scratch_cpu || !sw_segbuf_cpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		sw_scratch_cpu[cpu] = vmalloc(rec_max);
		sw_segbuf_cpu[cpu] = vmalloc(SACC_SEGMENT_MAX);
		if (!sw_scratch_cpu[cpu] || !sw_segbuf_cpu[cpu])
			return -ENOMEM;
		*bytes += rec_max + SACC_SEGMENT_MAX;
	}
	return 0;
}

void sw_capture_free(void)
{
	unsigned int cpu;

	if (sw_scratch_cpu) {
		for_each_possible_cpu(cpu)
			vfree(sw_scratch_cpu[cpu]);
		kfree(sw_scratch_cpu);
		sw_scratch_cpu = NULL;
	}
	if (sw_segbuf_cpu) {
		for_each_possible_cpu(cpu)
			vfree(sw_segbuf_cpu[cpu]);
		kfree(sw_segbuf_cpu);
		sw_segbuf_cpu = NULL;
	}
}

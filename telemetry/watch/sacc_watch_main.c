// SPDX-License-Identifier: GPL-2.0
/*
 * sacc_watch.ko - the SACC doorbell watchpoint tracer.
 *
 * Kernel bypass has no syscall to hook, but the mapping of the doorbell
 * page is one step user space cannot skip (the method of the Queen's
 * University paper on NVIDIA's nv_mmap).  So:
 *
 *  1. A kretprobe on vfio_pci_core_mmap() sees every mmap of a VFIO PCI
 *     region; for a SACC device (1b36:1092) whose BAR0 mapping covers
 *     the doorbell page (BAR0 offset 0x1000) it learns the user address
 *     of that page.  A probe handler cannot sleep, so it queues a
 *     task_work that runs when the mapping thread returns to user space.
 *  2. The task_work installs x86 hardware write watchpoints on the
 *     doorbell words (register_user_hw_breakpoint), on every thread of
 *     the process and, through perf's inherit, on threads made later.
 *  3. A doorbell store traps after it retired, with the writer stopped.
 *     The handler decodes the store from the instruction bytes before the
 *     saved IP (store_decode.c: the doorbell page reads 0, so this is how
 *     the new tail / the token is known), reads the channel's SQ_BASE,
 *     SQ_SIZE, MODE and PUT_ADDR through its own ioremap of the BARs,
 *     translates SQ IOVAs through the IOMMU domain the process attached
 *     (iommu_iova_to_phys) and copies the new descriptors from the
 *     pinned pages through the direct map: exactly the bytes the device
 *     will read, whole, since the only writer is stopped.
 *  4. For each new SEGMENT entry (v0.4, docs/spec.md section 21) the
 *     segment is captured whole, as the device will fetch it: host
 *     memory through the same IOMMU domain, device memory through an
 *     ioremap of BAR4, bounded (SACC_SEGMENT_MAX each, seg_kib per
 *     doorbell); one segment record each after the doorbell record.
 *     A channel with MODE.SQ_DEV has its SQ (and PUT word) read through
 *     BAR4 as well.
 *  5. Records go to a bounded ring read through /dev/sacc_watch
 *     (include/sacc_watch.h).  A full ring drops and counts; the reader
 *     gets a drops record in order.
 *
 * Watched words (4 debug registers): 0x1000 (channels 0-1), 0x1400
 * (token doorbell), 0x1008 (channels 2-3), 0x1010 (channels 4-5).
 */
#include <linux/hw_breakpoint.h>
#include <linux/io.h>
#include <linux/iommu.h>
#include <linux/kprobes.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/perf_event.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/uaccess.h>
#include <linux/vfio.h>
#include <linux/vfio_pci_core.h>
#include <linux/vmalloc.h>

#include "sacc_hw.h"
#include "sacc_watch.h"
#include "store_decode.h"

static unsigned int ring_kib = 16384;
module_param(ring_kib, uint, 0444);
MODULE_PARM_DESC(ring_kib, "record ring size in KiB (default 16384)");
static unsigned int max_descs = 1024;
module_param(max_descs, uint, 0444);
MODULE_PARM_DESC(max_descs, "descriptors per record at most (<= 4096)");
/* For measuring the tracer's cost: the trap alone, without the work. */
static unsigned int seg_kib = 1024;
module_param(seg_kib, uint, 0444);
MODULE_PARM_DESC(seg_kib, "segment bytes captured per doorbell at most, in KiB (default 1024)");
static bool trap_only;
module_param(trap_only, bool, 0644);
MODULE_PARM_DESC(trap_only, "count traps, record nothing (cost breakdown only)");
static atomic64_t st_traps;

#define SW_MAX_DEVS	8
#define SW_MAX_PROCS	64
#define SW_MAX_THREADS	64
#define SW_NWATCH	4

/* Offsets in the doorbell page (BAR0 page 1) and widths, in the order
 * they get debug registers: a task has four. */
static const struct {
	u32 off, len;
} sw_watch[SW_NWATCH] = {
	{ SACC_DOORBELL(0) - SACC_DOORBELL_OFFSET, 8 },	   /* channels 0, 1 */
	{ SACC_DOORBELL_TOKEN - SACC_DOORBELL_OFFSET, 4 }, /* token */
	{ SACC_DOORBELL(2) - SACC_DOORBELL_OFFSET, 8 },	   /* channels 2, 3 */
	{ SACC_DOORBELL(4) - SACC_DOORBELL_OFFSET, 8 },	   /* channels 4, 5 */
};

struct sw_dev {
	struct pci_dev *pdev;
	void __iomem *bar0, *bar2; /* bar2: NULL before v0.3 */
	void __iomem *bar4;	   /* device memory (v0.4), NULL if none */
	u64 devmem;		   /* its bytes: device addresses 0..devmem-1 */
	u32 channels;
	u32 bdf;
	unsigned long db_pfn; /* page frame of the doorbell page (BAR0 + 0x1000) */
};

struct sw_proc {
	struct list_head node;
	struct pid *tgid;
	struct sw_dev *dev;
	unsigned long db; /* user address of the doorbell page */
	raw_spinlock_t lock;
	u32 shadow[SACC_CHANNELS_MAX]; /* SQ tail after the last doorbell */
	atomic_t disarming;
	unsigned int nev;
	struct perf_event *ev[SW_MAX_THREADS * SW_NWATCH];
};

struct sw_arm {
	struct callback_head cb;
	struct pci_dev *pdev;
	unsigned long db;
};

static DEFINE_MUTEX(sw_lock); /* sw_devs, sw_procs */
static struct sw_dev sw_devs[SW_MAX_DEVS];
static LIST_HEAD(sw_procs);
static unsigned int sw_nprocs;

static atomic64_t st_records, st_drops, st_torn, st_descs, st_armed,
	st_arm_failed, st_kernel_hits, st_stale, st_segs, st_seg_cmds,
	st_seg_torn;

static_assert(SACC_WATCH_SEG_MAX_CMDS == SACC_SEGMENT_MAX / SACC_SEGMENT_ALIGN);

/* ---- the ring ---------------------------------------------------------- */

static DEFINE_RAW_SPINLOCK(ring_lock);
static DEFINE_MUTEX(read_mutex); /* read_bounce, one read() at a time */
static DECLARE_WAIT_QUEUE_HEAD(ring_wq);
static u8 *ring;
static u32 ring_size;
static u64 ring_head, ring_tail, ring_seq, ring_pending_drops;
static u8 *read_bounce; /* one reader at a time (sw_open) */
static atomic_t sw_reader = ATOMIC_INIT(0);
static void **sw_scratch_cpu; /* one record being built per CPU */
static void **sw_segbuf_cpu;  /* one segment being cut per CPU */

static void ring_copy_in(u64 pos, const void *src, u32 len)
{
	u32 off = pos % ring_size, first = min(len, ring_size - off);

	memcpy(ring + off, src, first);
	memcpy(ring, (const u8 *)src + first, len - first);
}

static void ring_copy_out(u64 pos, void *dst, u32 len)
{
	u32 off = pos % ring_size, first = min(len, ring_size - off);

	memcpy(dst, ring + off, first);
	memcpy((u8 *)dst + first, ring, len - first);
}

static void drops_rec(struct sacc_watch_rec *d, u64 count, u64 seq)
{
	memset(d, 0, sizeof(*d));
	d->size = sizeof(*d);
	d->type = SACC_WATCH_REC_DROPS;
	d->seq = seq;
	d->t_ns = ktime_get_ns();
	d->chan = 0xffff;
	d->value64 = count;
}

static void ring_count(const struct sacc_watch_rec *rec)
{
	if (rec->type == SACC_WATCH_REC_DOORBELL) {
		atomic64_inc(&st_records);
		atomic64_add(rec->ndesc, &st_descs);
		if (rec->torn)
			atomic64_inc(&st_torn);
	} else if (rec->type == SACC_WATCH_REC_SEGMENT) {
		atomic64_inc(&st_segs);
		atomic64_add(rec->ndesc, &st_seg_cmds);
		if (rec->torn)
			atomic64_inc(&st_seg_torn);
	}
}

/*
 * Push @nrec whole records, @len bytes from @recs (a doorbell record and
 * its segment records), with consecutive seq numbers: all or none.  From
 * the trap (interrupts off) and from process context.
 */
static void ring_push_group(void *recs, u32 len, u32 nrec)
{
	struct sacc_watch_rec d, *r;
	u32 need = len, off;
	unsigned long flags;

	raw_spin_lock_irqsave(&ring_lock, flags);
	if (ring_pending_drops)
		need += sizeof(d);
	if (ring_size - (ring_head - ring_tail) < need) {
		ring_seq += nrec; /* the gap in seq shows the loss too */
		ring_pending_drops += nrec;
		atomic64_add(nrec, &st_drops);
		raw_spin_unlock_irqrestore(&ring_lock, flags);
		return;
	}
	if (ring_pending_drops) {
		drops_rec(&d, ring_pending_drops, ring_seq++);
		ring_copy_in(ring_head, &d, sizeof(d));
		ring_head += sizeof(d);
		ring_pending_drops = 0;
	}
	for (off = 0; off < len; off += r->size) {
		r = recs + off;
		r->seq = ring_seq++;
	}
	ring_copy_in(ring_head, recs, len);
	ring_head += len;
	raw_spin_unlock_irqrestore(&ring_lock, flags);
	for (off = 0; off < len; off += r->size) {
		r = recs + off;
		ring_count(r);
	}
	wake_up_interruptible(&ring_wq);
}

static void ring_push(struct sacc_watch_rec *rec)
{
	ring_push_group(rec, rec->size, 1);
}

static bool ring_readable(void)
{
	return READ_ONCE(ring_head) != READ_ONCE(ring_tail) ||
	       READ_ONCE(ring_pending_drops);
}

/* An armed/disarmed record of the current process, in process context. */
static void sw_push_event(u16 type, const struct sw_proc *p, u32 value)
{
	struct sacc_watch_rec r = {
		.size = sizeof(r),
		.type = type,
		.t_ns = ktime_get_ns(),
		.pid = task_tgid_nr(current),
		.tid = task_pid_nr(current),
		.bdf = p->dev->bdf,
		.chan = 0xffff,
		.value = value,
		.value64 = p->db,
	};

	ring_push(&r);
}

/* ---- the trap ---------------------------------------------------------- */

static void sw_free_list(struct list_head *dead);

static void sw_regs_of(const struct pt_regs *p, struct sw_regs *r)
{
	r->r[0] = p->ax, r->r[1] = p->cx, r->r[2] = p->dx, r->r[3] = p->bx;
	r->r[4] = p->sp, r->r[5] = p->bp, r->r[6] = p->si, r->r[7] = p->di;
	r->r[8] = p->r8, r->r[9] = p->r9, r->r[10] = p->r10;
	r->r[11] = p->r11, r->r[12] = p->r12, r->r[13] = p->r13;
	r->r[14] = p->r14, r->r[15] = p->r15;
	r->ip = p->ip;
}

/* Decode the trapping store (see store_decode.h). */
static int sw_decode(const struct pt_regs *regs, u64 lo, u64 hi,
		     struct sw_store *st)
{
	u8 buf[SW_INSN_MAX];
	unsigned long ip = regs->ip;
	unsigned int n = SW_INSN_MAX;
	struct sw_regs r;

	if (ip < SW_INSN_MAX)
		return -1;
	/* The bytes before ip may start on an unmapped page: then only
	 * those of ip's own page (an instruction can straddle, so this is
	 * the fallback, not the rule). */
	if (copy_from_user_nofault(buf, (const void __user *)(ip - n), n)) {
		n = min_t(unsigned int, n, ip & ~PAGE_MASK);
		if (!n || copy_from_user_nofault(buf + SW_INSN_MAX - n,
						 (const void __user *)(ip - n), n))
			return -1;
	}
	sw_regs_of(regs, &r);
	return sw_decode_store(buf + SW_INSN_MAX - n, n, &r, lo, hi, st);
}

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
static int sw_read_iova_range(struct iommu_domain *dom, u64 iova, void *dst,
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
static int sw_read_dev(const struct sw_dev *d, u64 addr, void *dst, u32 len)
{
	if (!d->bar4 || len > d->devmem || addr > d->devmem - len)
		return -1;
	memcpy_fromio(dst, d->bar4 + addr, len);
	return 0;
}

/* Ring memory (SQ slots, the PUT word): device memory with MODE.SQ_DEV,
 * else an IOVA. */
static int sw_read_ring(const struct sw_dev *d, struct iommu_domain *dom,
			u32 mode, u64 addr, void *dst, u32 len)
{
	if (mode & SACC_MODE_SQ_DEV)
		return sw_read_dev(d, addr, dst, len);
	return sw_read_iova(dom, addr, dst, len);
}

static void __iomem *sw_chan_regs(const struct sw_dev *d, u32 ch)
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
static bool sw_read_descs(struct sw_proc *p, struct iommu_domain *dom,
			  void __iomem *cr, u32 mode, struct sacc_watch_rec *rec)
{
	struct sacc_watch_desc *out = (struct sacc_watch_desc *)(rec + 1);
	u64 sq_base = readl(cr + SACC_REG_SQ_BASE) |
		      (u64)readl(cr + SACC_REG_SQ_BASE + 4) << 32;
	u32 size = readl(cr + SACC_REG_SQ_SIZE);
	u32 i = rec->old_tail, new = rec->new_tail, cap = max_descs;

	if (size < SACC_RING_MIN_ENTRIES || size > SACC_RING_MAX_ENTRIES ||
	    i >= size || new >= size) {
		rec->torn = SACC_WATCH_TORN_RANGE;
		/* The device refuses a new tail out of range and keeps its
		 * own; an old one out of range only means the SQ shrank at
		 * a re-enable we did not see: follow the new tail. */
		return size >= SACC_RING_MIN_ENTRIES &&
		       size <= SACC_RING_MAX_ENTRIES && new < size;
	}
	while (i != new) {
		struct sacc_desc d;

		if (rec->ndesc == cap) {
			rec->torn = SACC_WATCH_TORN_TRUNCATED;
			return true;
		}
		if (sw_read_ring(p->dev, dom, mode,
				 sq_base + (u64)i * sizeof(d), &d,
				 sizeof(d))) {
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
static u32 sw_capture_segs(struct sw_proc *p, struct iommu_domain *dom,
			   u32 mode, struct sacc_watch_rec *rec)
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

/*
 * Is @addr in @mm still mapped to the doorbell page @pfn?  After an
 * munmap the address can be reused for ordinary memory, whose writes
 * would trap too.  A lockless walk, as GUP-fast and perf's page-size
 * lookup do: with interrupts off the page tables cannot be freed under
 * us (x86 frees them after an IPI or an RCU grace period).
 */
static bool sw_maps_doorbell(struct mm_struct *mm, unsigned long addr,
			     unsigned long pfn)
{
	pgd_t *pgd;
	p4d_t *p4d;
	pud_t *pud, pudv;
	pmd_t *pmd, pmdv;
	pte_t *ptep, pte;

	if (!mm)
		return false;
	pgd = pgd_offset(mm, addr);
	if (pgd_none(READ_ONCE(*pgd)))
		return false;
	p4d = p4d_offset(pgd, addr);
	if (!p4d_present(READ_ONCE(*p4d)))
		return false;
	pud = pud_offset(p4d, addr);
	pudv = READ_ONCE(*pud);
	if (!pud_present(pudv) || pud_large(pudv))
		return false;
	pmd = pmd_offset(pud, addr);
	pmdv = READ_ONCE(*pmd);
	if (!pmd_present(pmdv) || pmd_large(pmdv))
		return false;
	ptep = pte_offset_map(&pmdv, addr);
	pte = ptep_get_lockless(ptep);
	pte_unmap(ptep);
	/* Not present: vfio-pci zapped its BAR mappings (a reset or FLR by
	 * another thread) between the store and this trap; the store did
	 * reach the doorbell.  Only another page at the address is stale. */
	return !pte_present(pte) || pte_pfn(pte) == pfn;
}

struct sw_disarm {
	struct callback_head cb;
	struct sw_proc *p; /* compared with sw_procs only: may be gone */
};

static void sw_disarm_fn(struct callback_head *cb)
{
	struct sw_disarm *w = container_of(cb, struct sw_disarm, cb);
	struct sw_proc *p;
	LIST_HEAD(dead);

	mutex_lock(&sw_lock);
	list_for_each_entry(p, &sw_procs, node) {
		if (p == w->p) {
			list_move(&p->node, &dead);
			sw_nprocs--;
			sw_push_event(SACC_WATCH_REC_DISARMED, p, 0);
			break;
		}
	}
	mutex_unlock(&sw_lock);
	sw_free_list(&dead);
	kfree(w);
	module_put(THIS_MODULE);
}

/* The doorbell page is no longer mapped there: stop watching, from
 * process context (unregistering sleeps). */
static void sw_disarm_later(struct sw_proc *p)
{
	struct sw_disarm *w;

	if (atomic_xchg(&p->disarming, 1))
		return;
	w = kzalloc(sizeof(*w), GFP_ATOMIC);
	if (!w || !try_module_get(THIS_MODULE)) {
		kfree(w);
		atomic_set(&p->disarming, 0);
		return;
	}
	w->p = p;
	init_task_work(&w->cb, sw_disarm_fn);
	if (task_work_add(current, &w->cb, TWA_RESUME)) {
		kfree(w);
		module_put(THIS_MODULE);
		atomic_set(&p->disarming, 0);
	}
}

static void sw_trap(struct perf_event *bp, struct perf_sample_data *data,
		    struct pt_regs *regs)
{
	struct sw_proc *p = bp->overflow_handler_context;
	struct sacc_watch_rec *rec;
	struct iommu_domain *dom;
	struct sw_store st;
	void __iomem *cr;
	u32 off, ch, mode, segs = 0;
	unsigned long flags;

	/* A kernel access to the user address (e.g. a uaccess) also
	 * traps; that is not a doorbell write by the process. */
	if (!user_mode(regs)) {
		atomic64_inc(&st_kernel_hits);
		return;
	}
	if (READ_ONCE(trap_only)) {
		atomic64_inc(&st_traps);
		return;
	}
	if (!sw_maps_doorbell(current->mm, p->db, p->dev->db_pfn)) {
		atomic64_inc(&st_stale);
		sw_disarm_later(p);
		return;
	}
	rec = sw_scratch_cpu[smp_processor_id()];
	memset(rec, 0, sizeof(*rec));
	rec->type = SACC_WATCH_REC_DOORBELL;
	rec->t_ns = ktime_get_ns();
	rec->pid = task_tgid_nr(current);
	rec->tid = task_pid_nr(current);
	rec->bdf = p->dev->bdf;
	rec->chan = 0xffff;
	rec->size = sizeof(*rec);

	/* The breakpoint names the doorbell: a store it caught lies in it. */
	rec->kind = bp->attr.bp_addr - p->db ==
			    SACC_DOORBELL_TOKEN - SACC_DOORBELL_OFFSET ?
			    SACC_WATCH_KIND_TOKEN :
			    SACC_WATCH_KIND_TAIL;
	if (sw_decode(regs, bp->attr.bp_addr,
		      bp->attr.bp_addr + bp->attr.bp_len, &st)) {
		rec->torn = SACC_WATCH_TORN_UNDECODED;
		goto push;
	}
	rec->value = st.value;
	off = st.addr - p->db + SACC_DOORBELL_OFFSET;
	ch = rec->kind == SACC_WATCH_KIND_TOKEN ?
		     st.value :
		     (off - SACC_DOORBELL_OFFSET) / SACC_DOORBELL_STRIDE;
	/* d->channels is at most SACC_CHANNELS_MAX: no other bound needed */
	cr = sw_chan_regs(p->dev, ch);
	if (!cr) {
		rec->torn = SACC_WATCH_TORN_NO_CHANNEL;
		goto push;
	}
	rec->chan = ch;
	dom = iommu_get_domain_for_dev(&p->dev->pdev->dev);
	if (!dom) {
		rec->torn = SACC_WATCH_TORN_NO_DEVICE;
		goto push;
	}
	mode = p->dev->bar2 ? readl(cr + SACC_REG_MODE) : 0;
	if (rec->kind == SACC_WATCH_KIND_TOKEN) {
		u64 put = readl(cr + SACC_REG_PUT_ADDR) |
			  (u64)readl(cr + SACC_REG_PUT_ADDR + 4) << 32;
		__le32 w;

		if (sw_read_ring(p->dev, dom, mode, put, &w, sizeof(w))) {
			rec->torn = SACC_WATCH_TORN_SQ_UNREADABLE;
			goto push;
		}
		rec->new_tail = le32_to_cpu(w);
	} else {
		rec->new_tail = st.value;
	}
	raw_spin_lock_irqsave(&p->lock, flags);
	rec->old_tail = p->shadow[ch];
	/* A doorbell the device must refuse (tail out of range) does not
	 * move its tail: neither does the shadow. */
	if (sw_read_descs(p, dom, cr, mode, rec))
		p->shadow[ch] = rec->new_tail;
	raw_spin_unlock_irqrestore(&p->lock, flags);
	rec->size += rec->ndesc * sizeof(struct sacc_watch_desc);
	segs = sw_capture_segs(p, dom, mode, rec);
push:
	ring_push_group(rec, rec->size + segs, 1 + rec->nseg);
}

/* ---- arming, in process context ---------------------------------------- */

static struct sw_dev *sw_dev_get(struct pci_dev *pdev)
{
	struct sw_dev *d, *free = NULL;
	int i;

	for (i = 0; i < SW_MAX_DEVS; i++) {
		d = &sw_devs[i];
		if (d->pdev == pdev)
			return d;
		if (!d->pdev && !free)
			free = d;
	}
	if (!free)
		return NULL;
	d = free;
	d->bar0 = ioremap(pci_resource_start(pdev, SACC_BAR_REGS),
			  SACC_BAR0_SIZE);
	if (!d->bar0)
		return NULL;
	d->bar2 = NULL;
	d->channels = 1;
	if (pci_resource_len(pdev, SACC_BAR_CHAN) >= SACC_BAR2_SIZE &&
	    readl(d->bar0 + SACC_REG_VERSION) >= SACC_VERSION) {
		d->bar2 = ioremap(pci_resource_start(pdev, SACC_BAR_CHAN),
				  SACC_BAR2_SIZE);
		if (d->bar2)
			d->channels = min_t(u32, readl(d->bar2 + SACC_DEV_CHANNELS),
					    SACC_CHANNELS_MAX);
	}
	/* v0.4 device memory: segments and SQs there are read through it.
	 * RAM behind a BAR: reading it has no side effect. */
	d->bar4 = NULL;
	d->devmem = 0;
	if (d->bar2 && readl(d->bar0 + SACC_REG_VERSION) >= SACC_VERSION &&
	    pci_resource_len(pdev, SACC_BAR_DEVMEM)) {
		u64 size = readl(d->bar2 + SACC_DEV_DEVMEM_SIZE) |
			   (u64)readl(d->bar2 + SACC_DEV_DEVMEM_SIZE + 4) << 32;

		size = min_t(u64, size, pci_resource_len(pdev, SACC_BAR_DEVMEM));
		if (size) {
			d->bar4 = ioremap(pci_resource_start(pdev, SACC_BAR_DEVMEM),
					  size);
			d->devmem = d->bar4 ? size : 0;
		}
	}
	d->bdf = pci_domain_nr(pdev->bus) << 16 | pdev->bus->number << 8 |
		 pdev->devfn;
	d->db_pfn = (pci_resource_start(pdev, SACC_BAR_REGS) +
		     SACC_DOORBELL_OFFSET) >> PAGE_SHIFT;
	d->pdev = pci_dev_get(pdev);
	return d;
}

static void sw_proc_free(struct sw_proc *p)
{
	unsigned int i;

	for (i = 0; i < p->nev; i++)
		unregister_hw_breakpoint(p->ev[i]);
	/* A trap runs with interrupts off: an RCU grace period waits for
	 * any that still uses @p. */
	synchronize_rcu();
	put_pid(p->tgid);
	kfree(p);
}

/* Unlink processes that have exited, and the one of @tgid; return them
 * on @dead for sw_proc_free() outside sw_lock. */
static void sw_reap_locked(struct pid *tgid, struct list_head *dead)
{
	struct sw_proc *p, *n;

	list_for_each_entry_safe(p, n, &sw_procs, node) {
		if (p->tgid == tgid || !pid_has_task(p->tgid, PIDTYPE_TGID)) {
			list_move(&p->node, dead);
			sw_nprocs--;
		}
	}
}

static void sw_free_list(struct list_head *dead)
{
	struct sw_proc *p, *n;

	list_for_each_entry_safe(p, n, dead, node) {
		list_del(&p->node);
		sw_proc_free(p);
	}
}

/* Set the watches on @t: a mask of those set (bit w = sw_watch[w]). */
static u32 sw_arm_task(struct sw_proc *p, struct task_struct *t)
{
	struct perf_event_attr attr;
	struct perf_event *ev;
	u32 armed = 0;
	int w;

	for (w = 0; w < SW_NWATCH; w++) {
		hw_breakpoint_init(&attr);
		attr.bp_addr = p->db + sw_watch[w].off;
		attr.bp_len = sw_watch[w].len == 8 ? HW_BREAKPOINT_LEN_8 :
						     HW_BREAKPOINT_LEN_4;
		attr.bp_type = HW_BREAKPOINT_W;
		/* Threads the task makes later get their own copy (its
		 * handler and context too); a fork()ed child and an exec()
		 * do not keep it. */
		attr.inherit = 1;
		attr.inherit_thread = 1;
		attr.remove_on_exec = 1;
		ev = register_user_hw_breakpoint(&attr, sw_trap, p, t);
		if (IS_ERR(ev)) {
			pr_warn_ratelimited("sacc_watch: pid %d tid %d: watchpoint on doorbell +0x%x: error %ld\n",
					    task_tgid_nr(t), task_pid_nr(t),
					    sw_watch[w].off, PTR_ERR(ev));
			continue;
		}
		p->ev[p->nev++] = ev;
		armed |= 1u << w;
	}
	return armed;
}

static void sw_arm_fn(struct callback_head *cb)
{
	struct sw_arm *a = container_of(cb, struct sw_arm, cb);
	struct task_struct *threads[SW_MAX_THREADS], *t;
	unsigned int nt = 0, i;
	u32 armed = 0, mine = 0;
	struct sw_proc *p;
	LIST_HEAD(dead);

	/* One doorbell page per process: a new mapping (e.g. after
	 * sacc_close() + sacc_open()) replaces the watch of the old one,
	 * whose debug registers must be free before the new ones are
	 * taken (a task has four). */
	mutex_lock(&sw_lock);
	sw_reap_locked(task_tgid(current), &dead);
	mutex_unlock(&sw_lock);
	sw_free_list(&dead);

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	mutex_lock(&sw_lock);
	if (!p || sw_nprocs >= SW_MAX_PROCS)
		goto fail;
	p->dev = sw_dev_get(a->pdev);
	if (!p->dev)
		goto fail;
	p->tgid = get_pid(task_tgid(current));
	p->db = a->db;
	raw_spin_lock_init(&p->lock);

	rcu_read_lock();
	for_each_thread(current, t) {
		if (nt == SW_MAX_THREADS)
			break;
		get_task_struct(t);
		threads[nt++] = t;
	}
	rcu_read_unlock();
	for (i = 0; i < nt; i++) {
		if (threads[i] == current)
			armed |= mine = sw_arm_task(p, threads[i]);
		else if (!(threads[i]->flags & PF_EXITING))
			armed |= sw_arm_task(p, threads[i]);
		put_task_struct(threads[i]);
	}
	if (!armed) {
		put_pid(p->tgid);
		goto fail;
	}
	list_add(&p->node, &sw_procs);
	sw_nprocs++;
	/* Before any doorbell of this mapping can trap: under sw_lock. */
	sw_push_event(SACC_WATCH_REC_ARMED, p, mine);
	mutex_unlock(&sw_lock);
	atomic64_inc(&st_armed);
	goto out;
fail:
	mutex_unlock(&sw_lock);
	kfree(p);
	atomic64_inc(&st_arm_failed);
	pr_warn_ratelimited("sacc_watch: pid %d: doorbell page of %s not watched\n",
			    task_tgid_nr(current), pci_name(a->pdev));
out:
	sw_free_list(&dead);
	pci_dev_put(a->pdev);
	kfree(a);
	module_put(THIS_MODULE);
}

/* ---- the mapping path: vfio_pci_core_mmap(core_vdev, vma) --------------- */

struct sw_mmap_args {
	struct vfio_device *vdev;
	struct vm_area_struct *vma;
	unsigned long pgoff; /* at entry: the handler rewrites it to a PFN */
};

static int sw_mmap_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sw_mmap_args *a = (struct sw_mmap_args *)ri->data;

	a->vdev = (struct vfio_device *)regs->di;
	a->vma = (struct vm_area_struct *)regs->si;
	a->pgoff = a->vma->vm_pgoff;
	return 0;
}

static int sw_mmap_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sw_mmap_args *a = (struct sw_mmap_args *)ri->data;
	struct vm_area_struct *vma = a->vma;
	unsigned long start, index, pg_in;
	struct pci_dev *pdev;
	struct sw_arm *arm;

	if (regs_return_value(regs) != 0 || !a->vdev->dev ||
	    !dev_is_pci(a->vdev->dev))
		return 0;
	pdev = to_pci_dev(a->vdev->dev);
	if (pdev->vendor != SACC_PCI_VENDOR_ID ||
	    pdev->device != SACC_PCI_DEVICE_ID)
		return 0;
	/* VFIO's region offsets: region index << 40, then the offset. */
	index = a->pgoff >> (VFIO_PCI_OFFSET_SHIFT - PAGE_SHIFT);
	pg_in = a->pgoff &
		((1ul << (VFIO_PCI_OFFSET_SHIFT - PAGE_SHIFT)) - 1);
	start = pg_in << PAGE_SHIFT;
	if (index != SACC_BAR_REGS || start > SACC_DOORBELL_OFFSET ||
	    start + (vma->vm_end - vma->vm_start) <= SACC_DOORBELL_OFFSET)
		return 0;
	arm = kzalloc(sizeof(*arm), GFP_ATOMIC);
	if (!arm || !try_module_get(THIS_MODULE)) {
		kfree(arm);
		atomic64_inc(&st_arm_failed);
		return 0;
	}
	arm->db = vma->vm_start + SACC_DOORBELL_OFFSET - start;
	arm->pdev = pci_dev_get(pdev);
	init_task_work(&arm->cb, sw_arm_fn);
	if (task_work_add(current, &arm->cb, TWA_RESUME)) {
		pci_dev_put(arm->pdev);
		kfree(arm);
		module_put(THIS_MODULE);
		atomic64_inc(&st_arm_failed);
	}
	return 0;
}

static struct kretprobe sw_krp = {
	.kp.symbol_name = "vfio_pci_core_mmap",
	.entry_handler = sw_mmap_entry,
	.handler = sw_mmap_ret,
	.data_size = sizeof(struct sw_mmap_args),
	.maxactive = 32,
};

/* ---- /dev/sacc_watch ---------------------------------------------------- */

static int sw_open(struct inode *inode, struct file *f)
{
	if (!(f->f_mode & FMODE_READ))
		return -EINVAL;
	f->private_data = NULL; /* becomes the reader at its first read */
	return stream_open(inode, f);
}

static int sw_release(struct inode *inode, struct file *f)
{
	if (f->private_data)
		atomic_set(&sw_reader, 0);
	return 0;
}

static ssize_t sw_read_locked(struct file *f, char __user *buf, size_t cap)
{
	struct sacc_watch_rec h;
	size_t n = 0;
	int ret;

	for (;;) {
		raw_spin_lock_irq(&ring_lock);
		if (ring_head != ring_tail || ring_pending_drops)
			break;
		raw_spin_unlock_irq(&ring_lock);
		if (f->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(ring_wq, ring_readable());
		if (ret)
			return ret;
	}
	while (ring_head != ring_tail) {
		ring_copy_out(ring_tail, &h, sizeof(h));
		if (n + h.size > cap)
			break;
		ring_copy_out(ring_tail, read_bounce + n, h.size);
		ring_tail += h.size;
		n += h.size;
	}
	/* Drops after the last record, with nothing new to carry them. */
	if (ring_head == ring_tail && ring_pending_drops &&
	    n + sizeof(h) <= cap) {
		drops_rec((struct sacc_watch_rec *)(read_bounce + n),
			  ring_pending_drops, ring_seq++);
		ring_pending_drops = 0;
		n += sizeof(h);
	}
	raw_spin_unlock_irq(&ring_lock);
	if (copy_to_user(buf, read_bounce, n))
		return -EFAULT;
	return n;
}

static ssize_t sw_read(struct file *f, char __user *buf, size_t len,
		       loff_t *ppos)
{
	size_t cap = min_t(size_t, len, SACC_WATCH_READ_MIN);
	ssize_t ret;

	if (len < SACC_WATCH_READ_MIN)
		return -EINVAL;
	/* Reading consumes records: one reader at a time (an open for the
	 * stats ioctl alone does not count). */
	if (!f->private_data) {
		if (atomic_cmpxchg(&sw_reader, 0, 1))
			return -EBUSY;
		f->private_data = f;
	}
	/* read_bounce is shared: two threads reading one file (or a fork
	 * child sharing it) must not interleave in it. */
	if (mutex_lock_interruptible(&read_mutex))
		return -ERESTARTSYS;
	ret = sw_read_locked(f, buf, cap);
	mutex_unlock(&read_mutex);
	return ret;
}

static __poll_t sw_poll(struct file *f, struct poll_table_struct *pt)
{
	poll_wait(f, &ring_wq, pt);
	return ring_readable() ? EPOLLIN | EPOLLRDNORM : 0;
}

/* ---- the polling observer ---------------------------------------------- */

static DEFINE_MUTEX(sample_mutex); /* sample_buf */
static u8 *sample_buf;
#define SW_SAMPLE_MAX                                                          \
	(SACC_WATCH_SAMPLE_CHANS * (sizeof(struct sacc_watch_sample_chan) +    \
				    SACC_WATCH_SAMPLE_SLOTS *                  \
					    sizeof(struct sacc_desc)))

/* One channel's ring state, as a poller sees it; returns its bytes. */
static u32 sw_sample_chan(const struct sw_dev *d, struct iommu_domain *dom,
			  u32 ch, u32 max_slots, u8 *out)
{
	struct sacc_watch_sample_chan *c = (void *)out;
	void __iomem *cr = sw_chan_regs(d, ch);
	__le32 w;

	memset(c, 0, sizeof(*c));
	c->chan = ch;
	if (!cr)
		return sizeof(*c);
	c->ctrl = readl(cr + SACC_REG_CTRL);
	c->mode = d->bar2 ? readl(cr + SACC_REG_MODE) : 0;
	c->sq_size = readl(cr + SACC_REG_SQ_SIZE);
	c->sq_base = readl(cr + SACC_REG_SQ_BASE) |
		     (u64)readl(cr + SACC_REG_SQ_BASE + 4) << 32;
	if (c->mode & SACC_MODE_TOKEN) {
		u64 put = readl(cr + SACC_REG_PUT_ADDR) |
			  (u64)readl(cr + SACC_REG_PUT_ADDR + 4) << 32;

		c->put = sw_read_ring(d, dom, c->mode, put, &w, sizeof(w)) ?
				 0xffffffff :
				 le32_to_cpu(w);
	}
	if (!(c->ctrl & SACC_CTRL_ENABLE) || c->sq_size > SACC_RING_MAX_ENTRIES)
		return sizeof(*c);
	c->nslots = min(c->sq_size, max_slots);
	if (c->mode & SACC_MODE_SQ_DEV ?
		    sw_read_dev(d, c->sq_base, c + 1,
				c->nslots * sizeof(struct sacc_desc)) :
		    sw_read_iova_range(dom, c->sq_base, c + 1,
				       c->nslots * sizeof(struct sacc_desc)))
		c->nslots = 0;
	return sizeof(*c) + c->nslots * sizeof(struct sacc_desc);
}

static long sw_sample(struct sacc_watch_sample_req __user *ureq)
{
	struct sacc_watch_sample_req r;
	struct iommu_domain *dom;
	struct sw_dev *d = NULL;
	u32 i, n = 0;
	long ret = 0;

	if (copy_from_user(&r, ureq, sizeof(r)))
		return -EFAULT;
	if (!r.nchan || r.nchan > SACC_WATCH_SAMPLE_CHANS ||
	    r.max_slots > SACC_WATCH_SAMPLE_SLOTS ||
	    r.first_chan >= SACC_CHANNELS_MAX)
		return -EINVAL;
	mutex_lock(&sw_lock); /* sw_devs; a device's BARs stay mapped */
	for (i = 0; i < SW_MAX_DEVS; i++)
		if (sw_devs[i].pdev && sw_devs[i].bdf == r.bdf)
			d = &sw_devs[i];
	dom = d ? iommu_get_domain_for_dev(&d->pdev->dev) : NULL;
	if (!d || !dom) {
		mutex_unlock(&sw_lock);
		return -ENODEV;
	}
	mutex_lock(&sample_mutex);
	r.t_ns = ktime_get_ns();
	for (i = 0; i < r.nchan && r.first_chan + i < d->channels; i++)
		n += sw_sample_chan(d, dom, r.first_chan + i, r.max_slots,
				    sample_buf + n);
	mutex_unlock(&sw_lock);
	r.len = min_t(u64, n, r.buf_len);
	if (copy_to_user(u64_to_user_ptr(r.buf), sample_buf, r.len) ||
	    copy_to_user(ureq, &r, sizeof(r)))
		ret = -EFAULT;
	mutex_unlock(&sample_mutex);
	return ret;
}

static long sw_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct sacc_watch_stats s = {};

	if (cmd == SACC_WATCH_IOC_SAMPLE)
		return sw_sample((void __user *)arg);
	if (cmd != SACC_WATCH_IOC_STATS)
		return -ENOTTY;
	s.records = atomic64_read(&st_records);
	s.drops = atomic64_read(&st_drops);
	s.torn = atomic64_read(&st_torn);
	s.descs = atomic64_read(&st_descs);
	s.armed = atomic64_read(&st_armed);
	s.arm_failed = atomic64_read(&st_arm_failed);
	s.kernel_hits = atomic64_read(&st_kernel_hits);
	s.kprobe_missed = sw_krp.nmissed;
	s.bare_traps = atomic64_read(&st_traps);
	s.stale_traps = atomic64_read(&st_stale);
	s.abi = SACC_WATCH_ABI;
	s.ring_bytes = ring_size;
	s.max_descs = max_descs;
	s.segments = atomic64_read(&st_segs);
	s.seg_cmds = atomic64_read(&st_seg_cmds);
	s.seg_torn = atomic64_read(&st_seg_torn);
	s.seg_kib = seg_kib;
	mutex_lock(&sw_lock);
	s.watching = sw_nprocs;
	mutex_unlock(&sw_lock);
	return copy_to_user((void __user *)arg, &s, sizeof(s)) ? -EFAULT : 0;
}

static const struct file_operations sw_fops = {
	.owner = THIS_MODULE,
	.open = sw_open,
	.release = sw_release,
	.read = sw_read,
	.poll = sw_poll,
	.unlocked_ioctl = sw_ioctl,
	.llseek = no_llseek,
};

static struct miscdevice sw_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "sacc_watch",
	.fops = &sw_fops,
	.mode = 0600,
};

/* ---- load / unload ------------------------------------------------------ */

static void sw_free_buffers(void)
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
	vfree(read_bounce);
	vfree(sample_buf);
	vfree(ring);
}

static int __init sw_init(void)
{
	size_t rec_max;
	unsigned int cpu;
	int ret;

	/* A doorbell record and its segment records are pushed together:
	 * the group must fit the ring. */
	if (max_descs < 1 || max_descs > SACC_WATCH_MAX_DESCS_LIMIT ||
	    ring_kib < 64 || ring_kib > (1u << 20) || seg_kib < 64 ||
	    seg_kib > ring_kib / 4) {
		pr_err("sacc_watch: max_descs must be 1..%u, ring_kib 64..1048576, seg_kib 64..ring_kib/4\n",
		       SACC_WATCH_MAX_DESCS_LIMIT);
		return -EINVAL;
	}
	/* The doorbell record, then at most one segment header per
	 * descriptor and commands cut from seg_kib KiB of segments (a
	 * 40-byte command per 32-byte slot at most). */
	rec_max = sizeof(struct sacc_watch_rec) +
		  max_descs * sizeof(struct sacc_watch_desc) +
		  max_descs * sizeof(struct sacc_watch_seg) +
		  (size_t)seg_kib * 1024 / SACC_SEGMENT_ALIGN *
			  sizeof(struct sacc_watch_desc);
	ring_size = ring_kib * 1024;
	ring = vmalloc(ring_size);
	read_bounce = vmalloc(SACC_WATCH_READ_MIN);
	sample_buf = vmalloc(SW_SAMPLE_MAX);
	sw_scratch_cpu = kcalloc(nr_cpu_ids, sizeof(void *), GFP_KERNEL);
	sw_segbuf_cpu = kcalloc(nr_cpu_ids, sizeof(void *), GFP_KERNEL);
	ret = -ENOMEM;
	if (!ring || !read_bounce || !sample_buf || !sw_scratch_cpu ||
	    !sw_segbuf_cpu)
		goto err;
	for_each_possible_cpu(cpu) {
		sw_scratch_cpu[cpu] = vmalloc(rec_max);
		sw_segbuf_cpu[cpu] = vmalloc(SACC_SEGMENT_MAX);
		if (!sw_scratch_cpu[cpu] || !sw_segbuf_cpu[cpu])
			goto err;
	}
	ret = register_kretprobe(&sw_krp);
	if (ret) {
		pr_err("sacc_watch: kretprobe on vfio_pci_core_mmap: error %d; load vfio-pci first\n",
		       ret);
		goto err;
	}
	ret = misc_register(&sw_misc);
	if (ret) {
		unregister_kretprobe(&sw_krp);
		goto err;
	}
	pr_info("sacc_watch: watching SACC doorbell pages (ring %u KiB, up to %u descriptors a record, %u KiB of segments a doorbell)\n",
		ring_kib, max_descs, seg_kib);
	return 0;
err:
	sw_free_buffers();
	return ret;
}

static void __exit sw_exit(void)
{
	struct sw_proc *p, *n;
	LIST_HEAD(dead);
	int i;

	misc_deregister(&sw_misc);
	/* No new arms; pending ones hold a module reference, so none is
	 * left by the time the module can be removed. */
	unregister_kretprobe(&sw_krp);
	mutex_lock(&sw_lock);
	list_for_each_entry_safe(p, n, &sw_procs, node)
		list_move(&p->node, &dead);
	sw_nprocs = 0;
	mutex_unlock(&sw_lock);
	sw_free_list(&dead);
	for (i = 0; i < SW_MAX_DEVS; i++) {
		if (!sw_devs[i].pdev)
			continue;
		iounmap(sw_devs[i].bar0);
		if (sw_devs[i].bar2)
			iounmap(sw_devs[i].bar2);
		if (sw_devs[i].bar4)
			iounmap(sw_devs[i].bar4);
		pci_dev_put(sw_devs[i].pdev);
	}
	sw_free_buffers();
}

module_init(sw_init);
module_exit(sw_exit);
MODULE_DESCRIPTION("SACC doorbell watchpoint tracer");
MODULE_LICENSE("Dual MIT/GPL");

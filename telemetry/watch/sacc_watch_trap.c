// SPDX-License-Identifier: GPL-2.0
/*
 * sacc_watch_trap.c - the doorbell store has retired and trapped (#DB,
 * interrupts off, the writer stopped): check that the watched address
 * is still the doorbell page, decode the store (store_decode.c: the
 * doorbell page reads 0), find the channel and its new tail, capture
 * the submission from the shadow tail to it (sacc_watch_capture.c) and
 * push the records as one group.
 */
#include "sacc_watch_int.h"

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

void sw_trap(struct perf_event *bp, struct perf_sample_data *data,
	     struct pt_regs *regs)
{
	struct sw_proc *p = bp->overflow_handler_context;
	struct sacc_watch_rec *rec;
	struct iommu_domain *dom;
	struct sw_store st;
	void __iomem *cr;
	u32 off, ch, mode, segs = 0;
	unsigned long flags;
	u64 t;

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
	rec = sw_scratch();
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
	/* What the handler's own work costs (docs/telemetry.md, "Cost"). */
	t = ktime_get_ns() - rec->t_ns;
	atomic64_add(t, &st_work_ns);
	sw_stat_max(&st_work_max_ns, t);
	sw_stat_max(&st_max_ndesc, rec->ndesc);
}

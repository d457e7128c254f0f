// SPDX-License-Identifier: MIT
/*
 * join.c - joins the collected lines into one record per fault, then
 * attribution (attr.c), time order, and the counts of the summary.
 *
 * Join rules (docs/faults.md):
 *  - a kernel DMAR line joins the device fault with the same source id,
 *    page and direction that is nearest in time (each used once);
 *    INTR-REMAP lines join a device write into the interrupt window;
 *  - a vtd_dmar_fault trace line joins, in trace order, the earliest
 *    unjoined device fault with the same source id, page and direction,
 *    else the earliest such kernel-only fault;
 *  - whatever is left becomes a record of its own: nothing is dropped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fl_priv.h"

#define PAGE_MASK (~0xfffull)

static int cmp_jf(const void *a, const void *b)
{
	const struct fl_jfault *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static uint64_t ktime(const struct fl_kline *k)
{
	return k->e.has_time ? k->e.t_ns : UINT64_MAX;
}

static int cmp_k(const void *a, const void *b)
{
	const struct fl_kline *x = a, *y = b;

	if (ktime(x) != ktime(y))
		return ktime(x) < ktime(y) ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_jm(const void *a, const void *b)
{
	const struct fl_jmap *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Device faults sorted by (sid, write, page), in time order within. */
struct fkey {
	uint16_t sid;
	bool write;
	uint64_t page;
	size_t pos; /* index into jf (sorted by time) */
};

static int cmp_fkey(const void *a, const void *b)
{
	const struct fkey *x = a, *y = b;

	if (x->sid != y->sid)
		return x->sid < y->sid ? -1 : 1;
	if (x->write != y->write)
		return x->write < y->write ? -1 : 1;
	if (x->page != y->page)
		return x->page < y->page ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static struct fkey *build_index(struct sacc_faultlog *fl)
{
	struct fkey *keys = calloc(fl->njf ? fl->njf : 1, sizeof(*keys));

	if (!keys)
		return NULL;
	/* A device memory fault (v0.4) joins no IOMMU line: a page no
	 * line can have. */
	for (size_t j = 0; j < fl->njf; j++)
		keys[j] = (struct fkey){ fl->jf[j].sid, fl->jf[j].write,
					 fl_devmem_access(true,
							  fl->jf[j].access) ?
						 UINT64_MAX :
						 fl->jf[j].addr & PAGE_MASK,
					 j };
	qsort(keys, fl->njf, sizeof(*keys), cmp_fkey);
	return keys;
}

/* The group [*lo, *hi) of faults with this source id, direction, page. */
static void group(const struct sacc_faultlog *fl, const struct fkey *keys,
		  uint16_t sid, bool write, uint64_t page, size_t *lo,
		  size_t *hi)
{
	struct fkey want = { sid, write, page, 0 };
	size_t a = 0, b = fl->njf;

	while (a < b) { /* first key >= want */
		size_t mid = a + (b - a) / 2;

		if (cmp_fkey(&keys[mid], &want) < 0)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	while (a < fl->njf && keys[a].sid == sid && keys[a].write == write &&
	       keys[a].page == page)
		a++;
	*hi = a;
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* The unjoined device fault of [lo, hi) nearest to @k in time. */
static long nearest(const struct sacc_faultlog *fl, const struct fkey *keys,
		    size_t lo, size_t hi, const struct fl_kline *k)
{
	size_t a = lo, b = hi, l, r;
	uint64_t t = k->e.t_ns;
	long best = -1;

	if (!k->e.has_time) { /* the earliest one */
		for (size_t i = lo; i < hi; i++)
			if (fl->jf[keys[i].pos].kmatch < 0)
				return (long)keys[i].pos;
		return -1;
	}
	while (a < b) { /* first fault at or after t */
		size_t mid = a + (b - a) / 2;

		if (fl->jf[keys[mid].pos].t_ns < t)
			a = mid + 1;
		else
			b = mid;
	}
	for (l = a; l > lo && fl->jf[keys[l - 1].pos].kmatch >= 0; l--)
		;
	for (r = a; r < hi && fl->jf[keys[r].pos].kmatch >= 0; r++)
		;
	if (l > lo)
		best = (long)keys[l - 1].pos;
	if (r < hi && (best < 0 || absdiff(fl->jf[keys[r].pos].t_ns, t) <
					   absdiff(fl->jf[best].t_ns, t)))
		best = (long)keys[r].pos;
	if (best >= 0 && fl->window &&
	    absdiff(fl->jf[best].t_ns, t) > fl->window)
		return -1;
	return best;
}

static bool in_irq_window(uint64_t a)
{
	return a >= SACC_IRQ_WINDOW_START && a <= SACC_IRQ_WINDOW_END;
}

/* VT-d fault reasons 0x20-0x26 are interrupt remapping faults. */
#define IR_REASON_FIRST	 0x20u
#define IR_REASON_LAST	 0x26u
#define IR_REASON_COMPAT 0x25u /* blocked a compatibility format request */

static bool ir_reason(uint32_t r)
{
	return r >= IR_REASON_FIRST && r <= IR_REASON_LAST;
}

/*
 * Could a write into the interrupt window at @a be the interrupt request
 * a fault with this reason and index describes?  Address bit 4 selects
 * the remappable format, whose IRTE index is bits 19:5 plus bit 2 as bit
 * 15; with SHV (bit 3) the data adds a subhandle we do not know.  A
 * compatibility format request has no index (reason 0x25).
 */
static bool ir_matches(uint64_t a, bool has_reason, uint32_t reason,
		       uint64_t index)
{
	bool compat = has_reason && reason == IR_REASON_COMPAT;

	if (!(a & 0x10))
		return !has_reason || compat;
	if (compat)
		return false;
	if (a & 0x8)
		return true;
	return (((a >> 5) & 0x7fff) | ((a >> 2) & 1) << 15) == index;
}

/* INTR-REMAP lines carry an interrupt index, not the address: the
 * nearest device write into the interrupt window of that source that
 * fits the index, else any. */
static long nearest_intr(const struct sacc_faultlog *fl,
			 const struct fl_kline *k)
{
	for (int strict = 1; strict >= 0; strict--) {
		uint64_t best_dt = UINT64_MAX;
		long best = -1;

		for (size_t j = 0; j < fl->njf; j++) {
			const struct fl_jfault *f = &fl->jf[j];
			uint64_t dt;

			if (f->kmatch >= 0 || f->sid != k->e.sid ||
			    !f->write || !in_irq_window(f->addr) ||
			    (strict && !ir_matches(f->addr, k->e.has_reason,
						   k->e.reason, k->e.addr)))
				continue;
			dt = k->e.has_time ? absdiff(f->t_ns, k->e.t_ns) : 0;
			if ((!fl->window || dt <= fl->window) &&
			    dt < best_dt) {
				best_dt = dt;
				best = (long)j;
			}
		}
		if (best >= 0)
			return best;
	}
	return -1;
}

/* An interrupt remapping fault in the trace: join it like the kernel's
 * INTR-REMAP line, to the earliest fitting device write, else to such a
 * kernel line. */
static void match_qemu_intr(struct sacc_faultlog *fl, struct fl_qline *q)
{
	uint64_t index = q->e.addr >> 48;

	for (size_t j = 0; j < fl->njf; j++) {
		struct fl_jfault *f = &fl->jf[j];

		if (f->qmatch >= 0 || f->sid != q->e.sid || !f->write ||
		    fl_devmem_access(true, f->access) ||
		    !in_irq_window(f->addr) ||
		    !ir_matches(f->addr, true, q->e.reason, index))
			continue;
		q->jmatch = (long)j;
		f->qmatch = q - fl->q;
		return;
	}
	for (size_t k = 0; k < fl->nk; k++) {
		struct fl_kline *kl = &fl->k[k];

		if (kl->jmatch >= 0 || kl->qmatch >= 0 ||
		    (kl->e.kind != SACC_KMSG_INTR_FAULT &&
		     kl->e.kind != SACC_KMSG_INTR_FAULT_HEAD) ||
		    kl->e.sid != q->e.sid || kl->e.addr != index)
			continue;
		kl->qmatch = q - fl->q;
		q->kmatch = (long)k;
		return;
	}
}

static void match_kernel(struct sacc_faultlog *fl, const struct fkey *keys)
{
	for (size_t i = 0; i < fl->nk; i++) { /* in time order */
		struct fl_kline *k = &fl->k[i];
		size_t lo, hi;
		long best;

		if (k->e.kind == SACC_KMSG_INTR_FAULT ||
		    k->e.kind == SACC_KMSG_INTR_FAULT_HEAD) {
			best = nearest_intr(fl, k);
		} else {
			group(fl, keys, k->e.sid, k->e.write,
			      k->e.addr & PAGE_MASK, &lo, &hi);
			best = nearest(fl, keys, lo, hi, k);
		}
		if (best >= 0) {
			k->jmatch = best;
			fl->jf[best].kmatch = (long)i;
		}
	}
}

/* Trace lines join device faults in order, per (sid, write, page). */
static int match_qemu(struct sacc_faultlog *fl, const struct fkey *keys)
{
	size_t *cursor = calloc(fl->njf ? fl->njf : 1, sizeof(*cursor));

	if (!cursor)
		return -ENOMEM;
	for (size_t j = 0; j < fl->njf; j++)
		cursor[j] = j; /* used at each group's first slot */
	for (size_t i = 0; i < fl->nq; i++) {
		struct fl_qline *q = &fl->q[i];
		uint64_t page = q->e.addr & PAGE_MASK;
		size_t lo, hi;

		if (ir_reason(q->e.reason)) {
			match_qemu_intr(fl, q);
			continue;
		}
		group(fl, keys, q->e.sid, q->e.write, page, &lo, &hi);
		if (lo < hi && cursor[lo] < hi) {
			size_t pos = keys[cursor[lo]++].pos;

			q->jmatch = (long)pos;
			fl->jf[pos].qmatch = (long)i;
			continue;
		}
		/* no device fault left: a kernel-only fault, earliest first */
		for (size_t k = 0; k < fl->nk; k++) {
			struct fl_kline *kl = &fl->k[k];

			if (kl->jmatch >= 0 || kl->qmatch >= 0 ||
			    (kl->e.kind != SACC_KMSG_DMA_FAULT &&
			     kl->e.kind != SACC_KMSG_DMA_FAULT_HEAD) ||
			    kl->e.sid != q->e.sid ||
			    kl->e.write != q->e.write ||
			    (kl->e.addr & PAGE_MASK) != page)
				continue;
			kl->qmatch = (long)i;
			q->kmatch = (long)k;
			break;
		}
	}
	free(cursor);
	return 0;
}

static struct sacc_fault *new_rec(struct sacc_faultlog *fl, uint16_t sid)
{
	struct sacc_fault *r;
	struct fl_dev *d;

	if (fl_grow((void **)&fl->rec, &fl->caprec, fl->nrec + 1,
		    sizeof(*fl->rec)))
		return NULL;
	d = fl_dev_get(fl, sid);
	if (!d)
		return NULL;
	r = &fl->rec[fl->nrec++];
	memset(r, 0, sizeof(*r));
	r->sid = sid;
	memcpy(r->bdf, d->c.bdf, sizeof(r->bdf));
	return r;
}

static void set_iova(struct sacc_fault *r, uint64_t a, bool exact)
{
	r->has_iova = true;
	r->iova = a;
	r->iova_exact = exact;
	r->page = a & PAGE_MASK;
}

static void add_device(struct sacc_fault *r, const struct fl_jfault *f)
{
	r->sources |= SACC_FSRC_DEVICE;
	r->t_from = SACC_TSRC_DEVICE;
	r->t_ns = f->t_ns;
	set_iova(r, f->addr, true);
	r->has_access = true;
	r->access = f->access;
	r->has_write = true;
	r->write = f->write;
	r->has_req = true;
	r->req_id = f->req_id;
	r->opcode = f->opcode;
	r->status = f->status;
	r->pid = f->pid;
	r->fatal = f->fatal;
	r->has_fault_count = f->has_fault_count;
	r->fault_count = f->fault_count;
	r->has_length = f->has_length;
	r->length = f->length;
	r->has_chan = f->has_chan;
	r->chan = f->chan;
	r->from_driver = f->driver;
	r->iommu_known = f->iommu_known;
	r->iommu_mapped = f->iommu_mapped;
}

static void add_kernel(struct sacc_fault *r, const struct fl_kline *k)
{
	const struct sacc_kmsg_event *e = &k->e;
	bool intr = e->kind == SACC_KMSG_INTR_FAULT ||
		    e->kind == SACC_KMSG_INTR_FAULT_HEAD;
	const char *text;

	r->sources |= SACC_FSRC_KERNEL;
	r->has_kernel = true;
	r->kernel_intr = intr;
	r->has_kernel_reason = e->has_reason;
	r->kernel_reason = e->reason;
	text = e->reason_text[0] ? e->reason_text :
	       e->has_reason	 ? sacc_dmar_reason_text(e->reason) :
				   NULL;
	snprintf(r->kernel_reason_text, sizeof(r->kernel_reason_text), "%s",
		 text ? text : "");
	r->has_kernel_t = e->has_time;
	r->kernel_t_ns = e->t_ns;
	r->has_pasid = e->has_pasid;
	r->pasid = e->pasid;
	if (intr) {
		r->has_intr_index = true;
		r->intr_index = e->addr;
	}
	if (r->sources & SACC_FSRC_DEVICE)
		return;
	if (e->has_time) {
		r->t_from = SACC_TSRC_KERNEL;
		r->t_ns = e->t_ns;
	}
	if (!intr) {
		set_iova(r, e->addr & PAGE_MASK, false);
		r->has_write = true;
		r->write = e->write;
	}
}

static void add_qemu(struct sacc_faultlog *fl, struct sacc_fault *r,
		     const struct fl_qline *q)
{
	r->sources |= SACC_FSRC_QEMU;
	r->has_qemu = true;
	r->qemu_reason = q->e.reason;
	if (fl->nfrr) {
		r->has_viommu_recorded = true;
		r->viommu_recorded = q->recorded;
	}
	if (ir_reason(q->e.reason)) {
		/* the "address" of an interrupt fault is its index */
		r->has_intr_index = true;
		r->intr_index = q->e.addr >> 48;
	}
	if (r->sources & SACC_FSRC_DEVICE)
		return;
	if (ir_reason(q->e.reason)) {
		r->has_iova = false;
		r->has_write = true;
		r->write = q->e.write;
		return;
	}
	/* the trace has the exact address; the kernel only the page */
	set_iova(r, q->e.addr, true);
	r->has_write = true;
	r->write = q->e.write;
}

/* A trace-only record's guest time, from the nearest joined trace line:
 * host time + (guest time - host time) of that neighbour. */
static bool usable(const struct fl_qline *n)
{
	return n->has_guest_t && n->e.has_time;
}

static void estimate_time(struct sacc_faultlog *fl, struct sacc_fault *r,
			  size_t qi)
{
	const struct fl_qline *q = &fl->q[qi], *n = NULL;
	int64_t off;

	if (!q->e.has_time)
		return;
	for (size_t d = 1; d < fl->nq && !n; d++) {
		if (d > qi && qi + d >= fl->nq)
			break;
		if (d <= qi && usable(&fl->q[qi - d]))
			n = &fl->q[qi - d];
		else if (qi + d < fl->nq && usable(&fl->q[qi + d]))
			n = &fl->q[qi + d];
	}
	if (!n)
		return;
	off = (int64_t)(n->guest_t - n->e.wall_ns);
	if (off < 0 && (uint64_t)-off > q->e.wall_ns)
		return;
	r->t_from = SACC_TSRC_QEMU;
	r->t_ns = q->e.wall_ns + (uint64_t)off;
}

static int build_records(struct sacc_faultlog *fl)
{
	struct sacc_fault *r;

	for (size_t j = 0; j < fl->njf; j++) {
		const struct fl_jfault *f = &fl->jf[j];

		r = new_rec(fl, f->sid);
		if (!r)
			return -ENOMEM;
		add_device(r, f);
		if (f->kmatch >= 0)
			add_kernel(r, &fl->k[f->kmatch]);
		if (f->qmatch >= 0) {
			add_qemu(fl, r, &fl->q[f->qmatch]);
			fl->q[f->qmatch].has_guest_t = true;
			fl->q[f->qmatch].guest_t = f->t_ns;
		}
	}
	for (size_t i = 0; i < fl->nk; i++) {
		const struct fl_kline *k = &fl->k[i];

		if (k->jmatch >= 0)
			continue;
		r = new_rec(fl, k->e.sid);
		if (!r)
			return -ENOMEM;
		add_kernel(r, k);
		if (k->qmatch >= 0) {
			add_qemu(fl, r, &fl->q[k->qmatch]);
			if (k->e.has_time) {
				fl->q[k->qmatch].has_guest_t = true;
				fl->q[k->qmatch].guest_t = k->e.t_ns;
			}
		}
	}
	for (size_t i = 0; i < fl->nq; i++) {
		if (fl->q[i].jmatch >= 0 || fl->q[i].kmatch >= 0)
			continue;
		r = new_rec(fl, fl->q[i].e.sid);
		if (!r)
			return -ENOMEM;
		add_qemu(fl, r, &fl->q[i]);
		estimate_time(fl, r, i);
	}
	return 0;
}

/* Every source id seen gets a device slot before counting. */
static int ensure_devs(struct sacc_faultlog *fl)
{
	for (size_t i = 0; i < fl->nk; i++)
		if (!fl_dev_get(fl, fl->k[i].e.sid))
			return -ENOMEM;
	for (size_t i = 0; i < fl->nq; i++)
		if (!fl_dev_get(fl, fl->q[i].e.sid))
			return -ENOMEM;
	for (size_t i = 0; i < fl->nfrr; i++)
		if (!fl_dev_get(fl, fl->frr_sid[i]))
			return -ENOMEM;
	return 0;
}

/* Sum over reset epochs of the largest FAULT_COUNT seen. */
struct cev {
	uint64_t t;
	size_t seq;
	bool reset;
	uint32_t count;
};

static int cmp_cev(const void *a, const void *b)
{
	const struct cev *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int count_epochs(struct sacc_faultlog *fl, struct fl_dev *d)
{
	struct cev *ev;
	size_t n = 0;
	uint64_t sum = 0, cur = 0;

	ev = calloc(fl->njf + fl->njm + 1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	for (size_t j = 0; j < fl->njf; j++)
		if (fl->jf[j].sid == d->sid && fl->jf[j].has_fault_count)
			ev[n++] = (struct cev){ fl->jf[j].t_ns, fl->jf[j].seq,
						false, fl->jf[j].fault_count };
	for (size_t m = 0; m < fl->njm; m++)
		if (fl->jm[m].sid == d->sid && fl->jm[m].kind == SACC_JEV_RESET)
			ev[n++] = (struct cev){ fl->jm[m].t_ns, fl->jm[m].seq,
						true, 0 };
	qsort(ev, n, sizeof(*ev), cmp_cev);
	for (size_t i = 0; i < n; i++) {
		if (ev[i].reset) {
			sum += cur;
			cur = 0;
		} else if (ev[i].count < cur) {
			sum += cur; /* a reset nobody journaled */
			cur = ev[i].count;
		} else {
			cur = ev[i].count;
		}
	}
	d->c.device_counter = sum + cur;
	free(ev);
	return 0;
}

static uint64_t rec_time(const struct sacc_fault *r)
{
	return r->t_from != SACC_TSRC_NONE ? r->t_ns : UINT64_MAX;
}

/* Records in time order (unknown times last), stable: a bottom-up merge
 * sort of indices, then one permutation. */
static int sort_records(struct sacc_faultlog *fl)
{
	size_t n = fl->nrec, *idx, *tmp;
	struct sacc_fault *rec;

	if (n < 2)
		return 0;
	idx = calloc(n, sizeof(*idx));
	tmp = calloc(n, sizeof(*tmp));
	rec = calloc(n, sizeof(*rec));
	if (!idx || !tmp || !rec) {
		free(idx);
		free(tmp);
		free(rec);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	for (size_t w = 1; w < n; w *= 2) {
		size_t *swap;

		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t a = lo, b = mid, o = lo;

			while (a < mid || b < hi) {
				bool left = b >= hi;

				if (!left && a < mid)
					left = rec_time(&fl->rec[idx[a]]) <=
					       rec_time(&fl->rec[idx[b]]);

				tmp[o++] = left ? idx[a++] : idx[b++];
			}
		}
		swap = idx;
		idx = tmp;
		tmp = swap;
	}
	for (size_t i = 0; i < n; i++)
		rec[i] = fl->rec[idx[i]];
	memcpy(fl->rec, rec, n * sizeof(*rec));
	free(idx);
	free(tmp);
	free(rec);
	return 0;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static int cmp_counts(const void *a, const void *b)
{
	return strcmp(((const struct sacc_faultlog_counts *)a)->bdf,
		      ((const struct sacc_faultlog_counts *)b)->bdf);
}

static const char lost_reason_exact[] =
	"vIOMMU has one fault recording register; faults arriving while it "
	"is pending are dropped (overflow)";
static const char lost_reason_estimate[] =
	"not printed by the guest kernel and not counted as suppressed: its "
	"DMAR ratelimit (a suppressed count is printed only with a later "
	"fault) or the vIOMMU's single fault recording register (overflow); "
	"a QEMU trace (ci/vm --trace 'vtd_*', saccctl faults --trace) tells "
	"them apart";

static int summarise(struct sacc_faultlog *fl)
{
	struct sacc_faultlog_summary *s = &fl->sum;
	struct sacc_faultlog_counts *t = &s->total;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < fl->ndev; i++) {
		struct fl_dev *d = &fl->devs[i];
		char bdf[SACC_BDF_MAX];

		memcpy(bdf, d->c.bdf, sizeof(bdf));
		memset(&d->c, 0, sizeof(d->c));
		memcpy(d->c.bdf, bdf, sizeof(bdf));
		if (count_epochs(fl, d))
			return -ENOMEM;
	}
	for (size_t j = 0; j < fl->njf; j++) {
		struct fl_dev *d = fl_dev_get(fl, fl->jf[j].sid);

		d->c.device_journal++;
		d->c.matched_kernel += fl->jf[j].kmatch >= 0;
		d->c.matched_qemu += fl->jf[j].qmatch >= 0;
	}
	for (size_t i = 0; i < fl->nk; i++)
		fl_dev_get(fl, fl->k[i].e.sid)->c.kernel_printed++;
	for (size_t i = 0; i < fl->nq; i++)
		fl_dev_get(fl, fl->q[i].e.sid)->c.qemu_seen++;
	for (size_t i = 0; i < fl->nfrr; i++)
		fl_dev_get(fl, fl->frr_sid[i])->c.viommu_recorded++;
	for (size_t i = 0; i < fl->nrec; i++) {
		const struct sacc_fault *r = &fl->rec[i];
		struct fl_dev *d = fl_dev_get(fl, r->sid);

		d->c.records++;
		d->c.unattributed += r->attr == SACC_ATTR_UNATTRIBUTED;
		switch (r->unlogged) {
		case SACC_UNLOGGED_NOT_IOMMU:
			s->unreported_not_iommu++;
			break;
		case SACC_UNLOGGED_NO_DMA:
			s->unreported_no_dma++;
			break;
		case SACC_UNLOGGED_DEVMEM:
			s->unreported_devmem++;
			break;
		default:
			continue;
		}
		d->c.unreported++;
	}

	if (fl_grow((void **)&fl->counts, &fl->capcounts, fl->ndev + 1,
		    sizeof(*fl->counts)))
		return -ENOMEM;
	s->have_frr = fl->nfrr > 0;
	for (size_t i = 0; i < fl->ndev; i++) {
		struct sacc_faultlog_counts *c = &fl->devs[i].c;
		uint64_t seen;

		c->journal_rotated = fl->devs[i].rotated_faults;
		s->journal_rotations += fl->devs[i].rotations;
		c->device = max_u64(c->device_journal + c->journal_rotated,
				    c->device_counter);
		c->faults = max_u64(c->device, c->records);
		seen = max_u64(c->viommu_recorded, c->kernel_printed) +
		       c->unreported;
		if (s->have_frr && c->faults > seen)
			s->lost += c->faults - seen;
		t->device += c->device;
		t->device_journal += c->device_journal;
		t->device_counter += c->device_counter;
		t->faults += c->faults;
		t->kernel_printed += c->kernel_printed;
		t->matched_kernel += c->matched_kernel;
		t->qemu_seen += c->qemu_seen;
		t->viommu_recorded += c->viommu_recorded;
		t->matched_qemu += c->matched_qemu;
		t->records += c->records;
		t->unattributed += c->unattributed;
		t->unreported += c->unreported;
		t->journal_rotated += c->journal_rotated;
		fl->counts[i] = *c;
	}
	qsort(fl->counts, fl->ndev, sizeof(*fl->counts), cmp_counts);
	s->devices = fl->counts;
	s->nr_devices = fl->ndev;

	s->kernel_suppressed = fl->suppressed;
	s->kernel_suppressed_lines = fl->suppressed_lines;
	s->drhd_lines = fl->drhd_lines;
	s->overflow_events = fl->overflow_events;
	s->have_qemu = fl->nq || fl->nfrr;
	s->lost_exact = s->have_frr;
	if (!s->have_frr) {
		uint64_t seen = t->kernel_printed + fl->suppressed +
				t->unreported;

		s->lost = t->faults > seen ? t->faults - seen : 0;
	}
	s->lost_reason = !s->lost	 ? ""
			 : s->lost_exact ? lost_reason_exact
					 : lost_reason_estimate;
	s->bad_kmsg = fl->bad_kmsg;
	s->bad_journal = fl->bad_journal;
	s->bad_trace = fl->bad_trace;
	s->kmsg_user_ignored = fl->user_ignored;
	s->kmsg_overruns = fl->overruns;
	s->trace_chunk_lines = fl->trace_chunks;
	fl_summary_text(s);
	return 0;
}

int sacc_faultlog_join(struct sacc_faultlog *fl, struct sacc_err *err)
{
	struct fkey *keys;
	int ret;

	if (!fl)
		return sacc_err_set(err, EINVAL, "NULL fault log");
	if (fl_list_pending(fl))
		goto nomem;
	fl->nrec = 0;
	for (size_t i = 0; i < fl->nk; i++)
		fl->k[i].jmatch = fl->k[i].qmatch = -1;
	for (size_t i = 0; i < fl->njf; i++)
		fl->jf[i].kmatch = fl->jf[i].qmatch = -1;
	for (size_t i = 0; i < fl->nq; i++) {
		fl->q[i].jmatch = fl->q[i].kmatch = -1;
		fl->q[i].has_guest_t = false;
	}
	if (fl->njf)
		qsort(fl->jf, fl->njf, sizeof(*fl->jf), cmp_jf);
	if (fl->nk)
		qsort(fl->k, fl->nk, sizeof(*fl->k), cmp_k);
	if (fl->njm)
		qsort(fl->jm, fl->njm, sizeof(*fl->jm), cmp_jm);

	keys = build_index(fl);
	if (!keys)
		goto nomem;
	match_kernel(fl, keys);
	ret = ensure_devs(fl) || match_qemu(fl, keys) || build_records(fl) ||
	      fl_attribute(fl) || sort_records(fl) || summarise(fl);
	free(keys);
	if (ret)
		goto nomem;
	return (int)(fl->nrec > INT32_MAX ? INT32_MAX : fl->nrec);
nomem:
	ret = sacc_err_set(err, ENOMEM, "out of memory joining the fault log");
	fl->nrec = 0;
	return ret;
}

size_t sacc_faultlog_count(const struct sacc_faultlog *fl)
{
	return fl ? fl->nrec : 0;
}

const struct sacc_fault *sacc_faultlog_get(const struct sacc_faultlog *fl,
					   size_t i)
{
	return fl && i < fl->nrec ? &fl->rec[i] : NULL;
}

void sacc_faultlog_summary(const struct sacc_faultlog *fl,
			   struct sacc_faultlog_summary *sum)
{
	if (!sum)
		return;
	if (!fl) {
		memset(sum, 0, sizeof(*sum));
		return;
	}
	*sum = fl->sum;
}

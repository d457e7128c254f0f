// SPDX-License-Identifier: MIT
/*
 * faultlog.c - the fault log object and its inputs: kernel lines (with
 * the state that joins the pre-4.7 two-line form), journal events and
 * QEMU trace lines, kept as parsed until sacc_faultlog_join() (join.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fl_priv.h"

#define PAGE_MASK (~0xfffull)

struct sacc_faultlog *sacc_faultlog_new(void)
{
	return calloc(1, sizeof(struct sacc_faultlog));
}

void sacc_faultlog_free(struct sacc_faultlog *fl)
{
	if (!fl)
		return;
	free(fl->k);
	free(fl->jf);
	free(fl->jm);
	free(fl->q);
	free(fl->frr_sid);
	free(fl->devs);
	free(fl->rec);
	free(fl->counts);
	free(fl);
}

void sacc_faultlog_set_match_window(struct sacc_faultlog *fl, uint64_t ns)
{
	if (fl)
		fl->window = ns;
}

struct fl_dev *fl_dev_get(struct sacc_faultlog *fl, uint16_t sid)
{
	struct fl_dev *d;

	for (size_t i = 0; i < fl->ndev; i++)
		if (fl->devs[i].sid == sid)
			return &fl->devs[i];
	if (fl_grow((void **)&fl->devs, &fl->capdev, fl->ndev + 1,
		    sizeof(*fl->devs)))
		return NULL;
	d = &fl->devs[fl->ndev++];
	memset(d, 0, sizeof(*d));
	d->sid = sid;
	sacc_bdf_format(0, sid, d->c.bdf, sizeof(d->c.bdf));
	return d;
}

/* ---- kernel lines ---- */

static int commit_kline(struct sacc_faultlog *fl,
			const struct sacc_kmsg_event *e, size_t seq)
{
	struct fl_kline *k;

	if (fl_grow((void **)&fl->k, &fl->capk, fl->nk + 1, sizeof(*fl->k)))
		return -ENOMEM;
	k = &fl->k[fl->nk++];
	memset(k, 0, sizeof(*k));
	k->e = *e;
	k->seq = seq;
	return 0;
}

/* A head line whose reason line never came: keep it as it is. */
static int flush_pending(struct sacc_faultlog *fl)
{
	int ret = 0;

	if (fl->pend_active && !fl->pend_committed)
		ret = commit_kline(fl, &fl->pend, fl->pend_seq);
	fl->pend_active = false;
	fl->pend_committed = false;
	return ret;
}

static int complete_pending(struct sacc_faultlog *fl,
			    const struct sacc_kmsg_event *tail)
{
	struct sacc_kmsg_event *e = &fl->pend;
	int ret = 0;

	e->kind = e->kind == SACC_KMSG_DMA_FAULT_HEAD ? SACC_KMSG_DMA_FAULT :
							SACC_KMSG_INTR_FAULT;
	e->has_reason = true;
	e->reason = tail->reason;
	memcpy(e->reason_text, tail->reason_text, sizeof(e->reason_text));
	if (fl->pend_committed) { /* a join already listed the head */
		for (size_t i = 0; i < fl->nk; i++) {
			if (fl->k[i].seq == fl->pend_seq) {
				fl->k[i].e = *e;
				break;
			}
		}
	} else {
		ret = commit_kline(fl, e, fl->pend_seq);
	}
	fl->pend_active = false;
	fl->pend_committed = false;
	return ret;
}

int fl_list_pending(struct sacc_faultlog *fl)
{
	if (!fl->pend_active || fl->pend_committed)
		return 0;
	if (commit_kline(fl, &fl->pend, fl->pend_seq))
		return -ENOMEM;
	fl->pend_committed = true; /* its reason line may still update it */
	return 0;
}

/*
 * The kernel driver's fault line is the device's fault record, as a
 * libsacc journal's fault event would be: a device fault joined to its
 * DMAR line like any other, without a journal's mappings.
 */
static int add_driver_fault(struct sacc_faultlog *fl,
			    const struct sacc_kmsg_event *e)
{
	struct fl_jfault *f;
	struct fl_dev *d = fl_dev_get(fl, e->sid);

	if (!d || fl_grow((void **)&fl->jf, &fl->capjf, fl->njf + 1,
			  sizeof(*fl->jf)))
		return -ENOMEM;
	d->domain = e->drv.domain;
	sacc_bdf_format(e->drv.domain, e->sid, d->c.bdf, sizeof(d->c.bdf));
	f = &fl->jf[fl->njf++];
	memset(f, 0, sizeof(*f));
	f->t_ns = e->t_ns;
	f->domain = e->drv.domain;
	f->sid = e->sid;
	f->access = (uint8_t)e->drv.access;
	f->write = e->write;
	f->has_fault_count = true;
	f->fault_count = e->drv.fault_count;
	f->has_length = true;
	f->length = e->drv.length;
	f->has_chan = true;
	f->chan = e->drv.chan;
	f->req_id = e->drv.req_id;
	f->opcode = e->drv.opcode;
	f->status = SACC_STS_DMA_FAULT;
	f->addr = e->addr;
	f->seq = fl->seq;
	f->kmatch = f->qmatch = -1;
	f->driver = true;
	f->iommu_known = e->drv.iommu_known;
	f->iommu_mapped = e->drv.iommu_mapped;
	return 1;
}

int sacc_faultlog_add_kmsg_line(struct sacc_faultlog *fl, const char *line)
{
	struct sacc_kmsg_event e;
	int ret;

	if (!fl || !line)
		return -EINVAL;
	ret = sacc_kmsg_parse_line(line, &e);
	if (ret < 0) {
		fl->bad_kmsg++;
		return ret;
	}
	if (ret == 0) {
		if (e.user_forged)
			fl->user_ignored++;
		return 0;
	}
	fl->seq++;
	if (e.kind == SACC_KMSG_REASON_TAIL) {
		if (!fl->pend_active) {
			fl->bad_kmsg++; /* its head line is missing */
			return -EINVAL;
		}
		ret = complete_pending(fl, &e);
		return ret ? ret : 1;
	}
	if (flush_pending(fl))
		return -ENOMEM;
	switch (e.kind) {
	case SACC_KMSG_DMA_FAULT_HEAD:
	case SACC_KMSG_INTR_FAULT_HEAD:
		fl->pend_active = true;
		fl->pend_committed = false;
		fl->pend_seq = fl->seq;
		fl->pend = e;
		return 1;
	case SACC_KMSG_DMA_FAULT:
	case SACC_KMSG_INTR_FAULT:
		return commit_kline(fl, &e, fl->seq) ? -ENOMEM : 1;
	case SACC_KMSG_FAULT_STATUS:
		fl->drhd_lines++;
		if (e.fault_status & SACC_DMA_FSTS_PFO)
			fl->overflow_events++;
		return 1;
	case SACC_KMSG_SUPPRESSED:
		fl->suppressed += e.suppressed;
		fl->suppressed_lines++;
		return 1;
	case SACC_KMSG_DRIVER_FAULT:
		return add_driver_fault(fl, &e);
	default:
		return 0;
	}
}

/* ---- journal lines ---- */

int sacc_faultlog_add_journal_line(struct sacc_faultlog *fl, const char *line)
{
	struct sacc_journal_event *e;
	struct fl_dev *d;
	int ret;

	if (!fl || !line)
		return -EINVAL;
	e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	ret = sacc_journal_parse_line(line, e);
	if (ret == -EINVAL)
		fl->bad_journal++;
	if (ret <= 0)
		goto out;
	fl->seq++;
	d = fl_dev_get(fl, e->sid);
	if (!d) {
		ret = -ENOMEM;
		goto out;
	}
	if (!d->has_journal) {
		d->has_journal = true;
		d->domain = e->domain;
		memcpy(d->c.bdf, e->bdf, sizeof(d->c.bdf));
	}
	if (e->ev == SACC_JEV_RANGES) {
		/* the latest list wins: they describe the same IOMMU */
		if (!d->has_ranges || e->t_ns >= d->ranges_t) {
			d->has_ranges = true;
			d->ranges_t = e->t_ns;
			d->nr_ranges = e->nr_ranges;
			memcpy(d->ranges, e->ranges,
			       e->nr_ranges * sizeof(e->ranges[0]));
		}
	} else if (e->ev == SACC_JEV_ROTATED) {
		/* cumulative: the latest line carries every earlier one */
		if (e->rotated_faults > d->rotated_faults)
			d->rotated_faults = e->rotated_faults;
		if (e->rotations > d->rotations)
			d->rotations = e->rotations;
	} else if (e->ev == SACC_JEV_FAULT) {
		struct fl_jfault *f;

		if (fl_grow((void **)&fl->jf, &fl->capjf, fl->njf + 1,
			    sizeof(*fl->jf))) {
			ret = -ENOMEM;
			goto out;
		}
		f = &fl->jf[fl->njf++];
		memset(f, 0, sizeof(*f));
		f->t_ns = e->t_ns;
		f->pid = e->pid;
		f->domain = e->domain;
		f->sid = e->sid;
		f->access = (uint8_t)e->access;
		f->write = e->write;
		f->fatal = e->fatal;
		f->has_fault_count = e->has_fault_count;
		f->fault_count = e->fault_count;
		f->has_length = e->has_length;
		f->length = e->length;
		f->has_chan = e->has_chan;
		f->chan = e->chan;
		f->req_id = e->req_id;
		f->opcode = e->opcode;
		f->status = e->status;
		f->addr = e->addr;
		f->seq = fl->seq;
	} else {
		struct fl_jmap *m;

		if (fl_grow((void **)&fl->jm, &fl->capjm, fl->njm + 1,
			    sizeof(*fl->jm))) {
			ret = -ENOMEM;
			goto out;
		}
		m = &fl->jm[fl->njm++];
		memset(m, 0, sizeof(*m));
		m->kind = e->ev;
		m->t_ns = e->t_ns;
		m->domain = e->domain;
		m->sid = e->sid;
		m->perm = e->perm;
		m->iova = e->iova;
		m->len = e->len;
		memcpy(m->name, e->name, sizeof(m->name));
		m->seq = fl->seq;
	}
out:
	free(e);
	return ret;
}

/* ---- trace lines ---- */

int sacc_faultlog_add_trace_line(struct sacc_faultlog *fl, const char *line)
{
	struct sacc_trace_event e;
	int ret;

	if (!fl || !line)
		return -EINVAL;
	ret = sacc_trace_parse_line(line, &e);
	if (ret < 0)
		fl->bad_trace++;
	if (ret <= 0)
		return ret;
	fl->seq++;
	if (e.kind == SACC_TRACE_FRR_NEW) {
		if (fl_grow((void **)&fl->frr_sid, &fl->capfrr, fl->nfrr + 1,
			    sizeof(*fl->frr_sid)))
			return -ENOMEM;
		fl->frr_sid[fl->nfrr++] = e.sid;
		/* it records the vtd_dmar_fault just before it */
		for (size_t i = fl->nq, n = 0; i-- > 0 && n < 64; n++) {
			struct fl_qline *q = &fl->q[i];

			if (q->e.sid == e.sid && q->e.write == e.write &&
			    (q->e.addr & PAGE_MASK) == e.addr) {
				if (!q->recorded)
					q->recorded = true;
				break;
			}
		}
		return 1;
	}
	if (fl->nq) {
		struct fl_qline *p = &fl->q[fl->nq - 1];

		/* the next chunk of the same access: the same fault */
		if (p->e.sid == e.sid && p->e.write == e.write &&
		    (p->e.addr & PAGE_MASK) == (e.addr & PAGE_MASK) &&
		    e.addr > p->last_addr && e.addr - p->last_addr <= 8) {
			p->last_addr = e.addr;
			p->lines++;
			fl->trace_chunks++;
			return 1;
		}
	}
	if (fl_grow((void **)&fl->q, &fl->capq, fl->nq + 1, sizeof(*fl->q)))
		return -ENOMEM;
	memset(&fl->q[fl->nq], 0, sizeof(fl->q[0]));
	fl->q[fl->nq].e = e;
	fl->q[fl->nq].last_addr = e.addr;
	fl->q[fl->nq].lines = 1;
	fl->q[fl->nq].seq = fl->seq;
	fl->nq++;
	return 1;
}


// SPDX-License-Identifier: MIT
/*
 * inject_account.c - saccctl inject's "accounted" property.  A scenario
 * reads /dev/kmsg and the journals from its own start on (faultlog
 * sources, so rows do not see each other's faults), joins them into its
 * own fault log, and asks it (sacc_faultlog_tally, _account) whether
 * every fault it caused is a record, logged by the kernel or without a
 * DMAR line for a stated reason.
 */
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "inject.h"

/* The kernel's DMAR fault lines, to show the one a record joined. */
struct dmar_lines {
	char (*msg)[320];
	uint64_t *t;
	unsigned int n, cap;
};

static void note_dmar(void *ctx, enum sacc_faultlog_input kind,
		      const char *line)
{
	struct dmar_lines *d = ctx;
	struct sacc_kmsg_event ev;
	const char *msg = strchr(line, ';');

	if (kind != SACC_FAULTLOG_KMSG ||
	    sacc_kmsg_parse_line(line, &ev) != 1 ||
	    (ev.kind != SACC_KMSG_DMA_FAULT && ev.kind != SACC_KMSG_INTR_FAULT))
		return;
	if (d->n == d->cap) {
		unsigned int cap = d->cap ? 2 * d->cap : 16;
		void *m = realloc(d->msg, cap * sizeof(*d->msg));
		void *t = m ? realloc(d->t, cap * sizeof(*d->t)) : NULL;

		if (m)
			d->msg = m;
		if (!t)
			return;
		d->t = t;
		d->cap = cap;
	}
	snprintf(d->msg[d->n], sizeof(d->msg[0]), "%s", msg ? msg + 1 : line);
	d->t[d->n++] = ev.has_time ? ev.t_ns : 0;
}

void inj_account_start(struct inj *s)
{
	sacc_faultlog_src_open(&s->kmsg, SACC_FAULTLOG_KMSG, NULL,
			       SACC_FAULTLOG_SRC_AT_END, NULL);
	sacc_faultlog_src_open(&s->journals, SACC_FAULTLOG_JOURNAL, NULL,
			       SACC_FAULTLOG_SRC_AT_END, NULL);
}

void inj_account_end(struct inj *s)
{
	sacc_faultlog_src_close(s->kmsg);
	sacc_faultlog_src_close(s->journals);
	s->kmsg = s->journals = NULL;
}

/* An expected fault: this process's, on this device. */
static struct sacc_fault_match expected(const struct inj *s,
					const struct inj_fault *e)
{
	return (struct sacc_fault_match){
	    .bdf = sacc_dev_bdf(s->dev),
	    .pid = (uint32_t)getpid(),
	    .by_req = e->req_id != 0, /* fetch faults carry 0 */
	    .req_lo = e->req_id,
	    .req_hi = e->req_id,
	    .fatal = e->fatal,
	};
}

static struct sacc_fault_match burst(const struct inj *s)
{
	return (struct sacc_fault_match){
	    .pid = (uint32_t)getpid(),
	    .by_req = true,
	    .req_lo = s->burst_lo,
	    .req_hi = s->burst_hi,
	    .fatal = -1,
	};
}

/* The record of @m's first match, or NULL. */
static const struct sacc_fault *first(const struct sacc_faultlog *fl,
				      const struct sacc_fault_match *m,
				      struct sacc_fault_tally *t)
{
	if (sacc_faultlog_tally(fl, m, t) <= 0)
		return NULL;
	return sacc_faultlog_get(fl, (size_t)t->first);
}

/* Every expected fault is a record; *all_logged: nothing to wait for. */
static bool complete(const struct inj *s, const struct sacc_faultlog *fl,
		     bool *all_logged)
{
	struct sacc_fault_tally t;
	struct sacc_fault_match m;
	bool ok = true;

	*all_logged = true;
	for (unsigned int i = 0; i < s->nef; i++) {
		const struct sacc_fault *f;

		m = expected(s, &s->ef[i]);
		f = first(fl, &m, &t);
		ok &= f != NULL;
		/* a device memory fault never gets a DMAR line to wait for */
		*all_logged &=
		    f && (f->has_kernel || f->unlogged == SACC_UNLOGGED_DEVMEM);
	}
	if (s->burst_n) {
		m = burst(s);
		ok &= sacc_faultlog_tally(fl, &m, &t) == (int)s->burst_n;
		*all_logged = false; /* the ratelimit guarantees it */
	}
	return ok;
}

static void keep_record(struct inj *s, const struct sacc_fault *f, size_t n)
{
	s->record = *f;
	s->record_n = n;
	s->has_record = true;
}

/* Why the kernel printed no DMAR line for an IOMMU fault: its ratelimit
 * or the vIOMMU's single fault recording register. */
static bool iommu_unlogged(enum sacc_fault_unlogged u)
{
	return u == SACC_UNLOGGED_DROPPED ||
	       u == SACC_UNLOGGED_VIOMMU_DROPPED ||
	       u == SACC_UNLOGGED_RATELIMITED;
}

/* Is @f the kind of fault @e expects (enum inj_fault_kind)? */
static void check_kind(struct inj *s, const struct inj_fault *e,
		       const struct sacc_fault *f)
{
	const char *u = sacc_fault_unlogged_name(f->unlogged);
	bool devmem = f->attr == SACC_ATTR_DEVMEM;

	if (e->kind == INJ_FAULT_DEVMEM &&
	    !(devmem && !f->has_kernel &&
	      f->unlogged == SACC_UNLOGGED_DEVMEM)) {
		s->accounted = false;
		inj_why(s,
			"req_id %" PRIu32 " should be a device memory fault "
			"(attributed device_memory, no DMAR line): the log "
			"says %s, %s",
			e->req_id, sacc_fault_attr_name(f->attr),
			f->has_kernel ? "with a DMAR line"
				      : (u ? u : "no reason"));
	}
	if (e->kind == INJ_FAULT_IOMMU &&
	    (devmem || !(f->has_kernel || iommu_unlogged(f->unlogged)))) {
		s->accounted = false;
		inj_why(s,
			"req_id %" PRIu32 " should be an IOMMU fault (a DMAR "
			"line, or the kernel's reason for none): the log says "
			"%s, %s",
			e->req_id, sacc_fault_attr_name(f->attr),
			f->has_kernel ? "a DMAR line" : (u ? u : "no reason"));
	}
}

static void check_expected(struct inj *s, const struct sacc_faultlog *fl,
			   const struct dmar_lines *d)
{
	for (unsigned int i = 0; i < s->nef; i++) {
		struct inj_fault *e = &s->ef[i];
		struct sacc_fault_match m = expected(s, e);
		struct sacc_fault_tally t;
		const struct sacc_fault *f = first(fl, &m, &t);

		if (!f) {
			s->accounted = false;
			inj_why(s, "no fault record for req_id %" PRIu32 "%s",
				e->req_id, e->fatal ? " (fatal)" : "");
			continue;
		}
		e->found = true;
		e->logged = f->has_kernel;
		e->addr_ok = f->iova == e->addr && f->access == e->access;
		snprintf(e->attribution, sizeof(e->attribution),
			 "%.16s: %.360s", sacc_fault_attr_name(f->attr),
			 f->attr_text);
		if (f->unlogged)
			snprintf(e->unlogged, sizeof(e->unlogged), "%s: %s",
				 sacc_fault_unlogged_name(f->unlogged),
				 sacc_fault_unlogged_text(f->unlogged));
		if (!e->addr_ok) {
			s->accounted = false;
			inj_why(s,
				"record for req_id %" PRIu32 " says %s at "
				"0x%" PRIx64 ", the spec says %s at 0x%" PRIx64,
				e->req_id, inj_access_name(f->access), f->iova,
				inj_access_name(e->access), e->addr);
		}
		if (f->attr == SACC_ATTR_UNATTRIBUTED) {
			s->accounted = false;
			inj_why(s, "req_id %" PRIu32 " is unattributed: %s",
				e->req_id, f->attr_text);
		}
		if (!f->has_kernel && !f->unlogged) {
			s->accounted = false;
			inj_why(s,
				"req_id %" PRIu32 " has no DMAR line and no "
				"reason",
				e->req_id);
		}
		check_kind(s, e, f);
		if (i)
			continue;
		keep_record(s, f, 0);
		for (unsigned int k = 0; f->has_kernel && k < d->n; k++)
			if (!f->has_kernel_t || d->t[k] == f->kernel_t_ns)
				snprintf(s->dmar_line, sizeof(s->dmar_line),
					 "%s", d->msg[k]);
	}
}

static void check_burst(struct inj *s, const struct sacc_faultlog *fl,
			const struct dmar_lines *d)
{
	struct sacc_fault_match m = burst(s);
	struct sacc_fault_tally t;
	const struct sacc_fault *f = first(fl, &m, &t);

	if (f && !s->has_record)
		keep_record(s, f, (size_t)t.first);
	if (t.found != s->burst_n || t.unaccounted) {
		struct sacc_faultlog_summary sum;

		s->accounted = false;
		inj_why(s,
			"%zu of %" PRIu32 " burst faults are records, %zu "
			"unattributed or unexplained",
			t.found, s->burst_n, t.unaccounted);
		sacc_faultlog_summary(fl, &sum);
		if (t.found < s->burst_n && sum.journal_rotations)
			inj_why(s,
				"the journal was rotated during the burst "
				"(its faults are in <bdf>.jsonl.1 or gone): "
				"raise %s",
				SACC_JOURNAL_MAX_ENV);
	}
	if (!s->dmar_line[0] && d->n)
		snprintf(s->dmar_line, sizeof(s->dmar_line), "%s", d->msg[0]);
}

static void msleep(unsigned int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/*
 * Build this scenario's fault log: its journal lines (every journal in
 * the directory: the isolation peer writes its own) and the kernel's
 * records since it started; wait a little for DMAR lines still on their
 * way (the kernel prints from the fault interrupt), never for the 5 s
 * ratelimit window.
 */
void inj_account(struct inj *s)
{
	struct sacc_faultlog *fl = sacc_faultlog_new();
	uint64_t deadline = now_ns() + 400000000ull;
	struct dmar_lines d = {0};
	struct sacc_faultlog_summary sum;
	bool all_logged = false;
	const char *jwhy = NULL;
	int kfd = sacc_faultlog_src_fd(s->kmsg);

	s->accounted = false;
	if (!fl)
		return (void)inj_why(s, "out of memory building the fault log");
	if (!sacc_dev_journal(s->dev, &jwhy) || jwhy)
		inj_why(s, "fault journal: %s", jwhy);
	for (;;) {
		if (s->kmsg)
			sacc_faultlog_src_read(s->kmsg, fl, note_dmar, &d,
					       NULL);
		if (s->journals)
			sacc_faultlog_src_read(s->journals, fl, NULL, NULL,
					       NULL);
		if (sacc_faultlog_join(fl, NULL) < 0) {
			inj_why(s, "out of memory building the fault log");
			goto out;
		}
		if ((complete(s, fl, &all_logged) && all_logged) ||
		    now_ns() > deadline)
			break;
		if (kfd >= 0)
			poll(&(struct pollfd){.fd = kfd, .events = POLLIN}, 1,
			     50);
		else
			msleep(50);
	}

	sacc_faultlog_summary(fl, &sum);
	snprintf(s->summary, sizeof(s->summary), "%s", sum.text);
	s->accounted = true;
	check_expected(s, fl, &d);
	if (s->burst_n)
		check_burst(s, fl, &d);
	/* device = logged + suppressed + never reported + lost */
	if (!sacc_faultlog_account(fl, sacc_dev_bdf(s->dev), &s->acc)) {
		snprintf(s->acc_reason, sizeof(s->acc_reason), "%s",
			 s->acc.lost_reason);
		if (s->acc.unattributed) {
			s->accounted = false;
			inj_why(s, "%" PRIu64 " unattributed records",
				s->acc.unattributed);
		}
	}
	if (s->verbose)
		inj_report_accounting(s);
out:
	sacc_faultlog_free(fl);
	free(d.msg);
	free(d.t);
}

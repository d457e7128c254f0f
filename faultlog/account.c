// SPDX-License-Identifier: MIT
/*
 * account.c - accounting queries over a joined fault log: did the
 * device faults a caller caused become records, and how is each one
 * accounted for (a DMAR line, or a stated reason for none); and one
 * device's faults added up the way the summary does (sacc_faultlog.h,
 * section 3).
 */
#include <errno.h>
#include <string.h>

#include "fl_priv.h"

static bool matches(const struct sacc_fault *f, const struct sacc_fault_match *m)
{
	if (!(f->sources & SACC_FSRC_DEVICE))
		return false;
	if (m->bdf && strcmp(f->bdf, m->bdf))
		return false;
	if (m->pid && f->pid != m->pid)
		return false;
	if (m->fatal >= 0 && f->fatal != (m->fatal > 0))
		return false;
	return !m->by_req ||
	       (f->has_req && f->req_id >= m->req_lo && f->req_id <= m->req_hi);
}

int sacc_faultlog_tally(const struct sacc_faultlog *fl,
			const struct sacc_fault_match *m,
			struct sacc_fault_tally *t)
{
	if (!fl || !m || !t)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	t->first = -1;
	for (size_t i = 0; i < fl->nrec; i++) {
		const struct sacc_fault *f = &fl->rec[i];

		if (!matches(f, m))
			continue;
		if (t->first < 0)
			t->first = (long)i;
		t->found++;
		t->logged += f->has_kernel;
		t->unaccounted += f->attr == SACC_ATTR_UNATTRIBUTED ||
				  (!f->has_kernel && !f->unlogged);
	}
	return t->found > INT32_MAX ? INT32_MAX : (int)t->found;
}

int sacc_faultlog_account(const struct sacc_faultlog *fl, const char *bdf,
			  struct sacc_faultlog_account *a)
{
	const struct sacc_faultlog_summary *s;
	const struct sacc_faultlog_counts *c = NULL;

	if (!fl || !bdf || !a)
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	a->lost_reason = "";
	s = &fl->sum;
	for (size_t i = 0; i < s->nr_devices && !c; i++)
		if (!strcmp(s->devices[i].bdf, bdf))
			c = &s->devices[i];
	if (!c)
		return -ENOENT;
	a->faults = c->faults;
	a->logged = c->matched_kernel;
	a->not_logged = c->faults - c->matched_kernel;
	a->suppressed = s->kernel_suppressed < a->not_logged
				? s->kernel_suppressed
				: a->not_logged;
	a->unreported = c->unreported;
	a->unattributed = c->unattributed;
	a->lost = s->lost;
	a->lost_exact = s->lost_exact;
	a->lost_reason = s->lost_reason ? s->lost_reason : "";
	return 0;
}

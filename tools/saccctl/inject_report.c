// SPDX-License-Identifier: MIT
/*
 * inject_report.c - saccctl inject's output: the scorecard table (one
 * row per scenario), --json (one object per scenario and line), and the
 * --verbose narrative of a scenario's accounting.
 */
#include <inttypes.h>
#include <string.h>

#include "inject.h"

#define ROW "%-23s %-8s %-8s %-25s %-9s %-7s %s\n"

void inj_report_start(unsigned int nrun, const char *const *bdf,
		      unsigned int nbdf, bool json, bool verbose)
{
	if (json)
		return;
	printf("saccctl inject: %u scenario%s on %s%s%s\n\n", nrun,
	       nrun == 1 ? "" : "s", bdf[0], nbdf > 1 ? " and " : "",
	       nbdf > 1 ? bdf[1] : "");
	if (!verbose)
		printf(ROW, "SCENARIO", "BLOCKED", "MEMORY", "ACCOUNTED",
		       "RECOVERED", "RESULT", "WHAT HAPPENED");
}

/* ---- --json ---- */

static struct json_object *descriptors_json(const struct inj *s)
{
	struct json_object *a = jarr();

	for (unsigned int i = 0; i < s->ndesc; i++) {
		const struct inj_desc *d = &s->desc[i];
		struct json_object *o = jobj();

		jset_u64(o, "req_id", d->d.req_id);
		jset_u64(o, "opcode", d->d.opcode);
		jset_str(o, "op", sacc_opcode_str(d->d.opcode));
		jset_hex(o, "src", d->d.src);
		jset_hex(o, "dst", d->d.dst);
		jset_u64(o, "length", d->d.length);
		jset_str(o, "src_is", d->src_what);
		jset_str(o, "dst_is", d->dst_what);
		jset_int(o, "status", d->status);
		if (d->status >= 0)
			jset_u64(o, "result_len", d->result_len);
		jset_str(o, "status_name",
			 d->status < 0
			     ? NULL
			     : sacc_status_str((unsigned int)d->status));
		jpush(a, o);
	}
	return a;
}

static struct json_object *faults_json(const struct inj *s)
{
	struct json_object *a = jarr();

	for (unsigned int i = 0; i < s->nef; i++) {
		const struct inj_fault *e = &s->ef[i];
		struct json_object *o = jobj();

		jset_u64(o, "req_id", e->req_id);
		jset_hex(o, "addr", e->addr);
		jset_str(o, "access", inj_access_name(e->access));
		jset_bool(o, "fatal", e->fatal);
		jset_str(o, "kind",
			 e->kind == INJ_FAULT_DEVMEM  ? "device_memory"
			 : e->kind == INJ_FAULT_IOMMU ? "iommu"
						      : NULL);
		jset_bool(o, "in_log", e->found);
		jset_bool(o, "logged", e->logged);
		jset_bool(o, "record_matches", e->addr_ok);
		jset_str(o, "attribution", e->found ? e->attribution : NULL);
		jset_str(o, "unlogged", e->unlogged[0] ? e->unlogged : NULL);
		jpush(a, o);
	}
	return a;
}

static struct json_object *accounting_json(const struct inj *s)
{
	struct json_object *o = jobj();

	jset_u64(o, "faults", s->acc.faults);
	jset_u64(o, "logged", s->acc.logged);
	jset_u64(o, "suppressed", s->acc.suppressed);
	jset_u64(o, "not_logged", s->acc.not_logged);
	jset_u64(o, "lost", s->acc.lost);
	jset_str(o, "lost_reason", s->acc_reason[0] ? s->acc_reason : NULL);
	jset_str(o, "summary", s->summary[0] ? s->summary : NULL);
	return o;
}

static struct json_object *canaries_json(const struct inj *s)
{
	struct json_object *a = jarr();

	for (unsigned int i = 0; i < s->ncan; i++) {
		struct json_object *o = jobj();

		jset_str(o, "name", s->can[i].name);
		jset_u64(o, "bytes", s->can[i].len);
		jset_bool(o, "intact", s->can[i].intact);
		jpush(a, o);
	}
	return a;
}

static void print_json(const struct inj *s)
{
	struct json_object *o = jobj(), *d = jobj();

	jset_str(o, "name", s->sc->name);
	jset_str(o, "what", s->sc->what);
	jset_bool(o, "skipped", s->skipped);
	jset_bool(o, "blocked", s->blocked);
	jset_bool(o, "memory_intact", s->memory_intact);
	jset_bool(o, "accounted", s->accounted);
	jset_bool(o, "recovered", s->recovered);
	jset_bool(o, "expected_blocked", s->expect_blocked);
	jset_bool(o, "expected_exposure", s->expect_exposure);
	jset_bool(o, "exposed", s->exposed);
	jset_bool(o, "pass", inj_passed(s));
	jset_str(o, "error", s->error ? s->why : NULL);
	jset(o, "details", d);

	jset_str(d, "bdf", s->bdf[0]);
	if (s->sc->devices > 1)
		jset_str(d, "peer_bdf", s->bdf[1]);
	jset_str(d, "skip_reason", s->skipped ? s->skip_reason : NULL);
	jset_str(d, "why", !s->error && s->why[0] ? s->why : NULL);
	jset_str(d, "note", s->note[0] ? s->note : NULL);
	jset(d, "descriptors", descriptors_json(s));
	if (s->burst_n)
		jset_u64(d, "burst", s->burst_n);
	jset_str(d, "device", s->device_state[0] ? s->device_state : NULL);
	jset(d, "faults", faults_json(s));
	if (s->has_record)
		jset(d, "fault_record",
		     sacc_fault_json(&s->record, s->record_n));
	else
		jset_null(d, "fault_record");
	jset_str(d, "dmar_line", s->dmar_line[0] ? s->dmar_line : NULL);
	jset(d, "accounting", accounting_json(s));
	jset(d, "canaries", canaries_json(s));
	jset_str(d, "recovery", s->recovery[0] ? s->recovery : NULL);
	jprint(o, JSON_COMPACT);
}

/* ---- the table ---- */

/* Why a fault has no DMAR line, in a few words. */
static const char *unlogged_short(const char *u)
{
	static const struct {
		const char *name, *text;
	} m[] = {
	    {"dropped", "ratelimit/FRR"},
	    {"viommu_dropped", "vIOMMU dropped"},
	    {"ratelimited", "ratelimited"},
	    {"not_iommu", "no IOMMU fault"},
	    {"no_dma", "no DMA issued"},
	    {"device_memory", "device memory"},
	};

	for (size_t i = 0; u && i < sizeof(m) / sizeof(m[0]); i++)
		if (!strncmp(u, m[i].name, strlen(m[i].name)) &&
		    u[strlen(m[i].name)] == ':')
			return m[i].text;
	return "see details";
}

/* The ACCOUNTED cell: how the faults are in the log. */
static void accounted_cell(const struct inj *s, char *buf, size_t len)
{
	unsigned int logged = 0, unlogged = 0;
	const char *why = NULL;
	bool one_why = true; /* every unlogged fault has the same reason */

	if (!s->accounted) {
		snprintf(buf, len, "NO");
		return;
	}
	if (s->burst_n) {
		snprintf(buf, len, "%" PRIu64 " logged, %" PRIu64 " counted",
			 s->acc.logged, s->acc.not_logged);
		return;
	}
	for (unsigned int i = 0; i < s->nef; i++) {
		if (s->ef[i].logged) {
			logged++;
		} else {
			unlogged++;
			one_why &= !why || !strcmp(why, s->ef[i].unlogged);
			why = s->ef[i].unlogged;
		}
	}
	if (!s->nef)
		snprintf(buf, len, "no fault to log");
	else if (!unlogged)
		snprintf(buf, len, "logged (DMAR line)");
	else if (!logged && one_why)
		snprintf(buf, len, "counted: %s", unlogged_short(why));
	else
		snprintf(buf, len, "%u logged, %u counted", logged, unlogged);
}

static void print_row(const struct inj *s)
{
	char acc[40];
	const char *blocked, *mem, *rec, *res;

	if (s->skipped) {
		printf(ROW, s->sc->name, "-", "-", "-", "-", "skip",
		       s->skip_reason);
		return;
	}
	accounted_cell(s, acc, sizeof(acc));
	if (s->error) {
		printf(ROW, s->sc->name, "?", "?", "?", "?", "ERROR", s->why);
		return;
	}
	blocked = s->blocked ? "yes" : s->expect_blocked ? "NO" : "no*";
	mem = s->memory_intact ? "intact" : "CHANGED";
	rec = s->recovered ? "yes" : "NO";
	res = inj_passed(s) ? "pass" : "FAIL";
	printf(ROW, s->sc->name, blocked, mem, acc, rec, res,
	       !inj_passed(s) && s->why[0] ? s->why : s->note);
}

/* --verbose: the end of a scenario's story. */
static void print_verdict(const struct inj *s)
{
	char acc[40];

	if (s->skipped || s->error) {
		printf("  => %s\n\n", s->skipped ? "skipped" : "ERROR");
	} else {
		accounted_cell(s, acc, sizeof(acc));
		printf("  => %s: blocked %s, memory %s, accounted: %s, "
		       "recovered %s\n\n",
		       inj_passed(s) ? "pass" : "FAIL",
		       s->blocked	   ? "yes"
		       : s->expect_blocked ? "NO"
					   : "no (expected exposure)",
		       s->memory_intact ? "intact" : "CHANGED", acc,
		       s->recovered ? "yes" : "NO");
	}
	if (!inj_passed(s) && !s->skipped)
		printf("  why: %s\n\n", s->why);
}

void inj_report(const struct inj *s, bool json, bool verbose)
{
	if (json)
		print_json(s);
	else if (verbose)
		print_verdict(s);
	else
		print_row(s);
}

void inj_report_accounting(struct inj *s)
{
	char row[768], rec[4096];

	if (s->dmar_line[0])
		inj_say(s, "kernel: %s", s->dmar_line);
	else if (s->nef || s->burst_n)
		inj_say(s, "kernel: no DMAR line for it (%s)",
			s->nef && s->ef[0].unlogged[0] ? s->ef[0].unlogged
						       : "see the summary");
	if (s->has_record &&
	    sacc_fault_format_row(&s->record, row, sizeof(row)) > 0) {
		inj_say(s, "fault record (as saccctl faults shows it):");
		printf("  ");
		sacc_faultlog_print_header(stdout);
		inj_say(s, "%s", row);
		if (sacc_fault_format_json(&s->record, s->record_n, rec,
					   sizeof(rec)) > 0)
			inj_say(s, "as JSON: %s", rec);
	}
	for (unsigned int i = 0; i < s->nef; i++)
		if (s->ef[i].found)
			inj_say(s, "attribution (req_id %" PRIu32 "): %s",
				s->ef[i].req_id, s->ef[i].attribution);
	inj_say(s, "fault log: %s", s->summary);
}

void inj_report_end(const struct scenario *const *run, unsigned int nrun,
		    unsigned int pass, unsigned int nfail, unsigned int skip,
		    bool json, bool verbose)
{
	for (unsigned int i = 0; !json && !verbose && i < nrun; i++) {
		if (run[i]->expect_exposure ||
		    !strcmp(run[i]->name, "writeonly-read")) {
			printf("\nno*: an exposure the IOMMU cannot stop on "
			       "this platform, shown on purpose "
			       "(docs/threat-model.md)\n");
			break;
		}
	}
	fprintf(json ? stderr : stdout,
		"%s%u scenario%s: %u passed, %u failed, %u skipped\n",
		json ? "saccctl inject: " : "\n", nrun, nrun == 1 ? "" : "s",
		pass, nfail, skip);
}

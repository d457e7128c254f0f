// SPDX-License-Identifier: MIT
/*
 * inject.c - saccctl inject: run the fault-injection catalogue
 * (scenarios.c) and score every scenario on four properties:
 *
 *   blocked        the device reported status 2 for the bad descriptor,
 *                  or stopped with the fatal ring error;
 *   memory_intact  every canary (the target, the memory behind guard
 *                  pages, neighbouring buffers, memory the device has no
 *                  mapping for) is byte-for-byte unchanged;
 *   accounted      every fault the scenario caused is a record in the
 *                  fault log joined from the device's journal and
 *                  /dev/kmsg: logged by the kernel, or without a DMAR
 *                  line for a stated reason (never reported, ratelimited
 *                  or lost: docs/faults.md);
 *   recovered      a verified MEMCPY works afterwards (ring faults:
 *                  after sacc_reset()).
 *
 * Each scenario gets a freshly opened device and its own fault log
 * (journal lines and kernel records from its start on), so rows do not
 * see each other's faults.  Bad descriptors go through libsacc's UNSAFE
 * test hooks (sacc_submit_raw, sacc_dev_dma, ...), never sacc_submit.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "inject.h"
#include "sacc_faultlog.h"

void usage_inject(FILE *f)
{
	const struct scenario *sc;

	fputs("usage: saccctl inject SCENARIO... | --all [--json] [--verbose] "
	      "[BDF...]\n"
	      "       saccctl inject --list\n\n"
	      "Attack the device's DMA on purpose, through libsacc's unsafe "
	      "test hooks,\n"
	      "and check that the IOMMU stops it: per scenario, blocked "
	      "(status 2 or\n"
	      "the fatal ring error), memory intact (canary pages compared "
	      "byte for\n"
	      "byte), accounted (in the fault log joined from the device "
	      "journal and\n"
	      "/dev/kmsg, or counted as not logged with the reason) and "
	      "recovered (a\n"
	      "verified MEMCPY afterwards). Without BDF it uses the SACC "
	      "devices bound\n"
	      "to vfio-pci; 'isolation' needs two and is skipped with one.\n\n"
	      "  --all       every scenario, in the order below\n"
	      "  --json      one JSON object per scenario and line (name, "
	      "skipped,\n"
	      "              blocked, memory_intact, accounted, recovered, "
	      "pass,\n"
	      "              expected_exposure, details); the tally goes to "
	      "stderr\n"
	      "  --verbose   show each scenario end to end: descriptor, "
	      "device status,\n"
	      "              DMAR line, attributed fault record, canaries\n"
	      "  --list      list the scenarios\n"
	      "  -h, --help\n\n"
	      "Scenarios:\n",
	      f);
	for (sc = inj_scenarios; sc->name; sc++)
		fprintf(f, "  %-22s %s\n", sc->name, sc->what);
	fputs("\nExit status: 0 if every scenario that ran has every property "
	      "it should\n"
	      "(subpage-naive: the exposure it demonstrates), 1 if not, 2 "
	      "for bad\n"
	      "arguments. Writes to the fault journal ($SACC_JOURNAL_DIR, "
	      "default\n" SACC_JOURNAL_DIR_DEFAULT "); see 'saccctl faults'.\n",
	      f);
}

/* ---- small helpers ---- */

void inj_say(struct inj *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->verbose)
		return;
	fputs("  ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

int inj_fail(struct inj *s, const char *fmt, ...)
{
	va_list ap;

	s->error = true;
	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	inj_say(s, "ERROR: %s", s->why);
	return -1;
}

/* Append "; msg" to s->why (what a failing property is about). */
void inj_why(struct inj *s, const char *fmt, ...)
{
	size_t n = strlen(s->why);
	va_list ap;

	if (n && n < sizeof(s->why) - 2) {
		memcpy(s->why + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(s->why + n, sizeof(s->why) - n, fmt, ap);
	va_end(ap);
}

static void msleep(unsigned int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

int inj_open(struct inj *s, unsigned int i, struct sacc_dev **out)
{
	struct sacc_open_opts o = {.sq_entries = s->sc->sq_entries};

	if (sacc_open(s->bdf[i], &o, out))
		return inj_fail(s, "%s", sacc_errmsg(NULL));
	return 0;
}

int inj_canary(struct inj *s, const char *name, const void *va, size_t len)
{
	struct inj_canary *c;

	if (s->ncan == INJ_MAX_CANARY)
		return inj_fail(s, "too many canaries");
	c = &s->can[s->ncan];
	c->copy = malloc(len);
	if (!c->copy)
		return inj_fail(s, "out of memory");
	memcpy(c->copy, va, len);
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->va = va;
	c->len = len;
	s->ncan++;
	return 0;
}

int inj_buf(struct inj *s, size_t len, enum sacc_dma_dir dir, const char *name,
	    uint64_t seed, bool canary, struct sacc_buf **out)
{
	if (sacc_buf_alloc(s->dev, len, dir, name, out))
		return inj_fail(s, "%s", sacc_errmsg(s->dev));
	fill_pattern(sacc_buf_va(*out), len, seed);
	if (canary)
		return inj_canary(s, name, sacc_buf_va(*out), len);
	return 0;
}

void *inj_plain(struct inj *s, size_t len, const char *name, uint64_t seed)
{
	void *p;

	if (s->nplain == INJ_MAX_PLAIN) {
		inj_fail(s, "too many plain regions");
		return NULL;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED) {
		inj_fail(s, "mmap of %zu bytes: %s", len, strerror(errno));
		return NULL;
	}
	s->plain[s->nplain] = p;
	s->plain_len[s->nplain++] = len;
	fill_pattern(p, len, seed);
	if (name && inj_canary(s, name, p, len))
		return NULL;
	return p;
}

void inj_describe_iova(struct sacc_dev *dev, uint64_t iova, char *buf,
		       size_t len)
{
	struct sacc_iova_lookup lk;

	if (!dev || sacc_dma_lookup(sacc_dev_dma(dev), iova, 0, &lk)) {
		snprintf(buf, len, "?");
		return;
	}
	sacc_iova_lookup_format(&lk, buf, len);
}

static const char *access_name(uint32_t a)
{
	const char *n = sacc_fault_access_name(a & SACC_FAULT_ACCESS_MASK);

	return n ? n : "?";
}

int inj_submit(struct inj *s, const struct sacc_desc *d, const char *src_what,
	       const char *dst_what)
{
	struct inj_desc *x;
	int id;

	if (s->ndesc == INJ_MAX_DESC)
		return inj_fail(s, "too many descriptors");
	id = sacc_submit_raw(s->dev, d);
	if (id < 0)
		return inj_fail(s, "sacc_submit_raw: %s", sacc_errmsg(s->dev));
	x = &s->desc[s->ndesc++];
	x->d = *d;
	x->d.req_id = (uint32_t)id;
	x->status = -1;
	snprintf(x->src_what, sizeof(x->src_what), "%s", src_what);
	snprintf(x->dst_what, sizeof(x->dst_what), "%s", dst_what);
	inj_say(s,
		"descriptor: %s src 0x%" PRIx64 " (%s) -> dst 0x%" PRIx64
		" (%s), %" PRIu32 " bytes, req_id %d",
		sacc_opcode_str(d->opcode), d->src, src_what, d->dst, dst_what,
		d->length, id);
	return id;
}

int inj_reap(struct inj *s, int timeout_ms)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;
	struct sacc_result r[64];
	unsigned int want = 0, got = 0;

	for (unsigned int i = 0; i < s->ndesc; i++)
		want += s->desc[i].status < 0;
	while (got < want) {
		int n = sacc_poll(s->dev, r, 64);

		if (n < 0)
			return inj_fail(s, "sacc_poll: %s",
					sacc_errmsg(s->dev));
		for (int k = 0; k < n; k++) {
			for (unsigned int i = 0; i < s->ndesc; i++)
				if (s->desc[i].d.req_id == r[k].req_id)
					s->desc[i].status = r[k].status;
		}
		got += (unsigned int)n;
		if (!n && now_ns() > deadline)
			return inj_fail(s,
					"%u of %u completions missing after "
					"%d ms (%s)",
					want - got, want, timeout_ms,
					sacc_check(s->dev)
					    ? sacc_errmsg(s->dev)
					    : "device says it is ready");
		if (!n)
			msleep(1);
	}
	for (unsigned int i = 0; i < s->ndesc; i++)
		inj_say(s, "completion: req_id %" PRIu32 " status %d (%s)",
			s->desc[i].d.req_id, s->desc[i].status,
			sacc_status_str((unsigned int)s->desc[i].status));
	return 0;
}

int inj_wait_stopped(struct inj *s, int timeout_ms)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;

	while (!sacc_check(s->dev)) {
		if (now_ns() > deadline)
			return 0;
		msleep(1);
	}
	inj_say(s, "device stopped: %s", sacc_errmsg(s->dev));
	return 1;
}

void inj_expect(struct inj *s, uint32_t req_id, uint64_t addr, uint32_t access,
		bool fatal)
{
	struct inj_fault *f;

	if (s->nef == INJ_MAX_FAULT)
		return;
	f = &s->ef[s->nef++];
	memset(f, 0, sizeof(*f));
	f->req_id = req_id;
	f->addr = addr;
	f->access = access;
	f->fatal = fatal;
}

void inj_device_state(struct inj *s, struct sacc_dev *dev)
{
	uint32_t st = 0, err = 0, info = 0, req = 0, cnt = 0, lo = 0, hi = 0;

	sacc_reg_read(dev, SACC_REG_STATUS, &st);
	sacc_reg_read(dev, SACC_REG_ERR_CODE, &err);
	sacc_reg_read(dev, SACC_REG_FAULT_ADDR, &lo);
	sacc_reg_read(dev, SACC_REG_FAULT_ADDR + 4, &hi);
	sacc_reg_read(dev, SACC_REG_FAULT_INFO, &info);
	sacc_reg_read(dev, SACC_REG_FAULT_REQ_ID, &req);
	sacc_reg_read(dev, SACC_REG_FAULT_COUNT, &cnt);
	snprintf(s->device_state, sizeof(s->device_state),
		 "STATUS 0x%x (%s%s), ERR_CODE %u (%s), FAULT_ADDR 0x%" PRIx64
		 ", FAULT_INFO 0x%x (%s%s), FAULT_REQ_ID %u, FAULT_COUNT %u",
		 st, st & SACC_STATUS_READY ? "ready" : "not ready",
		 st & SACC_STATUS_ERROR ? ", ERROR" : "", err,
		 sacc_err_code_str(err), (uint64_t)hi << 32 | lo, info,
		 access_name(info), info & SACC_FAULT_IS_WRITE ? ", write" : "",
		 req, cnt);
	inj_say(s, "device: %s", s->device_state);
}

int inj_memcpy_ok(struct inj *s, struct sacc_dev *dev, size_t len, char *what,
		  size_t what_len)
{
	struct sacc_buf *src = NULL, *dst = NULL;
	struct sacc_op op = {.opcode = SACC_OP_MEMCPY, .len = (uint32_t)len};
	struct sacc_result r;
	uint64_t deadline;
	int ret = -1, n = 0;

	if (sacc_buf_alloc(dev, len, SACC_DMA_TO_DEVICE, "recovery src",
			   &src) ||
	    sacc_buf_alloc(dev, len, SACC_DMA_FROM_DEVICE, "recovery dst",
			   &dst)) {
		snprintf(what, what_len, "%s", sacc_errmsg(dev));
		goto out;
	}
	fill_pattern(sacc_buf_va(src), len, 0x5ecc);
	memset(sacc_buf_va(dst), 0xa5, len);
	op.src = src;
	op.dst = dst;
	if (sacc_submit(dev, &op, 1) != 1) {
		snprintf(what, what_len, "memcpy not submitted: %s",
			 sacc_errmsg(dev));
		goto out;
	}
	deadline = now_ns() + 5000000000ull;
	while ((n = sacc_poll(dev, &r, 1)) == 0 && now_ns() < deadline)
		msleep(1);
	if (n != 1) {
		snprintf(what, what_len, "memcpy did not complete: %s",
			 n < 0 ? sacc_errmsg(dev) : "timed out after 5 s");
		goto out;
	}
	if (r.status != SACC_STS_OK) {
		snprintf(what, what_len, "memcpy completed with status %u (%s)",
			 r.status, sacc_status_str(r.status));
		goto out;
	}
	if (memcmp(sacc_buf_va(src), sacc_buf_va(dst), len)) {
		snprintf(what, what_len,
			 "memcpy reported ok but the bytes "
			 "differ");
		goto out;
	}
	snprintf(what, what_len, "memcpy of %zu bytes verified byte for byte",
		 len);
	ret = 0;
out:
	sacc_buf_free(src);
	sacc_buf_free(dst);
	return ret;
}

/* ---- the harness's own checks ---- */

static void check_canaries(struct inj *s)
{
	s->memory_intact = true;
	for (unsigned int i = 0; i < s->ncan; i++) {
		struct inj_canary *c = &s->can[i];

		c->intact = !memcmp(c->va, c->copy, c->len);
		if (!c->intact) {
			for (c->diff_at = 0;
			     c->diff_at < c->len &&
			     c->va[c->diff_at] == c->copy[c->diff_at];
			     c->diff_at++)
				;
			s->memory_intact = false;
			inj_why(s,
				"canary '%s' changed at byte %zu (0x%02x, was "
				"0x%02x)",
				c->name, c->diff_at, c->va[c->diff_at],
				c->copy[c->diff_at]);
		}
		inj_say(s,
			"canary '%s' (%zu bytes, first bytes %02x %02x %02x "
			"%02x): %s",
			c->name, c->len, c->va[0], c->va[1], c->va[2], c->va[3],
			c->intact ? "unchanged, byte for byte" : "CHANGED");
	}
	if (s->mem_bad)
		s->memory_intact = false;
	if (s->peer && !s->peer_intact) {
		s->memory_intact = false;
		inj_why(s, "peer: %s", s->peer_msg);
	}
}

/* Collects the lines of a scenario's fault log. */
struct acc_lines {
	struct inj *s;
	struct sacc_faultlog *fl;
	char (*dmar)[320]; /* raw DMAR fault lines seen */
	uint64_t *dmar_t;
	unsigned int ndmar, capdmar;
	char **kmsg; /* every kernel line since the start */
	unsigned int nkmsg, capkmsg;
};

static void acc_journal_line(void *ctx, const char *line)
{
	struct acc_lines *a = ctx;
	struct sacc_journal_event ev;

	/* this scenario's lines only: written since it started */
	if (sacc_journal_parse_line(line, &ev) != 1 || ev.t_ns < a->s->t0)
		return;
	sacc_faultlog_add_journal_line(a->fl, line);
}

static void acc_kmsg_line(void *ctx, const char *line)
{
	struct acc_lines *a = ctx;
	struct sacc_kmsg_event ev;
	char **k;

	if (a->nkmsg == a->capkmsg) {
		unsigned int cap = a->capkmsg ? 2 * a->capkmsg : 64;

		k = realloc(a->kmsg, cap * sizeof(*k));
		if (!k)
			return;
		a->kmsg = k;
		a->capkmsg = cap;
	}
	a->kmsg[a->nkmsg] = strdup(line);
	if (a->kmsg[a->nkmsg])
		a->nkmsg++;
	if (sacc_kmsg_parse_line(line, &ev) != 1 ||
	    (ev.kind != SACC_KMSG_DMA_FAULT && ev.kind != SACC_KMSG_INTR_FAULT))
		return;
	if (a->ndmar == a->capdmar) {
		unsigned int cap = a->capdmar ? 2 * a->capdmar : 16;
		void *d = realloc(a->dmar, cap * sizeof(*a->dmar));
		void *t =
		    d ? realloc(a->dmar_t, cap * sizeof(*a->dmar_t)) : NULL;

		if (d)
			a->dmar = d;
		if (!d || !t)
			return;
		a->dmar_t = t;
		a->capdmar = cap;
	}
	{
		const char *msg = strchr(line, ';');

		snprintf(a->dmar[a->ndmar], sizeof(a->dmar[0]), "%s",
			 msg ? msg + 1 : line);
		a->dmar_t[a->ndmar++] = ev.has_time ? ev.t_ns : 0;
	}
}

static const struct sacc_fault *find_record(struct inj *s,
					    const struct sacc_faultlog *fl,
					    const struct inj_fault *e)
{
	for (size_t i = 0; i < sacc_faultlog_count(fl); i++) {
		const struct sacc_fault *f = sacc_faultlog_get(fl, i);

		if (!(f->sources & SACC_FSRC_DEVICE) ||
		    strcmp(f->bdf, sacc_dev_bdf(s->dev)) ||
		    f->pid != (uint32_t)getpid() || f->fatal != e->fatal)
			continue;
		if (e->req_id && f->req_id != e->req_id)
			continue;
		return f;
	}
	return NULL;
}

static bool records_complete(struct inj *s, const struct sacc_faultlog *fl,
			     bool *all_logged)
{
	uint32_t burst = 0;
	bool ok = true;

	*all_logged = true;
	for (unsigned int i = 0; i < s->nef; i++) {
		const struct sacc_fault *f = find_record(s, fl, &s->ef[i]);

		ok &= f != NULL;
		*all_logged &= f && f->has_kernel;
	}
	if (s->burst_n) {
		for (size_t i = 0; i < sacc_faultlog_count(fl); i++) {
			const struct sacc_fault *f = sacc_faultlog_get(fl, i);

			if ((f->sources & SACC_FSRC_DEVICE) && f->has_req &&
			    f->req_id >= s->burst_lo &&
			    f->req_id <= s->burst_hi &&
			    f->pid == (uint32_t)getpid())
				burst++;
		}
		ok &= burst == s->burst_n;
		*all_logged = false; /* the ratelimit guarantees it */
	}
	return ok;
}

/*
 * Build this scenario's fault log: its journal lines (every journal in
 * the directory: the isolation peer writes its own) and the kernel's
 * records since it started; wait a little for DMAR lines still on their
 * way (the kernel prints from the fault interrupt), never for the 5 s
 * ratelimit window.
 */
static void account(struct inj *s)
{
	struct acc_lines a = {.s = s};
	struct jtail *jt = calloc(1, sizeof(*jt));
	struct sacc_faultlog_summary sum;
	uint64_t deadline = now_ns() + 400000000ull;
	const struct sacc_faultlog_counts *c = NULL;
	bool complete = false, all_logged = false;
	const char *jwhy = NULL;

	s->accounted = false;
	if (!jt)
		return (void)inj_why(s, "out of memory");
	if (!sacc_dev_journal(s->dev, &jwhy) || jwhy)
		inj_why(s, "fault journal: %s", jwhy);
	for (;;) {
		if (s->kmsg_fd >= 0)
			kmsg_read(s->kmsg_fd, acc_kmsg_line, &a, NULL);
		sacc_faultlog_free(a.fl);
		a.fl = sacc_faultlog_new();
		if (!a.fl)
			break;
		memset(jt, 0, sizeof(*jt));
		jt->dir = sacc_journal_dir();
		jtail_read(jt, acc_journal_line, &a);
		for (unsigned int i = 0; i < a.nkmsg; i++)
			sacc_faultlog_add_kmsg_line(a.fl, a.kmsg[i]);
		if (sacc_faultlog_join(a.fl, NULL) < 0)
			break;
		complete = records_complete(s, a.fl, &all_logged);
		if ((complete && all_logged) || now_ns() > deadline)
			break;
		if (s->kmsg_fd >= 0) {
			struct pollfd p = {.fd = s->kmsg_fd, .events = POLLIN};

			poll(&p, 1, 50);
		} else {
			msleep(50);
		}
	}
	if (!a.fl) {
		inj_why(s, "out of memory building the fault log");
		goto out;
	}

	sacc_faultlog_summary(a.fl, &sum);
	snprintf(s->summary, sizeof(s->summary), "%s", sum.text);
	for (size_t i = 0; i < sum.nr_devices; i++)
		if (!strcmp(sum.devices[i].bdf, sacc_dev_bdf(s->dev)))
			c = &sum.devices[i];
	s->accounted = true;
	for (unsigned int i = 0; i < s->nef; i++) {
		struct inj_fault *e = &s->ef[i];
		const struct sacc_fault *f = find_record(s, a.fl, e);

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
				e->req_id, access_name(f->access), f->iova,
				access_name(e->access), e->addr);
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
		if (i == 0) {
			sacc_fault_format_json(f, 0, s->record_json,
					       sizeof(s->record_json));
			sacc_fault_format_row(f, s->record_row,
					      sizeof(s->record_row));
			for (unsigned int k = 0; f->has_kernel && k < a.ndmar;
			     k++)
				if (!f->has_kernel_t ||
				    a.dmar_t[k] == f->kernel_t_ns)
					snprintf(s->dmar_line,
						 sizeof(s->dmar_line), "%s",
						 a.dmar[k]);
		}
	}
	if (s->burst_n) {
		uint32_t found = 0, logged = 0, bad = 0;

		for (size_t i = 0; i < sacc_faultlog_count(a.fl); i++) {
			const struct sacc_fault *f = sacc_faultlog_get(a.fl, i);

			if (!(f->sources & SACC_FSRC_DEVICE) || !f->has_req ||
			    f->req_id < s->burst_lo ||
			    f->req_id > s->burst_hi ||
			    f->pid != (uint32_t)getpid())
				continue;
			found++;
			logged += f->has_kernel;
			bad += f->attr == SACC_ATTR_UNATTRIBUTED ||
			       (!f->has_kernel && !f->unlogged);
			if (!s->record_json[0]) {
				sacc_fault_format_json(f, i, s->record_json,
						       sizeof(s->record_json));
				sacc_fault_format_row(f, s->record_row,
						      sizeof(s->record_row));
			}
		}
		if (found != s->burst_n || bad) {
			s->accounted = false;
			inj_why(s,
				"%" PRIu32 " of %" PRIu32 " burst faults are "
				"records, %" PRIu32 " unattributed or "
				"unexplained",
				found, s->burst_n, bad);
		}
		if (!s->dmar_line[0] && a.ndmar)
			snprintf(s->dmar_line, sizeof(s->dmar_line), "%s",
				 a.dmar[0]);
		(void)logged;
	}
	/* device = logged + suppressed + never reported + lost */
	if (c) {
		uint64_t unlogged = c->faults - c->matched_kernel;

		s->acc_faults = c->faults;
		s->acc_logged = c->matched_kernel;
		s->acc_unlogged = unlogged;
		s->acc_suppressed = sum.kernel_suppressed < unlogged
					? sum.kernel_suppressed
					: unlogged;
		s->acc_lost = sum.lost;
		snprintf(s->acc_reason, sizeof(s->acc_reason), "%s",
			 sum.lost_reason);
		if (c->unattributed) {
			s->accounted = false;
			inj_why(s, "%" PRIu64 " unattributed records",
				c->unattributed);
		}
	}
	if (s->verbose) {
		if (s->dmar_line[0])
			inj_say(s, "kernel: %s", s->dmar_line);
		else if (s->nef || s->burst_n)
			inj_say(s, "kernel: no DMAR line for it (%s)",
				s->nef && s->ef[0].unlogged[0]
				    ? s->ef[0].unlogged
				    : "see the summary");
		if (s->record_row[0]) {
			inj_say(s,
				"fault record (as saccctl faults shows it):");
			printf("  ");
			sacc_faultlog_print_header(stdout);
			inj_say(s, "%s", s->record_row);
			inj_say(s, "as JSON: %s", s->record_json);
		}
		for (unsigned int i = 0; i < s->nef; i++)
			if (s->ef[i].found)
				inj_say(s,
					"attribution (req_id %" PRIu32 "): %s",
					s->ef[i].req_id, s->ef[i].attribution);
		inj_say(s, "fault log: %s", s->summary);
	}
out:
	sacc_faultlog_free(a.fl);
	for (unsigned int i = 0; i < a.nkmsg; i++)
		free(a.kmsg[i]);
	free(a.kmsg);
	free(a.dmar);
	free(a.dmar_t);
	free(jt);
}

static void recover(struct inj *s)
{
	s->recovered = false;
	if (!s->dev)
		return;
	if (s->sc->ring) {
		if (sacc_reset(s->dev)) {
			snprintf(s->recovery, sizeof(s->recovery),
				 "sacc_reset failed: %s", sacc_errmsg(s->dev));
			inj_why(s, "%s", s->recovery);
			return;
		}
		inj_say(s, "sacc_reset(): device re-initialised");
	}
	if (inj_memcpy_ok(s, s->dev, 4096, s->recovery, sizeof(s->recovery))) {
		inj_why(s, "not recovered: %s", s->recovery);
		return;
	}
	s->recovered = true;
	inj_say(s, "recovery: %s%s", s->sc->ring ? "sacc_reset, then " : "",
		s->recovery);
	if (s->peer && !s->peer_recovered) {
		s->recovered = false;
		inj_why(s, "peer not recovered: %s", s->peer_msg);
	}
}

static bool passed(const struct inj *s)
{
	bool attack_ok;

	if (s->skipped || s->error)
		return false;
	attack_ok = s->expect_blocked
			? s->blocked
			: !s->blocked && s->exposed == s->expect_exposure;
	return attack_ok && s->memory_intact && s->accounted && s->recovered;
}

static void cleanup(struct inj *s)
{
	sacc_close(s->dev);
	s->dev = NULL;
	for (unsigned int i = 0; i < s->nplain; i++)
		munmap(s->plain[i], s->plain_len[i]);
	for (unsigned int i = 0; i < s->ncan; i++)
		free(s->can[i].copy);
	if (s->kmsg_fd >= 0)
		close(s->kmsg_fd);
}

static void accounted_cell(const struct inj *s, char *buf, size_t len);

static void run_one(struct inj *s, const struct scenario *sc,
		    const char *const *bdf, unsigned int ndev, bool verbose)
{
	memset(s, 0, sizeof(*s));
	s->sc = sc;
	s->ndev = ndev;
	s->bdf[0] = ndev > 0 ? bdf[0] : NULL;
	s->bdf[1] = ndev > 1 ? bdf[1] : NULL;
	s->verbose = verbose;
	s->expect_blocked = sc->expect_blocked;
	s->expect_exposure = sc->expect_exposure;
	s->kmsg_fd = kmsg_open(true);
	s->t0 = now_ns();
	if (verbose)
		printf("== %s: %s\n", sc->name, sc->what);
	if (sc->devices > ndev) {
		s->skipped = true;
		snprintf(s->skip_reason, sizeof(s->skip_reason),
			 "needs %u SACC devices bound to vfio-pci, found %u "
			 "(ci/vm --devices %u)",
			 sc->devices, ndev, sc->devices);
		inj_say(s, "skipped: %s", s->skip_reason);
		goto out;
	}
	if (sc->run(s) || s->error)
		goto out;
	check_canaries(s);
	if (s->dev)
		account(s);
	if (!s->recovery_done)
		recover(s);
out:
	cleanup(s);
	if (verbose && (s->skipped || s->error)) {
		printf("  => %s\n\n", s->skipped ? "skipped" : "ERROR");
	} else if (verbose) {
		char acc[40];

		accounted_cell(s, acc, sizeof(acc));
		printf("  => %s: blocked %s, memory %s, accounted: %s, "
		       "recovered %s\n\n",
		       passed(s) ? "pass" : "FAIL",
		       s->blocked	   ? "yes"
		       : s->expect_blocked ? "NO"
					   : "no (expected exposure)",
		       s->memory_intact ? "intact" : "CHANGED", acc,
		       s->recovered ? "yes" : "NO");
	}
}

/* ---- output ---- */

static void jstr(FILE *f, const char *key, const char *v, bool comma)
{
	fprintf(f, "%s\"%s\":", comma ? "," : "", key);
	if (v)
		json_str(f, v);
	else
		fputs("null", f);
}

static void jbool(FILE *f, const char *key, bool v)
{
	fprintf(f, ",\"%s\":%s", key, v ? "true" : "false");
}

static void print_json(const struct inj *s)
{
	FILE *f = stdout;

	fputc('{', f);
	jstr(f, "name", s->sc->name, false);
	jstr(f, "what", s->sc->what, true);
	jbool(f, "skipped", s->skipped);
	jbool(f, "blocked", s->blocked);
	jbool(f, "memory_intact", s->memory_intact);
	jbool(f, "accounted", s->accounted);
	jbool(f, "recovered", s->recovered);
	jbool(f, "expected_blocked", s->expect_blocked);
	jbool(f, "expected_exposure", s->expect_exposure);
	jbool(f, "exposed", s->exposed);
	jbool(f, "pass", passed(s));
	jstr(f, "error", s->error ? s->why : NULL, true);
	fputs(",\"details\":{", f);
	jstr(f, "bdf", s->bdf[0], false);
	if (s->sc->devices > 1)
		jstr(f, "peer_bdf", s->bdf[1], true);
	jstr(f, "skip_reason", s->skipped ? s->skip_reason : NULL, true);
	jstr(f, "why", !s->error && s->why[0] ? s->why : NULL, true);
	jstr(f, "note", s->note[0] ? s->note : NULL, true);
	fputs(",\"descriptors\":[", f);
	for (unsigned int i = 0; i < s->ndesc; i++) {
		const struct inj_desc *d = &s->desc[i];

		fprintf(f,
			"%s{\"req_id\":%" PRIu32 ",\"opcode\":%u,\"op\":\"%s\","
			"\"src\":\"0x%" PRIx64 "\",\"dst\":\"0x%" PRIx64
			"\",\"length\":%" PRIu32,
			i ? "," : "", d->d.req_id, d->d.opcode,
			sacc_opcode_str(d->d.opcode), d->d.src, d->d.dst,
			d->d.length);
		jstr(f, "src_is", d->src_what, true);
		jstr(f, "dst_is", d->dst_what, true);
		fprintf(f, ",\"status\":%d", d->status);
		jstr(f, "status_name",
		     d->status < 0 ? NULL
				   : sacc_status_str((unsigned int)d->status),
		     true);
		fputc('}', f);
	}
	fputc(']', f);
	if (s->burst_n)
		fprintf(f, ",\"burst\":%" PRIu32, s->burst_n);
	jstr(f, "device", s->device_state[0] ? s->device_state : NULL, true);
	fputs(",\"faults\":[", f);
	for (unsigned int i = 0; i < s->nef; i++) {
		const struct inj_fault *e = &s->ef[i];

		fprintf(f,
			"%s{\"req_id\":%" PRIu32 ",\"addr\":\"0x%" PRIx64
			"\",\"access\":\"%s\",\"fatal\":%s,\"in_log\":%s,"
			"\"logged\":%s,\"record_matches\":%s",
			i ? "," : "", e->req_id, e->addr,
			access_name(e->access), e->fatal ? "true" : "false",
			e->found ? "true" : "false",
			e->logged ? "true" : "false",
			e->addr_ok ? "true" : "false");
		jstr(f, "attribution", e->found ? e->attribution : NULL, true);
		jstr(f, "unlogged", e->unlogged[0] ? e->unlogged : NULL, true);
		fputc('}', f);
	}
	fputc(']', f);
	fprintf(f, ",\"fault_record\":%s",
		s->record_json[0] ? s->record_json : "null");
	jstr(f, "dmar_line", s->dmar_line[0] ? s->dmar_line : NULL, true);
	fprintf(f,
		",\"accounting\":{\"faults\":%" PRIu64 ",\"logged\":%" PRIu64
		",\"suppressed\":%" PRIu64 ",\"not_logged\":%" PRIu64
		",\"lost\":%" PRIu64,
		s->acc_faults, s->acc_logged, s->acc_suppressed,
		s->acc_unlogged, s->acc_lost);
	jstr(f, "lost_reason", s->acc_reason[0] ? s->acc_reason : NULL, true);
	jstr(f, "summary", s->summary[0] ? s->summary : NULL, true);
	fputc('}', f);
	fputs(",\"canaries\":[", f);
	for (unsigned int i = 0; i < s->ncan; i++)
		fprintf(f, "%s{\"name\":\"%s\",\"bytes\":%zu,\"intact\":%s}",
			i ? "," : "", s->can[i].name, s->can[i].len,
			s->can[i].intact ? "true" : "false");
	fputc(']', f);
	jstr(f, "recovery", s->recovery[0] ? s->recovery : NULL, true);
	fputs("}}\n", f);
	fflush(f);
}

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

	if (!s->accounted) {
		snprintf(buf, len, "NO");
		return;
	}
	if (s->burst_n) {
		snprintf(buf, len, "%" PRIu64 " logged, %" PRIu64 " counted",
			 s->acc_logged, s->acc_unlogged);
		return;
	}
	for (unsigned int i = 0; i < s->nef; i++) {
		if (s->ef[i].logged) {
			logged++;
		} else {
			unlogged++;
			why = s->ef[i].unlogged;
		}
	}
	if (!s->nef)
		snprintf(buf, len, "no fault to log");
	else if (!unlogged)
		snprintf(buf, len, "logged (DMAR line)");
	else if (!logged)
		snprintf(buf, len, "counted: %s", unlogged_short(why));
	else
		snprintf(buf, len, "%u logged, %u counted", logged, unlogged);
}

static void print_row(const struct inj *s)
{
	char acc[40];
	const char *blocked, *mem, *rec, *res;

	if (s->skipped) {
		printf("%-20s %-8s %-8s %-25s %-9s %-7s %s\n", s->sc->name, "-",
		       "-", "-", "-", "skip", s->skip_reason);
		return;
	}
	accounted_cell(s, acc, sizeof(acc));
	if (s->error) {
		printf("%-20s %-8s %-8s %-25s %-9s %-7s %s\n", s->sc->name, "?",
		       "?", "?", "?", "ERROR", s->why);
		return;
	}
	blocked = s->blocked ? "yes" : s->expect_blocked ? "NO" : "no*";
	mem = s->memory_intact ? "intact" : "CHANGED";
	rec = s->recovered ? "yes" : "NO";
	res = passed(s) ? "pass" : "FAIL";
	printf("%-20s %-8s %-8s %-25s %-9s %-7s %s\n", s->sc->name, blocked,
	       mem, acc, rec, res, !passed(s) && s->why[0] ? s->why : s->note);
}

/* ---- command ---- */

static const struct scenario *find_scenario(const char *name)
{
	for (const struct scenario *sc = inj_scenarios; sc->name; sc++)
		if (!strcmp(sc->name, name))
			return sc;
	return NULL;
}

/* SACC devices bound to vfio-pci, sorted. */
static int find_devices(char bdf[][SACC_BDF_MAX], unsigned int max)
{
	struct sacc_pci_dev d[16];
	int n = sacc_pci_list(d, 16);
	unsigned int k = 0;

	if (n < 0)
		return n;
	for (int i = 0; i < n && i < 16 && k < max; i++)
		if (d[i].is_sacc && !strcmp(d[i].driver, "vfio-pci"))
			snprintf(bdf[k++], SACC_BDF_MAX, "%.15s", d[i].bdf);
	return (int)k;
}

int cmd_inject(int argc, char **argv)
{
	static const struct option lo[] = {{"all", no_argument, NULL, 'a'},
					   {"json", no_argument, NULL, 'j'},
					   {"verbose", no_argument, NULL, 'v'},
					   {"list", no_argument, NULL, 'l'},
					   {"help", no_argument, NULL, 'h'},
					   {NULL, 0, NULL, 0}};
	const struct scenario *run[64];
	char bdfs[8][SACC_BDF_MAX];
	const char *bdfp[8];
	unsigned int nrun = 0, nbdf = 0, pass = 0, nfail = 0, skip = 0;
	bool all = false, json = false, verbose = false;
	struct inj *s;
	int ch, n;

	while ((ch = cmd_getopt(argc, argv, "ajvlh", lo, usage_inject)) != -1) {
		switch (ch) {
		case 'a':
			all = true;
			break;
		case 'j':
			json = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'l':
			for (const struct scenario *sc = inj_scenarios;
			     sc->name; sc++)
				printf("%-22s %s\n", sc->name, sc->what);
			return EXIT_OK;
		case 'h':
			usage_inject(stdout);
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	for (int i = optind; i < argc; i++) {
		const struct scenario *sc = find_scenario(argv[i]);
		char b[SACC_BDF_MAX];

		if (sc && !all) {
			if (nrun < 64)
				run[nrun++] = sc;
			continue;
		}
		if (sc)
			return usage_error(usage_inject, "inject",
					   "'%s' given with --all", argv[i]);
		if (sacc_bdf_parse(argv[i], b))
			return usage_error(
			    usage_inject, "inject",
			    "'%s' is neither a scenario (saccctl "
			    "inject --list) nor a PCI address",
			    argv[i]);
		if (nbdf == 8)
			return usage_error(usage_inject, "inject",
					   "at most 8 devices");
		memcpy(bdfs[nbdf++], b, SACC_BDF_MAX);
	}
	if (all)
		for (const struct scenario *sc = inj_scenarios; sc->name; sc++)
			run[nrun++] = sc;
	if (!nrun)
		return usage_error(usage_inject, "inject",
				   "which scenario? name one (--list) or give "
				   "--all");
	if (!nbdf) {
		n = find_devices(bdfs, 8);
		if (n < 0)
			return fail("cannot list PCI devices: %s",
				    sacc_errmsg(NULL));
		if (n == 0)
			return fail("no SACC device is bound to vfio-pci "
				    "(saccctl list; saccctl bind --all)");
		nbdf = (unsigned int)n;
	}
	for (unsigned int i = 0; i < nbdf; i++)
		bdfp[i] = bdfs[i];

	s = calloc(1, sizeof(*s));
	if (!s)
		return fail("out of memory");
	if (!json)
		printf("saccctl inject: %u scenario%s on %s%s%s\n\n", nrun,
		       nrun == 1 ? "" : "s", bdfp[0], nbdf > 1 ? " and " : "",
		       nbdf > 1 ? bdfp[1] : "");
	if (!json && !verbose)
		printf("%-20s %-8s %-8s %-25s %-9s %-7s %s\n", "SCENARIO",
		       "BLOCKED", "MEMORY", "ACCOUNTED", "RECOVERED", "RESULT",
		       "WHAT HAPPENED");
	for (unsigned int i = 0; i < nrun; i++) {
		run_one(s, run[i], bdfp, nbdf, verbose && !json);
		if (s->skipped)
			skip++;
		else if (passed(s))
			pass++;
		else
			nfail++;
		if (json)
			print_json(s);
		else if (!verbose)
			print_row(s);
		else if (!passed(s) && !s->skipped)
			printf("  why: %s\n\n", s->why);
	}
	if (!json && !verbose) {
		for (unsigned int i = 0; i < nrun; i++) {
			if (run[i]->expect_exposure ||
			    !strcmp(run[i]->name, "writeonly-read")) {
				printf(
				    "\nno*: an exposure the IOMMU cannot stop "
				    "on this platform, shown on purpose "
				    "(docs/threat-model.md)\n");
				break;
			}
		}
	}
	fprintf(json ? stderr : stdout,
		"%s%u scenario%s: %u passed, %u failed, %u skipped\n",
		json ? "saccctl inject: " : "\n", nrun, nrun == 1 ? "" : "s",
		pass, nfail, skip);
	free(s);
	return nfail ? EXIT_FAIL : EXIT_OK;
}

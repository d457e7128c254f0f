// SPDX-License-Identifier: MIT
/*
 * inject.c - saccctl inject: run the fault-injection catalogue
 * (scenarios*.c) and score every scenario on four properties:
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
 *
 * This file is the harness: the command, the helpers scenarios use, the
 * memory and recovery checks.  inject_account.c asks the fault log about
 * the faults; inject_report.c prints the results.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "inject.h"

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
		fprintf(f, "  %-23s %s\n", sc->name, sc->what);
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
	struct sacc_open_opts o = {.sq_entries = s->sc->sq_entries,
				   .flags = s->sc->open_flags};

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

const char *inj_access_name(uint32_t a)
{
	const char *n = sacc_fault_access_name(a & SACC_FAULT_ACCESS_MASK);

	return n ? n : "?";
}

static int submit(struct inj *s, const struct sacc_desc *d, const void *data,
		  const char *src_what, const char *dst_what)
{
	struct inj_desc *x;
	int id;

	if (s->ndesc == INJ_MAX_DESC)
		return inj_fail(s, "too many descriptors");
	id = data ? sacc_submit_raw_inline(s->dev, d, data)
		  : sacc_submit_raw(s->dev, d);
	if (id < 0)
		return inj_fail(s, "%s: %s",
				data ? "sacc_submit_raw_inline"
				     : "sacc_submit_raw",
				sacc_errmsg(s->dev));
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

int inj_submit(struct inj *s, const struct sacc_desc *d, const char *src_what,
	       const char *dst_what)
{
	return submit(s, d, NULL, src_what, dst_what);
}

int inj_submit_inline(struct inj *s, const struct sacc_desc *d,
		      const void *data, const char *src_what,
		      const char *dst_what)
{
	return submit(s, d, data, src_what, dst_what);
}

int inj_submit_slots(struct inj *s, const struct sacc_desc *slots,
		     uint32_t nslots, const uint32_t *cmd_slots,
		     unsigned int ncmds, const char (*src_what)[96],
		     const char (*dst_what)[96])
{
	uint32_t ids[INJ_MAX_DESC], at = 0;
	int n;

	if (ncmds > INJ_MAX_DESC - s->ndesc)
		return inj_fail(s, "too many descriptors");
	n = sacc_submit_raw_slots(s->dev, slots, nslots, cmd_slots, ncmds, ids);
	if (n < 0)
		return inj_fail(s, "sacc_submit_raw_slots: %s",
				sacc_errmsg(s->dev));
	inj_say(s, "%u SQ slots of garbage, one doorbell: %u commands", nslots,
		ncmds);
	for (unsigned int i = 0; i < ncmds; i++) {
		struct inj_desc *x = &s->desc[s->ndesc++];

		x->d = slots[at];
		x->d.req_id = ids[i];
		x->status = -1;
		snprintf(x->src_what, sizeof(x->src_what), "%s", src_what[i]);
		snprintf(x->dst_what, sizeof(x->dst_what), "%s", dst_what[i]);
		inj_say(s,
			"  slot %u: opcode %u flags 0x%x src 0x%" PRIx64
			" (%s) dst 0x%" PRIx64 " (%s), length %" PRIu32
			", %u slot%s, req_id %" PRIu32,
			at, x->d.opcode, x->d.flags, x->d.src, src_what[i],
			x->d.dst, dst_what[i], x->d.length, cmd_slots[i],
			cmd_slots[i] == 1 ? "" : "s", ids[i]);
		at += cmd_slots[i];
	}
	return 0;
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
				if (s->desc[i].d.req_id == r[k].req_id) {
					s->desc[i].status = r[k].status;
					s->desc[i].result_len = r[k].result_len;
				}
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
		inj_say(s,
			"completion: req_id %" PRIu32 " status %d (%s), "
			"result_len %" PRIu32,
			s->desc[i].d.req_id, s->desc[i].status,
			sacc_status_str((unsigned int)s->desc[i].status),
			s->desc[i].result_len);
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

void inj_expect_kind(struct inj *s, uint32_t req_id, uint64_t addr,
		     uint32_t access, bool fatal, enum inj_fault_kind kind)
{
	struct inj_fault *f;

	if (s->nef == INJ_MAX_FAULT) {
		inj_fail(s, "too many expected faults");
		return;
	}
	f = &s->ef[s->nef++];
	memset(f, 0, sizeof(*f));
	f->req_id = req_id;
	f->addr = addr;
	f->access = access;
	f->fatal = fatal;
	f->kind = kind;
}

void inj_expect(struct inj *s, uint32_t req_id, uint64_t addr, uint32_t access,
		bool fatal)
{
	inj_expect_kind(s, req_id, addr, access, fatal, INJ_FAULT_ANY);
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
		 inj_access_name(info),
		 info & SACC_FAULT_IS_WRITE ? ", write" : "", req, cnt);
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

static void recover(struct inj *s)
{
	struct sacc_dev *rdev = s->ring_dev ? s->ring_dev : s->dev;

	s->recovered = false;
	if (!s->dev)
		return;
	if (s->sc->ring) {
		if (sacc_reset(rdev)) {
			snprintf(s->recovery, sizeof(s->recovery),
				 "sacc_reset failed: %s", sacc_errmsg(rdev));
			inj_why(s, "%s", s->recovery);
			return;
		}
		if (rdev != s->dev)
			inj_say(s, "sacc_reset(): channel %u re-initialised",
				sacc_dev_channel(rdev));
		else
			inj_say(s, "sacc_reset(): device re-initialised");
	}
	if (inj_memcpy_ok(s, rdev, 4096, s->recovery, sizeof(s->recovery))) {
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

bool inj_passed(const struct inj *s)
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
	inj_account_end(s);
}

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
	inj_account_start(s);
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
		inj_account(s);
	if (!s->recovery_done)
		recover(s);
out:
	cleanup(s);
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
				printf("%-23s %s\n", sc->name, sc->what);
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
		if (require_sacc_vfio(b, "inject"))
			return EXIT_USAGE;
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
	inj_report_start(nrun, bdfp, nbdf, json, verbose);
	for (unsigned int i = 0; i < nrun; i++) {
		run_one(s, run[i], bdfp, nbdf, verbose && !json);
		if (s->skipped)
			skip++;
		else if (inj_passed(s))
			pass++;
		else
			nfail++;
		inj_report(s, json, verbose && !json);
	}
	inj_report_end(run, nrun, pass, nfail, skip, json, verbose);
	free(s);
	return nfail ? EXIT_FAIL : EXIT_OK;
}

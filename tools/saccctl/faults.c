// SPDX-License-Identifier: MIT
/*
 * faults.c - saccctl faults: the IOMMU fault log.  Joins the guest
 * kernel's DMAR messages (/dev/kmsg, or a dmesg/kmsg/syslog file), the
 * SACC journals libsacc writes (/run/sacc/<bdf>.jsonl) and, on the host,
 * QEMU's vtd trace, into one attributed record per fault plus a summary
 * that counts every fault no log shows (faultlog/, docs/faults.md).
 *
 * The binary is static, so the same command runs on the host over files
 * brought out of the guest (--dump there, --input here).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "saccctl.h"
#include "sacc_faultlog.h"

#define MAX_FILES 16

void usage_faults(FILE *f)
{
	fputs(
	    "usage: saccctl faults [--follow] [--json] [--journal-dir DIR]\n"
	    "                      [--kmsg FILE]... [--trace FILE]... "
	    "[--input FILE]...\n"
	    "       saccctl faults --dump\n\n"
	    "The IOMMU fault log: every DMA the IOMMU blocked, one record "
	    "per fault,\n"
	    "joined from the kernel's DMAR lines, the SACC journals libsacc "
	    "writes\n"
	    "(exact address, access, req_id, opcode, and the mappings to "
	    "attribute\n"
	    "it to) and, on the host, QEMU's vtd trace. The summary counts "
	    "what no\n"
	    "log shows: faults the kernel did not print (ratelimit, the "
	    "vIOMMU's one\n"
	    "fault recording register) and faults no IOMMU record exists "
	    "for.\n\n"
	    "  --follow           keep reading kmsg and the journals, print "
	    "faults as\n"
	    "                     they come; the summary on Ctrl-C\n"
	    "  --json             one JSON object per fault, then "
	    "{\"summary\":{...}}\n"
	    "  --journal-dir DIR  journals to read (default $SACC_JOURNAL_DIR "
	    "or\n"
	    "                     " SACC_JOURNAL_DIR_DEFAULT ")\n"
	    "  --kmsg FILE        kernel log to read instead of /dev/kmsg: "
	    "dmesg\n"
	    "                     output, a /dev/kmsg copy or syslog; "
	    "repeatable\n"
	    "  --trace FILE       QEMU trace (ci/vm --trace 'vtd_*' "
	    "--trace-file F);\n"
	    "                     repeatable\n"
	    "  --input FILE       a mixed file, e.g. ci/vm's output of "
	    "'saccctl faults\n"
	    "                     --dump': journal, kernel and trace lines "
	    "told apart\n"
	    "                     per line; implies no /dev/kmsg and no "
	    "journal dir\n"
	    "                     unless given\n"
	    "  --no-kmsg          do not read the kernel log\n"
	    "  --dump             print the raw inputs (kmsg records, journal "
	    "lines)\n"
	    "                     for --input elsewhere, and nothing else\n"
	    "  -h, --help\n\n"
	    "On the host, after a guest run:\n"
	    "  ci/vm --trace 'vtd_*' --trace-file trace.log -- sh -c \\\n"
	    "      'saccctl inject --all >/dev/null; saccctl faults --dump' "
	    ">guest.log\n"
	    "  build/tools/saccctl/saccctl faults --input guest.log --trace "
	    "trace.log\n\n"
	    "Exit status: 0, 1 if an input cannot be read, 2 for bad "
	    "arguments.\n",
	    f);
}

struct faults_cfg {
	bool follow, json, dump, no_kmsg;
	bool journals;		 /* read a journal directory */
	const char *journal_dir; /* NULL: $SACC_JOURNAL_DIR or /run/sacc */
	const char *kmsg[MAX_FILES];
	unsigned int nkmsg;
	const char *trace[MAX_FILES];
	unsigned int ntrace;
	const char *input[MAX_FILES];
	unsigned int ninput;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int add_file(const char **list, unsigned int *n, const char *arg,
		    const char *opt)
{
	if (*n == MAX_FILES)
		return usage_error(usage_faults, "faults",
				   "at most %d %s files", MAX_FILES, opt);
	list[(*n)++] = arg;
	return 0;
}

static int parse_faults_args(int argc, char **argv, struct faults_cfg *c)
{
	static const struct option lo[] = {
	    {"follow", no_argument, NULL, 'f'},
	    {"json", no_argument, NULL, 'j'},
	    {"journal-dir", required_argument, NULL, 'd'},
	    {"kmsg", required_argument, NULL, 'k'},
	    {"trace", required_argument, NULL, 't'},
	    {"input", required_argument, NULL, 'i'},
	    {"no-kmsg", no_argument, NULL, 'n'},
	    {"dump", no_argument, NULL, 'D'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0}};
	int ch, r;

	memset(c, 0, sizeof(*c));
	while ((ch = cmd_getopt(argc, argv, "fjd:k:t:i:nDh", lo,
				usage_faults)) != -1) {
		switch (ch) {
		case 'f':
			c->follow = true;
			break;
		case 'j':
			c->json = true;
			break;
		case 'd':
			c->journal_dir = optarg;
			break;
		case 'k':
			r = add_file(c->kmsg, &c->nkmsg, optarg, "--kmsg");
			if (r)
				return r;
			break;
		case 't':
			r = add_file(c->trace, &c->ntrace, optarg, "--trace");
			if (r)
				return r;
			break;
		case 'i':
			r = add_file(c->input, &c->ninput, optarg, "--input");
			if (r)
				return r;
			break;
		case 'n':
			c->no_kmsg = true;
			break;
		case 'D':
			c->dump = true;
			break;
		case 'h':
			usage_faults(stdout);
			return -1;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return usage_error(usage_faults, "faults",
				   "unexpected argument '%s'", argv[optind]);
	if (c->dump && (c->follow || c->json))
		return usage_error(usage_faults, "faults",
				   "--dump prints raw lines: no --follow or "
				   "--json with it");
	if (c->follow && (c->nkmsg || c->ninput))
		return usage_error(usage_faults, "faults",
				   "--follow reads /dev/kmsg and the journals "
				   "as they grow, not --kmsg/--input files");
	/* an --input file carries kernel and journal lines itself */
	if (c->ninput && !c->nkmsg)
		c->no_kmsg = true;
	c->journals = c->journal_dir || !c->ninput;
	return 0;
}

/* ---- inputs (faultlog sources) ---- */

/* --dump: the raw kmsg records and journal lines */
static void dump_line(void *ctx, enum sacc_faultlog_input kind,
		      const char *line)
{
	puts(line);
}

/* A whole file of @kind into @fl; with --dump a kernel log is printed. */
static int read_file(const struct faults_cfg *c, struct sacc_faultlog *fl,
		     enum sacc_faultlog_input kind, const char *path)
{
	bool dump = c->dump && kind == SACC_FAULTLOG_KMSG;
	struct sacc_faultlog_src *src;
	struct sacc_err e = {0};
	int r;

	r = sacc_faultlog_src_open(&src, kind, path, SACC_FAULTLOG_SRC_WHOLE,
				   &e);
	if (!r)
		r = sacc_faultlog_src_read(src, dump ? NULL : fl,
					   dump ? dump_line : NULL, NULL, &e);
	sacc_faultlog_src_close(src);
	return r < 0 ? fail("%s", e.msg) : 0;
}

static void journal_note(const struct faults_cfg *c, const char *dir, int lines)
{
	struct stat st;

	if (lines > 0 || c->json)
		return;
	if (stat(dir, &st))
		fprintf(stderr,
			"saccctl faults: no journal directory %s: no libsacc "
			"program has opened a device with it (set %s, or "
			"'saccctl info BDF' says why a device has no "
			"journal); kernel lines only\n",
			dir, SACC_JOURNAL_DIR_ENV);
	else if (access(dir, W_OK))
		fprintf(stderr,
			"saccctl faults: %s is not writable for this user: "
			"libsacc cannot journal there (set %s)\n",
			dir, SACC_JOURNAL_DIR_ENV);
}

/* Everything the options name, once; /dev/kmsg and the journal
 * directory stay open in @kmsg, @jdir for --follow. */
static int load(const struct faults_cfg *c, struct sacc_faultlog *fl,
		struct sacc_faultlog_src **kmsg,
		struct sacc_faultlog_src **jdir)
{
	struct sacc_faultlog *to = c->dump ? NULL : fl;
	sacc_faultlog_line_fn fn = c->dump ? dump_line : NULL;
	struct sacc_err e = {0};
	const char *why;
	int r;

	for (unsigned int i = 0; i < c->ninput; i++)
		if (read_file(c, fl, SACC_FAULTLOG_MIXED, c->input[i]))
			return -1;
	for (unsigned int i = 0; i < c->ntrace; i++)
		if (read_file(c, fl, SACC_FAULTLOG_QEMU_TRACE, c->trace[i]))
			return -1;
	for (unsigned int i = 0; i < c->nkmsg; i++)
		if (read_file(c, fl, SACC_FAULTLOG_KMSG, c->kmsg[i]))
			return -1;
	if (!c->nkmsg && !c->no_kmsg) {
		r = sacc_faultlog_src_open(kmsg, SACC_FAULTLOG_KMSG, NULL, 0,
					   &e);
		if (r)
			fprintf(stderr,
				"saccctl faults: cannot read /dev/kmsg (%s): "
				"no kernel lines; give --kmsg FILE\n",
				strerror(-r));
		else
			sacc_faultlog_src_read(*kmsg, to, fn, NULL, NULL);
	}
	if (c->journals) {
		r = sacc_faultlog_src_open(jdir, SACC_FAULTLOG_JOURNAL,
					   c->journal_dir, 0, &e);
		if (!r)
			r = sacc_faultlog_src_read(*jdir, to, fn, NULL, &e);
		if (r < 0)
			return fail("%s", e.msg);
		if (sacc_faultlog_src_skipped(*jdir, &why))
			fprintf(stderr, "saccctl faults: %s\n", why);
		if (!c->dump)
			journal_note(c, sacc_faultlog_src_path(*jdir), r);
	}
	return 0;
}

/* ---- --follow ---- */

/* A record's identity across re-joins (device faults keep it when a DMAR
 * line joins them later). */
static void rec_key(const struct sacc_fault *f, char *buf, size_t len)
{
	if (f->sources & SACC_FSRC_DEVICE)
		snprintf(buf, len, "d %s %u %u %llu %d", f->bdf, f->pid,
			 f->req_id, (unsigned long long)f->t_ns, f->fatal);
	else
		snprintf(buf, len, "k %s %llu %llu %d", f->bdf,
			 (unsigned long long)f->kernel_t_ns,
			 (unsigned long long)f->page, f->kernel_intr);
}

struct seen {
	char (*key)[96];
	uint64_t *first; /* when we first saw it (monotonic ns) */
	bool *printed;
	size_t n, cap;
};

static ssize_t seen_find(struct seen *s, const char *key)
{
	for (size_t i = s->n; i-- > 0;)
		if (!strcmp(s->key[i], key))
			return (ssize_t)i;
	return -1;
}

static ssize_t seen_add(struct seen *s, const char *key)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		void *k = realloc(s->key, cap * sizeof(*s->key));
		void *f = k ? realloc(s->first, cap * sizeof(*s->first)) : NULL;
		void *p =
		    f ? realloc(s->printed, cap * sizeof(*s->printed)) : NULL;

		if (k)
			s->key = k;
		if (f)
			s->first = f;
		if (!p)
			return -1;
		s->printed = p;
		s->cap = cap;
	}
	snprintf(s->key[s->n], sizeof(s->key[0]), "%s", key);
	s->first[s->n] = now_ns();
	s->printed[s->n] = false;
	return (ssize_t)s->n++;
}

/*
 * Print records not printed yet.  A kernel-only record waits up to 1.5 s
 * for the journal line that usually follows its DMAR line (libsacc
 * journals when it reaps the completion), so it is printed once, joined.
 */
static void print_new(const struct faults_cfg *c, struct sacc_faultlog *fl,
		      struct seen *seen, bool flush, uint64_t *n)
{
	char key[96], row[1024];

	for (size_t i = 0; i < sacc_faultlog_count(fl); i++) {
		const struct sacc_fault *f = sacc_faultlog_get(fl, i);
		ssize_t k;

		rec_key(f, key, sizeof(key));
		k = seen_find(seen, key);
		if (k < 0)
			k = seen_add(seen, key);
		if (k < 0 || seen->printed[k])
			continue;
		if (!(f->sources & SACC_FSRC_DEVICE) && !flush &&
		    now_ns() - seen->first[k] < 1500000000ull)
			continue;
		seen->printed[k] = true;
		if (c->json) {
			if (sacc_fault_format_json(f, (*n)++, row,
						   sizeof(row)) > 0)
				puts(row);
		} else if (sacc_fault_format_row(f, row, sizeof(row)) > 0) {
			puts(row);
		}
	}
	fflush(stdout);
}

static int follow(const struct faults_cfg *c, struct sacc_faultlog *fl,
		  struct sacc_faultlog_src *kmsg,
		  struct sacc_faultlog_src *jdir)
{
	int kfd = sacc_faultlog_src_fd(kmsg);
	struct seen seen = {0};
	struct sigaction sa;
	uint64_t n = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!c->json)
		sacc_faultlog_print_header(stdout);
	sacc_faultlog_join(fl, NULL);
	print_new(c, fl, &seen, true, &n);
	while (!stop) {
		struct pollfd p = {.fd = kfd, .events = POLLIN};
		int got = 0;

		poll(&p, kfd >= 0 ? 1 : 0, 500);
		if (stop)
			break;
		if (kmsg)
			got += sacc_faultlog_src_read(kmsg, fl, NULL, NULL,
						      NULL) > 0;
		if (jdir)
			got += sacc_faultlog_src_read(jdir, fl, NULL, NULL,
						      NULL) > 0;
		if (got)
			sacc_faultlog_join(fl, NULL);
		print_new(c, fl, &seen, false, &n);
	}
	sacc_faultlog_join(fl, NULL);
	print_new(c, fl, &seen, true, &n);
	if (c->json) {
		sacc_faultlog_print_json_summary(fl, stdout); /* last line */
	} else {
		putchar('\n');
		sacc_faultlog_print_summary(fl, stdout);
	}
	free(seen.key);
	free(seen.first);
	free(seen.printed);
	return EXIT_OK;
}

int cmd_faults(int argc, char **argv)
{
	struct sacc_faultlog_src *kmsg = NULL, *jdir = NULL;
	struct sacc_faultlog *fl;
	struct faults_cfg c;
	int rc;

	rc = parse_faults_args(argc, argv, &c);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	rc = EXIT_FAIL;
	fl = sacc_faultlog_new();
	if (!fl) {
		fail("out of memory");
		goto out;
	}
	if (load(&c, fl, &kmsg, &jdir))
		goto out;
	if (c.dump) {
		rc = fflush(stdout) ? EXIT_FAIL : EXIT_OK;
		goto out;
	}
	if (c.follow) {
		rc = follow(&c, fl, kmsg, jdir);
		goto out;
	}
	if (sacc_faultlog_join(fl, NULL) < 0) {
		fail("out of memory joining the fault log");
		goto out;
	}
	if ((c.json ? sacc_faultlog_print_json(fl, stdout)
		    : sacc_faultlog_print_table(fl, stdout)) < 0) {
		fail("writing the output: %s", strerror(errno));
		goto out;
	}
	rc = EXIT_OK;
out:
	sacc_faultlog_src_close(kmsg);
	sacc_faultlog_src_close(jdir);
	sacc_faultlog_free(fl);
	return rc;
}

// SPDX-License-Identifier: MIT
/*
 * util.c - saccctl helpers: argument parsing, messages.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "saccctl.h"

int usage_error(void (*usage)(FILE *f), const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "saccctl%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n\n", stderr);
	if (usage)
		usage(stderr);
	return EXIT_USAGE;
}

int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("saccctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_FAIL;
}

int cmd_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts, void (*usage)(FILE *f))
{
	const struct option *o;
	char so[64];
	int c;

	snprintf(so, sizeof(so), ":%s", shortopts);
	opterr = 0;
	c = getopt_long(argc, argv, so, longopts, NULL);
	if (c != '?' && c != ':')
		return c;
	for (o = longopts; optopt && o && o->name; o++)
		if (o->val == optopt && !o->flag)
			break;
	if (c == ':') {
		if (o && o->name)
			usage_error(usage, argv[0], "option --%s needs a value",
				    o->name);
		else
			usage_error(usage, argv[0], "option -%c needs a value",
				    optopt);
	} else if (optopt && o && o->name && !o->has_arg &&
		   strchr(argv[optind - 1], '=')) {
		usage_error(usage, argv[0], "option --%s does not take a value",
			    o->name);
	} else if (optopt && isprint(optopt) && argv[optind - 1][1] != '-') {
		usage_error(usage, argv[0], "unknown option '-%c'", optopt);
	} else {
		usage_error(usage, argv[0], "unknown option '%s'",
			    argv[optind - 1]);
	}
	return '?';
}

bool parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

bool parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !(v == v))
		return false;
	*out = v;
	return true;
}

bool parse_opcode(const char *s, uint16_t *op)
{
	unsigned int v;

	if (sacc_op_parse(s, &v))
		return false;
	*op = (uint16_t)v;
	return true;
}

void fill_pattern(void *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
	uint8_t *p = buf;
	size_t i = 0;

	while (i < len) {
		/* xorshift64 */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		for (unsigned int b = 0; b < 8 && i < len; b++, i++)
			p[i] = (uint8_t)(x >> (8 * b));
	}
}

uint32_t ring_for(uint64_t inflight)
{
	uint32_t n = SACC_DEFAULT_ENTRIES;

	while (n - 1 < inflight && n < SACC_RING_MAX_ENTRIES)
		n <<= 1;
	return n;
}

/* A number, 0x-prefixed hex or decimal, all 64 bits. */
static bool parse_hex_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

const char *mem_name(bool dev)
{
	return dev ? "dev" : "host";
}

/* --src, --dst, --ring: host or dev */
static int parse_mem_arg(int ch, const char *arg, struct op_args *a,
			 const char *cmd, void (*usage)(FILE *f))
{
	const char *opt = ch == OPT_SRC	  ? "--src"
			  : ch == OPT_DST ? "--dst"
					  : "--ring";
	bool dev;

	if (!strcmp(arg, "dev") || !strcmp(arg, "device"))
		dev = true;
	else if (!strcmp(arg, "host"))
		dev = false;
	else
		return usage_error(usage, cmd,
				   "%s must be host (DMA memory) or dev (the "
				   "device's memory, BAR4), not '%s'",
				   opt, arg);
	if (ch == OPT_SRC) {
		a->src_dev = dev;
		a->src_given = true;
	} else if (ch == OPT_DST) {
		a->dst_dev = dev;
	} else {
		a->ring_dev = dev;
	}
	return 0;
}

int check_op_args(const struct op_args *a, const char *cmd,
		  void (*usage)(FILE *f))
{
	bool copy = a->op == SACC_OP_MEMCPY || a->op == SACC_OP_XFORM;

	if (a->src_given && !copy)
		return usage_error(usage, cmd,
				   "--src goes with --op memcpy or xform: %s "
				   "reads no source buffer",
				   sacc_opcode_str(a->op));
	if (a->dst_dev && a->op == SACC_OP_NOP)
		return usage_error(usage, cmd,
				   "--dst dev: --op nop writes nothing");
	if (a->pattern_given && a->op != SACC_OP_FILL)
		return usage_error(usage, cmd, "--pattern goes with --op fill");
	return 0;
}

int alloc_side(struct sacc_dev *h, size_t len, bool dev, enum sacc_dma_dir dir,
	       const char *name, struct sacc_buf **out)
{
	int ret = dev ? sacc_devmem_alloc(h, len, name, out)
		      : sacc_buf_alloc(h, len, dir, name, out);

	return ret ? fail("%s", sacc_errmsg(h)) : 0;
}

int parse_op_arg(int ch, const char *arg, struct op_args *a, const char *cmd,
		 void (*usage)(FILE *f))
{
	switch (ch) {
	case 'o':
		if (!parse_opcode(arg, &a->op))
			return usage_error(usage, cmd,
					   "--op must be nop, memcpy, xform, "
					   "write-inline, timestamp or fill, "
					   "not '%s'",
					   arg);
		return 0;
	case OPT_SRC:
	case OPT_DST:
	case OPT_RING:
		return parse_mem_arg(ch, arg, a, cmd, usage);
	case OPT_PATTERN:
		if (!parse_hex_u64(arg, &a->pattern))
			return usage_error(usage, cmd,
					   "--pattern must be a 64-bit number "
					   "(0x... or decimal), not '%s'",
					   arg);
		a->pattern_given = true;
		return 0;
	case 's':
		if (sacc_size_parse(arg, &a->size) || a->size < 1 ||
		    a->size > SACC_MAX_XFER)
			return usage_error(
			    usage, cmd,
			    "--size must be 1..1M bytes (K and M "
			    "suffixes), not '%s'",
			    arg);
		return 0;
	case 'b':
		if (!parse_u64(arg, &a->batch) || a->batch < 1 ||
		    a->batch >= SACC_RING_MAX_ENTRIES)
			return usage_error(usage, cmd,
					   "--batch must be 1..%u, not '%s'",
					   SACC_RING_MAX_ENTRIES - 1, arg);
		return 0;
	case 'd':
		if (!parse_doorbell(arg, &a->doorbell))
			return usage_error(
			    usage, cmd,
			    "--doorbell must be tail (or mmap), token "
			    "or syscall, "
			    "not '%s'",
			    arg);
		return 0;
	}
	return -1;
}

int parse_bdf_operand(int argc, char **argv, char bdf[SACC_BDF_MAX],
		      const char *cmd, void (*usage)(FILE *f))
{
	if (optind >= argc)
		return usage_error(usage, cmd,
				   "which device? give a PCI address "
				   "(saccctl list shows them)");
	if (optind + 1 < argc)
		return usage_error(usage, cmd, "unexpected argument '%s'",
				   argv[optind + 1]);
	if (sacc_bdf_parse(argv[optind], bdf))
		return usage_error(usage, cmd, "%s", sacc_errmsg(NULL));
	return require_sacc_vfio(bdf, cmd);
}

int require_sacc_vfio(const char *bdf, const char *cmd)
{
	struct sacc_pci_dev d;

	if (sacc_pci_get(bdf, &d)) {
		fprintf(stderr, "saccctl %s: %s\n", cmd, sacc_errmsg(NULL));
		return EXIT_USAGE;
	}
	if (!d.is_sacc) {
		fprintf(stderr,
			"saccctl %s: %s is not a SACC device (PCI %04x:%04x, "
			"SACC is %04x:%04x); 'saccctl list' shows the SACC "
			"devices\n",
			cmd, d.bdf, d.vendor, d.device, SACC_PCI_VENDOR_ID,
			SACC_PCI_DEVICE_ID);
		return EXIT_USAGE;
	}
	if (strcmp(d.driver, "vfio-pci")) {
		fprintf(stderr,
			"saccctl %s: SACC device %s is %s%s, not to vfio-pci: "
			"run 'saccctl bind %s' first\n",
			cmd, d.bdf,
			d.driver[0] ? "bound to " : "bound to no driver",
			d.driver, d.bdf);
		return EXIT_USAGE;
	}
	return 0;
}

/* ---- log-linear histogram ---- */

static unsigned int h_idx(uint64_t v)
{
	unsigned int e;

	if (v < H_LINEAR)
		return (unsigned int)v;
	e = 63u - (unsigned int)__builtin_clzll(v);
	return H_LINEAR + (e - (H_SUB_BITS + 1)) * H_SUB +
	       (unsigned int)((v >> (e - H_SUB_BITS)) & (H_SUB - 1));
}

static uint64_t h_mid(unsigned int i)
{
	unsigned int e, sub;
	uint64_t lo;

	if (i < H_LINEAR)
		return i;
	e = (i - H_LINEAR) / H_SUB + H_SUB_BITS + 1;
	sub = (i - H_LINEAR) % H_SUB;
	lo = (uint64_t)(H_SUB + sub) << (e - H_SUB_BITS);
	return lo + ((1ull << (e - H_SUB_BITS)) >> 1);
}

void h_add(struct hist *h, uint64_t v)
{
	if (!h->n || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	h->sum += v;
	h->b[h_idx(v)]++;
}

uint64_t h_pct(const struct hist *h, double p)
{
	uint64_t want, acc = 0, v;
	unsigned int i;

	if (!h->n)
		return 0;
	want = (uint64_t)(p * (double)h->n + 0.999999);
	if (want < 1)
		want = 1;
	for (i = 0; i < H_BUCKETS; i++) {
		acc += h->b[i];
		if (acc >= want) {
			v = h_mid(i);
			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max;
}

bool parse_doorbell(const char *s, enum sacc_doorbell *db)
{
	if (!strcmp(s, "mmap") || !strcmp(s, "tail"))
		*db = SACC_DOORBELL_MMAP;
	else if (!strcmp(s, "syscall"))
		*db = SACC_DOORBELL_SYSCALL;
	else if (!strcmp(s, "token"))
		*db = SACC_DOORBELL_PUT_TOKEN;
	else
		return false;
	return true;
}

const char *doorbell_name(enum sacc_doorbell db)
{
	return db == SACC_DOORBELL_MMAP	     ? "mmap"
	       : db == SACC_DOORBELL_SYSCALL ? "syscall"
					     : "token";
}

int open_handle(const char *bdf, const struct sacc_open_opts *o,
		struct sacc_dev **dev, struct sacc_dev **h)
{
	struct sacc_open_opts d = *o;

	*dev = *h = NULL;
	d.flags |= SACC_OPEN_V3;
	if (d.doorbell == SACC_DOORBELL_PUT_TOKEN) {
		d.doorbell = SACC_DOORBELL_MMAP;
		d.flags &= ~SACC_OPEN_SQ_DEV; /* channel 1's, not 0's */
	}
	if (sacc_open(bdf, &d, dev)) {
		/* --ring dev needs v0.4: its message says why not */
		if (o->doorbell == SACC_DOORBELL_PUT_TOKEN ||
		    (o->flags & SACC_OPEN_SQ_DEV))
			return fail("%s", sacc_errmsg(NULL));
		/* a device before v0.3: channel 0 as it always was */
		d.flags &= ~SACC_OPEN_V3;
		if (sacc_open(bdf, &d, dev))
			return fail("%s", sacc_errmsg(NULL));
	}
	if (o->doorbell != SACC_DOORBELL_PUT_TOKEN) {
		*h = *dev;
		return 0;
	}
	/* the token doorbell is a channel's: channel 1 */
	if (sacc_chan_open(*dev, 1, o, h)) {
		fail("%s", sacc_errmsg(*dev));
		sacc_close(*dev);
		*dev = NULL;
		return EXIT_FAIL;
	}
	return 0;
}

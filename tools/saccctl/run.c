// SPDX-License-Identifier: MIT
/*
 * run.c - saccctl run: submit operations in batches (one doorbell per
 * batch), reap them, check every completion and, with --verify, every
 * destination byte.
 */
#include <stdlib.h>
#include <string.h>

#include "saccctl.h"

#define RUN_MAX_BYTES (256ull << 20) /* batch * size */

void usage_run(FILE *f)
{
	fputs(
	    "usage: saccctl run BDF [--op "
	    "nop|memcpy|xform|write-inline|timestamp|fill]\n"
	    "                     [--size N] [--count N] [--batch N] [--irq] "
	    "[--verify]\n"
	    "                     [--src host|dev] [--dst host|dev] "
	    "[--pattern X]\n"
	    "                     [--ring host|dev]\n"
	    "                     [--doorbell tail|token|syscall] [--timeout "
	    "S] "
	    "[--json]\n\n"
	    "Run COUNT operations, BATCH at a time under one doorbell, wait "
	    "for\n"
	    "each batch to complete and check every completion (status ok,\n"
	    "result_len = size). Each operation of a batch has its own source\n"
	    "and destination range, refilled for every batch.\n\n"
	    "  --op OP        nop, memcpy (default), xform (copy XOR 0x17),\n"
	    "                 write-inline (the bytes in the SQ, size <= 4K),\n"
	    "                 timestamp (the device clock, 8 bytes, to dst) "
	    "or\n"
	    "                 fill (v0.4: --pattern repeated over dst)\n"
	    "  --size N       bytes per operation, 1..1M; K and M suffixes\n"
	    "                 (default 4K; ignored for nop)\n"
	    "  --count N      operations in all (default 1)\n"
	    "  --batch N      operations per doorbell (default 1)\n"
	    "  --irq          wait for completions by MSI-X interrupt instead\n"
	    "                 of polling\n"
	    "  --verify       check destination bytes (memcpy: equal to the\n"
	    "                 source; xform: source XOR 0x17; fill: the "
	    "pattern),\n"
	    "                 device memory read back through BAR4\n"
	    "  --src M, --dst M  v0.4: where the source (memcpy, xform) and "
	    "the\n"
	    "                 destination are: host (DMA memory, default) or "
	    "dev\n"
	    "                 (the device's memory, BAR4): H2D, D2H, D2D, H2H\n"
	    "  --pattern X    --op fill's 8 bytes, little endian (default\n"
	    "                 0x8877665544332211: bytes 11 22 ... 88)\n"
	    "  --ring M       v0.4: the SQ in host memory (default) or in "
	    "device\n"
	    "                 memory (dev: MODE.SQ_DEV)\n"
	    "  --doorbell M   tail (default; also 'mmap': store to the mapped\n"
	    "                 page), syscall (pwrite on the VFIO device) or\n"
	    "                 token (token doorbell + PUT word, channel 1)\n"
	    "  --timeout S    give up on a batch after S seconds (default 10)\n"
	    "  --json         print the summary as one JSON object "
	    "(engine_ns:\n"
	    "                 the device's time per op, avg/p50/p99)\n"
	    "  -h, --help\n\n"
	    "Exit status 1 if any operation failed or any byte mismatched.\n",
	    f);
}

struct run_cfg {
	const char *bdf;
	struct op_args a;
	uint64_t count;
	bool irq, verify, json;
	double timeout;
};

/* Index of the first wrong byte, or -1 if dst is src XOR key. */
static long first_diff(const uint8_t *src, const uint8_t *dst, size_t len,
		       uint8_t key)
{
	size_t i;

	if (!key && !memcmp(src, dst, len))
		return -1;
	for (i = 0; i < len; i++)
		if (dst[i] != (uint8_t)(src[i] ^ key))
			return (long)i;
	return -1;
}

static int parse_run_args(int argc, char **argv, struct run_cfg *c)
{
	static const struct option lo[] = {
	    {"op", required_argument, NULL, 'o'},
	    {"size", required_argument, NULL, 's'},
	    {"count", required_argument, NULL, 'n'},
	    {"batch", required_argument, NULL, 'b'},
	    {"irq", no_argument, NULL, 'i'},
	    {"verify", no_argument, NULL, 'v'},
	    {"doorbell", required_argument, NULL, 'd'},
	    {"timeout", required_argument, NULL, 't'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    OP_ARGS_V4_LONGOPTS,
	    {NULL, 0, NULL, 0}};
	static char bdf[SACC_BDF_MAX];
	int ch, ret;

	memset(c, 0, sizeof(*c));
	c->a.op = SACC_OP_MEMCPY;
	c->a.size = 4096;
	c->count = 1;
	c->a.batch = 1;
	c->timeout = 10;
	c->a.pattern = FILL_PATTERN_DEFAULT;
	while ((ch = cmd_getopt(argc, argv, "o:s:n:b:ivd:t:jh", lo,
				usage_run)) != -1) {
		switch (ch) {
		case 'n':
			if (!parse_u64(optarg, &c->count) || c->count < 1)
				return usage_error(usage_run, "run",
						   "--count must be a number "
						   ">= 1, not '%s'",
						   optarg);
			break;
		case 'i':
			c->irq = true;
			break;
		case 'v':
			c->verify = true;
			break;
		case 't':
			if (!parse_double(optarg, &c->timeout) ||
			    c->timeout <= 0 || c->timeout > 86400)
				return usage_error(usage_run, "run",
						   "--timeout must be seconds "
						   "> 0, not '%s'",
						   optarg);
			break;
		case 'j':
			c->json = true;
			break;
		case 'h':
			usage_run(stdout);
			return -1;
		default:
			ret = parse_op_arg(ch, optarg, &c->a, "run", usage_run);
			if (ret)
				return ret < 0 ? EXIT_USAGE : ret;
		}
	}
	ret = check_op_args(&c->a, "run", usage_run);
	if (ret)
		return ret;
	ret = parse_bdf_operand(argc, argv, bdf, "run", usage_run);
	if (ret)
		return ret;
	c->bdf = bdf;
	if (c->a.batch > c->count)
		c->a.batch = c->count;
	if (c->a.op == SACC_OP_WRITE_INLINE && c->a.size > SACC_INLINE_MAX)
		return usage_error(usage_run, "run",
				   "--op write-inline carries at most %u bytes "
				   "(--size)",
				   SACC_INLINE_MAX);
	if (c->a.op == SACC_OP_TIMESTAMP)
		c->a.size = SACC_TIMESTAMP_LEN;
	if (c->a.op != SACC_OP_NOP && c->a.batch * c->a.size > RUN_MAX_BYTES)
		return usage_error(usage_run, "run",
				   "--batch x --size is %llu bytes, more than "
				   "%llu MiB: lower one of them",
				   (unsigned long long)(c->a.batch * c->a.size),
				   RUN_MAX_BYTES >> 20);
	return 0;
}

/* Reap exactly @want results into @res within the deadline. */
static int reap(struct sacc_dev *dev, struct sacc_result *res, uint32_t want,
		const struct run_cfg *c, uint64_t deadline)
{
	uint32_t got = 0;
	int r;

	while (got < want) {
		r = sacc_poll(dev, res + got, want - got);
		if (r < 0)
			return fail("%s", sacc_errmsg(dev));
		got += (uint32_t)r;
		if (got == want)
			break;
		if (now_ns() > deadline) {
			r = sacc_check(dev);
			return fail("%s: %u of %u operations did not complete "
				    "within %.1f s%s%s; try --timeout, or "
				    "'saccctl info %s'",
				    c->bdf, want - got, want, c->timeout,
				    r ? ": " : "", r ? sacc_errmsg(dev) : "",
				    c->bdf);
		}
		if (c->irq && r == 0) {
			uint64_t left = (deadline - now_ns()) / 1000000 + 1;

			r = sacc_wait(dev, left > 1000 ? 1000 : (int)left);
			if (r < 0)
				return fail("%s", sacc_errmsg(dev));
		}
	}
	return 0;
}

/* One run's buffers and tallies. */
struct run_state {
	struct sacc_dev *dev;
	struct sacc_buf *src, *dst;
	struct sacc_op *ops;
	struct sacc_result *res;
	struct hist *eh; /* engine_ns of the ok operations */
	bool data;	 /* not nop: there are bytes */
	bool v3;	 /* write-inline, timestamp, fill: no src buffer */
	bool fill;	 /* fill: dst is the pattern */
	uint8_t key;	 /* dst = src XOR key */
	uint64_t done, ok, failed, verified, mismatched;
	struct sacc_devmem_info dm; /* at the end; size 0: none */
};

/* The next @b operations, each with its own range of src and dst; src
 * refilled (pattern @seq), dst poisoned. */
static void prepare_batch(const struct run_cfg *c, struct run_state *s,
			  uint32_t b, uint64_t seq)
{
	uint32_t i;

	for (i = 0; i < b; i++) {
		s->ops[i] = (struct sacc_op){
		    .opcode = c->a.op,
		    .flags = c->irq ? SACC_OPF_IRQ : 0,
		    .len = s->data ? (uint32_t)c->a.size : 0,
		    .src = s->data && !s->v3 ? s->src : NULL,
		    .src_off = s->data && !s->v3 ? i * c->a.size : 0,
		    .dst = s->data ? s->dst : NULL,
		    .dst_off = s->data ? i * c->a.size : 0,
		    .cookie = i,
		    .data = c->a.op == SACC_OP_WRITE_INLINE
				? (uint8_t *)sacc_buf_va(s->src) + i * c->a.size
				: NULL,
		    .pattern = c->a.pattern,
		};
	}
	if (!s->data)
		return;
	/* Device memory too: through the BAR4 mapping, plain stores. */
	if (s->src)
		fill_pattern(sacc_buf_va(s->src), b * c->a.size, seq);
	/* Poison that cannot pass for the right answer. */
	for (i = 0; i < b; i++) {
		uint8_t *src =
		    s->src ? (uint8_t *)sacc_buf_va(s->src) + i * c->a.size
			   : NULL;
		uint8_t *dst = (uint8_t *)sacc_buf_va(s->dst) + i * c->a.size;
		size_t j;

		for (j = 0; j < c->a.size; j++)
			dst[j] =
			    (uint8_t) ~(s->fill ? pattern_byte(c->a.pattern, j)
						: src[j] ^ s->key);
	}
}

/* Index of the first byte of @dst that is not FILL's @pattern, or -1. */
static long first_unfilled(const uint8_t *dst, size_t len, uint64_t pattern)
{
	for (size_t i = 0; i < len; i++)
		if (dst[i] != pattern_byte(pattern, i))
			return (long)i;
	return -1;
}

/* @x's status and length, and with --verify its destination bytes. */
static void check_result(const struct run_cfg *c, struct run_state *s,
			 const struct sacc_result *x)
{
	uint64_t n = s->done + x->cookie;
	uint32_t want = s->data ? (uint32_t)c->a.size : 0;
	const uint8_t *src, *dst;
	long at;

	if (x->status != SACC_STS_OK || x->result_len != want) {
		if (s->failed < 10)
			fprintf(stderr,
				"saccctl: op %llu (req_id %u): status %u "
				"(%s), result_len %u of %u\n",
				(unsigned long long)n, x->req_id, x->status,
				sacc_status_str(x->status), x->result_len,
				want);
		s->failed++;
		return;
	}
	s->ok++;
	h_add(s->eh, x->engine_ns);
	if (!c->verify || !s->data || c->a.op == SACC_OP_TIMESTAMP)
		return;
	/* dst (and src) in device memory: read back through BAR4 */
	dst = (uint8_t *)sacc_buf_va(s->dst) + x->cookie * c->a.size;
	src = s->fill ? NULL
		      : (uint8_t *)sacc_buf_va(s->src) + x->cookie * c->a.size;
	at = s->fill ? first_unfilled(dst, c->a.size, c->a.pattern)
		     : first_diff(src, dst, c->a.size, s->key);
	if (at < 0) {
		s->verified++;
		return;
	}
	if (s->mismatched < 10)
		fprintf(stderr,
			"saccctl: op %llu (req_id %u): dst byte %ld is 0x%02x, "
			"expected 0x%02x\n",
			(unsigned long long)n, x->req_id, at, dst[at],
			s->fill ? pattern_byte(c->a.pattern, (uint64_t)at)
				: (uint8_t)(src[at] ^ s->key));
	s->mismatched++;
}

/* Submit one batch of @b, reap it, check every result: 0 or fail()'s. */
static int run_batch(const struct run_cfg *c, struct run_state *s, uint32_t b,
		     uint64_t seq)
{
	uint64_t deadline;
	int r;

	prepare_batch(c, s, b, seq);
	r = sacc_submit(s->dev, s->ops, b);
	if (r < 0)
		return fail("%s", sacc_errmsg(s->dev));
	if ((uint32_t)r != b)
		return fail("%s: only %d of %u operations fit in the SQ",
			    c->bdf, r, b);
	deadline = now_ns() + (uint64_t)(c->timeout * 1e9);
	if (reap(s->dev, s->res, b, c, deadline))
		return EXIT_FAIL;
	for (uint32_t i = 0; i < b; i++)
		check_result(c, s, &s->res[i]);
	return 0;
}

static int print_run_json(const struct run_cfg *c, const struct run_state *s,
			  const struct sacc_stats *st, uint64_t ns)
{
	struct json_object *o = jobj(), *sts = jobj(), *eng = jobj();
	const struct hist *eh = s->eh;

	jset_str(o, "bdf", c->bdf);
	jset_str(o, "op", sacc_opcode_str(c->a.op));
	jset_u64(o, "size", s->data ? c->a.size : 0);
	jset_u64(o, "count", c->count);
	jset_u64(o, "batch", c->a.batch);
	jset_str(o, "doorbell", doorbell_name(c->a.doorbell));
	jset_str(o, "src", mem_name(c->a.src_dev));
	jset_str(o, "dst", mem_name(c->a.dst_dev));
	jset_str(o, "ring", mem_name(c->a.ring_dev));
	if (s->fill)
		jset_hex(o, "pattern", c->a.pattern);
	jset_bool(o, "irq", c->irq);
	jset_bool(o, "verify", c->verify);
	jset_u64(o, "ok", s->ok);
	jset_u64(o, "failed", s->failed);
	jset_u64(o, "verified", s->verified);
	jset_u64(o, "mismatched", s->mismatched);
	jset_double(o, "seconds", (double)ns / 1e9, "%.6f");
	jset_double(o, "ops_per_sec",
		    (double)s->done * 1e9 / (double)(ns ? ns : 1), "%.1f");
	jset_u64(o, "doorbells", st->doorbells);
	jset_u64(o, "interrupts", st->interrupts);
	jset_u64(o, "device_errors", st->device_errors);
	jset_u64(sts, "ok", st->by_status[0]);
	jset_u64(sts, "bad_opcode", st->by_status[1]);
	jset_u64(sts, "dma_fault", st->by_status[2]);
	jset_u64(sts, "bad_length", st->by_status[3]);
	jset(o, "status", sts);
	jset_u64(o, "channel", sacc_dev_channel(s->dev));
	jset_double(eng, "avg", eh->n ? (double)eh->sum / (double)eh->n : 0.0,
		    "%.1f");
	jset_u64(eng, "p50", h_pct(eh, 0.50));
	jset_u64(eng, "p99", h_pct(eh, 0.99));
	jset(o, "engine_ns", eng);
	if (s->dm.size) {
		struct json_object *dm = jobj();

		jset_u64(dm, "size", s->dm.size);
		jset_u64(dm, "used", s->dm.used);
		jset(o, "devmem", dm);
	}
	return jprint(o, JSON_SPACED);
}

static void print_run_text(const struct run_cfg *c, const struct run_state *s,
			   const struct sacc_stats *st, uint64_t ns)
{
	const struct hist *eh = s->eh;
	char sz[32], used[32], pat[24];

	snprintf(pat, sizeof(pat), "%016llx", (unsigned long long)c->a.pattern);
	printf("%s: %s%s%s x %llu, batch %llu, %s doorbell, %s\n", c->bdf,
	       sacc_opcode_str(c->a.op), s->data ? " " : "",
	       s->data ? sacc_fmt_bytes(c->a.size, sz, sizeof(sz)) : "",
	       (unsigned long long)c->count, (unsigned long long)c->a.batch,
	       doorbell_name(c->a.doorbell), c->irq ? "interrupts" : "polling");
	if (s->dm.size)
		printf("  src %s, dst %s, SQ in %s memory%s%s; device memory "
		       "%s in use of %s\n",
		       s->v3 ? "-" : mem_name(c->a.src_dev),
		       s->data ? mem_name(c->a.dst_dev) : "-",
		       c->a.ring_dev ? "device" : "host",
		       s->fill ? ", pattern 0x" : "", s->fill ? pat : "",
		       sacc_fmt_bytes(s->dm.used, used, sizeof(used)),
		       sacc_fmt_bytes(s->dm.size, sz, sizeof(sz)));
	printf("  %llu ok, %llu failed", (unsigned long long)s->ok,
	       (unsigned long long)s->failed);
	if (c->verify && s->data)
		printf(", %llu verified, %llu mismatched",
		       (unsigned long long)s->verified,
		       (unsigned long long)s->mismatched);
	else if (c->verify)
		printf(" (nop: status checked, no data)");
	printf("\n  %.3f s, %.0f ops/s, %llu doorbells, %llu interrupts\n",
	       (double)ns / 1e9, (double)s->done * 1e9 / (double)(ns ? ns : 1),
	       (unsigned long long)st->doorbells,
	       (unsigned long long)st->interrupts);
	if (eh->n && eh->max)
		printf("  engine time %.2f us avg, %.2f us p50, %.2f us p99\n",
		       (double)eh->sum / (double)eh->n / 1e3,
		       (double)h_pct(eh, 0.50) / 1e3,
		       (double)h_pct(eh, 0.99) / 1e3);
}

int cmd_run(int argc, char **argv)
{
	struct sacc_open_opts opts = {0};
	struct run_state s = {0};
	struct sacc_dev *root = NULL;
	struct sacc_stats st;
	struct run_cfg c;
	uint64_t t0, t1, bytes, seq = 0;
	uint32_t b;
	int rc;

	rc = parse_run_args(argc, argv, &c);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	s.data = c.a.op != SACC_OP_NOP;
	/* write-inline: the bytes from src's range go in the SQ;
	 * timestamp: 8 bytes of clock to dst, nothing to compare */
	s.v3 = c.a.op == SACC_OP_WRITE_INLINE || c.a.op == SACC_OP_TIMESTAMP ||
	       c.a.op == SACC_OP_FILL;
	s.fill = c.a.op == SACC_OP_FILL;
	s.key = c.a.op == SACC_OP_XFORM ? SACC_XFORM_KEY : 0;
	/* an inline write takes 1 + its payload's slots */
	opts.sq_entries =
	    ring_for(c.a.batch * (c.a.op == SACC_OP_WRITE_INLINE
				      ? 1 + SACC_INLINE_SLOTS(c.a.size)
				      : 1));
	opts.doorbell = c.a.doorbell;
	opts.flags = c.a.ring_dev ? SACC_OPEN_SQ_DEV : 0;
	if (open_handle(c.bdf, &opts, &root, &s.dev))
		return EXIT_FAIL;
	rc = EXIT_FAIL;
	s.eh = calloc(1, sizeof(*s.eh));
	s.ops = calloc(c.a.batch, sizeof(*s.ops));
	s.res = calloc(c.a.batch, sizeof(*s.res));
	if (!s.ops || !s.res || !s.eh) {
		fail("out of memory");
		goto out;
	}
	bytes = c.a.batch * c.a.size;
	/* write-inline's bytes come from src's range (host memory); fill
	 * has no source */
	if (s.data &&
	    ((!s.fill && alloc_side(s.dev, bytes, c.a.src_dev,
				    SACC_DMA_TO_DEVICE, "run src", &s.src)) ||
	     alloc_side(s.dev, bytes, c.a.dst_dev, SACC_DMA_FROM_DEVICE,
			"run dst", &s.dst)))
		goto out;
	t0 = now_ns();
	while (s.done < c.count) {
		b = (uint32_t)(c.count - s.done < c.a.batch ? c.count - s.done
							    : c.a.batch);
		if (run_batch(&c, &s, b, ++seq))
			goto out;
		s.done += b;
	}
	t1 = now_ns();
	sacc_stats(s.dev, &st);
	if (c.a.src_dev || c.a.dst_dev || c.a.ring_dev)
		sacc_devmem_info(s.dev, &s.dm);
	if (c.json) {
		if (print_run_json(&c, &s, &st, t1 - t0))
			goto out; /* rc is EXIT_FAIL */
	} else {
		print_run_text(&c, &s, &st, t1 - t0);
	}
	if (s.failed || s.mismatched) {
		fail("%s: %llu of %llu operations failed, %llu had wrong "
		     "destination bytes (details above)",
		     c.bdf, (unsigned long long)s.failed,
		     (unsigned long long)c.count,
		     (unsigned long long)s.mismatched);
		goto out;
	}
	rc = EXIT_OK;
out:
	/* sacc_close() quiesces the device before freeing the buffers. */
	sacc_close(root);
	free(s.ops);
	free(s.res);
	free(s.eh);
	return rc;
}

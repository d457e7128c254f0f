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
	    "nop|memcpy|xform|write-inline|timestamp]\n"
	    "                     [--size N]"
	    "                     [--count N] [--batch N] [--irq] [--verify]\n"
	    "                     [--doorbell tail|token|syscall] [--timeout "
	    "S] "
	    "[--json]\n\n"
	    "Run COUNT operations, BATCH at a time under one doorbell, wait "
	    "for\n"
	    "each batch to complete and check every completion (status ok,\n"
	    "result_len = size). Each operation of a batch has its own source\n"
	    "and destination range, refilled for every batch.\n\n"
	    "  --op OP        nop, memcpy (default), xform (copy XOR 0x17),\n"
	    "                 write-inline (the bytes in the SQ, size <= 4K) "
	    "or\n"
	    "                 timestamp (the device clock, 8 bytes, to dst)\n"
	    "  --size N       bytes per operation, 1..1M; K and M suffixes\n"
	    "                 (default 4K; ignored for nop)\n"
	    "  --count N      operations in all (default 1)\n"
	    "  --batch N      operations per doorbell (default 1)\n"
	    "  --irq          wait for completions by MSI-X interrupt instead\n"
	    "                 of polling\n"
	    "  --verify       check destination bytes (memcpy: equal to the\n"
	    "                 source; xform: source XOR 0x17)\n"
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
	    {NULL, 0, NULL, 0}};
	static char bdf[SACC_BDF_MAX];
	int ch, ret;

	memset(c, 0, sizeof(*c));
	c->a.op = SACC_OP_MEMCPY;
	c->a.size = 4096;
	c->count = 1;
	c->a.batch = 1;
	c->timeout = 10;
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

int cmd_run(int argc, char **argv)
{
	struct sacc_open_opts opts = {0};
	struct sacc_buf *src = NULL, *dst = NULL;
	struct sacc_result *res = NULL;
	struct sacc_op *ops = NULL;
	struct sacc_dev *dev = NULL, *root = NULL;
	struct hist *eh = NULL;
	struct sacc_stats st;
	struct run_cfg c;
	uint64_t done = 0, ok = 0, failed = 0, verified = 0, mismatched = 0;
	uint64_t t0, t1, bytes, seq = 0;
	uint8_t key;
	bool data, v3;
	int rc, r;
	uint32_t i, b;
	char sz[32];

	rc = parse_run_args(argc, argv, &c);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	data = c.a.op != SACC_OP_NOP;
	/* write-inline: the bytes from src's range go in the SQ;
	 * timestamp: 8 bytes of clock to dst, nothing to compare */
	v3 = c.a.op == SACC_OP_WRITE_INLINE || c.a.op == SACC_OP_TIMESTAMP;
	key = c.a.op == SACC_OP_XFORM ? SACC_XFORM_KEY : 0;
	/* an inline write takes 1 + its payload's slots */
	opts.sq_entries = ring_for(
	    c.a.batch * (c.a.op == SACC_OP_WRITE_INLINE
			     ? 1 + SACC_INLINE_SLOTS(c.a.size)
			     : 1));
	opts.doorbell = c.a.doorbell;
	if (open_handle(c.bdf, &opts, &root, &dev))
		return EXIT_FAIL;
	rc = EXIT_FAIL;
	eh = calloc(1, sizeof(*eh));
	ops = calloc(c.a.batch, sizeof(*ops));
	res = calloc(c.a.batch, sizeof(*res));
	if (!ops || !res || !eh) {
		fail("out of memory");
		goto out;
	}
	bytes = c.a.batch * c.a.size;
	if (data &&
	    (sacc_buf_alloc(dev, bytes, SACC_DMA_TO_DEVICE, "run src", &src) ||
	     sacc_buf_alloc(dev, bytes, SACC_DMA_FROM_DEVICE, "run dst",
			    &dst))) {
		fail("%s", sacc_errmsg(dev));
		goto out;
	}
	t0 = now_ns();
	while (done < c.count) {
		uint64_t deadline;

		b = (uint32_t)(c.count - done < c.a.batch ? c.count - done
							  : c.a.batch);
		for (i = 0; i < b; i++) {
			ops[i] = (struct sacc_op){
			    .opcode = c.a.op,
			    .flags = c.irq ? SACC_OPF_IRQ : 0,
			    .len = data ? (uint32_t)c.a.size : 0,
			    .src = data && !v3 ? src : NULL,
			    .src_off = data && !v3 ? i * c.a.size : 0,
			    .dst = data ? dst : NULL,
			    .dst_off = data ? i * c.a.size : 0,
			    .cookie = i,
			    .data =
				c.a.op == SACC_OP_WRITE_INLINE
				    ? (uint8_t *)sacc_buf_va(src) + i * c.a.size
				    : NULL,
			};
		}
		if (data) {
			fill_pattern(sacc_buf_va(src), b * c.a.size, ++seq);
			/* Poison that cannot pass for the right answer. */
			for (i = 0; i < b; i++) {
				uint8_t *s =
				    (uint8_t *)sacc_buf_va(src) + i * c.a.size;
				uint8_t *d =
				    (uint8_t *)sacc_buf_va(dst) + i * c.a.size;
				size_t j;

				for (j = 0; j < c.a.size; j++)
					d[j] = (uint8_t) ~(s[j] ^ key);
			}
		}
		r = sacc_submit(dev, ops, b);
		if (r < 0) {
			fail("%s", sacc_errmsg(dev));
			goto out;
		}
		if ((uint32_t)r != b) {
			fail("%s: only %d of %u operations fit in the SQ",
			     c.bdf, r, b);
			goto out;
		}
		deadline = now_ns() + (uint64_t)(c.timeout * 1e9);
		if (reap(dev, res, b, &c, deadline))
			goto out;
		for (i = 0; i < b; i++) {
			const struct sacc_result *x = &res[i];
			uint64_t n = done + x->cookie;
			uint32_t want = data ? (uint32_t)c.a.size : 0;

			if (x->status != SACC_STS_OK || x->result_len != want) {
				if (failed < 10)
					fprintf(stderr,
						"saccctl: op %llu (req_id %u): "
						"status %u (%s), result_len %u "
						"of %u\n",
						(unsigned long long)n,
						x->req_id, x->status,
						sacc_status_str(x->status),
						x->result_len, want);
				failed++;
				continue;
			}
			ok++;
			h_add(eh, x->engine_ns);
			if (!c.verify || !data || c.a.op == SACC_OP_TIMESTAMP)
				continue;
			{
				const uint8_t *s = (uint8_t *)sacc_buf_va(src) +
						   x->cookie * c.a.size;
				const uint8_t *d = (uint8_t *)sacc_buf_va(dst) +
						   x->cookie * c.a.size;
				long at = first_diff(s, d, c.a.size, key);

				if (at < 0) {
					verified++;
					continue;
				}
				if (mismatched < 10)
					fprintf(stderr,
						"saccctl: op %llu (req_id %u): "
						"dst byte %ld is 0x%02x, "
						"expected 0x%02x\n",
						(unsigned long long)n,
						x->req_id, at, d[at],
						(uint8_t)(s[at] ^ key));
				mismatched++;
			}
		}
		done += b;
	}
	t1 = now_ns();
	sacc_stats(dev, &st);
	if (c.json) {
		struct json_object *o = jobj(), *sts = jobj(), *eng = jobj();

		jset_str(o, "bdf", c.bdf);
		jset_str(o, "op", sacc_opcode_str(c.a.op));
		jset_u64(o, "size", data ? c.a.size : 0);
		jset_u64(o, "count", c.count);
		jset_u64(o, "batch", c.a.batch);
		jset_str(o, "doorbell", doorbell_name(c.a.doorbell));
		jset_bool(o, "irq", c.irq);
		jset_bool(o, "verify", c.verify);
		jset_u64(o, "ok", ok);
		jset_u64(o, "failed", failed);
		jset_u64(o, "verified", verified);
		jset_u64(o, "mismatched", mismatched);
		jset_double(o, "seconds", (double)(t1 - t0) / 1e9, "%.6f");
		jset_double(o, "ops_per_sec",
			    (double)done * 1e9 /
				(double)(t1 - t0 ? t1 - t0 : 1),
			    "%.1f");
		jset_u64(o, "doorbells", st.doorbells);
		jset_u64(o, "interrupts", st.interrupts);
		jset_u64(o, "device_errors", st.device_errors);
		jset_u64(sts, "ok", st.by_status[0]);
		jset_u64(sts, "bad_opcode", st.by_status[1]);
		jset_u64(sts, "dma_fault", st.by_status[2]);
		jset_u64(sts, "bad_length", st.by_status[3]);
		jset(o, "status", sts);
		jset_u64(o, "channel", sacc_dev_channel(dev));
		jset_double(eng, "avg",
			    eh->n ? (double)eh->sum / (double)eh->n : 0.0,
			    "%.1f");
		jset_u64(eng, "p50", h_pct(eh, 0.50));
		jset_u64(eng, "p99", h_pct(eh, 0.99));
		jset(o, "engine_ns", eng);
		if (jprint(o, JSON_SPACED))
			goto out; /* rc is EXIT_FAIL */
	} else {
		printf("%s: %s%s%s x %llu, batch %llu, %s doorbell, %s\n",
		       c.bdf, sacc_opcode_str(c.a.op), data ? " " : "",
		       data ? sacc_fmt_bytes(c.a.size, sz, sizeof(sz)) : "",
		       (unsigned long long)c.count,
		       (unsigned long long)c.a.batch,
		       doorbell_name(c.a.doorbell),
		       c.irq ? "interrupts" : "polling");
		printf("  %llu ok, %llu failed", (unsigned long long)ok,
		       (unsigned long long)failed);
		if (c.verify && data)
			printf(", %llu verified, %llu mismatched",
			       (unsigned long long)verified,
			       (unsigned long long)mismatched);
		else if (c.verify)
			printf(" (nop: status checked, no data)");
		printf("\n  %.3f s, %.0f ops/s, %llu doorbells, %llu "
		       "interrupts\n",
		       (double)(t1 - t0) / 1e9,
		       (double)done * 1e9 / (double)(t1 - t0 ? t1 - t0 : 1),
		       (unsigned long long)st.doorbells,
		       (unsigned long long)st.interrupts);
		if (eh->n && eh->max)
			printf(
			    "  engine time %.2f us avg, %.2f us p50, %.2f us "
			    "p99\n",
			    (double)eh->sum / (double)eh->n / 1e3,
			    (double)h_pct(eh, 0.50) / 1e3,
			    (double)h_pct(eh, 0.99) / 1e3);
	}
	if (failed || mismatched) {
		fail("%s: %llu of %llu operations failed, %llu had wrong "
		     "destination bytes (details above)",
		     c.bdf, (unsigned long long)failed,
		     (unsigned long long)c.count,
		     (unsigned long long)mismatched);
		goto out;
	}
	rc = EXIT_OK;
out:
	/* sacc_close() quiesces the device before freeing the buffers. */
	sacc_close(root);
	free(ops);
	free(res);
	free(eh);
	return rc;
}

// SPDX-License-Identifier: MIT
/*
 * bench_graph.c - saccctl bench --graph N,...: what launching N
 * operations costs the CPU three ways, in one run, for each N:
 *
 *   per-op  N sacc_submit() calls of one op: N descriptors, N doorbells;
 *   chain   a v0.3 chain (sacc_chain_launch()): the N prepared
 *           descriptors copied into the SQ, one doorbell;
 *   graph   a v0.4 graph (sacc_graph_launch()): ONE SEGMENT entry, one
 *           doorbell; the N commands were written once, at build, into
 *           a segment in host memory or (--where dev) device memory.
 *
 * For each: the CPU's launch time (from the call that writes the first
 * byte to the doorbell store returning: the submit calls, the launch
 * call), the command bytes the CPU writes per launch and where (the SQ:
 * host RAM, or device memory with --ring dev), the doorbells per launch
 * (libsacc's counter), and the time until the last op's completion is
 * seen (launch start to the reap that finds it).  Each is launched
 * --repeat times (default 7) after one warm-up launch, one launch at a
 * time; medians are reported (min and max in --json).  The point: a
 * graph's launch writes 32 bytes and rings once, whatever N is.
 *
 * The SQ must hold N descriptors for per-op and chain: cmd_bench opens
 * it with max(4096, the next power of two above N) entries, so N = 2000
 * runs whole, never split.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define GRAPH_COPY 64 /* --op memcpy: bytes per op */

enum { ST_OP, ST_CHAIN, ST_GRAPH, NSTYLE };

static const char *const style_name[NSTYLE] = {"per-op", "chain", "graph"};
static const char *const style_key[NSTYLE] = {"per_op", "chain", "graph"};

/* One style at one N: medians (and spread) over the launches. */
struct gstyle {
	double launch[3], done[3]; /* ns: min, median, max */
	double engine;		   /* graph: median engine ns of the launch */
	double doorbells;	   /* per launch */
	uint64_t cmd_bytes;	   /* per launch, into the SQ */
	uint64_t build_ns;	   /* chain, graph: made once */
	uint64_t seg_bytes;	   /* graph: the segment */
};

struct gbench {
	const struct bench_cfg *c;
	struct sacc_dev *h;
	struct sacc_op *ops;
	struct sacc_buf *src, *dst;
	struct sacc_result res[256];
	double *v_launch, *v_done, *v_eng; /* repeat each */
	unsigned int repeat;
};

/* ---- options ---- */

/* --graph [N,...]: 1..SACC_GRAPH_MAX_OPS each; no list: the default */
static int parse_graph(const char *arg, struct bench_cfg *c)
{
	char *list = strdup(arg ? arg : BENCH_GRAPH_DEFAULT), *tok, *save;
	uint64_t v;

	if (!list)
		return fail("out of memory");
	c->ngraph = 0;
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (c->ngraph == BENCH_SWEEP_MAX || !parse_u64(tok, &v) ||
		    v < 1 || v > SACC_GRAPH_MAX_OPS) {
			free(list);
			return usage_error(usage_bench, "bench",
					   "--graph takes up to %u op counts "
					   "1..%u (a segment's most), comma "
					   "separated, not '%s'",
					   BENCH_SWEEP_MAX, SACC_GRAPH_MAX_OPS,
					   arg);
		}
		c->graph[c->ngraph++] = v;
	}
	free(list);
	return c->ngraph
		   ? 0
		   : usage_error(usage_bench, "bench",
				 "--graph needs op counts, e.g. 1,10,100");
}

/* --graph's list is optional: "--graph=1,10", "--graph 1,10" (the next
 * word, if it is digits and commas: never a PCI address), or none. */
int bench_graph_option(int argc, char **argv, struct bench_cfg *c)
{
	const char *arg = optarg;

	if (!arg && optind < argc && argv[optind][0] &&
	    strspn(argv[optind], "0123456789,") == strlen(argv[optind]))
		arg = argv[optind++];
	return parse_graph(arg, c);
}

/* --graph: a mode of its own, nop or memcpy (@sweep: --sweep given,
 * @where: --where given).  0 or the exit status. */
int bench_graph_check(const struct bench_cfg *c, bool sweep, bool where)
{
	if (where && !c->ngraph)
		return usage_error(usage_bench, "bench",
				   "--where places --graph's segment: it goes "
				   "with --graph");
	if (!c->ngraph)
		return 0;
	if (sweep || c->breakdown || c->chain || c->channels > 1 || c->nsqw ||
	    c->nload || c->reg_read || c->db_store || c->irq)
		return usage_error(usage_bench, "bench",
				   "--graph is a mode of its own (with --op, "
				   "--where, --ring, --doorbell, --repeat and "
				   "--json)");
	if (c->a.op != SACC_OP_NOP && c->a.op != SACC_OP_MEMCPY)
		return usage_error(
		    usage_bench, "bench",
		    "--graph measures --op nop or memcpy (64-byte "
		    "copies), not %s",
		    sacc_opcode_str(c->a.op));
	return 0;
}

/* ---- measuring ---- */

/* Reap until @want results came (none may fail): 0 or fail()'s 1; *t
 * gets the time the last was seen, *eng the last one's engine_ns. */
static int reap_n(struct gbench *b, uint32_t want, uint64_t *t, uint32_t *eng)
{
	uint64_t t0 = now_ns();
	int r;

	while (want) {
		r = sacc_poll(b->h, b->res, want < 256 ? want : 256);
		if (r < 0)
			return fail("%s", sacc_errmsg(b->h));
		if (r == 0) {
			if (now_ns() - t0 > STALL_NS)
				return fail("%s: no completion for 5 s",
					    sacc_dev_bdf(b->h));
			continue;
		}
		*t = now_ns();
		for (int i = 0; i < r; i++)
			if (b->res[i].status != SACC_STS_OK)
				return fail("req_id %u (%s): status %s",
					    b->res[i].req_id,
					    sacc_opcode_str(b->res[i].opcode),
					    sacc_status_str(b->res[i].status));
		*eng = b->res[r - 1].engine_ns;
		want -= (uint32_t)r;
	}
	return 0;
}

/* One launch of @n ops in style @s (@chain, @g prepared): *launch and
 * *done in ns from its start.  0 or fail()'s 1. */
static int launch_once(struct gbench *b, int s, uint32_t n,
		       struct sacc_chain *chain, struct sacc_graph *g,
		       uint64_t *launch, uint64_t *done, uint32_t *eng)
{
	uint64_t t0, t1, t2 = 0;
	int r = 0;

	t0 = now_ns();
	if (s == ST_OP) {
		for (uint32_t i = 0; i < n && r >= 0; i++)
			r = sacc_submit(b->h, &b->ops[i], 1) == 1 ? 0 : -1;
	} else if (s == ST_CHAIN) {
		r = sacc_chain_launch(chain) == (int)n ? 0 : -1;
	} else {
		r = sacc_graph_launch(b->h, g, n) == 1 ? 0 : -1;
	}
	t1 = now_ns();
	if (r)
		return fail("%s launch of %u ops: %s", style_name[s], n,
			    sacc_errmsg(b->h));
	if (reap_n(b, s == ST_GRAPH ? 1 : n, &t2, eng))
		return EXIT_FAIL;
	if (s == ST_GRAPH && b->res[0].result_len != n) {
		char why[512];

		return fail(
		    "graph of %u ops: %s", n,
		    sacc_graph_explain(g, &b->res[0], why, sizeof(why)));
	}
	*launch = t1 - t0;
	*done = t2 - t0;
	return 0;
}

/* Style @s at @n: a warm-up launch, then b->repeat timed ones. */
static int measure(struct gbench *b, int s, uint32_t n,
		   struct sacc_chain *chain, struct sacc_graph *g,
		   struct gstyle *out)
{
	struct sacc_stats st;
	uint64_t l, d;
	uint32_t eng = 0;
	double e[3];

	if (launch_once(b, s, n, chain, g, &l, &d, &eng))
		return EXIT_FAIL;
	sacc_stats_clear(b->h);
	for (unsigned int k = 0; k < b->repeat; k++) {
		if (launch_once(b, s, n, chain, g, &l, &d, &eng))
			return EXIT_FAIL;
		b->v_launch[k] = (double)l;
		b->v_done[k] = (double)d;
		b->v_eng[k] = (double)eng;
	}
	sacc_stats(b->h, &st);
	bench_spread(b->v_launch, b->repeat, out->launch);
	bench_spread(b->v_done, b->repeat, out->done);
	bench_spread(b->v_eng, b->repeat, e);
	out->engine = s == ST_GRAPH ? e[1] : 0;
	out->doorbells = (double)st.doorbells / b->repeat;
	out->cmd_bytes = s == ST_GRAPH ? sizeof(struct sacc_desc)
				       : (uint64_t)n * sizeof(struct sacc_desc);
	return 0;
}

/* A graph's copies land where they should (checked once per N). */
static int verify(struct gbench *b, uint32_t n)
{
	const uint8_t *s = sacc_buf_va(b->src), *d = sacc_buf_va(b->dst);

	if (!b->dst || !memcmp(s, d, (size_t)n * GRAPH_COPY))
		return 0;
	return fail("graph of %u copies: the destination differs from the "
		    "source",
		    n);
}

/* The three styles at @n into @row. */
static int bench_n(struct gbench *b, uint32_t n, struct gstyle row[NSTYLE])
{
	const struct bench_cfg *c = b->c;
	struct sacc_chain *chain = NULL;
	struct sacc_graph *g = NULL;
	uint64_t t;
	int rc = EXIT_FAIL;

	if (measure(b, ST_OP, n, NULL, NULL, &row[ST_OP]))
		return EXIT_FAIL;
	t = now_ns();
	if (sacc_chain_create(b->h, b->ops, n, &chain))
		return fail("chain of %u ops: %s", n, sacc_errmsg(b->h));
	row[ST_CHAIN].build_ns = now_ns() - t;
	if (measure(b, ST_CHAIN, n, chain, NULL, &row[ST_CHAIN]))
		goto out;
	if (b->dst)
		memset(sacc_buf_va(b->dst), 0, (size_t)n * GRAPH_COPY);
	t = now_ns();
	if (sacc_graph_create(b->h, b->ops, n,
			      c->graph_dev ? SACC_GRAPH_DEVMEM : 0, &g)) {
		fail("graph of %u ops: %s", n, sacc_errmsg(b->h));
		goto out;
	}
	row[ST_GRAPH].build_ns = now_ns() - t;
	row[ST_GRAPH].seg_bytes = sacc_graph_bytes(g);
	if (measure(b, ST_GRAPH, n, NULL, g, &row[ST_GRAPH]) || verify(b, n))
		goto out;
	rc = 0;
out:
	sacc_graph_destroy(g);
	sacc_chain_free(chain);
	return rc;
}

static void json_style(struct json_object *o, int s, const struct gstyle *x,
		       const struct bench_cfg *c)
{
	struct json_object *e = jobj();

	jset_double(e, "launch_ns", x->launch[1], "%.0f");
	jset_double(e, "launch_ns_min", x->launch[0], "%.0f");
	jset_double(e, "launch_ns_max", x->launch[2], "%.0f");
	jset_u64(e, "cmd_bytes", x->cmd_bytes);
	jset_str(e, "cmd_bytes_to", mem_name(c->a.ring_dev));
	jset_double(e, "doorbells", x->doorbells, "%.2f");
	jset_double(e, "done_ns", x->done[1], "%.0f");
	jset_double(e, "done_ns_min", x->done[0], "%.0f");
	jset_double(e, "done_ns_max", x->done[2], "%.0f");
	if (s != ST_OP)
		jset_u64(e, "build_ns", x->build_ns);
	if (s == ST_GRAPH) {
		jset_u64(e, "segment_bytes", x->seg_bytes);
		jset_str(e, "segment_in", mem_name(c->graph_dev));
		jset_double(e, "engine_ns", x->engine, "%.0f");
	}
	jset(o, style_key[s], e);
}

static void print_head(const struct bench_cfg *c, const struct gbench *b)
{
	printf("SACC bench --graph: %s, %s%s, segment in %s memory, SQ of %u "
	       "entries in %s memory,\n%s doorbell; one launch at a time, "
	       "median of %u launches (after a warm-up)\n\n",
	       c->bdf, sacc_opcode_str(c->a.op),
	       c->a.op == SACC_OP_MEMCPY ? " of 64 bytes" : "",
	       c->graph_dev ? "device" : "host", sacc_dev_sq_entries(b->h),
	       c->a.ring_dev ? "device" : "host", doorbell_name(c->a.doorbell),
	       b->repeat);
	printf("%6s %-7s %10s %9s %10s %-9s %9s %13s  %s\n", "N", "style",
	       "launch us", "(min)", "cmd bytes", "to", "doorbells",
	       "last done us", "made once");
}

static void print_row(const struct bench_cfg *c, uint32_t n,
		      const struct gstyle row[NSTYLE])
{
	for (int s = 0; s < NSTYLE; s++) {
		const struct gstyle *x = &row[s];
		char once[96] = "";

		if (s == ST_CHAIN)
			snprintf(once, sizeof(once), "built in %.1f us",
				 (double)x->build_ns / 1e3);
		if (s == ST_GRAPH)
			snprintf(once, sizeof(once),
				 "segment %llu B in %s, built in %.1f us; "
				 "engine %.1f us",
				 (unsigned long long)x->seg_bytes,
				 c->graph_dev ? "device memory" : "host RAM",
				 (double)x->build_ns / 1e3, x->engine / 1e3);
		printf("%6u %-7s %10.2f %9.2f %10llu %-9s %9.0f %13.2f  %s\n",
		       n, style_name[s], x->launch[1] / 1e3, x->launch[0] / 1e3,
		       (unsigned long long)x->cmd_bytes,
		       c->a.ring_dev ? "dev mem" : "host RAM", x->doorbells,
		       x->done[1] / 1e3, once);
	}
}

/* Buffers and the N ops (the most any row needs). */
static int prepare(struct gbench *b, uint32_t max)
{
	const struct bench_cfg *c = b->c;
	size_t len = (size_t)max * GRAPH_COPY;

	b->ops = calloc(max, sizeof(*b->ops));
	b->v_launch = calloc(b->repeat, sizeof(double));
	b->v_done = calloc(b->repeat, sizeof(double));
	b->v_eng = calloc(b->repeat, sizeof(double));
	if (!b->ops || !b->v_launch || !b->v_done || !b->v_eng)
		return fail("out of memory");
	if (c->a.op == SACC_OP_MEMCPY) {
		if (alloc_side(b->h, len, false, SACC_DMA_TO_DEVICE,
			       "graph src", &b->src) ||
		    alloc_side(b->h, len, false, SACC_DMA_FROM_DEVICE,
			       "graph dst", &b->dst))
			return EXIT_FAIL;
		fill_pattern(sacc_buf_va(b->src), len, 11);
	}
	for (uint32_t i = 0; i < max; i++)
		b->ops[i] = (struct sacc_op){.opcode = c->a.op,
					     .len = b->src ? GRAPH_COPY : 0,
					     .src = b->src,
					     .src_off = (size_t)i * GRAPH_COPY,
					     .dst = b->dst,
					     .dst_off = (size_t)i * GRAPH_COPY,
					     .cookie = i};
	return 0;
}

int bench_graph(const struct bench_cfg *c, struct sacc_dev *h)
{
	struct gbench b = {.c = c, .h = h, .repeat = c->repeat};
	struct json_object *o = NULL, *arr = NULL;
	struct gstyle row[NSTYLE];
	uint32_t max = 0;
	int rc = EXIT_FAIL;

	for (unsigned int i = 0; i < c->ngraph; i++)
		max = c->graph[i] > max ? (uint32_t)c->graph[i] : max;
	if (max > sacc_dev_sq_entries(h) - 1) {
		fail("--graph %u: the SQ has %u entries", max,
		     sacc_dev_sq_entries(h));
		goto out;
	}
	if (prepare(&b, max))
		goto out;
	if (c->json) {
		o = jobj();
		arr = jarr();
		jset_str(o, "bdf", c->bdf);
		jset_str(o, "mode", "graph");
		jset_str(o, "op", sacc_opcode_str(c->a.op));
		jset_u64(o, "size", c->a.op == SACC_OP_MEMCPY ? GRAPH_COPY : 0);
		jset_str(o, "where", mem_name(c->graph_dev));
		jset_str(o, "ring", mem_name(c->a.ring_dev));
		jset_str(o, "doorbell", doorbell_name(c->a.doorbell));
		jset_u64(o, "sq_entries", sacc_dev_sq_entries(h));
		jset_u64(o, "repeat", b.repeat);
		jset(o, "results", arr); /* filled below */
	} else {
		print_head(c, &b);
	}
	for (unsigned int i = 0; i < c->ngraph; i++) {
		uint32_t n = (uint32_t)c->graph[i];

		memset(row, 0, sizeof(row));
		if (bench_n(&b, n, row))
			goto out;
		if (!c->json) {
			print_row(c, n, row);
			continue;
		}
		struct json_object *e = jobj();

		jset_u64(e, "n", n);
		for (int s = 0; s < NSTYLE; s++)
			json_style(e, s, &row[s], c);
		jpush(arr, e);
	}
	if (c->json) {
		rc = jprint(o, JSON_SPACED);
		o = NULL;
		goto out;
	}
	printf("\n(launch: CPU time in the launch call(s), from the first "
	       "byte written to the\ndoorbell store returning, median and "
	       "fastest; last done: from the launch's\nstart to the reap "
	       "that saw the last op's completion, median)\n");
	rc = EXIT_OK;
out:
	if (o)
		json_object_put(o);
	sacc_buf_free(b.src);
	sacc_buf_free(b.dst);
	free(b.ops);
	free(b.v_launch);
	free(b.v_done);
	free(b.v_eng);
	return rc;
}

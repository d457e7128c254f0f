// SPDX-License-Identifier: MIT
/*
 * bench_sqwrite.c - saccctl bench --sq-write N,...: what it costs the
 * CPU to write N descriptors into the SQ, in host memory or (--ring dev,
 * v0.4 MODE.SQ_DEV) in the device's memory through the BAR4 mapping.
 *
 * What is measured: N 32-byte NOP descriptors stored into consecutive SQ
 * slots (wrapping) the way rings/ does it (one 32-byte memcpy each from a
 * descriptor built on the stack), then the release fence sacc_sq_publish()
 * issues once per batch: the CPU side of a submission up to, not
 * including, the doorbell.  No doorbell is rung and the tail never
 * moves, so the device never sees them: with nothing outstanding every
 * slot is free, and libsacc's next submission writes over them.  Batches
 * repeat until about SQW_DESCS descriptors are written per block (one
 * clock read a block, so N = 1 is not a clock read per descriptor);
 * SQW_BLOCKS blocks, the median block's ns per descriptor reported with
 * the fastest and slowest block.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "libsacc_unsafe.h" /* sacc_dev_sq_va() */

#define SQW_DESCS  65536u
#define SQW_BLOCKS 7

struct sqw_row {
	uint64_t n;
	double ns[3]; /* per descriptor: min, median, max block */
};

/* One block: @reps batches of @n descriptors from slot @slot on.
 * Returns the time taken in ns; *slot moves past what was written. */
static uint64_t sqw_block(struct sacc_desc *sq, uint32_t entries, uint64_t n,
			  uint64_t reps, uint32_t *slot)
{
	struct sacc_desc d = {.opcode = SACC_OP_NOP};
	uint32_t s = *slot, id = 1;
	uint64_t t0 = now_ns();

	for (uint64_t r = 0; r < reps; r++) {
		for (uint64_t k = 0; k < n; k++) {
			d.req_id = id++;
			memcpy(&sq[s], &d, sizeof(d));
			s = (s + 1) & (entries - 1);
		}
		/* sacc_sq_publish(): a release fence per batch */
		atomic_thread_fence(memory_order_release);
		__asm__ volatile("" : : : "memory");
	}
	*slot = s;
	return now_ns() - t0;
}

static void sqw_measure(struct sacc_desc *sq, uint32_t entries,
			struct sqw_row *row)
{
	uint64_t reps = SQW_DESCS / row->n ? SQW_DESCS / row->n : 1;
	double v[SQW_BLOCKS];
	uint32_t slot = 0;

	sqw_block(sq, entries, row->n, reps, &slot); /* warm up */
	for (int b = 0; b < SQW_BLOCKS; b++)
		v[b] = (double)sqw_block(sq, entries, row->n, reps, &slot) /
		       (double)(reps * row->n);
	bench_spread(v, SQW_BLOCKS, row->ns);
}

static int sqw_report(const struct bench_cfg *c, struct sacc_dev *h,
		      const struct sqw_row *rows)
{
	uint32_t entries = sacc_dev_sq_entries(h);
	const char *where =
	    c->a.ring_dev ? "device memory (BAR4)" : "host memory";

	if (c->json) {
		struct json_object *o = jobj(), *a = jarr();

		jset_str(o, "bdf", c->bdf);
		jset_str(o, "mode", "sq_write");
		jset_str(o, "ring", mem_name(c->a.ring_dev));
		jset_u64(o, "sq_entries", entries);
		for (unsigned int i = 0; i < c->nsqw; i++) {
			struct json_object *r = jobj();

			jset_u64(r, "n", rows[i].n);
			jset_double(r, "ns_per_desc", rows[i].ns[1], "%.2f");
			jset_double(r, "ns_per_desc_min", rows[i].ns[0],
				    "%.2f");
			jset_double(r, "ns_per_desc_max", rows[i].ns[2],
				    "%.2f");
			jset_double(r, "ns_per_batch",
				    rows[i].ns[1] * (double)rows[i].n, "%.1f");
			jpush(a, r);
		}
		jset(o, "results", a);
		return jprint(o, JSON_SPACED);
	}
	printf("SACC SQ write: %s, SQ of %u entries in %s; N 32-byte "
	       "descriptors\nstored as libsacc stores them, one release "
	       "fence per batch, no doorbell\n(median of %d blocks of ~%u "
	       "descriptors; min and max block)\n\n",
	       c->bdf, entries, where, SQW_BLOCKS, SQW_DESCS);
	printf("%8s %14s %10s %10s %14s\n", "N", "ns/desc", "min", "max",
	       "ns/batch");
	for (unsigned int i = 0; i < c->nsqw; i++)
		printf("%8llu %14.2f %10.2f %10.2f %14.1f\n",
		       (unsigned long long)rows[i].n, rows[i].ns[1],
		       rows[i].ns[0], rows[i].ns[2],
		       rows[i].ns[1] * (double)rows[i].n);
	return EXIT_OK;
}

int bench_sq_write(const struct bench_cfg *c, struct sacc_dev *h)
{
	struct sacc_desc *sq = sacc_dev_sq_va(h);
	uint32_t entries = sacc_dev_sq_entries(h);
	struct sqw_row rows[BENCH_SWEEP_MAX];

	if (!sq)
		return fail("%s: the handle has no SQ", c->bdf);
	if (sacc_outstanding(h))
		return fail("%s: --sq-write needs an idle SQ", c->bdf);
	for (unsigned int i = 0; i < c->nsqw; i++) {
		if (c->sqw[i] > entries - 1)
			return fail("--sq-write %llu: the SQ has %u entries",
				    (unsigned long long)c->sqw[i], entries);
		rows[i].n = c->sqw[i];
		sqw_measure(sq, entries, &rows[i]);
	}
	/* nothing was published: the device saw none of it */
	if (sacc_check(h))
		return fail("%s", sacc_errmsg(h));
	return sqw_report(c, h, rows);
}

// SPDX-License-Identifier: MIT
/*
 * scenarios_segment.c - saccctl inject's attacks on v0.4 pushbuffer
 * segments (docs/spec.md section 21): one SQ entry, opcode SEGMENT, that
 * has the device fetch a segment of commands from memory and run them.
 *
 * The spec decides every outcome here:
 *  - the fetch: the device reads the whole segment before it runs its
 *    first command (a snapshot).  In host memory a page the IOMMU
 *    refuses is the entry's fault: status 2, result_len 0, FAULT_ADDR
 *    the failing page (src itself when it is the first), access 8
 *    (segment_read), FAULT_REQ_ID the entry's req_id, and no command
 *    runs (segment-unmapped).  In device memory the range rule of
 *    section 18 applies: a segment past DEVMEM_SIZE is dev_read (6) at
 *    src, checked before a byte moves and never seen by the IOMMU, so no
 *    DMAR line exists (segment-devmem-past-end);
 *  - a command: runs as the same descriptor would from the ring, so a
 *    write the IOMMU refuses is that command's fault (its own req_id in
 *    FAULT_REQ_ID); the segment stops there and the entry completes with
 *    its status and result_len = its index (segment-other-buffer);
 *  - neither is fatal: the ring goes on.
 *
 * What this catalogue does NOT try: a segment placed in a buffer the
 * device may only write (read permission missing, so the spec's fetch
 * would fault).  Whether the IOMMU refuses that read is the platform's,
 * not the spec's: Linux's intel-iommu makes every write-only mapping
 * readable from 5.10 to 6.15 (writeonly-read shows it on this kernel), so
 * the fetch would succeed and run whatever the buffer holds.  The
 * fault log attributes such a fetch fault where it happens (a unit test
 * of faultlog/ covers it).
 *
 * Every segment that must not run holds "tripwires": commands that would
 * FILL 'next' (host memory) and a device memory canary if they ran; the
 * canaries prove that nothing of the segment ran.
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "scenarios.h"

/* Commands' req_ids: the device names a failing command by its own. */
#define CMD_ID(i)   (0x5e600000u + (uint32_t)(i))
#define TRIP_FILL   0xbadc0ffee0ddf00dull /* what a tripwire writes */
#define TRIP_SLOTS  64u			  /* 2 KiB of tripwires */
#define SEG_TIMEOUT 3000		  /* ms for a completion */

/* The standard buffers, and a device memory canary when there is device
 * memory (dc NULL without). */
struct segset {
	struct std b;
	struct sacc_buf *dc;
};

/* Open bdf[0] (MODE.V3), the standard buffers ('dst' a canary if
 * @dst_canary) and a device canary; a device before v0.4 (no SEGMENT)
 * skips the row. */
static int seg_setup(struct inj *s, struct segset *g, bool dst_canary)
{
	struct sacc_devmem_info in = {0};
	uint32_t ver = 0;

	if (inj_open(s, 0, &s->dev))
		return -1;
	sacc_reg_read(s->dev, SACC_REG_VERSION, &ver);
	if (ver < 4)
		return sc_skip(s,
			       "VERSION %" PRIu32 ": SEGMENT needs a v0.4 "
			       "device",
			       ver);
	if (std_bufs(s, &g->b, dst_canary))
		return -1;
	if (sacc_devmem_info(s->dev, &in) || !in.mapped) {
		inj_say(s, "no device memory: no device canary (%s)",
			in.why ? in.why : sacc_errmsg(s->dev));
		return 0;
	}
	g->dc = dev_buf(s, 4 * KiB, "device canary", 21);
	if (!g->dc || inj_canary(s, "device canary (device memory)",
				 sacc_buf_va(g->dc), 4 * KiB))
		return -1;
	return 0;
}

/*
 * @n slots of commands that must never run at @c: a FILL of 4 KiB over
 * host IOVA @host and, if @dev_len, one over device address @dev (@dev_len
 * bytes), then NOPs.  Each with a req_id of its own.
 */
static void tripwires(struct sacc_desc *c, uint32_t n, uint64_t host,
		      uint64_t dev, uint32_t dev_len)
{
	for (uint32_t i = 0; i < n; i++)
		c[i] = (struct sacc_desc){.opcode = SACC_OP_NOP,
					  .req_id = CMD_ID(0x100 + i)};
	c[0].opcode = SACC_OP_FILL;
	c[0].src = TRIP_FILL;
	c[0].dst = host;
	c[0].length = 4 * KiB;
	if (dev_len && n > 1) {
		c[1].opcode = SACC_OP_FILL;
		c[1].flags = SACC_DESC_F_DST_DEV;
		c[1].src = TRIP_FILL;
		c[1].dst = dev;
		c[1].length = dev_len;
	}
}

/*
 * One SEGMENT entry of @len bytes at @src (@flags: SRC_DEV or 0) whose
 * fetch must fail: status 2, result_len 0, the fault record @info at
 * @fault with the entry's req_id, the @nth fault, the channel ready; the
 * fault log must have it, an IOMMU fault (segment_read) or a device
 * memory one (dev_read).  True if the device refused it so.
 */
static bool bad_segment(struct inj *s, uint16_t flags, uint64_t src,
			uint32_t len, const char *what, uint64_t fault,
			uint32_t info, uint32_t nth)
{
	struct sacc_desc d = {.src = src,
			      .length = len,
			      .opcode = SACC_OP_SEGMENT,
			      .flags = flags};
	int id = inj_submit(s, &d, what, "- (ignored)");
	const struct inj_desc *x;
	bool ok;

	if (id < 0 || inj_reap(s, SEG_TIMEOUT))
		return false;
	x = &s->desc[s->ndesc - 1];
	ok = x->status == SACC_STS_DMA_FAULT && x->result_len == 0;
	if (!ok)
		inj_why(s,
			"req_id %d: status %d, result_len %" PRIu32 "; the "
			"spec says 2 (DMA fault), 0 (no command runs)",
			id, x->status, x->result_len);
	ok &= record_is(s, (uint32_t)id, fault, info, nth);
	inj_expect_kind(
	    s, (uint32_t)id, fault, info & SACC_FAULT_ACCESS_MASK, false,
	    info == SACC_FAULT_DEV_READ ? INJ_FAULT_DEVMEM : INJ_FAULT_IOMMU);
	return ok;
}

/* ---- segment-unmapped ---- */

int sc_segment_unmapped(struct inj *s)
{
	struct sacc_buf *seg;
	struct segset g = {0};
	uint64_t end;
	uint8_t *va;

	if (seg_setup(s, &g, true) || never_mapped(s, INJ_NEVER_MAPPED) ||
	    inj_buf(s, 4 * KiB, SACC_DMA_TO_DEVICE, "seg", 22, false, &seg))
		return -1;
	/* 'seg' is followed by a guard page; its last 2 KiB: tripwires */
	va = sacc_buf_va(seg);
	end = sacc_buf_iova(seg) + 4 * KiB;
	tripwires((struct sacc_desc *)(va + 2 * KiB), TRIP_SLOTS,
		  sacc_buf_iova(g.b.next), g.dc ? sacc_buf_devaddr(g.dc) : 0,
		  g.dc ? 4 * KiB : 0);
	if (inj_canary(s, "seg (tripwires; the device only reads it)", va,
		       4 * KiB))
		return -1;
	snprintf(s->note, sizeof(s->note),
		 "a segment at IOVA 0x%llx (mapped by nobody), one from "
		 "'seg' into its guard page 0x%" PRIx64
		 ": segment_read, nothing runs",
		 INJ_NEVER_MAPPED, end);
	s->blocked =
	    bad_segment(s, 0, INJ_NEVER_MAPPED, 1 * KiB, "never mapped",
			INJ_NEVER_MAPPED, SACC_FAULT_SEGMENT_READ, 1);
	if (s->error)
		return -1;
	/* the first page is there: the fault is at the second (the guard),
	 * and none of the tripwires fetched before it runs */
	s->blocked &= bad_segment(s, 0, end - 2 * KiB, 4 * KiB,
				  "last 2 KiB of 'seg' (tripwires), then its "
				  "guard page",
				  end, SACC_FAULT_SEGMENT_READ, 2);
	inj_device_state(s, s->dev);
	return s->error ? -1 : 0;
}

/* ---- segment-other-buffer ---- */

#define OB_INLINE 40u	    /* bytes inline (2 slots) */
#define OB_BAD	  2u	    /* the failing command's index */
#define OB_SLOTS  (5u + 8u) /* commands, payload, tripwires */

/*
 * The segment: command 0 copies 'src' into 'dst', command 1 writes
 * OB_INLINE bytes inline at 'dst' + 4 KiB (both allowed), command 2
 * copies into @ro (the device may only read it), then tripwires.
 */
static void other_buffer_cmds(struct sacc_desc *c, const struct segset *g,
			      struct sacc_buf *ro)
{
	const uint64_t src = sacc_buf_iova(g->b.src);

	memset(c, 0, OB_SLOTS * sizeof(*c));
	c[0] = (struct sacc_desc){.opcode = SACC_OP_MEMCPY,
				  .src = src,
				  .dst = sacc_buf_iova(g->b.dst),
				  .length = 4 * KiB,
				  .req_id = CMD_ID(0)};
	c[1] = (struct sacc_desc){.opcode = SACC_OP_WRITE_INLINE,
				  .dst = sacc_buf_iova(g->b.dst) + 4 * KiB,
				  .length = OB_INLINE,
				  .req_id = CMD_ID(1)};
	fill_pattern(&c[2], 2 * sizeof(*c), 23); /* its payload */
	c[4] = (struct sacc_desc){.opcode = SACC_OP_MEMCPY,
				  .src = src + 4 * KiB,
				  .dst = sacc_buf_iova(ro),
				  .length = 4 * KiB,
				  .req_id = CMD_ID(OB_BAD)};
	tripwires(&c[5], OB_SLOTS - 5, sacc_buf_iova(g->b.next),
		  g->dc ? sacc_buf_devaddr(g->dc) : 0, g->dc ? 4 * KiB : 0);
}

/* Launch @gr once and reap its result into *@r, remembered as a
 * descriptor of the row; 0 or -1 (the row failed). */
static int launch_reap(struct inj *s, struct sacc_graph *gr,
		       struct sacc_result *r)
{
	uint64_t deadline = now_ns() + SEG_TIMEOUT * 1000000ull;
	struct timespec ms = {0, 1000000};
	struct inj_desc *x;
	int n;

	if (s->ndesc == INJ_MAX_DESC)
		return inj_fail(s, "too many descriptors");
	if (sacc_graph_launch(s->dev, gr, 1) != 1)
		return inj_fail(s, "sacc_graph_launch: %s",
				sacc_errmsg(s->dev));
	while ((n = sacc_poll(s->dev, r, 1)) == 0 && now_ns() < deadline)
		nanosleep(&ms, NULL);
	if (n != 1)
		return inj_fail(s, "the launch did not complete: %s",
				n < 0 ? sacc_errmsg(s->dev)
				      : "timed out after 3 s");
	x = &s->desc[s->ndesc++];
	*x = (struct inj_desc){.d = {.opcode = SACC_OP_SEGMENT,
				     .length = (uint32_t)sacc_graph_bytes(gr),
				     .req_id = r->req_id},
			       .status = r->status,
			       .result_len = r->result_len};
	snprintf(x->src_what, sizeof(x->src_what),
		 "the graph's segment ('graph segment', %u commands)",
		 sacc_graph_ops(gr));
	snprintf(x->dst_what, sizeof(x->dst_what), "- (ignored)");
	inj_say(s,
		"graph launch: one SEGMENT entry, req_id %" PRIu32
		", %zu bytes; completion status %u (%s), result_len %" PRIu32,
		r->req_id, sacc_graph_bytes(gr), r->status,
		sacc_status_str(r->status), r->result_len);
	return 0;
}

/* Commands 0 and 1 ran (the spec: the ones before the failing one do):
 * 'dst' holds 'src''s first 4 KiB and the inline payload after it. */
static bool ran_before(struct inj *s, const struct segset *g,
		       const struct sacc_desc *c)
{
	const uint8_t *dst = sacc_buf_va(g->b.dst);

	if (!memcmp(dst, sacc_buf_va(g->b.src), 4 * KiB) &&
	    !memcmp(dst + 4 * KiB, &c[2], OB_INLINE))
		return true;
	inj_why(s, "commands 0 and 1, before the failing one, did not run "
		   "('dst' lacks their bytes)");
	return false;
}

int sc_segment_other_buffer(struct inj *s)
{
	struct sacc_desc c[OB_SLOTS];
	struct sacc_graph *gr;
	struct sacc_result r;
	struct sacc_buf *ro;
	struct segset g = {0};
	char why[512];

	/* commands 0 and 1 may write 'dst': only the rest is a canary */
	if (seg_setup(s, &g, false) ||
	    inj_buf(s, 4 * KiB, SACC_DMA_TO_DEVICE, "ro (device may only read)",
		    5, true, &ro) ||
	    inj_canary(s, "'dst' past commands 0 and 1's bytes",
		       (uint8_t *)sacc_buf_va(g.b.dst) + 4 * KiB + OB_INLINE,
		       4 * KiB - OB_INLINE))
		return -1;
	other_buffer_cmds(c, &g, ro);
	if (sacc_graph_create_raw(s->dev, c, OB_SLOTS, 0, &gr))
		return inj_fail(s, "sacc_graph_create_raw: %s",
				sacc_errmsg(s->dev));
	snprintf(s->note, sizeof(s->note),
		 "a segment (a raw graph) whose command %u writes into 'ro', "
		 "mapped read-only: the command's fault, the segment stops "
		 "there (result_len %u)",
		 OB_BAD, OB_BAD);
	if (launch_reap(s, gr, &r)) {
		sacc_graph_destroy(gr);
		return -1;
	}
	inj_say(s, "sacc_graph_explain: %s",
		sacc_graph_explain(gr, &r, why, sizeof(why)));
	s->blocked = r.status == SACC_STS_DMA_FAULT && r.result_len == OB_BAD;
	if (!s->blocked)
		inj_why(s,
			"status %u, result_len %" PRIu32 "; the spec says 2 "
			"(DMA fault), %u (the failing command's index)",
			r.status, r.result_len, OB_BAD);
	/* the record is the command's, with its own req_id */
	s->blocked &= record_is(s, CMD_ID(OB_BAD), sacc_buf_iova(ro),
				SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE, 1);
	s->blocked &= ran_before(s, &g, c);
	/* the journal files it under the entry's req_id */
	inj_expect_kind(s, r.req_id, sacc_buf_iova(ro), SACC_FAULT_DST_WRITE,
			false, INJ_FAULT_IOMMU);
	inj_device_state(s, s->dev);
	sacc_graph_destroy(gr);
	return s->error ? -1 : 0;
}

/* ---- segment-devmem-past-end ---- */

int sc_segment_devmem_past_end(struct inj *s)
{
	const uint64_t wrap = 0ull - 2 * KiB;
	struct sacc_buf *edge;
	uint64_t size, at;
	char what[96];
	struct std b;
	uint8_t *ev;

	if (devmem_open(s, &size) || std_bufs(s, &b, true))
		return -1;
	edge = last_page(s, size);
	if (!edge)
		return -1;
	/* the segment's 2 KiB that exist (the upper half of the last
	 * page): tripwires over 'next' and the lower half */
	at = size - 2 * KiB;
	ev = sacc_buf_va(edge);
	tripwires((struct sacc_desc *)(ev + 2 * KiB), TRIP_SLOTS,
		  sacc_buf_iova(b.next), size - 4 * KiB, 2 * KiB);
	if (inj_canary(s,
		       "device memory below the range (a tripwire's "
		       "target)",
		       ev, 2 * KiB) ||
	    inj_canary(s, "the segment's first 2 KiB (tripwires)", ev + 2 * KiB,
		       2 * KiB))
		return -1;
	snprintf(what, sizeof(what),
		 "device 0x%" PRIx64 ", 2 KiB to the end (tripwires)", at);
	snprintf(s->note, sizeof(s->note),
		 "segments of 4 KiB at device address 0x%" PRIx64
		 " (2 KiB before the end) and 0x%" PRIx64
		 " (wraps): dev_read at src, nothing fetched or run",
		 at, wrap);
	s->blocked = bad_segment(s, SACC_DESC_F_SRC_DEV, at, 4 * KiB, what, at,
				 SACC_FAULT_DEV_READ, 1);
	if (s->error)
		return -1;
	/* the range rule is computed without wrapping: not device memory
	 * 0..2 KiB (the filler's zeros, NOPs that would complete) */
	s->blocked &= bad_segment(s, SACC_DESC_F_SRC_DEV, wrap, 4 * KiB,
				  "device 2^64 - 2 KiB, wraps past 2^64", wrap,
				  SACC_FAULT_DEV_READ, 2);
	inj_device_state(s, s->dev);
	return s->error ? -1 : 0;
}

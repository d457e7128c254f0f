// SPDX-License-Identifier: MIT
/*
 * scenarios.c - the fault-injection catalogue of saccctl inject.
 *
 * Every scenario opens its device fresh, lays out buffers the way libsacc
 * does (page-granular, least privilege, a guard page of unmapped IOVA on
 * each side), registers canaries, then attacks through the UNSAFE hooks:
 * sacc_submit_raw() for descriptors libsacc would refuse, the DMA context
 * for mappings libsacc would never make, register writes for ring
 * setups.  It reports whether the device blocked the attack and which
 * fault records the spec promises (address, access, req_id); inject.c
 * checks canaries, the fault log and recovery.
 *
 * Layout of the standard setup (first fit from IOVA 0x1000):
 *   sq ring, cq ring, src (32 KiB, device reads), dst (8 KiB, device
 *   writes), next (4 KiB, device writes), each followed by a guard page;
 *   plus one page of process memory with no IOVA at all.
 * Note that freed IOVA is reused first-fit: a scenario never allocates
 * after it unmaps the IOVA it attacks.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inject.h"

#define KiB 1024u

struct std {
	struct sacc_buf *src, *dst, *next;
	uint8_t *plain;
};

static int std_setup(struct inj *s, struct std *b, bool dst_canary)
{
	if (inj_open(s, 0, &s->dev))
		return -1;
	if (inj_buf(s, 32 * KiB, SACC_DMA_TO_DEVICE, "src", 1, true, &b->src) ||
	    inj_buf(s, 8 * KiB, SACC_DMA_FROM_DEVICE, "dst", 2, dst_canary,
		    &b->dst) ||
	    inj_buf(s, 4 * KiB, SACC_DMA_FROM_DEVICE, "next", 3, true,
		    &b->next))
		return -1;
	b->plain = inj_plain(s, 4 * KiB, "process page without IOVA", 4);
	return b->plain ? 0 : -1;
}

/* @iova must be unknown to the device's registry (never mapped). */
static int never_mapped(struct inj *s, uint64_t iova)
{
	struct sacc_iova_lookup lk;

	sacc_dma_lookup(sacc_dev_dma(s->dev), iova, 0, &lk);
	if (lk.kind != SACC_IOVA_NEVER_MAPPED)
		return inj_fail(s,
				"IOVA 0x%" PRIx64 " is %s here, not never "
				"mapped",
				iova, sacc_iova_kind_name(lk.kind));
	return 0;
}

/* Reap @id (submitted last): blocked if it faulted with status 2. */
static int reap_blocked(struct inj *s, int id, uint64_t fault, uint32_t access)
{
	if (id < 0 || inj_reap(s, 3000))
		return -1;
	inj_device_state(s, s->dev);
	s->blocked = s->desc[s->ndesc - 1].status == SACC_STS_DMA_FAULT;
	if (!s->blocked)
		inj_why(s, "completion status %d, not 2 (DMA fault)",
			s->desc[s->ndesc - 1].status);
	inj_expect(s, (uint32_t)id, fault, access, false);
	return 0;
}

/*
 * One MEMCPY descriptor that must fault with @access at @fault (the
 * address the spec promises in FAULT_ADDR).
 */
static int one_bad_copy(struct inj *s, uint64_t src, const char *src_what,
			uint64_t dst, const char *dst_what, uint32_t len,
			uint64_t fault, uint32_t access)
{
	struct sacc_desc d = {
	    .src = src, .dst = dst, .length = len, .opcode = SACC_OP_MEMCPY};

	return reap_blocked(s, inj_submit(s, &d, src_what, dst_what), fault,
			    access);
}

/* ---- per-descriptor scenarios ---- */

static int sc_unmapped_dst_write(struct inj *s)
{
	struct std b;

	if (std_setup(s, &b, true) || never_mapped(s, INJ_NEVER_MAPPED))
		return -1;
	snprintf(s->note, sizeof(s->note),
		 "write to IOVA 0x%llx, mapped by nobody: fault, nothing "
		 "written",
		 INJ_NEVER_MAPPED);
	return one_bad_copy(s, sacc_buf_iova(b.src), "'src'", INJ_NEVER_MAPPED,
			    "never mapped", 4 * KiB, INJ_NEVER_MAPPED,
			    SACC_FAULT_DST_WRITE);
}

static int sc_unmapped_src_read(struct inj *s)
{
	struct std b;

	if (std_setup(s, &b, true) || never_mapped(s, INJ_NEVER_MAPPED))
		return -1;
	snprintf(s->note, sizeof(s->note),
		 "read from an unmapped IOVA: fault before any byte of dst is "
		 "written");
	return one_bad_copy(s, INJ_NEVER_MAPPED, "never mapped",
			    sacc_buf_iova(b.dst), "'dst'", 4 * KiB,
			    INJ_NEVER_MAPPED, SACC_FAULT_SRC_READ);
}

static int sc_readonly_write(struct inj *s)
{
	struct sacc_buf *ro;
	struct std b;

	if (std_setup(s, &b, true) ||
	    inj_buf(s, 4 * KiB, SACC_DMA_TO_DEVICE, "ro (device may only read)",
		    5, true, &ro))
		return -1;
	snprintf(s->note, sizeof(s->note),
		 "write into a buffer mapped read-only for the device (PTE "
		 "without W)");
	return one_bad_copy(s, sacc_buf_iova(b.src), "'src'", sacc_buf_iova(ro),
			    "'ro', mapped read-only", 4 * KiB,
			    sacc_buf_iova(ro), SACC_FAULT_DST_WRITE);
}

/*
 * Does this kernel's intel-iommu make write-only mappings readable?
 * From eea53c581688 ("iommu/vt-d: Remove WO permissions on second-level
 * paging entries", v5.13, backported to 5.10-5.12 stable) every
 * second-level leaf gets DMA_FL_PTE_PRESENT, which is bit 0, the R bit;
 * v6.16 ("iommu/vt-d: Restore WO permissions on second-level paging
 * entries") undid it.  VFIO_DMA_MAP_FLAG_WRITE alone then means R+W.
 */
static bool kernel_wo_is_rw(char *rel, size_t len)
{
	unsigned int maj = 0, min = 0;
	struct utsname u;

	if (uname(&u) || sscanf(u.release, "%u.%u", &maj, &min) != 2)
		return false;
	snprintf(rel, len, "%.64s", u.release);
	return (maj == 5 && min >= 10) || (maj == 6 && min < 16);
}

static int sc_writeonly_read(struct inj *s)
{
	struct sacc_buf *wo;
	uint8_t *dst, *before;
	char rel[72] = "?";
	struct std b;
	int status;

	/* dst is checked here: it is the sink if the read goes through */
	if (std_setup(s, &b, false) ||
	    inj_buf(s, 4 * KiB, SACC_DMA_FROM_DEVICE,
		    "wo (device may only write)", 6, true, &wo))
		return -1;
	if (kernel_wo_is_rw(rel, sizeof(rel))) {
		s->expect_blocked = false;
		s->expect_exposure = true;
		snprintf(s->note, sizeof(s->note),
			 "expected exposure on Linux %s: intel-iommu sets R on "
			 "every second-level PTE (eea53c581688; fixed in 6.16)",
			 rel);
	} else {
		snprintf(
		    s->note, sizeof(s->note),
		    "read a write-only (results) buffer: fault, nothing of "
		    "it reaches dst");
	}
	dst = sacc_buf_va(b.dst);
	before = malloc(8 * KiB);
	if (!before)
		return inj_fail(s, "out of memory");
	memcpy(before, dst, 8 * KiB);
	if (one_bad_copy(s, sacc_buf_iova(wo), "'wo', mapped write-only",
			 sacc_buf_iova(b.dst), "'dst'", 4 * KiB,
			 sacc_buf_iova(wo), SACC_FAULT_SRC_READ)) {
		free(before);
		return -1;
	}
	status = s->desc[0].status;
	s->exposed =
	    status == SACC_STS_OK && !memcmp(dst, sacc_buf_va(wo), 4 * KiB);
	if (s->exposed) {
		/* no fault: nothing to find in the fault log */
		s->nef = 0;
		inj_say(s, "the device read 'wo' through its write-only "
			   "mapping: dst holds its bytes");
		if (!s->expect_exposure)
			inj_why(s, "the IOMMU let the device read a write-only "
				   "mapping");
		else
			s->why[0] = '\0'; /* the status 0 is the exposure */
	} else if (memcmp(dst, before, 8 * KiB)) {
		s->mem_bad = true;
		inj_why(s, "'dst' changed although the source read faulted");
	}
	if (s->expect_exposure && !s->exposed)
		inj_why(s,
			"expected this kernel to let the read through "
			"(status %d); has the WO fix been backported?",
			status);
	free(before);
	return 0;
}

static int sc_straddle_guard(struct inj *s)
{
	struct std b;
	uint64_t src_end;

	if (std_setup(s, &b, true))
		return -1;
	src_end = sacc_buf_iova(b.src) + sacc_buf_len(b.src);
	snprintf(s->note, sizeof(s->note),
		 "read the last 2 KiB of 'src' and 2 KiB beyond: fault at the "
		 "guard page 0x%" PRIx64,
		 src_end);
	return one_bad_copy(s, src_end - 2 * KiB, "last 2 KiB of 'src'",
			    sacc_buf_iova(b.dst), "'dst'", 4 * KiB, src_end,
			    SACC_FAULT_SRC_READ);
}

static int sc_overrun_neighbour(struct inj *s)
{
	uint64_t dst, next;
	uint32_t len;
	struct std b;

	/* dst's own 8 KiB may be written: only what lies beyond counts */
	if (std_setup(s, &b, false))
		return -1;
	dst = sacc_buf_iova(b.dst);
	next = sacc_buf_iova(b.next);
	/* dst's trailing guard, next's leading guard, then next */
	if (next != dst + 16 * KiB)
		return inj_fail(s,
				"'next' is at 0x%" PRIx64
				", expected 0x%" PRIx64
				" (dst + 8 KiB + two guard pages)",
				next, dst + 16 * KiB);
	len = (uint32_t)(next + 4 * KiB - dst);
	snprintf(s->note, sizeof(s->note),
		 "20 KiB into 8 KiB 'dst', across the guards into writable "
		 "'next': stopped at the first guard");
	return one_bad_copy(s, sacc_buf_iova(b.src), "'src'", dst,
			    "'dst' (8 KiB), guards, 'next'", len, dst + 8 * KiB,
			    SACC_FAULT_DST_WRITE);
}

static int sc_use_after_unmap(struct inj *s)
{
	struct sacc_dma_ctx *ctx;
	struct sacc_err e = {0};
	uint64_t iova;
	struct std b;
	void *victim;

	if (std_setup(s, &b, true))
		return -1;
	victim = inj_plain(s, 4 * KiB, NULL, 7);
	if (!victim)
		return -1;
	ctx = sacc_dev_dma(s->dev);
	if (sacc_dma_map(ctx, victim, 4 * KiB, SACC_DMA_FROM_DEVICE, "victim",
			 &iova, &e))
		return inj_fail(s, "mapping the victim: %s", e.msg);
	if (sacc_dma_unmap(ctx, iova, &e))
		return inj_fail(s, "unmapping the victim: %s", e.msg);
	inj_say(s,
		"'victim' was mapped at 0x%" PRIx64 " and unmapped; its "
		"pages are still allocated",
		iova);
	/* No allocation from here on: first fit would reuse that IOVA. */
	if (inj_canary(s, "victim (unmapped, pages still allocated)", victim,
		       4 * KiB))
		return -1;
	snprintf(s->note, sizeof(s->note),
		 "write through the stale IOVA of an unmapped buffer: fault, "
		 "its pages untouched");
	return one_bad_copy(s, sacc_buf_iova(b.src), "'src'", iova,
			    "stale: 'victim', unmapped", 4 * KiB, iova,
			    SACC_FAULT_DST_WRITE);
}

static int sc_beyond_width(struct inj *s)
{
	struct sacc_iova_range r[SACC_IOMMU_MAX_RANGES];
	uint64_t top = 0, iova;
	struct std b;
	int n;

	if (std_setup(s, &b, true))
		return -1;
	n = sacc_dev_iova_ranges(s->dev, r, SACC_IOMMU_MAX_RANGES, NULL);
	for (int i = 0; i < n && i < SACC_IOMMU_MAX_RANGES; i++)
		if (r[i].end > top)
			top = r[i].end;
	/* the first address the IOMMU's address width cannot express */
	iova = top + 1;
	snprintf(s->note, sizeof(s->note),
		 "write to 0x%" PRIx64 ", one past the last usable IOVA "
		 "(%d-bit IOMMU)",
		 iova, 64 - __builtin_clzll(top));
	return one_bad_copy(s, sacc_buf_iova(b.src), "'src'", iova,
			    "beyond the address width", 4 * KiB, iova,
			    SACC_FAULT_DST_WRITE);
}

static int sc_wrap(struct inj *s)
{
	const uint64_t a = 0xfffffffffffff000ull;
	struct std b;

	if (std_setup(s, &b, true))
		return -1;
	snprintf(s->note, sizeof(s->note),
		 "src 0x%" PRIx64 " + 8 KiB wraps past 2^64: refused "
		 "before any DMA",
		 a);
	return one_bad_copy(s, a, "2^64 - 4 KiB", sacc_buf_iova(b.dst), "'dst'",
			    8 * KiB, a, SACC_FAULT_SRC_READ);
}

/* ---- ring scenarios: the device stops (fatal), recovery resets it ---- */

static int reprogram(struct inj *s, uint32_t reg, uint64_t val)
{
	uint32_t st = 0;

	sacc_reg_write(s->dev, SACC_REG_CTRL, 0);
	sacc_reg_write(s->dev, reg, (uint32_t)val);
	sacc_reg_write(s->dev, reg + 4, (uint32_t)(val >> 32));
	sacc_reg_write(s->dev, SACC_REG_CTRL, SACC_CTRL_ENABLE);
	sacc_reg_read(s->dev, SACC_REG_STATUS, &st);
	if (!(st & SACC_STATUS_READY))
		return inj_fail(s,
				"re-enable after moving the ring failed "
				"(STATUS 0x%x)",
				st);
	inj_say(s, "ring register 0x%02x now 0x%" PRIx64 ", device enabled",
		reg, val);
	return 0;
}

static void ring_blocked(struct inj *s, uint32_t access, uint32_t req_id)
{
	uint32_t st = 0, err = 0, info = 0, req = 0;
	int stopped = inj_wait_stopped(s, 2000);

	inj_device_state(s, s->dev);
	sacc_reg_read(s->dev, SACC_REG_STATUS, &st);
	sacc_reg_read(s->dev, SACC_REG_ERR_CODE, &err);
	sacc_reg_read(s->dev, SACC_REG_FAULT_INFO, &info);
	sacc_reg_read(s->dev, SACC_REG_FAULT_REQ_ID, &req);
	s->blocked = stopped && (st & SACC_STATUS_ERROR) &&
		     err == SACC_ERR_DMA &&
		     (info & SACC_FAULT_ACCESS_MASK) == access && req == req_id;
	if (!s->blocked)
		inj_why(s,
			"expected the fatal ring error (STATUS.ERROR, ERR_CODE "
			"2, access %u, req_id %u): %s",
			access, req_id, s->device_state);
}

static int sc_sq_unmapped(struct inj *s)
{
	const uint64_t sq = INJ_NEVER_MAPPED + 0x100000;
	struct std b;

	if (std_setup(s, &b, true) || never_mapped(s, sq) ||
	    reprogram(s, SACC_REG_SQ_BASE, sq))
		return -1;
	snprintf(s->note, sizeof(s->note),
		 "SQ_BASE at unmapped 0x%" PRIx64 ": descriptor fetch faults, "
		 "device stops",
		 sq);
	/* one descriptor's worth of tail: the fetch of slot 0 */
	sacc_reg_write(s->dev, SACC_DOORBELL_OFFSET, 1);
	inj_say(s, "doorbell: tail 1, the device fetches slot 0 at 0x%" PRIx64,
		sq);
	ring_blocked(s, SACC_FAULT_DESC_FETCH, 0);
	inj_expect(s, 0, sq, SACC_FAULT_DESC_FETCH, true);
	return 0;
}

static int sc_cq_readonly(struct inj *s)
{
	struct sacc_desc nop = {.opcode = SACC_OP_NOP};
	struct sacc_buf *cq;
	struct std b;
	int id;

	if (std_setup(s, &b, true) ||
	    inj_buf(s, 4 * KiB, SACC_DMA_TO_DEVICE, "cq (mapped read-only)", 8,
		    true, &cq) ||
	    reprogram(s, SACC_REG_CQ_BASE, sacc_buf_iova(cq)))
		return -1;
	snprintf(s->note, sizeof(s->note),
		 "CQ_BASE on a read-only mapping: the completion write faults, "
		 "device stops");
	id = inj_submit(s, &nop, "-", "-");
	if (id < 0)
		return -1;
	ring_blocked(s, SACC_FAULT_CQ_WRITE, (uint32_t)id);
	inj_expect(s, (uint32_t)id, sacc_buf_iova(cq), SACC_FAULT_CQ_WRITE,
		   true);
	return 0;
}

/* ---- v0.3: the token doorbell's PUT word, inline writes, timestamps ---- */

/* Wait until @dev (a channel) reports itself stopped. */
static bool chan_stopped(struct inj *s, struct sacc_dev *dev, int timeout_ms)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;
	struct timespec ts = {0, 1000000};

	while (!sacc_check(dev)) {
		if (now_ns() > deadline)
			return false;
		nanosleep(&ts, NULL);
	}
	inj_say(s, "channel %u stopped: %s", sacc_dev_channel(dev),
		sacc_errmsg(dev));
	return true;
}

static int sc_token_put_unmapped(struct inj *s)
{
	const struct sacc_open_opts tok = {.doorbell = SACC_DOORBELL_PUT_TOKEN};
	const uint64_t put = INJ_NEVER_MAPPED + 0x300000;
	struct sacc_desc nop = {.opcode = SACC_OP_NOP};
	uint32_t st = 0, err = 0, info = 0, req = 0, lo = 0, hi = 0;
	struct sacc_dev *ch, *other;
	char what[256];
	bool stopped;
	struct std b;
	int id;

	if (std_setup(s, &b, true) || never_mapped(s, put))
		return -1;
	if (sacc_dev_channels(s->dev) < 3)
		return inj_fail(
		    s, "needs 3 channels (a v0.3 device), %s has %u",
		    sacc_dev_bdf(s->dev), sacc_dev_channels(s->dev));
	if (sacc_chan_open(s->dev, 1, &tok, &ch))
		return inj_fail(s, "opening channel 1 (token doorbell): %s",
				sacc_errmsg(s->dev));
	if (sacc_chan_open(s->dev, 2, NULL, &other))
		return inj_fail(s, "opening channel 2: %s",
				sacc_errmsg(s->dev));
	s->ring_dev = ch;
	inj_say(s,
		"channel 1: MODE.TOKEN, its PUT word 'ch1:put word' at "
		"0x%" PRIx64 "; channel 2: tail doorbell",
		sacc_dev_put_iova(ch));
	/* PUT_ADDR is a ring register: locked while enabled */
	sacc_reg_write(ch, SACC_REG_CTRL, 0);
	sacc_reg_write(ch, SACC_REG_PUT_ADDR, (uint32_t)put);
	sacc_reg_write(ch, SACC_REG_PUT_ADDR + 4, (uint32_t)(put >> 32));
	sacc_reg_write(ch, SACC_REG_CTRL, SACC_CTRL_ENABLE);
	sacc_reg_read(ch, SACC_REG_STATUS, &st);
	if (!(st & SACC_STATUS_READY))
		return inj_fail(s,
				"channel 1: re-enable after moving PUT_ADDR "
				"failed (STATUS 0x%x)",
				st);
	inj_say(s, "channel 1: PUT_ADDR now 0x%" PRIx64 " (never mapped)", put);
	snprintf(s->note, sizeof(s->note),
		 "PUT_ADDR at unmapped 0x%" PRIx64 ": the PUT read faults, "
		 "channel 1 stops, 0 and 2 run on",
		 put);
	/* a NOP through the token doorbell: the device reads the PUT word */
	id = sacc_submit_raw(ch, &nop);
	if (id < 0)
		return inj_fail(s, "sacc_submit_raw on channel 1: %s",
				sacc_errmsg(ch));
	inj_say(s,
		"token doorbell: channel 1, NOP req_id %d; the device reads "
		"the PUT word at 0x%" PRIx64,
		id, put);
	stopped = chan_stopped(s, ch, 2000);
	inj_device_state(s, ch);
	sacc_reg_read(ch, SACC_REG_STATUS, &st);
	sacc_reg_read(ch, SACC_REG_ERR_CODE, &err);
	sacc_reg_read(ch, SACC_REG_FAULT_INFO, &info);
	sacc_reg_read(ch, SACC_REG_FAULT_REQ_ID, &req);
	sacc_reg_read(ch, SACC_REG_FAULT_ADDR, &lo);
	sacc_reg_read(ch, SACC_REG_FAULT_ADDR + 4, &hi);
	s->blocked = stopped && (st & SACC_STATUS_ERROR) &&
		     err == SACC_ERR_DMA &&
		     (info & SACC_FAULT_ACCESS_MASK) == SACC_FAULT_PUT_READ &&
		     !(info & SACC_FAULT_IS_WRITE) && req == 0 &&
		     ((uint64_t)hi << 32 | lo) == put;
	if (!s->blocked)
		inj_why(s,
			"expected channel 1's fatal ring error (STATUS.ERROR, "
			"ERR_CODE 2, access put_read, req_id 0, FAULT_ADDR "
			"0x%" PRIx64 "): %s",
			put, s->device_state);
	/* the fault is channel 1's alone */
	if (sacc_check(s->dev) ||
	    inj_memcpy_ok(s, s->dev, 4 * KiB, what, sizeof(what))) {
		s->blocked = false;
		inj_why(s, "channel 0 did not keep running: %s",
			sacc_check(s->dev) ? sacc_errmsg(s->dev) : what);
	} else {
		inj_say(s, "channel 0 runs on: %s", what);
	}
	if (inj_memcpy_ok(s, other, 4 * KiB, what, sizeof(what))) {
		s->blocked = false;
		inj_why(s, "channel 2 did not keep running: %s", what);
	} else {
		inj_say(s, "channel 2 runs on: %s", what);
	}
	inj_expect(s, 0, put, SACC_FAULT_PUT_READ, true);
	return 0;
}

static int sc_inline_dst_readonly(struct inj *s)
{
	struct sacc_desc d = {.opcode = SACC_OP_WRITE_INLINE, .length = 256};
	uint8_t payload[256];
	struct sacc_buf *ro;
	struct std b;

	if (std_setup(s, &b, true) ||
	    inj_buf(s, 4 * KiB, SACC_DMA_TO_DEVICE, "ro (device may only read)",
		    5, true, &ro))
		return -1;
	fill_pattern(payload, sizeof(payload), 13);
	d.dst = sacc_buf_iova(ro);
	snprintf(s->note, sizeof(s->note),
		 "WRITE_INLINE of 256 bytes into a buffer mapped read-only: "
		 "fault, 'ro' unchanged");
	return reap_blocked(s,
			    inj_submit_inline(s, &d, payload,
					      "256 bytes inline in the SQ",
					      "'ro', mapped read-only"),
			    sacc_buf_iova(ro), SACC_FAULT_DST_WRITE);
}

static int sc_timestamp_dst_unmapped(struct inj *s)
{
	struct sacc_desc d = {.opcode = SACC_OP_TIMESTAMP,
			      .dst = INJ_NEVER_MAPPED};
	struct std b;

	if (std_setup(s, &b, true) || never_mapped(s, INJ_NEVER_MAPPED))
		return -1;
	snprintf(s->note, sizeof(s->note),
		 "TIMESTAMP to IOVA 0x%llx, mapped by nobody: fault, nothing "
		 "written",
		 INJ_NEVER_MAPPED);
	return reap_blocked(
	    s, inj_submit(s, &d, "- (the device clock)", "never mapped"),
	    INJ_NEVER_MAPPED, SACC_FAULT_DST_WRITE);
}

/* ---- the interrupt window ---- */

/* /proc/interrupts: per line, the label and the sum over CPUs. */
struct irq_snap {
	unsigned int n;
	char name[64][80]; /* "ERR", "MIS", "27 ... vfio-msix[0](...)" */
	uint64_t count[64];
};

static void irq_snapshot(struct irq_snap *q)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[1024];

	q->n = 0;
	if (!f)
		return;
	while (q->n < 64 && fgets(line, sizeof(line), f)) {
		char *p = line, *end, *tail;
		uint64_t sum = 0;

		line[strcspn(line, "\n")] = '\0';
		while (*p == ' ')
			p++;
		end = strchr(p, ':');
		if (!end || end == p)
			continue;
		*end = '\0';
		p = end + 1;
		for (;;) {
			char *e2;
			unsigned long long v = strtoull(p, &e2, 10);

			if (e2 == p)
				break;
			sum += v;
			p = e2;
		}
		tail = strrchr(p, ' ');
		snprintf(q->name[q->n], sizeof(q->name[0]), "%.15s %.60s",
			 line + (line[0] == ' ' ? strspn(line, " ") : 0),
			 tail ? tail + 1 : "");
		q->count[q->n++] = sum;
	}
	fclose(f);
}

/* Interrupts nobody set up: spurious/error counts, any vfio vector. */
static uint64_t irq_unexpected(const struct irq_snap *a,
			       const struct irq_snap *b, char *what, size_t len)
{
	uint64_t n = 0;

	what[0] = '\0';
	for (unsigned int i = 0; i < b->n; i++) {
		uint64_t was = 0;

		if (strncmp(b->name[i], "ERR ", 4) &&
		    strncmp(b->name[i], "MIS ", 4) &&
		    !strstr(b->name[i], "vfio"))
			continue;
		for (unsigned int k = 0; k < a->n; k++)
			if (!strcmp(a->name[k], b->name[i]))
				was = a->count[k];
		if (b->count[i] > was) {
			n += b->count[i] - was;
			snprintf(what + strlen(what), len - strlen(what),
				 "%s+%" PRIu64 " (%s)", what[0] ? ", " : "",
				 b->count[i] - was, b->name[i]);
		}
	}
	return n;
}

struct kmsg_grep {
	unsigned int hits;
	char first[200];
};

static void grep_irq_lines(void *ctx, enum sacc_faultlog_input kind,
			   const char *line)
{
	struct kmsg_grep *g = ctx;
	const char *msg = strchr(line, ';');

	msg = msg ? msg + 1 : line;
	if (!strstr(msg, "No irq handler") && !strstr(msg, "spurious") &&
	    !strstr(msg, "Spurious") && !strstr(msg, "NMI"))
		return;
	if (!g->hits++)
		snprintf(g->first, sizeof(g->first), "%.199s", msg);
}

/*
 * A device write into 0xfee00000-0xfeefffff is an interrupt request.
 * Two forged ones: a compatibility-format MSI (fixed, vector 0xdf, CPU
 * 0), which interrupt remapping must block because Linux keeps
 * GSTS.CFIS clear, and a remappable-format one naming IRTE 0x7fff, which
 * is not present.  Neither may reach a CPU: no MSI-X on our eventfd (no
 * descriptor asked for one), no spurious or error interrupt, no "No irq
 * handler" line; and the guest must live on.
 */
static int sc_interrupt_window(struct inj *s)
{
	const uint64_t compat = 0xfee00000ull, remap = 0xfeeffff0ull;
	struct irq_snap *before = NULL, *after = NULL;
	struct sacc_faultlog_src *kmsg = NULL;
	struct kmsg_grep g = {0};
	struct sacc_stats st0, st1;
	struct sacc_buf *msi;
	char what[256];
	uint64_t fired, lines;
	struct std b;
	uint32_t *p;
	int id1, id2, ret = -1;
	struct sacc_desc d = {.opcode = SACC_OP_MEMCPY, .length = 4};

	if (std_setup(s, &b, true) || inj_buf(s, 4 * KiB, SACC_DMA_TO_DEVICE,
					      "msi payload", 9, false, &msi))
		return -1;
	p = sacc_buf_va(msi);
	memset(p, 0, 4 * KiB);
	p[0] = 0xdf; /* MSI data: vector 0xdf, fixed, edge */
	if (inj_canary(s, "msi payload", p, 4 * KiB))
		return -1;
	before = calloc(1, sizeof(*before));
	after = calloc(1, sizeof(*after));
	if (!before || !after) {
		inj_fail(s, "out of memory");
		goto out;
	}
	sacc_faultlog_src_open(&kmsg, SACC_FAULTLOG_KMSG, NULL,
			       SACC_FAULTLOG_SRC_AT_END, NULL);
	sacc_wait(s->dev, 0); /* drain the eventfd */
	sacc_stats(s->dev, &st0);
	irq_snapshot(before);

	d.src = sacc_buf_iova(msi);
	d.dst = compat;
	id1 = inj_submit(s, &d, "compat-format MSI data, vector 0xdf",
			 "0xfee00000: CPU 0, compatibility format");
	d.dst = remap;
	id2 = inj_submit(s, &d, "MSI data",
			 "0xfeeffff0: remappable format, IRTE 0x7fff");
	if (id1 < 0 || id2 < 0 || inj_reap(s, 3000))
		goto out;
	usleep(200000); /* time for a stray interrupt to show */
	sacc_wait(s->dev, 0);
	sacc_stats(s->dev, &st1);
	irq_snapshot(after);
	if (kmsg)
		sacc_faultlog_src_read(kmsg, NULL, grep_irq_lines, &g, NULL);
	inj_device_state(s, s->dev);

	fired = st1.interrupts - st0.interrupts;
	lines = irq_unexpected(before, after, what, sizeof(what));
	inj_say(s,
		"interrupts: MSI-X eventfd +%" PRIu64 ", spurious/error/vfio "
		"lines +%" PRIu64 "%s%s, kernel lines about stray "
		"interrupts: %u",
		fired, lines, what[0] ? ": " : "", what, g.hits);
	s->blocked = s->desc[0].status == SACC_STS_DMA_FAULT &&
		     s->desc[1].status == SACC_STS_DMA_FAULT && !fired &&
		     !lines && !g.hits;
	if (s->desc[0].status != SACC_STS_DMA_FAULT ||
	    s->desc[1].status != SACC_STS_DMA_FAULT)
		inj_why(s, "the writes completed with status %d and %d",
			s->desc[0].status, s->desc[1].status);
	if (fired)
		inj_why(s, "%" PRIu64 " MSI-X interrupt(s) on the eventfd",
			fired);
	if (lines)
		inj_why(s, "unexpected interrupts: %s", what);
	if (g.hits)
		inj_why(s, "kernel: %s", g.first);
	inj_expect(s, (uint32_t)id1, compat, SACC_FAULT_DST_WRITE, false);
	inj_expect(s, (uint32_t)id2, remap, SACC_FAULT_DST_WRITE, false);
	snprintf(s->note, sizeof(s->note),
		 "forged MSIs (compat and remappable): blocked by interrupt "
		 "remapping, none delivered");
	ret = 0;
out:
	sacc_faultlog_src_close(kmsg);
	free(before);
	free(after);
	return ret;
}

/* ---- the device's own BAR ---- */

/*
 * VFIO maps a VM_PFNMAP mmap of a BAR like any memory (that is how peer
 * to peer DMA is set up), so the device can be pointed at its own
 * doorbell.  QEMU's re-entrancy guard must refuse it (a fault, not a
 * recursive doorbell write), and the device must carry on.
 */
static int sc_own_bar(struct inj *s)
{
	struct sacc_dma_ctx *ctx;
	struct sacc_err e = {0};
	struct sacc_desc d = {.opcode = SACC_OP_MEMCPY, .length = 4};
	struct sacc_buf *val;
	volatile void *db;
	uint32_t st = 0, err = 0;
	uint64_t iova;
	struct std b;
	int id1, id2;

	if (std_setup(s, &b, true) ||
	    inj_buf(s, 4 * KiB, SACC_DMA_TO_DEVICE, "doorbell value", 12, false,
		    &val))
		return -1;
	/* a value the doorbell would take as a new SQ tail */
	memset(sacc_buf_va(val), 0, 4 * KiB);
	*(uint32_t *)sacc_buf_va(val) = 1;
	if (inj_canary(s, "doorbell value", sacc_buf_va(val), 4 * KiB))
		return -1;
	db = sacc_dev_doorbell_page(s->dev);
	if (!db)
		return inj_fail(s, "BAR0's doorbell page is not mmapped");
	ctx = sacc_dev_dma(s->dev);
	if (sacc_dma_map(ctx, (void *)db, 4 * KiB, SACC_DMA_BIDIRECTIONAL,
			 "own BAR0 doorbell page", &iova, &e))
		return inj_fail(s, "VFIO would not map the doorbell page: %s",
				e.msg);
	inj_say(s,
		"BAR0 doorbell page (mmap, VM_PFNMAP) mapped at IOVA "
		"0x%" PRIx64 ", read/write for the device",
		iova);
	d.src = sacc_buf_iova(val);
	d.dst = iova;
	id1 = inj_submit(s, &d, "'doorbell value' (1, a valid SQ tail)",
			 "own doorbell");
	d.src = iova;
	d.dst = sacc_buf_iova(b.dst);
	id2 = inj_submit(s, &d, "own doorbell", "'dst'");
	if (id1 < 0 || id2 < 0 || inj_reap(s, 3000))
		return -1;
	inj_device_state(s, s->dev);
	sacc_reg_read(s->dev, SACC_REG_STATUS, &st);
	sacc_reg_read(s->dev, SACC_REG_ERR_CODE, &err);
	s->blocked = s->desc[0].status == SACC_STS_DMA_FAULT &&
		     s->desc[1].status == SACC_STS_DMA_FAULT &&
		     (st & SACC_STATUS_READY) && !(st & SACC_STATUS_ERROR) &&
		     err == SACC_ERR_DMA && sacc_outstanding(s->dev) == 0;
	if (!s->blocked)
		inj_why(s,
			"expected both copies to fault with the device still "
			"ready: %s",
			s->device_state);
	inj_expect(s, (uint32_t)id1, iova, SACC_FAULT_DST_WRITE, false);
	inj_expect(s, (uint32_t)id2, iova, SACC_FAULT_SRC_READ, false);
	if (sacc_dma_unmap(ctx, iova, &e))
		return inj_fail(s, "unmapping the doorbell page: %s", e.msg);
	snprintf(s->note, sizeof(s->note),
		 "DMA into its own doorbell: refused by QEMU's re-entrancy "
		 "guard, no recursion");
	return 0;
}

/* ---- isolation: two devices, two containers, two processes ---- */

struct peer_msg {
	int ok;
	uint64_t iova;
	int intact, recovered;
	char msg[200];
};

static bool read_full(int fd, void *buf, size_t len, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	size_t got = 0;

	while (got < len) {
		ssize_t r;

		if (poll(&p, 1, timeout_ms) <= 0)
			return false;
		r = read(fd, (char *)buf + got, len - got);
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

/* Process B: owns the second device; its secret is the target. */
static void peer_main(struct inj *s, int to_parent, int from_parent)
{
	struct peer_msg m = {0};
	struct sacc_buf *filler, *secret;
	struct sacc_dev *dev;
	uint8_t *want = NULL;
	char go;

	if (sacc_open(s->bdf[1], NULL, &dev)) {
		snprintf(m.msg, sizeof(m.msg), "%s", sacc_errmsg(NULL));
		goto out_msg;
	}
	/* 1 MiB of IOVA first, so the secret sits where A maps nothing */
	if (sacc_buf_alloc(dev, 1u << 20, SACC_DMA_TO_DEVICE, "b filler",
			   &filler) ||
	    sacc_buf_alloc(dev, 4 * KiB, SACC_DMA_BIDIRECTIONAL, "b secret",
			   &secret)) {
		snprintf(m.msg, sizeof(m.msg), "%s", sacc_errmsg(dev));
		goto out_close;
	}
	fill_pattern(sacc_buf_va(secret), 4 * KiB, 77);
	m.ok = 1;
	m.iova = sacc_buf_iova(secret);
	if (write(to_parent, &m, sizeof(m)) != sizeof(m))
		goto out_close;
	/* A attacks now; wait for it to finish */
	if (!read_full(from_parent, &go, 1, 30000))
		snprintf(m.msg, sizeof(m.msg), "no word from process A");
	want = malloc(4 * KiB);
	if (want) {
		fill_pattern(want, 4 * KiB, 77);
		m.intact = !memcmp(want, sacc_buf_va(secret), 4 * KiB);
	}
	m.recovered = !inj_memcpy_ok(s, dev, 4 * KiB, m.msg, sizeof(m.msg));
	if (m.intact && m.recovered) {
		char tmp[sizeof(m.msg)];

		memcpy(tmp, m.msg, sizeof(tmp));
		snprintf(m.msg, sizeof(m.msg),
			 "process B (%.16s): 'b secret' unchanged; %.140s",
			 s->bdf[1], tmp);
	} else if (!m.intact) {
		snprintf(m.msg, sizeof(m.msg),
			 "process B (%s): 'b secret' CHANGED", s->bdf[1]);
	}
	free(want);
out_close:
	sacc_close(dev);
out_msg:
	if (write(to_parent, &m, sizeof(m)) != sizeof(m))
		_exit(1);
	_exit(0);
}

static int sc_isolation(struct inj *s)
{
	int up[2], down[2], status;
	struct peer_msg m;
	struct std b;
	char go = 'g';
	pid_t pid;
	int ret = -1;

	if (pipe(up) || pipe(down))
		return inj_fail(s, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return inj_fail(s, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		peer_main(s, up[1], down[0]);
	}
	close(up[1]);
	close(down[0]);
	if (!read_full(up[0], &m, sizeof(m), 30000) || !m.ok) {
		inj_fail(s, "process B failed: %s", m.ok ? "no answer" : m.msg);
		goto out;
	}
	inj_say(s,
		"process %d owns %s in its own container; its 'b secret' is "
		"at IOVA 0x%" PRIx64 " there",
		(int)pid, s->bdf[1], m.iova);
	if (std_setup(s, &b, true) || never_mapped(s, m.iova))
		goto out;
	inj_say(s, "in %s's container IOVA 0x%" PRIx64 " is never mapped",
		s->bdf[0], m.iova);
	snprintf(s->note, sizeof(s->note),
		 "A writes and reads the IOVA of B's secret: both fault, B "
		 "untouched");
	if (one_bad_copy(s, sacc_buf_iova(b.src), "'src'", m.iova,
			 "B's 'b secret' (only B's container maps it)", 4 * KiB,
			 m.iova, SACC_FAULT_DST_WRITE))
		goto out;
	{
		bool w = s->blocked;

		if (one_bad_copy(s, m.iova, "B's 'b secret'",
				 sacc_buf_iova(b.dst), "'dst'", 4 * KiB, m.iova,
				 SACC_FAULT_SRC_READ))
			goto out;
		s->blocked = w && s->blocked;
	}
	ret = 0;
out:
	if (write(down[1], &go, 1) != 1 ||
	    !read_full(up[0], &m, sizeof(m), 30000)) {
		m.intact = m.recovered = 0;
		snprintf(m.msg, sizeof(m.msg), "process B did not report");
	}
	kill(pid, SIGTERM); /* it has exited already, unless stuck */
	waitpid(pid, &status, 0);
	close(up[0]);
	close(down[1]);
	s->peer = true;
	s->peer_intact = m.intact;
	s->peer_recovered = m.recovered;
	snprintf(s->peer_msg, sizeof(s->peer_msg), "%s", m.msg);
	inj_say(s, "%s", m.msg);
	return ret;
}

/* ---- sub-page exposure, both ways ---- */

static bool contains(const uint8_t *hay, size_t n, const uint8_t *needle,
		     size_t k)
{
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(hay + i, needle, k))
			return true;
	return false;
}

static int sc_subpage_naive(struct inj *s)
{
	struct sacc_dma_ctx *ctx;
	struct sacc_err e = {0};
	struct sacc_desc d = {.opcode = SACC_OP_MEMCPY, .length = 8 * KiB};
	uint8_t *arena, *dst;
	uint64_t iova;
	struct std b;

	if (std_setup(s, &b, false))
		return -1;
	/* a heap-style arena: 'a' and a neighbour's secret share a page */
	arena = inj_plain(s, 8 * KiB, NULL, 0);
	if (!arena)
		return -1;
	memset(arena, 0, 8 * KiB);
	fill_pattern(arena, 2 * KiB, 10);
	fill_pattern(arena + 2 * KiB, 2 * KiB, 11);
	if (inj_canary(s, "neighbour's secret (same page as 'a')",
		       arena + 2 * KiB, 2 * KiB))
		return -1;
	ctx = sacc_dev_dma(s->dev);
	if (sacc_dma_map(ctx, arena, 8 * KiB, SACC_DMA_TO_DEVICE,
			 "naive arena: 'a' + neighbour", &iova, &e))
		return inj_fail(s, "mapping the arena: %s", e.msg);
	inj_say(s,
		"naive allocation: 'a' (2 KiB) at arena+0, a neighbour's "
		"2 KiB secret at arena+0x800, one mapping 0x%" PRIx64,
		iova);
	d.src = iova;
	d.dst = sacc_buf_iova(b.dst);
	if (inj_submit(s, &d, "'a' and the 6 KiB after it", "'dst'") < 0 ||
	    inj_reap(s, 3000))
		return -1;
	inj_device_state(s, s->dev);
	s->blocked = s->desc[0].status == SACC_STS_DMA_FAULT;
	dst = sacc_buf_va(b.dst);
	s->exposed = s->desc[0].status == SACC_STS_OK &&
		     !memcmp(dst + 2 * KiB, arena + 2 * KiB, 2 * KiB);
	inj_say(s, "dst+0x800: %s",
		s->exposed ? "the neighbour's secret, byte for byte"
			   : "not the secret");
	if (!s->exposed)
		inj_why(s, "expected the exposure this row demonstrates");
	if (sacc_dma_unmap(ctx, iova, &e))
		return inj_fail(s, "unmapping the arena: %s", e.msg);
	snprintf(s->note, sizeof(s->note),
		 "expected exposure: the device read the neighbour's secret; "
		 "IOMMUs map pages");
	return 0;
}

static int sc_subpage_libsacc(struct inj *s)
{
	struct sacc_buf *a, *nb;
	struct std b;

	if (std_setup(s, &b, true) ||
	    inj_buf(s, 2 * KiB, SACC_DMA_TO_DEVICE, "a", 10, true, &a) ||
	    inj_buf(s, 2 * KiB, SACC_DMA_TO_DEVICE, "neighbour (secret)", 11,
		    true, &nb))
		return -1;
	inj_say(s,
		"libsacc: 'a' (2 KiB) has page 0x%" PRIx64 " to itself, the "
		"neighbour is at 0x%" PRIx64 " behind a guard page",
		sacc_buf_iova(a), sacc_buf_iova(nb));
	if (one_bad_copy(s, sacc_buf_iova(a), "'a' and the 6 KiB after it",
			 sacc_buf_iova(b.dst), "'dst'", 8 * KiB,
			 sacc_buf_iova(a) + 4 * KiB, SACC_FAULT_SRC_READ))
		return -1;
	s->exposed = contains(sacc_buf_va(b.dst), 8 * KiB, sacc_buf_va(nb), 64);
	if (s->exposed)
		inj_why(s, "the neighbour's secret reached dst");
	snprintf(s->note, sizeof(s->note),
		 "same attack on page-granular buffers: the guard page after "
		 "'a' faults");
	return 0;
}

/* ---- a burst ---- */

#define BURST 1000u

static int sc_burst(struct inj *s)
{
	struct sacc_desc d = {.opcode = SACC_OP_MEMCPY, .length = 64};
	const uint64_t base = INJ_NEVER_MAPPED + 0x200000;
	struct sacc_result r[256];
	uint32_t faulted = 0, other = 0, got = 0, first = 0, last = 0;
	uint64_t deadline;
	struct std b;

	if (std_setup(s, &b, true) || never_mapped(s, base) ||
	    never_mapped(s, base + (BURST - 1) * 4 * KiB))
		return -1;
	d.src = sacc_buf_iova(b.src);
	for (uint32_t i = 0; i < BURST; i++) {
		int id;

		d.dst = base + (uint64_t)i * 4 * KiB;
		id = sacc_submit_raw(s->dev, &d);
		if (id < 0)
			return inj_fail(s, "descriptor %u: %s", i,
					sacc_errmsg(s->dev));
		if (!i) {
			first = (uint32_t)id;
			s->desc[0].d = d;
			s->desc[0].d.req_id = first;
			snprintf(s->desc[0].src_what,
				 sizeof(s->desc[0].src_what), "'src'");
			snprintf(s->desc[0].dst_what,
				 sizeof(s->desc[0].dst_what),
				 "never mapped (1 of %u pages)", BURST);
			s->ndesc = 1;
		}
		last = (uint32_t)id;
	}
	inj_say(s,
		"%u descriptors: memcpy 64 bytes to %u unmapped pages from "
		"0x%" PRIx64 ", req_id %u..%u",
		BURST, BURST, base, first, last);
	deadline = now_ns() + 60000000000ull;
	while (got < BURST) {
		int n = sacc_poll(s->dev, r, 256);

		if (n < 0)
			return inj_fail(s, "sacc_poll: %s",
					sacc_errmsg(s->dev));
		for (int k = 0; k < n; k++) {
			if (r[k].status == SACC_STS_DMA_FAULT)
				faulted++;
			else
				other++;
		}
		got += (uint32_t)n;
		if (!n && now_ns() > deadline)
			return inj_fail(s, "%u of %u completions after 60 s",
					got, BURST);
		if (!n)
			usleep(500);
	}
	s->desc[0].status = SACC_STS_DMA_FAULT;
	inj_device_state(s, s->dev);
	s->blocked = faulted == BURST;
	if (!s->blocked)
		inj_why(s, "%u of %u descriptors faulted, %u did not", faulted,
			BURST, other);
	s->burst_lo = first;
	s->burst_hi = last;
	s->burst_n = BURST;
	snprintf(s->note, sizeof(s->note),
		 "%u faults at once: every one a record, logged or counted "
		 "with its reason",
		 BURST);
	return 0;
}

const struct scenario inj_scenarios[] = {
    {"unmapped-dst-write", "MEMCPY into an IOVA nobody mapped", 1, false, true,
     false, 0, sc_unmapped_dst_write, 0},
    {"unmapped-src-read", "MEMCPY from an IOVA nobody mapped", 1, false, true,
     false, 0, sc_unmapped_src_read, 0},
    {"readonly-write", "write into a buffer the device may only read", 1, false,
     true, false, 0, sc_readonly_write, 0},
    {"writeonly-read", "read a buffer the device may only write", 1, false,
     true, false, 0, sc_writeonly_read, 0},
    {"straddle-guard", "a read running off the end of its mapping", 1, false,
     true, false, 0, sc_straddle_guard, 0},
    {"overrun-neighbour", "a write from one buffer towards the next", 1, false,
     true, false, 0, sc_overrun_neighbour, 0},
    {"use-after-unmap", "DMA through the stale IOVA of an unmapped buffer", 1,
     false, true, false, 0, sc_use_after_unmap, 0},
    {"beyond-address-width", "an IOVA past the IOMMU's address width", 1, false,
     true, false, 0, sc_beyond_width, 0},
    {"wrap-2-64", "src + length wrapping past 2^64", 1, false, true, false, 0,
     sc_wrap, 0},
    {"inline-dst-readonly",
     "WRITE_INLINE into a buffer the device may only read", 1, false, true,
     false, 0, sc_inline_dst_readonly, SACC_OPEN_V3},
    {"timestamp-dst-unmapped", "TIMESTAMP to an IOVA nobody mapped", 1, false,
     true, false, 0, sc_timestamp_dst_unmapped, SACC_OPEN_V3},
    {"sq-unmapped", "submission ring in unmapped memory", 1, true, true, false,
     0, sc_sq_unmapped, 0},
    {"cq-readonly", "completion ring mapped read-only", 1, true, true, false, 0,
     sc_cq_readonly, 0},
    {"token-put-unmapped", "token doorbell, PUT word at an unmapped IOVA", 1,
     true, true, false, 0, sc_token_put_unmapped, 0},
    {"interrupt-window", "DMA write aimed at the MSI window 0xfee00000", 1,
     false, true, false, 0, sc_interrupt_window, 0},
    {"own-bar", "MEMCPY into and out of the device's own doorbell page", 1,
     false, true, false, 0, sc_own_bar, 0},
    {"isolation", "device A at an IOVA only B's container maps (2 processes)",
     2, false, true, false, 0, sc_isolation, 0},
    {"subpage-naive", "naive allocator: the neighbour shares the page", 1,
     false, false, true, 0, sc_subpage_naive, 0},
    {"subpage-libsacc", "the same overread on libsacc's page buffers", 1, false,
     true, false, 0, sc_subpage_libsacc, 0},
    {"burst-1000", "1000 faulting descriptors at once", 1, false, true, false,
     1024, sc_burst, 0},
    {NULL, NULL, 0, false, false, false, 0, NULL, 0},
};

const size_t inj_nr_scenarios =
    sizeof(inj_scenarios) / sizeof(inj_scenarios[0]) - 1;

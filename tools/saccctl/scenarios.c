// SPDX-License-Identifier: MIT
/*
 * scenarios.c - the fault-injection catalogue of saccctl inject: the
 * table of scenarios, the standard setup they share and the
 * per-descriptor attacks.  The ring attacks are in scenarios_ring.c, the
 * v0.4 device memory ones in scenarios_devmem.c, the v0.4 pushbuffer
 * segment ones in scenarios_segment.c, the ones on the
 * platform around the device (interrupt window, own BAR, isolation,
 * sub-page exposure, a burst) in scenarios_platform.c.
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
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "scenarios.h"

int std_bufs(struct inj *s, struct std *b, bool dst_canary)
{
	if (inj_buf(s, 32 * KiB, SACC_DMA_TO_DEVICE, "src", 1, true, &b->src) ||
	    inj_buf(s, 8 * KiB, SACC_DMA_FROM_DEVICE, "dst", 2, dst_canary,
		    &b->dst) ||
	    inj_buf(s, 4 * KiB, SACC_DMA_FROM_DEVICE, "next", 3, true,
		    &b->next))
		return -1;
	b->plain = inj_plain(s, 4 * KiB, "process page without IOVA", 4);
	return b->plain ? 0 : -1;
}

int std_setup(struct inj *s, struct std *b, bool dst_canary)
{
	if (inj_open(s, 0, &s->dev))
		return -1;
	return std_bufs(s, b, dst_canary);
}

/* @iova must be unknown to the device's registry (never mapped). */
int never_mapped(struct inj *s, uint64_t iova)
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
int reap_blocked(struct inj *s, int id, uint64_t fault, uint32_t access)
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
int one_bad_copy(struct inj *s, uint64_t src, const char *src_what,
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
    {"devmem-past-end", "a copy into and out of device memory past its end", 1,
     false, true, false, 0, sc_devmem_past_end, SACC_OPEN_V3},
    {"d2h-unmapped", "a copy from device memory to an IOVA nobody mapped", 1,
     false, true, false, 0, sc_d2h_unmapped, SACC_OPEN_V3},
    {"sq-dev-garbage", "random bytes in an SQ in device memory, one doorbell",
     1, true, true, false, 64, sc_sq_dev_garbage,
     SACC_OPEN_V3 | SACC_OPEN_SQ_DEV},
    {"segment-unmapped",
     "a segment at an unmapped IOVA, and one running into a guard page", 1,
     false, true, false, 0, sc_segment_unmapped, SACC_OPEN_V3},
    {"segment-other-buffer",
     "a segment whose command writes into a buffer the device may only read", 1,
     false, true, false, 0, sc_segment_other_buffer, SACC_OPEN_V3},
    {"segment-devmem-past-end",
     "a segment in device memory running past its end", 1, false, true, false,
     0, sc_segment_devmem_past_end, SACC_OPEN_V3},
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

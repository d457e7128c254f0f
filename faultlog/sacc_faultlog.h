/* SPDX-License-Identifier: MIT */
/*
 * sacc_faultlog.h - the SACC IOMMU fault log: the reader of the
 * per-device event journal libsacc writes (journal/), parsers for the
 * guest kernel's DMAR messages and QEMU's vtd trace, and the join that
 * turns all three into one attributed record per fault plus a summary
 * that accounts for every loss.
 *
 * Error convention (as in sacc_iommu.h): functions return 0 or a
 * non-negative count on success and a negative errno on failure; the
 * optional struct sacc_err receives a one-line message.  The library
 * never prints (except into the FILE * it is given) and never aborts.
 * JSON is read and written with json-c (static, like everything else).
 * Line parsers return 1 for a line they understood, 0 for a line that is
 * not theirs (noise, other trace events, unknown journal events), and
 * -EINVAL for a line that is theirs but malformed or truncated.
 *
 * ---------------------------------------------------------------------
 * 1. The SACC journal: the schema, its writer and its rotation are
 *    journal/sacc_journal.h (docs/faults.md has the same text); this
 *    library reads it (sacc_journal_parse_line() below).
 * ---------------------------------------------------------------------
 *
 * ---------------------------------------------------------------------
 * 2. Fault records (sacc_faultlog_print_json, one object per line)
 * ---------------------------------------------------------------------
 *   "n"            number  0-based index in time order
 *   "sources"      array   of "device" (journal), "kernel" (DMAR line),
 *                          "qemu" (vtd_dmar_fault trace line)
 *   "bdf"          string  "0000:01:00.0" (the kernel and QEMU give no PCI
 *                          domain: the journal's, else 0000)
 *   "sid"          string  PCI source id "0x0100" (bus << 8 | dev << 3 | fn)
 *   "t_ns"         number|null  guest CLOCK_MONOTONIC-ish time of the fault
 *   "t_from"       string|null  "device" (journal), "kernel" (kmsg/dmesg
 *                          timestamp, local_clock), "qemu" (host trace time
 *                          shifted by the offset of a neighbouring matched
 *                          fault: an estimate)
 *   "iova"         string|null  best known address: the device's
 *                          FAULT_ADDR, else QEMU's, else the kernel's page
 *   "iova_exact"   bool    "iova" is an exact address (device or QEMU),
 *                          not only the page the kernel prints
 *   "page"         string|null  iova & ~0xfff
 *   "access"       string|null  "desc_fetch" | "src_read" | "dst_write" |
 *                          "cq_write" | "put_read" | "inline_read" |
 *                          "dev_read" | "dev_write" | "segment_read" (the
 *                          journal's names; device record only)
 *   "write"        bool|null    the access was a write
 *   "req_id", "opcode", "status", "fault_count", "pid"  number|null
 *                          from the journal's fault event
 *   "op"           string|null  "nop" | "memcpy" | "xform" | "op<N>"
 *   "fatal"        bool    ring fault
 *   "kernel_kind"  string|null  "dma" | "intr_remap"
 *   "kernel_reason"      number|null  VT-d fault reason code (5 = PTE
 *                          Write access is not set, 6 = read)
 *   "kernel_reason_text" string|null  the kernel's text for it
 *   "kernel_t_ns"  number|null  kernel timestamp of the DMAR line
 *   "pasid"        number|null  PASID when the kernel printed one
 *   "intr_index"   number|null  interrupt index of an interrupt remapping
 *                          fault (INTR-REMAP line, or a QEMU trace fault
 *                          with reason 0x20-0x26, whose address holds
 *                          the index in bits 63:48)
 *   "qemu_reason"  number|null  fault reason in the QEMU trace
 *   "viommu_recorded" bool|null  the vIOMMU stored this fault in a fault
 *                          recording register (vtd_frr_new seen); false:
 *                          dropped by the vIOMMU; null: not traced
 *   "attribution"  string  "mapped" | "guard" | "unmapped_earlier" |
 *                          "never_mapped" | "beyond_ranges" | "unattributed"
 *                          | "device_memory" (v0.4: access dev_read or
 *                          dev_write, "iova" is a device address)
 *   "attribution_text" string  one sentence, e.g. "guard page between 'a'
 *                          and 'b'", "belonged to buffer 'x', unmapped
 *                          3.1 ms earlier (offset 0x10)"
 *   "buffer"       string|null  owning buffer (mapped) or the stale one
 *                          (unmapped_earlier)
 *   "buffer_offset" number|null offset of "iova" in "buffer"
 *   "buffer_perm"  string|null  "r" | "w" | "rw" (what the device may do)
 *   "length"       number|null  the descriptor's length (journal)
 *   "chan"         number|null  the device channel (journal, v0.3)
 *   "unlogged"     string|null  a device fault without a kernel DMAR line:
 *                          why.  Never reported (no IOMMU fault record can
 *                          exist): "not_iommu" (the mapping permits the
 *                          access, its target refused it, e.g. the
 *                          device's own BAR), "no_dma" (the range wraps
 *                          past 2^64; refused before any DMA),
 *                          "device_memory" (v0.4: past the end of the
 *                          device's own memory; never an IOMMU access,
 *                          never joined to a DMAR line).
 *                          Lost or suppressed: "dropped" (the kernel's
 *                          ratelimit or the vIOMMU's fault recording
 *                          register; no trace), "viommu_dropped",
 *                          "ratelimited" (traced).  null when logged.
 *   "unlogged_text" string|null  one sentence for it
 * The last line is {"summary":{...}} with the fields of
 * struct sacc_faultlog_summary (same names), "devices":[...] and "text".
 *
 * ---------------------------------------------------------------------
 * 3. Loss accounting (struct sacc_faultlog_summary)
 * ---------------------------------------------------------------------
 * device       = max(fault events in the journal + journal_rotated, sum
 *                over reset epochs of the largest fault_count seen): the
 *                device counts faults from any process, the journal only
 *                from libsacc users.
 * journal_rotated = fault events in journals rotated away past the size
 *                cap (the "rotated" line's "faults"): device faults with
 *                no record, since their journal lines are gone;
 *                journal_rotations counts the rotations.
 * faults       = per device max(device, records): every fault at least one
 *                source saw, or the device counted.
 * qemu_seen    = vtd_dmar_fault trace lines: faults the vIOMMU saw before
 *                deciding whether to drop them.  QEMU's memory core
 *                retries a failed translation for every chunk (<= 8
 *                bytes) of one DMA, so a run of lines for the same source,
 *                direction and page, each a few bytes after the last, is
 *                one fault (the rest are counted in trace_chunk_lines).
 * viommu_recorded = vtd_frr_new trace lines: faults it stored in a fault
 *                recording register (QEMU 7.2 has one; while it is pending,
 *                further faults from the same source are compressed and
 *                others set PFO; both are dropped).
 * kernel_printed   = DMAR fault lines (DMA and INTR-REMAP).
 * kernel_suppressed = sum of "dmar_fault: N callbacks suppressed".  The
 *                kernel's dmar_fault() shares one ratelimit between the
 *                "DRHD: handling fault status" message and every fault
 *                record, so N is an upper bound on faults; and it is
 *                printed only when a later fault arrives after the 5 s
 *                window, so the last window's count may be missing.
 * overflow_events = "DRHD: handling fault status reg" lines with PFO.
 *                PFO is bit 0 and PPF (a fault pending) bit 1: the kernel
 *                defines DMA_FSTS_PFO = 1 << 0, DMA_FSTS_PPF = 1 << 1, as
 *                do QEMU (VTD_FSTS_*) and the VT-d spec; issue 4's "bit 1
 *                = overflow" is PPF.  Compression drops never set PFO.
 * unreported   = device faults without a DMAR line that no IOMMU fault
 *                record can exist for ("unlogged" not_iommu, no_dma,
 *                device_memory above), per kind in unreported_not_iommu,
 *                _no_dma, _devmem.
 * lost         = IOMMU faults the guest kernel never learned of (neither
 *                printed nor counted as suppressed):
 *                with vtd_frr_new lines (lost_exact): the sum over devices
 *                of faults - unreported - max(viommu_recorded,
 *                kernel_printed), since every recorded fault reaches
 *                dmar_fault();
 *                without: faults - unreported - (kernel_printed +
 *                kernel_suppressed), an estimate for the reasons above.
 *                Clamped at 0.  So, per device:
 *                faults = printed + suppressed + unreported + lost.
 * Every fault still appears as a record: losses are counted, not hidden.
 */
#ifndef SACC_FAULTLOG_H
#define SACC_FAULTLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sacc_hw_names.h" /* sacc_fault_access_name(), sacc_op_name() */
#include "sacc_iommu.h"
#include "sacc_journal.h" /* the journal's schema and writer */

/* The x86 interrupt window: DMA writes here are MSI requests. */
#define SACC_IRQ_WINDOW_START 0xfee00000ull
#define SACC_IRQ_WINDOW_END   0xfeefffffull

/* ---- names ---- */

/* PCI addresses: sacc_bdf_to_sid(), sacc_bdf_format() (sacc_base.h). */

/* The kernel's text for a VT-d fault reason (DMA remapping 0x0-0xd,
 * interrupt remapping 0x20-0x26), or NULL. */
const char *sacc_dmar_reason_text(unsigned int reason);

/* ---- the journal's reader (the schema and writer: sacc_journal.h) ---- */

/*
 * One journal line (with or without the trailing newline) into @ev.
 * Required: ev, t_ns, bdf; map: iova, len, perm; unmap: iova, len;
 * ranges: ranges; fault: addr, access; rotated: faults.  Unknown keys
 * are ignored.
 * Returns 1, 0 for a blank line or an unknown "ev", -EINVAL (also for
 * JSON that json-c's strict mode refuses, nesting deeper than 32, or an
 * integer beyond 64 bits), -ENOMEM.
 */
int sacc_journal_parse_line(const char *line, struct sacc_journal_event *ev);

/* ---- guest kernel log lines ---- */

enum sacc_kmsg_kind {
	SACC_KMSG_NONE = 0,
	SACC_KMSG_DMA_FAULT,	  /* a whole DMA remapping fault line */
	SACC_KMSG_DMA_FAULT_HEAD, /* pre-4.7: "... fault addr 900000 " */
	SACC_KMSG_INTR_FAULT,	  /* a whole interrupt remapping fault line */
	SACC_KMSG_INTR_FAULT_HEAD, /* pre-4.7 "INTR-REMAP: ... fault index N" */
	SACC_KMSG_REASON_TAIL,	  /* pre-4.7: "DMAR:[fault reason 05] text" */
	SACC_KMSG_FAULT_STATUS,	  /* "DRHD: handling fault status reg 3" */
	SACC_KMSG_SUPPRESSED,	  /* "dmar_fault: 997 callbacks suppressed" */
	SACC_KMSG_DRIVER_FAULT,	  /* sacc_dma's "chan N fault: req_id ..." */
};

enum sacc_kmsg_format {
	SACC_KMSG_FMT_NONE = 0,
	SACC_KMSG_FMT_V61,	   /* "[DMA Write NO_PASID]", 0x radix */
	SACC_KMSG_FMT_PASID_OLD,   /* "[DMA Write] ... PASID ffffffff" */
	SACC_KMSG_FMT_ONELINE_OLD, /* "[DMA Write] ... [fault reason 05]" */
	SACC_KMSG_FMT_SPLIT_OLD,   /* <4.7: two lines */
};

/* Bits of the fault status register the DRHD line prints. */
#define SACC_DMA_FSTS_PFO (1u << 0) /* primary fault overflow */
#define SACC_DMA_FSTS_PPF (1u << 1) /* primary pending fault */

struct sacc_kmsg_event {
	enum sacc_kmsg_kind kind;
	enum sacc_kmsg_format format;
	bool has_time;
	uint64_t t_ns; /* kmsg usec or dmesg [sec.usec], in ns */
	bool has_seq;
	uint64_t seq; /* kmsg sequence number */
	int facility; /* kmsg prefix priority >> 3, -1 if not given */
	bool user_forged; /* a DMAR line written by userspace (facility != 0):
			   * returned as 0, counted, never trusted */
	uint16_t sid; /* bus << 8 | dev << 3 | fn */
	bool write;
	bool has_pasid;
	uint32_t pasid;
	uint64_t addr; /* DMA: page address; INTR: fault index */
	bool has_reason;
	uint32_t reason;
	char reason_text[96];
	uint32_t fault_status;
	uint32_t suppressed;
	/* SACC_KMSG_DRIVER_FAULT: the device's fault record as the kernel's
	 * dmaengine driver (kernel/sacc_dma/) read it, in place of a
	 * libsacc journal; write and addr above are its access and address */
	struct {
		uint32_t domain;
		uint32_t chan, req_id, opcode, length, fault_count;
		uint32_t access;
		bool iommu_known, iommu_mapped; /* the DMA API's page table */
	} drv;
};

/*
 * Parse one line from /dev/kmsg ("3,1234,5678901,-;DMAR: ..."; "\xHH"
 * escapes are decoded, so a pre-4.7 two-line record read from kmsg
 * parses as one whole fault), from dmesg ("[    2.123456] DMAR: ...",
 * optionally with a "[T123]" caller id), from syslog ("... kernel: DMAR:
 * ..."), or a bare message.  Returns 1, 0 (not a DMAR fault-related
 * line), -EINVAL.
 */
int sacc_kmsg_parse_line(const char *line, struct sacc_kmsg_event *ev);

/* ---- QEMU trace lines ---- */

enum sacc_trace_kind {
	SACC_TRACE_NONE = 0,
	SACC_TRACE_DMAR_FAULT, /* vtd_dmar_fault: the vIOMMU saw a fault */
	SACC_TRACE_FRR_NEW,    /* vtd_frr_new: it recorded one */
};

struct sacc_trace_event {
	enum sacc_trace_kind kind;
	bool has_time;
	uint64_t wall_ns; /* host time from the "PID@SEC.USEC:" prefix */
	uint32_t tid;
	uint16_t sid;
	uint32_t reason;
	uint64_t addr; /* exact for dmar_fault; page for frr_new */
	bool write;
	uint32_t frr_index; /* frr_new */
};

/*
 * One line of QEMU's "log" trace backend output (stderr or -D file), as
 * generated from hw/i386/trace-events:
 *   [PID@SEC.USEC:]vtd_dmar_fault sid 0x%x fault %d addr 0x%x write %d
 *   [PID@SEC.USEC:]vtd_frr_new index %d high 0x%x low 0x%x
 * Other vtd_* events and anything else return 0.
 */
int sacc_trace_parse_line(const char *line, struct sacc_trace_event *ev);

/* ---- the fault log ---- */

enum sacc_fault_source {
	SACC_FSRC_DEVICE = 1u << 0,
	SACC_FSRC_KERNEL = 1u << 1,
	SACC_FSRC_QEMU = 1u << 2,
};

enum sacc_fault_attr {
	SACC_ATTR_UNATTRIBUTED = 0,
	SACC_ATTR_MAPPED,
	SACC_ATTR_GUARD,
	SACC_ATTR_UNMAPPED_EARLIER,
	SACC_ATTR_NEVER_MAPPED,
	SACC_ATTR_BEYOND_RANGES,
	SACC_ATTR_DEVMEM, /* v0.4: a device address, not an IOVA */
	SACC_ATTR_KERNEL_DRIVER, /* a fault of sacc_dma's: the DMA API's state */
};

/* "unattributed", "mapped", "guard", "unmapped_earlier", "never_mapped",
 * "beyond_ranges", "device_memory", "kernel_driver". */
const char *sacc_fault_attr_name(enum sacc_fault_attr attr);

/*
 * Why a device fault has no kernel DMAR line.  NOT_IOMMU and NO_DMA are
 * faults no IOMMU fault record can exist for ("never reported"); the
 * others were IOMMU faults the guest kernel did not print ("lost", or
 * counted as suppressed by the kernel's ratelimit).  Writes into the
 * interrupt window are IOMMU faults like any other here: SACC's QEMU
 * records interrupt remapping faults (qemu-model/patches/0001), which
 * stock QEMU 7.2 does not.
 */
enum sacc_fault_unlogged {
	SACC_UNLOGGED_NONE = 0,	   /* logged, or not a device fault */
	SACC_UNLOGGED_NOT_IOMMU,   /* the mapping permits the access: the
				    * IOMMU translated it and the target
				    * refused it (e.g. the device's own BAR) */
	SACC_UNLOGGED_NO_DMA,	   /* the range wraps past 2^64: the device
				    * refused it without DMA */
	SACC_UNLOGGED_DROPPED,	   /* not printed: the kernel's ratelimit or
				    * the vIOMMU's single fault recording
				    * register (no trace to tell which) */
	SACC_UNLOGGED_VIOMMU_DROPPED, /* traced, never recorded by the vIOMMU */
	SACC_UNLOGGED_RATELIMITED, /* recorded by the vIOMMU, not printed */
	SACC_UNLOGGED_DEVMEM,	   /* v0.4: the device's own memory (access
				    * dev_read / dev_write), which it reaches
				    * without the IOMMU */
};

/* "not_iommu", "no_dma", "dropped", "viommu_dropped", "ratelimited",
 * "device_memory"; NULL for SACC_UNLOGGED_NONE. */
const char *sacc_fault_unlogged_name(enum sacc_fault_unlogged u);
/* One sentence for it; NULL for SACC_UNLOGGED_NONE. */
const char *sacc_fault_unlogged_text(enum sacc_fault_unlogged u);

enum sacc_fault_tsrc {
	SACC_TSRC_NONE = 0,
	SACC_TSRC_DEVICE,
	SACC_TSRC_KERNEL,
	SACC_TSRC_QEMU, /* estimated */
};

/* One fault.  Field meanings: section 2 above (same names). */
struct sacc_fault {
	unsigned int sources; /* SACC_FSRC_* */
	char bdf[SACC_BDF_MAX];
	uint16_t sid;
	enum sacc_fault_tsrc t_from;
	uint64_t t_ns; /* valid unless t_from == SACC_TSRC_NONE */
	bool has_iova;
	bool iova_exact;
	uint64_t iova;
	uint64_t page;
	bool has_access;
	uint32_t access;
	bool has_write;
	bool write;
	/* device (journal) */
	bool has_req;
	uint32_t req_id;
	uint32_t opcode;
	uint32_t status;
	uint32_t pid; /* 0: unknown */
	bool fatal;
	bool has_fault_count;
	uint32_t fault_count;
	bool has_length;
	uint32_t length;
	bool has_chan;
	uint32_t chan;
	/* the device record came from kernel/sacc_dma's log line (no
	 * journal): what the DMA API's IOMMU page table held at the fault */
	bool from_driver, iommu_known, iommu_mapped;
	/* no DMAR line: why (device faults only) */
	enum sacc_fault_unlogged unlogged;
	/* kernel */
	bool has_kernel;
	bool kernel_intr; /* INTR-REMAP */
	uint32_t kernel_reason; /* when has_kernel_reason */
	bool has_kernel_reason;
	char kernel_reason_text[96];
	uint64_t kernel_t_ns;
	bool has_kernel_t;
	bool has_pasid;
	uint32_t pasid;
	uint64_t intr_index;
	bool has_intr_index; /* an interrupt remapping fault (kernel or QEMU) */
	/* qemu */
	bool has_qemu;
	uint32_t qemu_reason;
	bool has_viommu_recorded;
	bool viommu_recorded;
	/* attribution */
	enum sacc_fault_attr attr;
	char attr_text[384];
	bool has_buffer;
	char buffer[SACC_DMA_NAME_MAX];
	uint64_t buffer_offset;
	uint32_t buffer_perm;
};

/* Counters; per device (bdf set) or in total (bdf ""). */
struct sacc_faultlog_counts {
	char bdf[SACC_BDF_MAX];
	uint64_t device;	 /* max(device_journal, device_counter) */
	uint64_t device_journal; /* fault events in the journal */
	uint64_t device_counter; /* sum over reset epochs of max fault_count */
	uint64_t faults;	 /* max(device, records) */
	uint64_t kernel_printed; /* DMAR fault lines (DMA + INTR-REMAP) */
	uint64_t matched_kernel; /* device faults joined with a DMAR line */
	uint64_t qemu_seen;	 /* vtd_dmar_fault accesses (runs of lines) */
	uint64_t viommu_recorded; /* vtd_frr_new lines */
	uint64_t matched_qemu;	 /* device faults joined with a trace line */
	uint64_t records;	 /* fault records listed */
	uint64_t unattributed;	 /* records with attribution unattributed */
	uint64_t unreported;	 /* device faults no IOMMU fault record can
				  * exist for (unlogged not_iommu, no_dma);
				  * not counted in lost */
	uint64_t journal_rotated; /* fault events in journals rotated away
				   * past the size cap (no records; in
				   * device) */
};

struct sacc_faultlog_summary {
	struct sacc_faultlog_counts total;
	/* kernel-wide: the kernel does not say which device they belong to */
	uint64_t kernel_suppressed;	  /* sum of "N callbacks suppressed" */
	uint64_t kernel_suppressed_lines;
	uint64_t drhd_lines;		  /* "DRHD: handling fault status" */
	uint64_t overflow_events;	  /* DRHD lines with PFO (bit 0) */
	bool have_qemu;			  /* any trace line was added */
	bool have_frr;			  /* vtd_frr_new lines were seen */
	uint64_t lost;
	bool lost_exact;
	const char *lost_reason;
	/* unreported, by kind */
	uint64_t unreported_not_iommu, unreported_no_dma, unreported_devmem;
	/* input hygiene */
	uint64_t bad_kmsg, bad_journal, bad_trace; /* -EINVAL lines */
	uint64_t kmsg_user_ignored; /* DMAR lines written by userspace */
	uint64_t trace_chunk_lines; /* vtd_dmar_fault lines folded into the
				     * access before them (see qemu_seen) */
	uint64_t kmsg_overruns;	    /* EPIPE from /dev/kmsg: records lost */
	uint64_t journal_rotations; /* journals rotated away (size cap) */
	/* per device, sorted by bdf; owned by the fault log, valid until the
	 * next join or free */
	size_t nr_devices;
	const struct sacc_faultlog_counts *devices;
	/* "device 1000, qemu saw 1000, vIOMMU recorded 4, kernel saw at most
	 * 999 (printed 3, suppressed 996), lost 996 (...)" */
	char text[512];
};

struct sacc_faultlog;

enum sacc_faultlog_input {
	SACC_FAULTLOG_KMSG = 1,	 /* /dev/kmsg, dmesg output, syslog */
	SACC_FAULTLOG_JOURNAL,	 /* a <bdf>.jsonl journal */
	SACC_FAULTLOG_QEMU_TRACE, /* QEMU trace output */
	SACC_FAULTLOG_MIXED,	 /* all three, told apart line by line */
};

/* NULL on allocation failure. */
struct sacc_faultlog *sacc_faultlog_new(void);
void sacc_faultlog_free(struct sacc_faultlog *fl);

/*
 * Largest |t_kernel - t_device| for joining a DMAR line with a device
 * fault; 0 (default) = no limit (the nearest in time still wins).
 */
void sacc_faultlog_set_match_window(struct sacc_faultlog *fl, uint64_t ns);

/* One line each; return as the line parsers (1, 0, -EINVAL) or -ENOMEM. */
int sacc_faultlog_add_kmsg_line(struct sacc_faultlog *fl, const char *line);
int sacc_faultlog_add_journal_line(struct sacc_faultlog *fl,
				   const char *line);
int sacc_faultlog_add_trace_line(struct sacc_faultlog *fl, const char *line);

/*
 * Which input @line is: a journal line (a '{' after blanks), a QEMU
 * trace line sacc_trace_parse_line() accepts, else a kernel line (which
 * may still be noise).  Never SACC_FAULTLOG_MIXED.
 */
enum sacc_faultlog_input sacc_faultlog_detect(const char *line);

/* A line of @kind (SACC_FAULTLOG_MIXED: sacc_faultlog_detect() says). */
int sacc_faultlog_add_line(struct sacc_faultlog *fl,
			   enum sacc_faultlog_input kind, const char *line);

/*
 * Every line of a file, a pipe, /dev/kmsg (up to its current end), or
 * the journals of a directory (@kind SACC_FAULTLOG_JOURNAL); an input
 * read once with a source below.  Returns the number of lines
 * understood, or -errno (open/read failure, -ENOMEM).
 */
int sacc_faultlog_add_file(struct sacc_faultlog *fl,
			   enum sacc_faultlog_input kind, const char *path,
			   struct sacc_err *err);

/* Every *.jsonl in @dir (NULL: $SACC_JOURNAL_DIR or /run/sacc).  Returns
 * the lines understood; a missing directory gives 0; entries that are
 * not regular files are skipped (a source below can tell). */
int sacc_faultlog_add_journal_dir(struct sacc_faultlog *fl, const char *dir,
				  struct sacc_err *err);

/*
 * ---- inputs read incrementally ----
 *
 * A source is read again and again; each read hands over what was
 * written since the last one:
 *  - a character device (/dev/kmsg): non-blocking, one record per
 *    read(2), the first line of each ("pri,seq,usec,flags;message");
 *    EPIPE (records overwritten before we read them) is counted in the
 *    fault log's kmsg_overruns;
 *  - a directory (journals): every *.jsonl in it, alphabetically, each
 *    from its own offset on, files created later included; a file that
 *    shrank or was replaced is read again from its start (replaced by
 *    rotation: the rest of the old one first, from <bdf>.jsonl.1); a
 *    missing directory is an empty source until it appears; an entry
 *    that is not a regular file (a FIFO, a device, a socket: opened
 *    non-blocking, never read) is skipped, and
 *    sacc_faultlog_src_skipped() says so;
 *  - anything else (a file, a pipe): its lines from where the last read
 *    stopped.
 * A line not yet complete (no newline) waits for the next read, unless
 * SACC_FAULTLOG_SRC_WHOLE says the input is complete.  Trailing '\r' is
 * dropped.  Lines longer than 1 MiB are skipped.
 */
struct sacc_faultlog_src;

#define SACC_FAULTLOG_SRC_AT_END (1u << 0) /* skip what is there now */
#define SACC_FAULTLOG_SRC_WHOLE	 (1u << 1) /* an unterminated last line is
					    * a line: the input is complete */

/*
 * Open @path as @kind (SACC_FAULTLOG_MIXED: told apart per line; a
 * directory is always journals).  @path NULL: /dev/kmsg for
 * SACC_FAULTLOG_KMSG, $SACC_JOURNAL_DIR or /run/sacc for
 * SACC_FAULTLOG_JOURNAL.  0 or -errno with a message.
 */
int sacc_faultlog_src_open(struct sacc_faultlog_src **out,
			   enum sacc_faultlog_input kind, const char *path,
			   unsigned int flags, struct sacc_err *err);

/* Called with every new line and the input it is (never MIXED). */
typedef void (*sacc_faultlog_line_fn)(void *ctx,
				      enum sacc_faultlog_input kind,
				      const char *line);

/*
 * Read what is new: each complete line is added to @fl (if not NULL),
 * then passed to @fn (if not NULL).  Returns the number of new lines, or
 * -errno (a journal that cannot be read does not stop the others; the
 * first error is returned after them), -ENOMEM.
 */
int sacc_faultlog_src_read(struct sacc_faultlog_src *src,
			   struct sacc_faultlog *fl, sacc_faultlog_line_fn fn,
			   void *ctx, struct sacc_err *err);

/* A descriptor to poll(2) for POLLIN (the kmsg device), else -1: files
 * and directories have nothing to wait on, read them from time to time. */
int sacc_faultlog_src_fd(const struct sacc_faultlog_src *src);

/* The path it reads (a directory for journals). */
const char *sacc_faultlog_src_path(const struct sacc_faultlog_src *src);

/*
 * Journals the last read of a directory skipped because they are not
 * regular files; *@why (if @why) gets a message naming the first and
 * what to do, or NULL when none was skipped.  0 for other sources.
 */
size_t sacc_faultlog_src_skipped(const struct sacc_faultlog_src *src,
				 const char **why);

/* Close; safe with NULL. */
void sacc_faultlog_src_close(struct sacc_faultlog_src *src);

/*
 * Join everything added so far into fault records, attribute them and
 * compute the summary.  May be called again after adding more lines
 * (records are rebuilt).  Returns the number of records or -ENOMEM.
 */
int sacc_faultlog_join(struct sacc_faultlog *fl, struct sacc_err *err);

size_t sacc_faultlog_count(const struct sacc_faultlog *fl);
const struct sacc_fault *sacc_faultlog_get(const struct sacc_faultlog *fl,
					   size_t i);
void sacc_faultlog_summary(const struct sacc_faultlog *fl,
			   struct sacc_faultlog_summary *sum);

/* ---- accounting queries (after sacc_faultlog_join()) ---- */

/* Device faults (records with a journal fault event) to look for. */
struct sacc_fault_match {
	const char *bdf; /* NULL: any device */
	uint32_t pid;	 /* 0: any process */
	bool by_req;	 /* only req_id in [req_lo, req_hi] */
	uint32_t req_lo, req_hi;
	int fatal; /* 0 or 1; -1: either */
};

/* What the log says about them. */
struct sacc_fault_tally {
	size_t found;	    /* matching records */
	size_t logged;	    /* ... joined with a kernel DMAR line */
	size_t unaccounted; /* ... attributed to nothing, or with neither a
			     * DMAR line nor a reason for none ("unlogged") */
	long first;	    /* index of the first (sacc_faultlog_get()), -1 */
};

/* Tally the records matching @m.  Returns found, or -EINVAL. */
int sacc_faultlog_tally(const struct sacc_faultlog *fl,
			const struct sacc_fault_match *m,
			struct sacc_fault_tally *t);

/*
 * One device's faults added up as in section 3: faults = logged +
 * not_logged, and of those not logged at most `suppressed` were counted
 * by the kernel's ratelimit (it does not say for which device, so the
 * log-wide count, capped), `unreported` can have no IOMMU fault record,
 * and `lost` (log-wide, section 3) never reached the kernel.
 */
struct sacc_faultlog_account {
	uint64_t faults;       /* max(device, records), as counts.faults */
	uint64_t logged;       /* joined with a DMAR line */
	uint64_t not_logged;   /* faults - logged */
	uint64_t suppressed;   /* min(kernel_suppressed, not_logged) */
	uint64_t unreported;   /* unlogged not_iommu / no_dma */
	uint64_t unattributed; /* records attributed to nothing */
	uint64_t lost;	       /* the summary's */
	bool lost_exact;
	const char *lost_reason; /* "" when nothing is lost */
};

/* For @bdf ("0000:01:00.0").  0, -ENOENT if the log has no such device
 * (@a zeroed), -EINVAL. */
int sacc_faultlog_account(const struct sacc_faultlog *fl, const char *bdf,
			  struct sacc_faultlog_account *a);

/* ---- output ---- */

/* One JSON object per record and line, then {"summary":{...}}.
 * Returns 0, -ENOMEM or -EIO. */
int sacc_faultlog_print_json(const struct sacc_faultlog *fl, FILE *out);

/* Only its last line, {"summary":{...}}.  0, -ENOMEM or -EIO. */
int sacc_faultlog_print_json_summary(const struct sacc_faultlog *fl,
				     FILE *out);

/* One fault record as a JSON object (no newline) into @buf.  Returns the
 * length, -EMSGSIZE or -ENOMEM. */
int sacc_fault_format_json(const struct sacc_fault *f, size_t n, char *buf,
			   size_t len);

/* The same as a json-c object, to embed in a caller's JSON; the caller
 * owns it (json_object_put()).  NULL on ENOMEM. */
struct json_object;
struct json_object *sacc_fault_json(const struct sacc_fault *f, size_t n);

/* The human table and the summary lines.  Returns 0 or -EIO. */
int sacc_faultlog_print_table(const struct sacc_faultlog *fl, FILE *out);

/* The table's header line, and one record as a table row (no newline)
 * into @buf (768 bytes suffice).  Returns the length, -EMSGSIZE. */
void sacc_faultlog_print_header(FILE *out);
/* Only the summary lines of sacc_faultlog_print_table(). */
int sacc_faultlog_print_summary(const struct sacc_faultlog *fl, FILE *out);
int sacc_fault_format_row(const struct sacc_fault *f, char *buf, size_t len);

#endif /* SACC_FAULTLOG_H */

/* SPDX-License-Identifier: MIT */
/*
 * sacc_journal.h - the SACC fault journal: its schema, the writer libsacc
 * uses (one JSON line per event, appended) and its rotation past a size
 * cap.  Readers (faultlog/: sacc_journal_parse_line()) share the schema's
 * names and structure from here.
 *
 * Kept apart from the analyser so a program linking libsacc carries the
 * writer only: no JSON library (lines are formatted here, by hand, byte
 * for byte as json-c's plain output), no fault log.
 *
 * Error convention (sacc_base.h): 0 or a count on success, a negative
 * errno on failure, with a one-line message in the optional struct
 * sacc_err.  Nothing here prints or aborts.
 *
 * The schema (docs/faults.md has the same text)
 * ---------------------------------------------
 * One file per device, SACC_JOURNAL_DIR_DEFAULT/<bdf>.jsonl (the directory
 * can be overridden with the environment variable SACC_JOURNAL_DIR), one
 * JSON object per line, appended with O_APPEND in a single write(2) per
 * line, so several processes may share a file.  Every event has:
 *   "ev"     string  "map" | "unmap" | "ranges" | "fault" | "reset"
 *   "t_ns"   number  CLOCK_MONOTONIC in ns when the event was written
 *   "pid"    number  writer's process id
 *   "bdf"    string  "0000:01:00.0" (domain:bus:device.function)
 * map / unmap (a DMA mapping made or removed by libsacc):
 *   "name"   string  buffer name ("sq", "cq", "src", ...), at most 63 bytes
 *   "iova"   string  "0x..." start of the mapping (page aligned)
 *   "len"    number  mapped bytes
 *   "perm"   string  "r" | "w" | "rw": what the DEVICE may do (r = the
 *                    device reads the buffer, i.e. VFIO_DMA_MAP_FLAG_READ)
 * ranges (usable IOVA ranges of the container, inclusive ends):
 *   "ranges" array   [["0x0","0xfedfffff"],["0x100000000","0x7fffffffff"]]
 * fault (a completion with status 2, or a fatal ring fault, read back
 * from the device's fault record registers):
 *   "req_id" number  descriptor's req_id (FAULT_REQ_ID); v0.4: for a
 *                    SEGMENT entry the entry's, whether its fetch or
 *                    one of its commands failed (the device records a
 *                    command's own req_id; "addr" and "access" are then
 *                    that command's)
 *   "opcode" number  descriptor's opcode (0 for a descriptor fetch fault;
 *                    6 for a SEGMENT entry)
 *   "status" number  completion status (2 = DMA_FAULT; 0 for ring faults)
 *   "addr"   string  "0x..." FAULT_ADDR: exact start address when the
 *                    fault is on the first page, else the faulting page
 *   "access" string  "desc_fetch" | "src_read" | "dst_write" | "cq_write"
 *                    | "put_read" | "inline_read" (v0.3) | "dev_read" |
 *                    "dev_write" (v0.4: device memory; "addr" is then a
 *                    device address, not an IOVA) | "segment_read" (v0.4:
 *                    a SEGMENT entry's fetch of its segment from host
 *                    memory, an IOMMU read; from device memory past its
 *                    end it is "dev_read")
 *   "write"  bool    FAULT_INFO bit 8
 *   "fatal"  bool    true for ring faults (device stopped until reset)
 *   "fault_count" number  FAULT_COUNT after this fault (since reset)
 *   "length" number  the descriptor's length (optional; lets a reader see
 *                    a range that wraps past 2^64, which the device
 *                    refuses without any DMA); for a SEGMENT entry the
 *                    failing command's, or the segment's for its fetch
 *   "chan"   number  the channel whose registers recorded it (v0.3;
 *                    optional: absent in older journals; req_ids are
 *                    per channel)
 * reset (device reset; FAULT_COUNT restarts at 0): no further fields.
 * rotated (the first line of a journal that replaced one past its size
 * cap, SACC_JOURNAL_MAX_ENV; the old one is now <bdf>.jsonl.1, which
 * readers of the directory do not read):
 *   "rotations" number  journals rotated away so far, this one's included
 *   "faults" number  fault events in every journal rotated away so far
 *                    (cumulative: the last rotated line carries them all)
 *   "bytes"  number  the size of the journal just rotated away
 * Readers ignore unknown keys and unknown "ev" values (so a reader that
 * predates "rotated" skips it).
 */
#ifndef SACC_JOURNAL_H
#define SACC_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sacc_base.h"	/* struct sacc_err, sacc_bdf_to_sid() */
#include "sacc_types.h" /* SACC_BDF_MAX, struct sacc_iova_range, ... */

#define SACC_JOURNAL_DIR_DEFAULT "/run/sacc"
#define SACC_JOURNAL_DIR_ENV	 "SACC_JOURNAL_DIR"
/* A journal past this many bytes is rotated (<bdf>.jsonl.1).  The
 * environment variable takes a size as sacc_size_parse() reads it
 * (bytes, or with K, M, G: 1024-based); 0: no cap. */
#define SACC_JOURNAL_MAX_DEFAULT (8ull << 20)
#define SACC_JOURNAL_MAX_ENV	 "SACC_JOURNAL_MAX"

/* "perm" bits: equal to VFIO_DMA_MAP_FLAG_READ / _WRITE on purpose, so
 * struct sacc_map_entry.perm can be passed straight through. */
#define SACC_JOURNAL_PERM_READ	1u /* the device may read the buffer */
#define SACC_JOURNAL_PERM_WRITE 2u /* the device may write the buffer */

/* ---- the schema: one event, one line ---- */

enum sacc_journal_kind {
	SACC_JEV_MAP = 1,
	SACC_JEV_UNMAP,
	SACC_JEV_RANGES,
	SACC_JEV_FAULT,
	SACC_JEV_RESET,
	SACC_JEV_ROTATED,
};

/* "map", "unmap", "ranges", "fault", "reset", "rotated" (NULL if
 * invalid). */
const char *sacc_journal_kind_name(enum sacc_journal_kind kind);

struct sacc_journal_event {
	enum sacc_journal_kind ev;
	uint64_t t_ns;
	uint32_t pid; /* 0: absent */
	char bdf[SACC_BDF_MAX]; /* canonical */
	uint32_t domain;
	uint16_t sid;
	/* map / unmap */
	char name[SACC_DMA_NAME_MAX];
	uint64_t iova;
	uint64_t len;
	uint32_t perm; /* SACC_JOURNAL_PERM_*; 0 if absent (unmap) */
	/* ranges */
	uint32_t nr_ranges;
	bool ranges_truncated; /* more than SACC_IOMMU_MAX_RANGES given */
	struct sacc_iova_range ranges[SACC_IOMMU_MAX_RANGES];
	/* fault */
	uint32_t req_id;
	uint32_t opcode;
	uint32_t status;
	uint64_t addr;
	uint32_t access; /* SACC_FAULT_DESC_FETCH .. SACC_FAULT_SEGMENT_READ */
	bool write;
	bool fatal;
	bool has_fault_count;
	uint32_t fault_count;
	bool has_length;
	uint32_t length; /* the descriptor's length ("length", optional) */
	bool has_chan;
	uint32_t chan; /* the channel ("chan", optional) */
	/* rotated */
	uint64_t rotations;	 /* journals rotated away so far */
	uint64_t rotated_faults; /* "faults": fault events in them */
	uint64_t rotated_bytes;	 /* "bytes": size of the one just rotated */
};

/*
 * Format @ev as one line with a trailing newline into @buf.  Returns the
 * length, -EINVAL for an invalid event, -EMSGSIZE if @buf is too small
 * (4096 bytes always suffice).
 */
int sacc_journal_format(const struct sacc_journal_event *ev, char *buf,
			size_t len);

/* ---- the writer (what libsacc calls) ---- */

/* Where the journals are: $SACC_JOURNAL_DIR if set and not empty, else
 * SACC_JOURNAL_DIR_DEFAULT.  Writer and readers all ask here. */
const char *sacc_journal_dir(void);

struct sacc_journal;

/*
 * Open (create, append) $SACC_JOURNAL_DIR/<bdf>.jsonl, default
 * /run/sacc/<bdf>.jsonl; the directory is created (0755) if missing.
 * @bdf is canonicalised ("01:00.0" becomes "0000:01:00.0").  Only a
 * regular file is a journal: a symbolic link (O_NOFOLLOW), a FIFO
 * (opened O_NONBLOCK, so the open never waits for a reader), a device
 * or a socket is refused at once with a message that says so.
 */
int sacc_journal_open(struct sacc_journal **out, const char *bdf,
		      struct sacc_err *err);

/* Same with an explicit file path (its directory must exist). */
int sacc_journal_open_path(struct sacc_journal **out, const char *path,
			   const char *bdf, struct sacc_err *err);

/* Close; safe with NULL. */
void sacc_journal_close(struct sacc_journal *j);

/* The file's path. */
const char *sacc_journal_path(const struct sacc_journal *j);

/* Replace the t_ns clock (tests).  NULL restores sacc_monotonic_ns(). */
void sacc_journal_set_clock(struct sacc_journal *j, uint64_t (*now)(void *ctx),
			    void *ctx);

/*
 * The size cap: $SACC_JOURNAL_MAX (bytes, or with K, M, G; 0: none),
 * default SACC_JOURNAL_MAX_DEFAULT, into *@out.  -EINVAL (and the
 * default in *@out) for a value that is not a size; the open functions
 * then fail with the message.
 */
int sacc_journal_max_bytes(uint64_t *out, struct sacc_err *err);

/*
 * Size cap and rotation.  After a line that takes the journal past
 * @bytes (0: never), the writer renames it to <path>.1 (replacing an
 * older one), opens a new one and writes a "rotated" line first, which
 * counts the fault events rotated away (the schema above).  Writers
 * sharing a journal rotate it once (flock) and follow the path to the
 * new file; every line goes where the path leads (a removed journal is
 * created again).  The open functions take the cap from
 * sacc_journal_max_bytes().
 */
void sacc_journal_set_max(struct sacc_journal *j, uint64_t bytes);
uint64_t sacc_journal_get_max(const struct sacc_journal *j);

/*
 * Called after a rotation, with the new journal open: the owner writes
 * again what a reader of the new file needs (libsacc: the ranges and
 * every live mapping, so later faults are still attributed).  Its own
 * lines never rotate.  NULL: none.
 */
void sacc_journal_set_rotate_hook(struct sacc_journal *j,
				  void (*fn)(void *ctx, struct sacc_journal *j),
				  void *ctx);

/*
 * Each call writes one whole line with one write(2) (O_APPEND), so calls
 * from several threads or processes never interleave within a line.
 * @perm: SACC_JOURNAL_PERM_* (required for map, may be 0 for unmap).
 * -EINVAL for bad arguments, or -errno of write(2).
 */
int sacc_journal_map(struct sacc_journal *j, const char *name, uint64_t iova,
		     uint64_t len, uint32_t perm, struct sacc_err *err);
int sacc_journal_unmap(struct sacc_journal *j, const char *name,
		       uint64_t iova, uint64_t len, uint32_t perm,
		       struct sacc_err *err);
int sacc_journal_ranges(struct sacc_journal *j,
			const struct sacc_iova_range *ranges, size_t nr,
			struct sacc_err *err);

/* The device's fault record and the completion, as read by libsacc. */
struct sacc_journal_fault {
	uint32_t req_id;      /* FAULT_REQ_ID */
	uint16_t opcode;      /* the descriptor's opcode */
	uint16_t status;      /* completion status (2), 0 for ring faults */
	uint64_t addr;	      /* FAULT_ADDR */
	uint32_t info;	      /* FAULT_INFO: access | SACC_FAULT_IS_WRITE */
	bool fatal;	      /* ring fault */
	uint32_t fault_count; /* FAULT_COUNT */
	uint32_t length;      /* the descriptor's length; 0: unknown (not
			       * written) */
	bool has_chan;	      /* write "chan" */
	uint32_t chan;	      /* the channel (v0.3; 0 on a v0.2 device) */
};

int sacc_journal_fault(struct sacc_journal *j,
		       const struct sacc_journal_fault *f,
		       struct sacc_err *err);
int sacc_journal_reset(struct sacc_journal *j, struct sacc_err *err);

#endif /* SACC_JOURNAL_H */

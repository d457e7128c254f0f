/*
 * fl_priv.h - internals shared by the faultlog files: JSON through
 * json-c, small helpers, and the fault log's state.
 */
#ifndef SACC_FL_PRIV_H
#define SACC_FL_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "sacc_faultlog.h"

/* ---- JSON (json.c) ---- */

/* How faultlog writes JSON: compact, one line, '/' not escaped. */
#define FL_JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
#define FL_JSON_DEPTH 32 /* nesting a parsed line may have */

/*
 * Members of an object being built; @key must be a string literal.  Each
 * returns 0 or -ENOMEM (so a builder may OR them together); @v from a
 * json_object_new_*() that failed (NULL) gives -ENOMEM.  "has" false
 * writes null.
 */
int fl_json_add(struct json_object *o, const char *key, struct json_object *v);
int fl_json_null(struct json_object *o, const char *key);
int fl_json_str(struct json_object *o, const char *key, const char *s);
int fl_json_u64(struct json_object *o, const char *key, bool has, uint64_t v);
int fl_json_hex(struct json_object *o, const char *key, bool has, uint64_t v);
int fl_json_bool(struct json_object *o, const char *key, bool has, bool v);
/* Append to an array: 0 or -ENOMEM. */
int fl_json_push(struct json_object *a, struct json_object *v);
/* A new "0x..." string (NULL on ENOMEM). */
struct json_object *fl_json_hexval(uint64_t v);

/* @o serialised, then @end ("" or "\n"), into @buf.  Returns the length,
 * -EMSGSIZE, -ENOMEM. */
int fl_json_format(struct json_object *o, const char *end, char *buf,
		   size_t len);
/* @o serialised and a newline.  0, -ENOMEM or -EIO. */
int fl_json_print(struct json_object *o, FILE *out);

/*
 * @s (@len bytes) as exactly one JSON value: RFC 8259 as json-c's strict
 * mode reads it, nesting at most FL_JSON_DEPTH, integers within 64 bits.
 * 0 and *out (json_object_put() it), -EINVAL, -ENOMEM.
 */
int fl_json_parse(const char *s, size_t len, struct json_object **out);

/* ---- helpers (util.c) ---- */

/* Parse "0x..." (hex) or decimal digits, the whole of @s.  0 / -EINVAL. */
int fl_parse_u64(const char *s, uint64_t *out);

/* Unsigned hex/decimal digits at *p; advances.  -EINVAL if none or on
 * overflow.  @base 16 accepts an optional "0x". */
int fl_scan_u64(const char **p, int base, uint64_t *out);

/* Copy with truncation; always NUL terminates (@size > 0). */
void fl_strlcpy(char *dst, const char *src, size_t size);

/* Growable array helper: make room for @need elements. */
int fl_grow(void **arr, size_t *cap, size_t need, size_t elem);

/* ---- the fault log's state ---- */

/* A kernel DMAR fault line (DMA or INTR-REMAP). */
struct fl_kline {
	struct sacc_kmsg_event e;
	size_t seq;	/* input order */
	long jmatch;	/* joined device fault (index into jf), -1 */
	long qmatch;	/* joined trace line, -1 */
};

/* A journal fault event. */
/* v0.4: an access to the device's own memory (dev_read, dev_write):
 * its address is a device address, never an IOVA, and no IOMMU saw it. */
static inline bool fl_devmem_access(bool has_access, uint32_t access)
{
	return has_access && (access == SACC_FAULT_DEV_READ ||
			      access == SACC_FAULT_DEV_WRITE);
}

struct fl_jfault {
	uint64_t t_ns;
	uint32_t pid;
	uint32_t domain;
	uint16_t sid;
	uint8_t access;
	bool write, fatal, has_fault_count, has_length, has_chan;
	uint32_t req_id, opcode, status, fault_count, length, chan;
	uint64_t addr;
	size_t seq;
	long kmatch, qmatch;
	bool driver; /* from sacc_dma's log line, not a journal */
	bool iommu_known, iommu_mapped;
};

/* A journal map / unmap / reset event (replayed in time order). */
struct fl_jmap {
	enum sacc_journal_kind kind;
	uint64_t t_ns;
	uint32_t domain;
	uint16_t sid;
	uint32_t perm;
	uint64_t iova, len;
	char name[SACC_DMA_NAME_MAX];
	size_t seq;
};

/* A vtd_dmar_fault trace line, or a run of them that is one access:
 * QEMU's memory core retries a failed translation for every chunk (at
 * most 8 bytes) of a DMA, each a new vtd_dmar_fault a few bytes further
 * on in the same page. */
struct fl_qline {
	struct sacc_trace_event e; /* the first line: the exact address */
	uint64_t last_addr;	   /* address of the run's last line */
	uint32_t lines;		   /* trace lines in the run */
	size_t seq;
	bool recorded; /* a vtd_frr_new line followed for it */
	long jmatch, kmatch;
	bool has_guest_t; /* time of the record it joined (for estimates) */
	uint64_t guest_t;
};

struct fl_dev {
	uint32_t domain;
	uint16_t sid;
	bool has_journal;
	bool has_ranges;
	uint64_t ranges_t;
	uint32_t nr_ranges;
	struct sacc_iova_range ranges[SACC_IOMMU_MAX_RANGES];
	uint64_t rotated_faults; /* the journal's "rotated" lines say */
	uint64_t rotations;
	struct sacc_faultlog_counts c;
};

struct sacc_faultlog {
	uint64_t window;
	size_t seq;

	struct fl_kline *k;
	size_t nk, capk;
	struct fl_jfault *jf;
	size_t njf, capjf;
	struct fl_jmap *jm;
	size_t njm, capjm;
	struct fl_qline *q;
	size_t nq, capq;
	uint16_t *frr_sid; /* vtd_frr_new lines, by source id */
	size_t nfrr, capfrr;

	/* a pre-4.7 head line waiting for its "[fault reason]" line */
	bool pend_active;
	bool pend_committed; /* already in k[] (a join happened) */
	size_t pend_seq;
	struct sacc_kmsg_event pend;

	uint64_t suppressed, suppressed_lines, drhd_lines, overflow_events;
	uint64_t bad_kmsg, bad_journal, bad_trace, user_ignored, overruns;
	uint64_t trace_chunks; /* vtd_dmar_fault lines folded into a run */

	/* join output */
	struct fl_dev *devs;
	size_t ndev, capdev;
	struct sacc_fault *rec;
	size_t nrec, caprec;
	struct sacc_faultlog_counts *counts;
	size_t capcounts;
	struct sacc_faultlog_summary sum;
};

/* Device slot for @sid (created if missing); NULL on ENOMEM. */
struct fl_dev *fl_dev_get(struct sacc_faultlog *fl, uint16_t sid);

/* A pre-4.7 head line still waiting for its reason line is listed as it
 * is (and updated if the reason line comes later).  0 / -ENOMEM. */
int fl_list_pending(struct sacc_faultlog *fl);

/* Attribute every record against the journal, then say why each device
 * fault without a DMAR line has none (attr.c).  0 / -ENOMEM. */
int fl_attribute(struct sacc_faultlog *fl);

/* Fill fl->sum.text (report.c). */
void fl_summary_text(struct sacc_faultlog_summary *sum);

#endif /* SACC_FL_PRIV_H */

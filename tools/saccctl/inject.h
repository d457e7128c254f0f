/* SPDX-License-Identifier: MIT */
/*
 * inject.h - saccctl inject internals: the scenario catalogue
 * (scenarios.c, scenarios_ring.c, scenarios_devmem.c,
 * scenarios_segment.c, scenarios_platform.c; what they share
 * in scenarios.h), the harness it runs in (inject.c), the accounting
 * against the fault log (inject_account.c) and the report
 * (inject_report.c).
 *
 * A scenario sets up buffers and canaries, submits a bad descriptor or
 * ring setup through libsacc's UNSAFE test hooks, and says whether the
 * device blocked it and which faults it expects.  The harness then checks
 * the canaries byte for byte, finds every expected fault in the joined
 * fault log (journal + /dev/kmsg), proves the device works again with a
 * verified MEMCPY, and reports the four properties.
 */
#ifndef SACCCTL_INJECT_H
#define SACCCTL_INJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libsacc_unsafe.h"
#include "saccctl.h"
#include "sacc_faultlog.h"

#define INJ_MAX_CANARY 16
#define INJ_MAX_DESC   16
#define INJ_MAX_FAULT  16
#define INJ_MAX_PLAIN  8

/* An IOVA no scenario maps: 1 GiB, inside the usable range. */
#define INJ_NEVER_MAPPED 0x40000000ull

struct inj_canary {
	char name[64];
	const uint8_t *va;
	size_t len;
	uint8_t *copy; /* snapshot taken when it was registered */
	bool intact;
	size_t diff_at; /* first changed byte when !intact */
};

struct inj_desc {
	struct sacc_desc d; /* as submitted (req_id: the driver's) */
	char src_what[96];  /* what src points at, for the reader */
	char dst_what[96];
	int status; /* completion status, -1 if none */
	uint32_t result_len; /* the completion's, when status >= 0 */
};

/* What kind of fault the log must show (inj_expect_kind()). */
enum inj_fault_kind {
	INJ_FAULT_ANY = 0, /* logged, or any stated reason for no DMAR line */
	/* the IOMMU saw it: its DMAR line, or the kernel's or the vIOMMU's
	 * reason for none (ratelimit, fault recording register) */
	INJ_FAULT_IOMMU,
	/* v0.4: the device's own memory: attributed device_memory, no DMAR
	 * line and none to be had (unlogged device_memory) */
	INJ_FAULT_DEVMEM,
};

struct inj_fault {
	uint32_t req_id; /* 0: any (fetch faults carry 0) */
	uint64_t addr;	 /* FAULT_ADDR the spec promises */
	uint32_t access; /* SACC_FAULT_* */
	bool fatal;
	enum inj_fault_kind kind;
	/* filled by the harness */
	bool found, logged, addr_ok;
	char attribution[384];
	char unlogged[256];
};

struct inj;

struct scenario {
	const char *name;
	const char *what;     /* one line: the attack */
	unsigned int devices; /* 1, or 2 for isolation */
	bool ring;	      /* a ring fault: recovery needs sacc_reset() */
	bool expect_blocked; /* false: the sub-page row the IOMMU cannot stop */
	bool expect_exposure; /* the naive sub-page row */
	uint32_t sq_entries;  /* 0: libsacc's default */
	int (*run)(struct inj *s);
	unsigned int open_flags; /* sacc_open(): SACC_OPEN_V3 for v0.3 ops */
};

extern const struct scenario inj_scenarios[];
extern const size_t inj_nr_scenarios;

struct inj {
	const struct scenario *sc;
	const char *bdf[2];
	unsigned int ndev;
	bool verbose;
	struct sacc_dev *dev;
	/* ring scenarios: the handle sacc_reset() recovers (a channel's),
	 * NULL: dev */
	struct sacc_dev *ring_dev;
	/* /dev/kmsg and the journals from the scenario's start on (NULL if
	 * they cannot be read) */
	struct sacc_faultlog_src *kmsg, *journals;

	struct inj_canary can[INJ_MAX_CANARY];
	unsigned int ncan;
	struct inj_desc desc[INJ_MAX_DESC];
	unsigned int ndesc;
	struct inj_fault ef[INJ_MAX_FAULT];
	unsigned int nef;
	/* a burst: every req_id in [burst_lo, burst_hi] must be a record */
	uint32_t burst_lo, burst_hi, burst_n;
	void *plain[INJ_MAX_PLAIN]; /* pages that are no buffer: munmapped */
	size_t plain_len[INJ_MAX_PLAIN];
	unsigned int nplain;
	/* isolation: what the other process found on its device */
	bool peer;
	bool peer_intact, peer_recovered;
	char peer_msg[256];

	/* what this platform should do; from the scenario, a scenario may
	 * refine it at run time (with s->note saying why) */
	bool expect_blocked, expect_exposure;
	bool mem_bad; /* a scenario's own memory check failed (s->why) */

	/* the four properties (and the sub-page row's exposure) */
	bool skipped, error;
	bool blocked, memory_intact, accounted, recovered, exposed;
	bool recovery_done; /* the scenario checked recovery itself */
	char skip_reason[160];
	char why[512];	/* what went wrong, for the row */
	char note[256]; /* one line for the scorecard */
	char recovery[256];
	char device_state[256]; /* registers after the attack */

	/* accounting (inject_account.c) */
	struct sacc_faultlog_account acc; /* this device in the scoped log */
	char acc_reason[256];		  /* acc.lost_reason */
	bool has_record;
	struct sacc_fault record; /* the first expected fault's record */
	size_t record_n;	  /* its index in the scoped log */
	char dmar_line[320];	  /* and its kernel line */
	char summary[512];	  /* the scoped fault log's summary line */
};

/* ---- helpers for scenarios (inject.c) ---- */

/* printf to stdout with --verbose, indented. */
void inj_say(struct inj *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Record a harness/setup failure (the row fails with it); returns -1. */
int inj_fail(struct inj *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Say why a property is missing (appended to the row's explanation). */
void inj_why(struct inj *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Open bdf[i] with libsacc (sq_entries from the scenario). */
int inj_open(struct inj *s, unsigned int i, struct sacc_dev **out);

/* A libsacc buffer filled with a pattern from @seed; a canary if @canary. */
int inj_buf(struct inj *s, size_t len, enum sacc_dma_dir dir, const char *name,
	    uint64_t seed, bool canary, struct sacc_buf **out);
/* Page-aligned process memory the device has no mapping for, patterned,
 * a canary; freed at the end of the scenario. */
void *inj_plain(struct inj *s, size_t len, const char *name, uint64_t seed);
/* Snapshot [va, va + len) as a canary named @name. */
int inj_canary(struct inj *s, const char *name, const void *va, size_t len);

/* Submit @d raw (sacc_submit_raw), remember it; returns the req_id. */
int inj_submit(struct inj *s, const struct sacc_desc *d, const char *src_what,
	       const char *dst_what);
/* The same for a SACC_OP_WRITE_INLINE with its payload @data
 * (sacc_submit_raw_inline). */
int inj_submit_inline(struct inj *s, const struct sacc_desc *d,
		      const void *data, const char *src_what,
		      const char *dst_what);
/* @nslots SQ slots of any bytes with one doorbell, walked as @cmd_slots
 * says (sacc_submit_raw_slots); remembers each command with @what[i] as
 * what its src and dst are.  Returns 0, or -1 with the row failed. */
int inj_submit_slots(struct inj *s, const struct sacc_desc *slots,
		     uint32_t nslots, const uint32_t *cmd_slots,
		     unsigned int ncmds, const char (*src_what)[96],
		     const char (*dst_what)[96]);
/* Reap until every submitted descriptor has its completion (bounded). */
int inj_reap(struct inj *s, int timeout_ms);
/* Wait until the device reports itself stopped (sacc_check() -EIO). */
int inj_wait_stopped(struct inj *s, int timeout_ms);

/* Expect a fault (the harness looks for it in the fault log). */
void inj_expect(struct inj *s, uint32_t req_id, uint64_t addr, uint32_t access,
		bool fatal);
/* The same, and its record must be of @kind. */
void inj_expect_kind(struct inj *s, uint32_t req_id, uint64_t addr,
		     uint32_t access, bool fatal, enum inj_fault_kind kind);

/* A verified MEMCPY of @len bytes on @dev; 0 or -1 with s->why set. */
int inj_memcpy_ok(struct inj *s, struct sacc_dev *dev, size_t len, char *what,
		  size_t what_len);

/* Registers after the attack, one line, into s->device_state. */
void inj_device_state(struct inj *s, struct sacc_dev *dev);

/* "'src' + 0x100" or "never mapped" for @iova on @dev. */
void inj_describe_iova(struct sacc_dev *dev, uint64_t iova, char *buf,
		       size_t len);

/* "src_read" etc. for a FAULT_INFO value, "?" if none. */
const char *inj_access_name(uint32_t info);

/* Every property the scenario should have (inject.c). */
bool inj_passed(const struct inj *s);

/* ---- accounting (inject_account.c) ---- */

/* Open /dev/kmsg and the journal directory at their ends: the
 * scenario's fault log holds what happens from now on. */
void inj_account_start(struct inj *s);
/* Build that fault log, find every expected fault in it, fill
 * s->accounted and the accounting fields (and s->why). */
void inj_account(struct inj *s);
void inj_account_end(struct inj *s);

/* ---- output (inject_report.c) ---- */

/* "saccctl inject: N scenarios on BDF" and the table's header. */
void inj_report_start(unsigned int nrun, const char *const *bdf,
		      unsigned int nbdf, bool json, bool verbose);
/* One scenario: a JSON line, a table row, or (verbose) its verdict. */
void inj_report(const struct inj *s, bool json, bool verbose);
/* --verbose: the DMAR line, the fault record, attributions, summary. */
void inj_report_accounting(struct inj *s);
/* The footnote and the tally. */
void inj_report_end(const struct scenario *const *run, unsigned int nrun,
		    unsigned int pass, unsigned int nfail, unsigned int skip,
		    bool json, bool verbose);

#endif /* SACCCTL_INJECT_H */

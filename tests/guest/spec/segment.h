/* SPDX-License-Identifier: MIT */
/*
 * segment.h - the segment probes' helpers (segment_util.c): a segment
 * built as a driver builds one, in host or device memory, and launched
 * on channel CH (devmem.h).
 */
#ifndef SACC_SPEC_SEGMENT_H
#define SACC_SPEC_SEGMENT_H

#include "devmem.h"

/* Device addresses (device memory is at least 16 MiB). */
#define DM_C   0x00600000ull /* the relaunch counter */
#define DM_SEG 0x00800000ull /* a segment in device memory (64 KiB) */
#define DM_IN  0x00900000ull /* a nested segment */

#define SEG_REQ(i) (0xc0de0000u + (i)) /* a command's own req_id */

struct seg {
	uint8_t *va;   /* the CPU's view: host buffer or BAR4 */
	uint64_t addr; /* the entry's src */
	uint16_t flags;
	uint32_t n;    /* slots written */
	uint32_t cmds; /* commands among them */
};

enum { HOST, DEV };
extern const char *const where_name[];

/* got[0..len) == exp[0..len), or the first difference reported. */
void expect_same(const uint8_t *got, const uint8_t *exp, size_t len,
		 const char *what);
void seg_init(struct seg *g, int where, struct dbuf *hb, uint64_t dev);
void seg_put(struct seg *g, uint32_t slot, uint16_t op, uint64_t src,
	     uint64_t dst, uint32_t len, uint16_t flags, uint32_t req);
/* Append a command; returns its index among the commands. */
uint32_t seg_cmd(struct seg *g, uint16_t op, uint64_t src, uint64_t dst,
		 uint32_t len, uint16_t flags);
/* WRITE_INLINE and its payload in the slots after it (spec 15, 21). */
uint32_t seg_inline(struct seg *g, uint64_t dst, const void *data,
		    uint32_t len, uint16_t flags);
struct sacc_cqe seg_launch_len(struct seg *g, uint32_t len, uint16_t extra);
struct sacc_cqe seg_launch(struct seg *g);
/* Channel CH's queue allocated, MODE.V3, started. */
void start_q(uint32_t sq, uint32_t cq);
uint64_t ld64(const uint8_t *p);
void pat_fill(uint8_t *p, uint64_t pat, size_t len);
/* A TCase of @s named @name: setup(), channel CH, device memory. */
TCase *seg_tc(Suite *s, const char *name);

#endif /* SACC_SPEC_SEGMENT_H */

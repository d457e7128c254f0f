/* SPDX-License-Identifier: MIT */
/*
 * scenarios.h - what the files of saccctl inject's scenario catalogue
 * share: the standard setup (the layout in scenarios.c's comment), the
 * helpers that submit one bad descriptor and judge it, and the scenarios
 * the table in scenarios.c lists, by file.
 */
#ifndef SACCCTL_SCENARIOS_H
#define SACCCTL_SCENARIOS_H

#include "inject.h"

#define KiB 1024u

struct std {
	struct sacc_buf *src, *dst, *next;
	uint8_t *plain;
};

/* Open the device and lay out src, dst and next (canaries, dst's if
 * @dst_canary) and a process page without IOVA; 0 or -1. */
int std_setup(struct inj *s, struct std *b, bool dst_canary);
/* The same on s->dev, opened already. */
int std_bufs(struct inj *s, struct std *b, bool dst_canary);
/* @iova must be unknown to the device's registry (never mapped). */
int never_mapped(struct inj *s, uint64_t iova);
/* Reap @id (submitted last): blocked if it faulted with status 2. */
int reap_blocked(struct inj *s, int id, uint64_t fault, uint32_t access);
/* One MEMCPY descriptor that must fault with @access at @fault. */
int one_bad_copy(struct inj *s, uint64_t src, const char *src_what,
		 uint64_t dst, const char *dst_what, uint32_t len,
		 uint64_t fault, uint32_t access);

/* scenarios_ring.c */
int sc_sq_unmapped(struct inj *s);
int sc_cq_readonly(struct inj *s);
int sc_token_put_unmapped(struct inj *s);
int sc_inline_dst_readonly(struct inj *s);
int sc_timestamp_dst_unmapped(struct inj *s);

/* scenarios_platform.c */
int sc_interrupt_window(struct inj *s);
int sc_own_bar(struct inj *s);
int sc_isolation(struct inj *s);
int sc_subpage_naive(struct inj *s);
int sc_subpage_libsacc(struct inj *s);
int sc_burst(struct inj *s);

/* scenarios_devmem.c: what the v0.4 rows share */
/* The row is skipped, for the reason given (printf); returns -1. */
int sc_skip(struct inj *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Open bdf[0] with the scenario's flags into s->dev; *size: DEVMEM_SIZE.
 * A device without device memory skips the row. */
int devmem_open(struct inj *s, uint64_t *size);
/* A device buffer of @len bytes, patterned from @seed through BAR4. */
struct sacc_buf *dev_buf(struct inj *s, size_t len, const char *name,
			 uint64_t seed);
/* The last page of device memory (of @size bytes) as a buffer of its
 * own, patterned; a filler takes everything before it. */
struct sacc_buf *last_page(struct inj *s, uint64_t size);
/* Channel 0's fault record is @info at @addr for @req_id, its @n-th
 * fault since the open, and the channel is ready; else the row says
 * what the device says. */
bool record_is(struct inj *s, uint32_t req_id, uint64_t addr, uint32_t info,
	       uint32_t n);

/* scenarios_devmem.c */
int sc_devmem_past_end(struct inj *s);
int sc_d2h_unmapped(struct inj *s);
int sc_sq_dev_garbage(struct inj *s);

/* scenarios_segment.c */
int sc_segment_unmapped(struct inj *s);
int sc_segment_other_buffer(struct inj *s);
int sc_segment_devmem_past_end(struct inj *s);

#endif /* SACCCTL_SCENARIOS_H */

/* SPDX-License-Identifier: MIT */
/*
 * driver.h - what the files of sacc-guest-driver share: the seeded
 * random source, the process's pinned memory, message checks, the
 * device helpers that fail the test with libsacc's message (util.c),
 * the engine of random verified ops (engine.c), and each file's test
 * cases (added to the suite by main.c, in its order).
 */
#ifndef SACC_GUEST_DRIVER_H
#define SACC_GUEST_DRIVER_H

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/vfio.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest_util.h"
#include "libsacc.h"
#include "libsacc_unsafe.h" /* raw submits, DMA context, doorbell page */

#define KiB 1024u
#define MiB (1024u * 1024u)

#define REAP_TIMEOUT_MS 60000 /* TCG is slow; a hang must still end */
#define CANARY		0xa5
#define MARGIN		64 /* canary bytes each side of a destination */

/* xorshift64* (util.c): reproducible from the seed main() prints;
 * BEGIN() derives each test's stream from it. */
extern uint64_t seed;
extern uint64_t rng;
uint64_t rnd(void);
void fill_random(void *p, size_t n);
/* Log-uniform length in 1..max; the octave (log2) of a length. */
uint32_t rand_len(uint32_t max);
unsigned int octave(uint32_t len);

/* VmLck (what VFIO type1 charges for pinning) and VmSize, in KiB. */
long vmlck_kb(void);
long vmsize_kb(void);

bool contains(const char *hay, const char *needle);
#define assert_msg_has(msg, needle)                                            \
	ck_assert_msg(contains((msg), (needle)),                               \
		      "message lacks \"%s\": \"%s\"", (needle), (msg))

/* Per-test timing, printed when a test passes (teardown). */
extern const char *cur_test;
extern uint64_t cur_t0;

#define BEGIN()                                                                \
	do {                                                                   \
		cur_test = __func__;                                           \
		cur_t0 = sacc_monotonic_ns();                                  \
		rng = seed ^ (uint64_t)__LINE__ * 0x9e3779b97f4a7c15ull;       \
		if (!rng)                                                      \
			rng = 1;                                               \
	} while (0)

void tc_setup(void);
void tc_teardown(void);
/* A TCase of @s named @name with the suite's timeout and timing. */
TCase *driver_tcase(Suite *s, const char *name);

/* Device helpers (util.c): each fails the test instead of returning an
 * error. */
uint8_t *va(const struct sacc_buf *b);
uint32_t reg(struct sacc_dev *dev, uint32_t off);
void reg_set(struct sacc_dev *dev, uint32_t off, uint32_t v);
struct sacc_map_entry mapping_at(struct sacc_dev *dev, uint64_t iova);
uint64_t process_pinned(struct sacc_dev *dev);
void reap_n(struct sacc_dev *dev, struct sacc_result *out, unsigned int n);
void check_copy(const char *what, uint16_t opcode, const uint8_t *dst,
		const uint8_t *src, size_t len);
void check_canary(const char *what, const uint8_t *p, size_t n);
void one_verified_op(struct sacc_dev *dev, uint16_t opcode,
		     struct sacc_buf *src, struct sacc_buf *dst, uint32_t len);
uint32_t raw_expect_fault(struct sacc_dev *dev, struct sacc_desc d,
			  uint64_t want_addr, const char *what);
void sq_unmap(struct sacc_dev *dev, const struct sacc_map_entry *e);
void sq_remap(struct sacc_dev *dev, const struct sacc_map_entry *e);
struct sacc_dev *open_chan(struct sacc_dev *dev, unsigned int k,
			   enum sacc_doorbell db, uint32_t sq);
struct sacc_buf *dev_buf(struct sacc_dev *h, size_t len, const char *name);
bool has_devmem(struct sacc_dev *dev);
/* Run @fn in a forked child; its failure text comes back through a pipe. */
typedef int (*child_fn)(char *msg, size_t len);

void run_in_child(child_fn fn);

#define CHILD_CHECK(cond, ...)                                                 \
	do {                                                                   \
		if (!(cond)) {                                                 \
			int o_ = snprintf(msg, len, "line %d: ", __LINE__);    \
			snprintf(msg + o_, len - (size_t)o_, __VA_ARGS__);     \
			return 1;                                              \
		}                                                              \
	} while (0)

/* The op engine (engine.c): random verified ops with a pipeline of
 * slots. */
#define ENG_SLOTS 16

struct eng {
	struct sacc_dev *dev;
	const char *tag;
	struct sacc_buf *src;
	size_t src_len;
	struct sacc_buf *dst[ENG_SLOTS];
	size_t dst_len;
	struct sacc_op op[ENG_SLOTS];
	bool busy[ENG_SLOTS];
	unsigned int nslots, nbusy;
	uint32_t max_len;
	uint16_t flags;	 /* SACC_OPF_* on every op */
	bool use_wait;	 /* reap with sacc_wait() first */
	uint64_t issued; /* ops handed to sacc_submit */
	uint64_t expect; /* next sequence number to complete */
	uint64_t submits, done, bytes;
	uint64_t by_op[3];
	uint64_t by_octave[32];
	unsigned int max_per_poll;
};

void eng_init(struct eng *e, struct sacc_dev *dev, const char *tag,
	      unsigned int nslots, uint32_t max_len);
void eng_submit(struct eng *e, uint64_t max);
void eng_reap(struct eng *e);
void eng_run(struct eng *e, uint64_t nops);
void eng_finish(struct eng *e);

/* Each file's test cases, in the order main.c runs them. */
void open_close_tests(Suite *s);
void data_path_tests(Suite *s);
void interrupt_tests(Suite *s);
void doorbell_tests(Suite *s);
void privilege_tests(Suite *s);
void untrusted_device_tests(Suite *s);
void reset_tests(Suite *s);
void channel_tests(Suite *s);
void devmem_tests(Suite *s);
void event_tests(Suite *s);
void chain_tests(Suite *s);
void graph_tests(Suite *s);
void open_error_tests(Suite *s);
void memory_limit_tests(Suite *s);
void unbind_tests(Suite *s);

#endif /* SACC_GUEST_DRIVER_H */

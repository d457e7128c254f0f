/* SPDX-License-Identifier: MIT */
/*
 * saccctl.h - shared helpers of the saccctl commands.
 *
 * Exit status of every command: 0 success, 1 failure (with a message on
 * stderr that says what to do), 2 bad arguments (with the usage).
 */
#ifndef SACCCTL_H
#define SACCCTL_H

#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "libsacc.h"
#include "sacc_base.h" /* sacc_monotonic_ns(), sacc_fmt_bytes() */

#define EXIT_OK	   0
#define EXIT_FAIL  1
#define EXIT_USAGE 2

struct cmd {
	const char *name;
	const char *summary;
	int (*fn)(int argc, char **argv);
	void (*usage)(FILE *f);
};

extern const struct cmd saccctl_cmds[];

int cmd_list(int argc, char **argv);
int cmd_bind(int argc, char **argv);
int cmd_unbind(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_inject(int argc, char **argv);
int cmd_faults(int argc, char **argv);
int cmd_trace(int argc, char **argv);
/* trace_poll.c: the polling observer (saccctl trace --poll) */
int trace_poll(int fd, uint64_t hz, const char *bdf, double seconds,
	       unsigned int nchan);
int cmd_names(int argc, char **argv);
void usage_list(FILE *f);
void usage_bind(FILE *f);
void usage_unbind(FILE *f);
void usage_info(FILE *f);
void usage_run(FILE *f);
void usage_bench(FILE *f);
void usage_inject(FILE *f);
void usage_faults(FILE *f);
void usage_trace(FILE *f);
void usage_names(FILE *f);

/* Print "saccctl CMD: message" and the usage to stderr; return 2. */
int usage_error(void (*usage)(FILE *f), const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Print "saccctl: message" to stderr; return 1. */
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * getopt_long() for a command: argv[0] is the command name.  Returns the
 * option character, -1 at the end, or '?' (message already printed,
 * caller returns usage_error's 2) for an unknown option / missing value.
 */
int cmd_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts, void (*usage)(FILE *f));

/* Strict number parsing.  Return false if @s is not a valid value. */
bool parse_u64(const char *s, uint64_t *out);
/* Sizes ("4096", "4K", "4KiB", "1M"): sacc_size_parse() (sacc_base.h). */
bool parse_double(const char *s, double *out);
bool parse_opcode(const char *s, uint16_t *op);
bool parse_doorbell(const char *s, enum sacc_doorbell *db);

/* What run and bench both take: --op, --size, --batch, --doorbell;
 * v0.4: --src, --dst, --ring (host or device memory), --pattern. */
struct op_args {
	uint16_t op;
	uint64_t size, batch;
	enum sacc_doorbell doorbell;
	bool src_dev, dst_dev; /* --src dev, --dst dev */
	bool src_given;	       /* --src was given (host or dev) */
	bool ring_dev;	       /* --ring dev: SACC_OPEN_SQ_DEV */
	bool pattern_given;
	uint64_t pattern; /* --op fill */
};

/* FILL's pattern when --pattern is not given: bytes 11 22 ... 88 */
#define FILL_PATTERN_DEFAULT 0x8877665544332211ull

/* The long options of struct op_args's v0.4 part, for an option table
 * (their values are past every short option's). */
enum { OPT_SRC = 0x100, OPT_DST, OPT_RING, OPT_PATTERN };
/* clang-format off */
#define OP_ARGS_V4_LONGOPTS                                    \
	{"src", required_argument, NULL, OPT_SRC},             \
	{"dst", required_argument, NULL, OPT_DST},             \
	{"ring", required_argument, NULL, OPT_RING},           \
	{"pattern", required_argument, NULL, OPT_PATTERN}
/* clang-format on */

/*
 * Handle option @ch of @cmd if it is one of struct op_args's: 0 if it
 * was and is valid, usage_error()'s 2 if invalid, -1 if not one of them.
 */
int parse_op_arg(int ch, const char *arg, struct op_args *a, const char *cmd,
		 void (*usage)(FILE *f));
/* After the options: do --op, --src, --dst and --pattern go together?
 * 0, or usage_error()'s 2. */
int check_op_args(const struct op_args *a, const char *cmd,
		  void (*usage)(FILE *f));
/* "host" or "dev", as --src, --dst and --ring take them. */
const char *mem_name(bool dev);
/* @len bytes for @h: device memory (@dev) or a DMA buffer mapped
 * @dir; 0, or fail()'s 1 with libsacc's message. */
int alloc_side(struct sacc_dev *h, size_t len, bool dev, enum sacc_dma_dir dir,
	       const char *name, struct sacc_buf **out);
/* Byte @i of FILL's @pattern (little endian, repeating every 8). */
static inline uint8_t pattern_byte(uint64_t pattern, uint64_t i)
{
	return (uint8_t)(pattern >> (8 * (i % 8)));
}

/* The one BDF operand after the options, a SACC device bound to
 * vfio-pci (require_sacc_vfio()): 0, or 2 with a message on stderr. */
int parse_bdf_operand(int argc, char **argv, char bdf[SACC_BDF_MAX],
		      const char *cmd, void (*usage)(FILE *f));

/*
 * Is @bdf (canonical) a SACC device bound to vfio-pci?  0, else
 * "saccctl CMD: ..." on stderr (absent, not a SACC device, or bound to
 * another driver, and what to do) and EXIT_USAGE.
 */
int require_sacc_vfio(const char *bdf, const char *cmd);

/* ---- JSON output through json-c (json.c) ---- */

/* {"key": value, ...} on one line, as list/info/run/bench print it */
#define JSON_SPACED (JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)
/* {"key":value,...}: one record per line (inject, faults) */
#define JSON_COMPACT (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
/* one member per line (list: a line-oriented reader finds each "bdf") */
#define JSON_PRETTY                                                            \
	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |                   \
	 JSON_C_TO_STRING_NOSLASHESCAPE)

/*
 * Builders: a new object or array, and members added in order.  A failed
 * allocation is noted (never written as null); jprint() then fails.
 * jset() takes ownership of @v; jset_str() with NULL writes null.
 */
struct json_object *jobj(void);
struct json_object *jarr(void);
void jset(struct json_object *o, const char *key, struct json_object *v);
void jset_null(struct json_object *o, const char *key);
void jset_str(struct json_object *o, const char *key, const char *s);
void jset_fmt(struct json_object *o, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void jset_u64(struct json_object *o, const char *key, uint64_t v);
void jset_int(struct json_object *o, const char *key, int64_t v);
void jset_bool(struct json_object *o, const char *key, bool v);
void jset_hex(struct json_object *o, const char *key, uint64_t v); /* "0x.." */
/* A number printed with @fmt ("%.3f"), exactly as printf would. */
void jset_double(struct json_object *o, const char *key, double v,
		 const char *fmt);
void jpush(struct json_object *a, struct json_object *v);

/* Print @o in @flags' style and a newline to stdout, and release it.
 * EXIT_OK, or fail()'s EXIT_FAIL after a failed allocation or write. */
int jprint(struct json_object *o, int flags);
/* The same to @f (not flushed): one line of a JSON Lines file. */
int jfprint(FILE *f, struct json_object *o, int flags);

/* CLOCK_MONOTONIC in ns (iommu/'s clock, so journal times agree). */
static inline uint64_t now_ns(void)
{
	return sacc_monotonic_ns();
}

/* SQ entries (power of two, >= 256) that allow @inflight in flight. */
uint32_t ring_for(uint64_t inflight);

/* Deterministic fast pseudo-random bytes. */
void fill_pattern(void *buf, size_t len, uint64_t seed);

/* ---- log-linear latency histogram (64 sub-buckets per power of two:
 * under 1.6% error, fixed memory however long the run) ---- */

#define H_SUB_BITS 6
#define H_SUB	   (1u << H_SUB_BITS)
#define H_LINEAR   (2 * H_SUB)
#define H_BUCKETS  (H_LINEAR + (64 - (H_SUB_BITS + 1)) * H_SUB)

struct hist {
	uint64_t n, sum, min, max;
	uint64_t b[H_BUCKETS];
};

void h_add(struct hist *h, uint64_t v);
uint64_t h_pct(const struct hist *h, double p);

/* "mmap" (the tail doorbell, also accepted as "tail"), "syscall",
 * "token": as --doorbell takes them and --json prints them. */
const char *doorbell_name(enum sacc_doorbell db);

/*
 * Open @bdf for run/bench: channel 0 with SACC_OPEN_V3 (engine time,
 * write-inline, timestamp; without it on a device before v0.3); with the
 * token doorbell, channel 1 (token mode is a channel's).  @o->flags may
 * carry SACC_OPEN_SQ_DEV (--ring dev): the measured handle's SQ in
 * device memory.  *h is the handle to use, *dev the device (close
 * that).  0, or fail()'s 1.
 */
int open_handle(const char *bdf, const struct sacc_open_opts *o,
		struct sacc_dev **dev, struct sacc_dev **h);

#endif /* SACCCTL_H */

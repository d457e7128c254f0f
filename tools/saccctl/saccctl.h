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
void usage_list(FILE *f);
void usage_bind(FILE *f);
void usage_unbind(FILE *f);
void usage_info(FILE *f);
void usage_run(FILE *f);
void usage_bench(FILE *f);
void usage_inject(FILE *f);
void usage_faults(FILE *f);

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
/* "4096", "4K", "4k", "4KiB", "1M", "1MiB": bytes (K = 1024). */
bool parse_size(const char *s, uint64_t *out);
bool parse_double(const char *s, double *out);
bool parse_opcode(const char *s, uint16_t *op);
bool parse_doorbell(const char *s, enum sacc_doorbell *db);

/* What run and bench both take: --op, --size, --batch, --doorbell. */
struct op_args {
	uint16_t op;
	uint64_t size, batch;
	enum sacc_doorbell doorbell;
};

/*
 * Handle option @ch of @cmd if it is one of struct op_args's: 0 if it
 * was and is valid, usage_error()'s 2 if invalid, -1 if not one of them.
 */
int parse_op_arg(int ch, const char *arg, struct op_args *a, const char *cmd,
		 void (*usage)(FILE *f));

/* The one BDF operand after the options: 0, or usage_error()'s 2. */
int parse_bdf_operand(int argc, char **argv, char bdf[SACC_BDF_MAX],
		      const char *cmd, void (*usage)(FILE *f));

/* Print @s as a JSON string (quotes and escapes). */
void json_str(FILE *f, const char *s);

/* CLOCK_MONOTONIC in ns (iommu/'s clock, so journal times agree). */
static inline uint64_t now_ns(void)
{
	return sacc_monotonic_ns();
}

/* SQ entries (power of two, >= 256) that allow @inflight in flight. */
uint32_t ring_for(uint64_t inflight);

/* Deterministic fast pseudo-random bytes. */
void fill_pattern(void *buf, size_t len, uint64_t seed);

/* ---- fault log inputs, read incrementally (sources.c) ---- */

typedef void (*line_fn)(void *ctx, const char *line);

/* /dev/kmsg, non-blocking; @at_end: only records from now on. -1 if it
 * cannot be opened (errno set). */
int kmsg_open(bool at_end);
/* Every record available now, first line each (the "pri,seq,usec,-;msg"
 * form); counts records lost to overruns.  Returns how many. */
int kmsg_read(int fd, line_fn fn, void *ctx, uint64_t *overruns);

#define JTAIL_MAX 64
struct jfile {
	char path[PATH_MAX];
	off_t off;
	char part[4096]; /* an incomplete last line */
	size_t plen;
	bool overlong;
};

/* Every *.jsonl in a directory, each read on from where it was left. */
struct jtail {
	const char *dir;
	unsigned int n;
	struct jfile f[JTAIL_MAX];
};

/* New complete lines of every journal in t->dir.  Returns how many, 0
 * if the directory does not exist, -errno. */
int jtail_read(struct jtail *t, line_fn fn, void *ctx);

#endif /* SACCCTL_H */

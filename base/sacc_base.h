/* SPDX-License-Identifier: MIT */
/*
 * sacc_base.h - the base every SACC library builds on: the error model
 * (a negative errno plus a one-line message that says what to do),
 * human formatting of bytes and times, the one monotonic clock, and the
 * one parser of each format several libraries read (PCI addresses,
 * sizes).
 *
 * Error convention: every function that can fail returns 0 (or a
 * non-negative count where documented) on success and a negative errno
 * on failure.  Functions take a `struct sacc_err *err` (may be NULL);
 * on failure err->code holds the negative errno and err->msg a one-line
 * human message with context (no trailing newline).  On success err is
 * left untouched.  No SACC library prints or aborts.  libsacc keeps the
 * same struct per device and per thread behind sacc_errmsg().
 */
#ifndef SACC_BASE_H
#define SACC_BASE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- errors ---- */

/* Room for libsacc's longest messages (a fault record with its
 * attribution, a group's offending devices); longer ones are cut. */
#define SACC_ERR_MSG_MAX 512

struct sacc_err {
	int code;		    /* negative errno of the failure */
	char msg[SACC_ERR_MSG_MAX]; /* human message, NUL terminated */
};

/*
 * Fill @err (if not NULL) with -abs(@errnum) and a printf-style message.
 * Returns -abs(@errnum), so `return sacc_err_set(err, ENOMEM, ...);`.
 */
int sacc_err_set(struct sacc_err *err, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int sacc_err_vset(struct sacc_err *err, int errnum, const char *fmt,
		  va_list ap) __attribute__((format(printf, 3, 0)));

/* "64 KiB", "1.9 MiB", "2 MiB", "512 B" into @buf.  Returns @buf. */
char *sacc_fmt_bytes(uint64_t bytes, char *buf, size_t len);

/* "850 ns", "12.3 us", "3.1 ms", "2.50 s" into @buf.  Returns @buf. */
char *sacc_fmt_ns(uint64_t ns, char *buf, size_t len);

/* "a FIFO", "a directory", "a symbolic link", ... for st_mode @mode: what
 * a message says a path is when it is not the regular file expected. */
const char *sacc_file_type(mode_t mode);

/* CLOCK_MONOTONIC in nanoseconds (the registry's time base). */
uint64_t sacc_monotonic_ns(void);

/* ---- PCI addresses (parse.c) ---- */

/*
 * The one rule for a PCI address, wherever one is read (a command line,
 * a sysfs directory name, a journal's "bdf", a kernel DMAR line's
 * "[bb:dd.f]"):
 *   "DDDD:BB:DD.F" or "BB:DD.F" (domain 0000), as lspci and sysfs
 *   print them; hexadecimal, either case; domain 1-4 digits, bus 1-2,
 *   device 1-2 and at most 1f, function 1 digit, 0-7.  No "0x", no
 *   sign, no blanks: more digits than a field has is an error, not a
 *   shorter field.
 * Written back canonical by sacc_bdf_format(): "0000:01:00.0".
 */
#define SACC_BDF_FORMS                                                         \
	"DDDD:BB:DD.F (e.g. 0000:00:03.0) or BB:DD.F in hexadecimal, "         \
	"device 00-1f, function 0-7"

/*
 * The whole of @s into the PCI domain and source id (bus << 8 | dev << 3
 * | fn); @domain, @sid may be NULL.  0, or -EINVAL with a message that
 * gives the forms above.
 */
int sacc_bdf_to_sid(const char *s, uint32_t *domain, uint16_t *sid,
		    struct sacc_err *err);

/* Canonical "dddd:bb:dd.f" into @buf (>= SACC_BDF_MAX).  Returns @buf. */
char *sacc_bdf_format(uint32_t domain, uint16_t sid, char *buf, size_t len);

/* ---- sizes (parse.c) ---- */

/*
 * The one rule for a size in bytes ("--size 64K", $SACC_JOURNAL_MAX):
 * decimal digits, then optionally K, M or G (1024-based: 1K = 1024),
 * then optionally "B" or, after a unit, "iB"; letters in either case.
 * So "4096", "4096B", "64K", "64kB", "64KiB", "1M", "1G".  No sign,
 * fraction, "0x" or blanks.  0, -EINVAL (not a size), -ERANGE (past
 * 2^64 - 1); the caller checks its own range.
 */
int sacc_size_parse(const char *s, uint64_t *out);

/* The value of hex digit @c (either case), -1 if it is none. */
int sacc_hexdigit(char c);

#endif /* SACC_BASE_H */

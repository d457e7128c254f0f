/* SPDX-License-Identifier: MIT */
/*
 * sacc_base.h - the base every SACC library builds on: the error model
 * (a negative errno plus a one-line message that says what to do),
 * human formatting of bytes and times, and the one monotonic clock.
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

/* CLOCK_MONOTONIC in nanoseconds (the registry's time base). */
uint64_t sacc_monotonic_ns(void);

#endif /* SACC_BASE_H */

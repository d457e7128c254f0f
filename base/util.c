// SPDX-License-Identifier: MIT
/*
 * util.c - error messages, byte/time/file-type formatting, the
 * monotonic clock.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "sacc_base.h"

int sacc_err_vset(struct sacc_err *err, int errnum, const char *fmt,
		  va_list ap)
{
	if (errnum < 0)
		errnum = -errnum;
	if (errnum == 0)
		errnum = EIO;
	if (err) {
		err->code = -errnum;
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	}
	return -errnum;
}

int sacc_err_set(struct sacc_err *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = sacc_err_vset(err, errnum, fmt, ap);
	va_end(ap);
	return ret;
}

char *sacc_fmt_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = {"KiB", "MiB", "GiB",
					    "TiB", "PiB", "EiB"};
	unsigned int u = 0;
	uint64_t div = 1024;

	if (!buf || !len)
		return buf;
	if (bytes < 1024) {
		snprintf(buf, len, "%" PRIu64 " B", bytes);
		return buf;
	}
	while (u + 1 < sizeof(units) / sizeof(units[0]) &&
	       bytes / div >= 1024) {
		div *= 1024;
		u++;
	}
	if (bytes % div == 0)
		snprintf(buf, len, "%" PRIu64 " %s", bytes / div, units[u]);
	else
		snprintf(buf, len, "%.1f %s", (double)bytes / (double)div,
			 units[u]);
	return buf;
}

char *sacc_fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (!buf || !len)
		return buf;
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.1f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", (double)ns / 1e9);
	return buf;
}

const char *sacc_file_type(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFLNK:
		return "a symbolic link";
	}
	return "not a regular file";
}

uint64_t sacc_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

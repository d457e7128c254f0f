// SPDX-License-Identifier: MIT
/*
 * err.c - libsacc error reporting.
 *
 * Every failing libsacc call returns a negative errno and leaves a message
 * with context in a thread-local buffer (and, for calls on a device, in the
 * device too).  The library never prints and never aborts.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sacc_priv.h"

static __thread char tls_err[SACC_ERRMSG_MAX];

int sacc_vseterr(struct sacc_dev *dev, int err, const char *fmt, va_list ap)
{
	char msg[SACC_ERRMSG_MAX];

	if (err < 0)
		err = -err;
	if (err == 0)
		err = EIO;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	memcpy(tls_err, msg, sizeof(tls_err));
	if (dev)
		memcpy(dev->err, msg, sizeof(dev->err));
	return -err;
}

int sacc_seterr(struct sacc_dev *dev, int err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = sacc_vseterr(dev, err, fmt, ap);
	va_end(ap);
	return ret;
}

const char *sacc_errmsg(const struct sacc_dev *dev)
{
	if (dev)
		return dev->err;
	return tls_err;
}

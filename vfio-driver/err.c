// SPDX-License-Identifier: MIT
/*
 * err.c - libsacc error reporting, on base/'s error model.
 *
 * Every failing libsacc call returns a negative errno and leaves a
 * struct sacc_err (the errno and a message with context) in a
 * thread-local slot and, for calls on a device, in the device too;
 * sacc_errmsg() reads the message.  The library never prints and never
 * aborts.
 */
#include <errno.h>
#include <stdarg.h>

#include "sacc_priv.h"

/* The last failure in this thread: sacc_open() and calls without a
 * device have nowhere else to put it. */
static __thread struct sacc_err tls_err;

int sacc_vseterr(struct sacc_dev *dev, int err, const char *fmt, va_list ap)
{
	struct sacc_err e;
	int ret;

	/* Format aside first: the arguments may be dev->err's own message
	 * (sacc_check() re-reports it). */
	ret = sacc_err_vset(&e, err, fmt, ap);
	tls_err = e;
	if (dev)
		dev->err = e;
	return ret;
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
		return dev->err.msg;
	return tls_err.msg;
}

int sacc_gone_err(struct sacc_dev *dev)
{
	return sacc_seterr(dev, ENODEV, "%s", dev->why_gone.msg);
}

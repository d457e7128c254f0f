// SPDX-License-Identifier: MIT
/*
 * parse.c - the formats more than one library reads: PCI addresses and
 * sizes.  One parser each, with the rules written in sacc_base.h, so a
 * command line, a sysfs name, a journal line and an environment
 * variable all accept the same text.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sacc_base.h"

int sacc_hexdigit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* 1..@maxw hex digits at *@p; advances.  Returns how many, or -EINVAL:
 * more digits than @maxw is an error, not a shorter field ("100:00.0"
 * has no 2-digit bus). */
static int hexfield(const char **p, int maxw, unsigned int *out)
{
	unsigned int v = 0;
	int d, n = 0;

	while ((d = sacc_hexdigit(**p)) >= 0) {
		if (++n > maxw)
			return -EINVAL;
		v = v * 16 + (unsigned int)d;
		(*p)++;
	}
	*out = v;
	return n ? n : -EINVAL;
}

/* An address at *@p; advances past it.  0 or -EINVAL. */
static int scan_bdf(const char **p, uint32_t *domain, uint16_t *sid)
{
	unsigned int a, b, dom = 0, bus, dev, fn;
	const char *s = *p;
	int na;

	/* "DDDD:BB:" or "BB:": which, the second colon tells */
	na = hexfield(&s, 4, &a);
	if (na < 0 || *s++ != ':' || hexfield(&s, 2, &b) < 0)
		return -EINVAL;
	if (*s == ':') {
		s++;
		dom = a;
		bus = b;
		if (hexfield(&s, 2, &dev) < 0)
			return -EINVAL;
	} else {
		if (na > 2) /* a bus has at most two digits */
			return -EINVAL;
		bus = a;
		dev = b;
	}
	if (*s++ != '.' || hexfield(&s, 1, &fn) < 0 || dev > 0x1f || fn > 7)
		return -EINVAL;
	if (domain)
		*domain = dom;
	if (sid)
		*sid = (uint16_t)(bus << 8 | dev << 3 | fn);
	*p = s;
	return 0;
}

int sacc_bdf_to_sid(const char *s, uint32_t *domain, uint16_t *sid,
		    struct sacc_err *err)
{
	const char *p = s;

	if (!s || !*s)
		return sacc_err_set(
		    err, EINVAL, "empty PCI address: expected " SACC_BDF_FORMS);
	if (scan_bdf(&p, domain, sid) || *p)
		return sacc_err_set(err, EINVAL,
				    "'%.40s' is not a PCI address: "
				    "expected " SACC_BDF_FORMS,
				    s);
	return 0;
}

char *sacc_bdf_format(uint32_t domain, uint16_t sid, char *buf, size_t len)
{
	if (buf && len)
		snprintf(buf, len, "%04x:%02x:%02x.%x", domain & 0xffff,
			 sid >> 8, (sid >> 3) & 0x1f, sid & 7);
	return buf;
}

int sacc_size_parse(const char *s, uint64_t *out)
{
	uint64_t v = 0, mul = 1;
	const char *p = s;

	if (!s || *p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	switch (*p) {
	case 'K':
	case 'k':
		mul = 1ull << 10;
		break;
	case 'M':
	case 'm':
		mul = 1ull << 20;
		break;
	case 'G':
	case 'g':
		mul = 1ull << 30;
		break;
	}
	if (mul > 1) {
		p++;
		if (*p == 'i' || *p == 'I') {
			p++;
			if (*p != 'B' && *p != 'b')
				return -EINVAL; /* "Ki" alone is no unit */
		}
	}
	if (*p == 'B' || *p == 'b')
		p++;
	if (*p)
		return -EINVAL;
	if (v > UINT64_MAX / mul)
		return -ERANGE;
	*out = v * mul;
	return 0;
}

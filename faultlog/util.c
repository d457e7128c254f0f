// SPDX-License-Identifier: MIT
/*
 * util.c - small helpers the faultlog files share: bounded string copy,
 * growable arrays, and the number scanners of the line parsers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fl_priv.h"

void fl_strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

int fl_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *n;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		ncap *= 2;
	}
	n = realloc(*arr, ncap * elem);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

int fl_scan_u64(const char **p, int base, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int d, n = 0;

	if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
	    sacc_hexdigit(s[2]) >= 0)
		s += 2;
	for (;; s++, n++) {
		d = sacc_hexdigit(*s);
		if (d < 0 || d >= base)
			break;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -EINVAL;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	if (!n)
		return -EINVAL;
	*p = s;
	*out = v;
	return 0;
}

int fl_parse_u64(const char *s, uint64_t *out)
{
	int base = 10;

	if (!s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16;
	if (fl_scan_u64(&s, base, out) || *s)
		return -EINVAL;
	return 0;
}

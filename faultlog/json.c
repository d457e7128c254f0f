// SPDX-License-Identifier: MIT
/*
 * json.c - a growable string buffer that emits JSON, a minimal JSON
 * reader (objects, arrays, strings, numbers, literals; depth limited),
 * and the small number scanners the line parsers share.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fl_priv.h"

void fl_strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* ---- growable arrays ---- */

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

/* ---- string buffer ---- */

void fl_sb_init(struct fl_sb *sb)
{
	memset(sb, 0, sizeof(*sb));
}

void fl_sb_free(struct fl_sb *sb)
{
	free(sb->buf);
	fl_sb_init(sb);
}

void fl_sb_reset(struct fl_sb *sb)
{
	sb->len = 0;
	sb->oom = false;
	if (sb->buf)
		sb->buf[0] = '\0';
}

static bool sb_reserve(struct fl_sb *sb, size_t more)
{
	if (sb->oom)
		return false;
	if (more >= SIZE_MAX - sb->len ||
	    fl_grow((void **)&sb->buf, &sb->cap, sb->len + more + 1, 1)) {
		sb->oom = true;
		return false;
	}
	return true;
}

void fl_sb_putc(struct fl_sb *sb, char c)
{
	if (!sb_reserve(sb, 1))
		return;
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

void fl_sb_putn(struct fl_sb *sb, const char *s, size_t n)
{
	if (!sb_reserve(sb, n))
		return;
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void fl_sb_puts(struct fl_sb *sb, const char *s)
{
	fl_sb_putn(sb, s, strlen(s));
}

void fl_sb_printf(struct fl_sb *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !sb_reserve(sb, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void fl_sb_json_str(struct fl_sb *sb, const char *s)
{
	if (!s) {
		fl_sb_puts(sb, "null");
		return;
	}
	fl_sb_putc(sb, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			fl_sb_putc(sb, '\\');
			fl_sb_putc(sb, (char)c);
		} else if (c == '\n') {
			fl_sb_puts(sb, "\\n");
		} else if (c == '\t') {
			fl_sb_puts(sb, "\\t");
		} else if (c < 0x20 || c == 0x7f) {
			fl_sb_printf(sb, "\\u%04x", c);
		} else {
			fl_sb_putc(sb, (char)c); /* UTF-8 passes through */
		}
	}
	fl_sb_putc(sb, '"');
}

void fl_sb_json_key(struct fl_sb *sb, bool *first, const char *key)
{
	if (!*first)
		fl_sb_putc(sb, ',');
	*first = false;
	fl_sb_json_str(sb, key);
	fl_sb_putc(sb, ':');
}

void fl_sb_json_hex(struct fl_sb *sb, uint64_t v)
{
	fl_sb_printf(sb, "\"0x%" PRIx64 "\"", v);
}

/* ---- numbers ---- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int fl_scan_u64(const char **p, int base, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int d, n = 0;

	if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
	    hexval(s[2]) >= 0)
		s += 2;
	for (;; s++, n++) {
		d = hexval(*s);
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

/* ---- JSON reader ---- */

struct fj {
	const char *p, *end;
};

static void ws(struct fj *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static void put_utf8(struct fj_val *v, size_t *n, uint32_t cp)
{
	char b[4];
	size_t k, len;

	if (cp < 0x80) {
		b[0] = (char)cp;
		len = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3f));
		len = 2;
	} else {
		b[0] = (char)(0xe0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		len = 3;
	}
	if (*n + len >= FJ_STR_MAX) {
		v->str_truncated = true;
		return;
	}
	for (k = 0; k < len; k++)
		v->str[(*n)++] = b[k];
}

/* A string starting at '"'; decoded into v->str (may be NULL: skip). */
static int string(struct fj *j, struct fj_val *v)
{
	size_t n = 0;

	if (j->p >= j->end || *j->p != '"')
		return -EINVAL;
	j->p++;
	while (j->p < j->end) {
		unsigned char c = (unsigned char)*j->p++;
		uint32_t cp;

		if (c == '"') {
			if (v)
				v->str[n] = '\0';
			return 0;
		}
		if (c < 0x20)
			return -EINVAL;
		if (c != '\\') {
			if (v) {
				if (n + 1 >= FJ_STR_MAX)
					v->str_truncated = true;
				else
					v->str[n++] = (char)c;
			}
			continue;
		}
		if (j->p >= j->end)
			return -EINVAL;
		c = (unsigned char)*j->p++;
		switch (c) {
		case '"':
		case '\\':
		case '/':
			cp = c;
			break;
		case 'b':
			cp = '\b';
			break;
		case 'f':
			cp = '\f';
			break;
		case 'n':
			cp = '\n';
			break;
		case 'r':
			cp = '\r';
			break;
		case 't':
			cp = '\t';
			break;
		case 'u':
			cp = 0;
			for (int k = 0; k < 4; k++) {
				int d = j->p < j->end ? hexval(*j->p) : -1;

				if (d < 0)
					return -EINVAL;
				cp = cp << 4 | (uint32_t)d;
				j->p++;
			}
			if (cp >= 0xd800 && cp <= 0xdfff)
				cp = '?'; /* surrogates: not needed here */
			break;
		default:
			return -EINVAL;
		}
		if (!v)
			continue;
		if (cp == 0) {
			v->str_has_nul = true;
			cp = '?';
		}
		put_utf8(v, &n, cp);
	}
	return -EINVAL;
}

static int number(struct fj *j, struct fj_val *v)
{
	const char *s = j->p;
	bool frac = false;
	uint64_t m = 0;
	bool ovf = false;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end || *j->p < '0' || *j->p > '9')
		return -EINVAL;
	if (*j->p == '0') {
		j->p++;
	} else {
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
			uint64_t d = (uint64_t)(*j->p - '0');

			if (m > (UINT64_MAX - d) / 10)
				ovf = true;
			else
				m = m * 10 + d;
			j->p++;
		}
	}
	if (j->p < j->end && *j->p == '.') {
		frac = true;
		j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return -EINVAL;
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		frac = true;
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return -EINVAL;
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	if (v) {
		v->num_neg = *s == '-';
		v->num_int = !frac && !ovf;
		v->num = m;
	}
	return 0;
}

static int literal(struct fj *j, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n))
		return -EINVAL;
	j->p += n;
	return 0;
}

static int value(struct fj *j, struct fj_val *v, int depth);

/* Skip (v == NULL) or capture an array/object; only the span is kept. */
static int container(struct fj *j, int depth)
{
	char close = *j->p == '{' ? '}' : ']';
	bool obj = close == '}';
	bool first = true;

	if (depth >= FJ_DEPTH_MAX)
		return -EINVAL;
	j->p++;
	for (;;) {
		ws(j);
		if (j->p >= j->end)
			return -EINVAL;
		if (*j->p == close) {
			j->p++;
			return 0;
		}
		if (!first) {
			if (*j->p != ',')
				return -EINVAL;
			j->p++;
			ws(j);
		}
		first = false;
		if (obj) {
			if (string(j, NULL))
				return -EINVAL;
			ws(j);
			if (j->p >= j->end || *j->p != ':')
				return -EINVAL;
			j->p++;
			ws(j);
		}
		if (value(j, NULL, depth + 1))
			return -EINVAL;
	}
}

static int value(struct fj *j, struct fj_val *v, int depth)
{
	const char *start = j->p;
	enum fj_type t;
	int ret;

	if (j->p >= j->end)
		return -EINVAL;
	switch (*j->p) {
	case '"':
		t = FJ_STRING;
		if (v) {
			v->str_truncated = false;
			v->str_has_nul = false;
		}
		ret = string(j, v);
		break;
	case '{':
		t = FJ_OBJECT;
		ret = container(j, depth);
		break;
	case '[':
		t = FJ_ARRAY;
		ret = container(j, depth);
		break;
	case 't':
		t = FJ_TRUE;
		ret = literal(j, "true");
		break;
	case 'f':
		t = FJ_FALSE;
		ret = literal(j, "false");
		break;
	case 'n':
		t = FJ_NULL;
		ret = literal(j, "null");
		break;
	default:
		t = FJ_NUMBER;
		ret = number(j, v);
		break;
	}
	if (ret)
		return -EINVAL;
	if (v) {
		v->type = t;
		v->raw = start;
		v->raw_len = (size_t)(j->p - start);
	}
	return 0;
}

static int top(const char *s, size_t len, char open, fj_member_fn mfn,
	       fj_elem_fn efn, void *ctx)
{
	struct fj j = { s, s + len };
	struct fj_val v;
	char key[64];
	size_t idx = 0;
	bool first = true;
	int ret;

	if (!s)
		return -EINVAL;
	ws(&j);
	if (j.p >= j.end || *j.p != open)
		return -EINVAL;
	/* validate the whole thing first, so callbacks only see good JSON */
	if (value(&j, NULL, 0))
		return -EINVAL;
	ws(&j);
	if (j.p != j.end)
		return -EINVAL;

	j.p = s;
	ws(&j);
	j.p++;
	for (;;) {
		ws(&j);
		if (*j.p == (open == '{' ? '}' : ']'))
			return 0;
		if (!first) {
			j.p++; /* ',' (validated) */
			ws(&j);
		}
		first = false;
		if (open == '{') {
			memset(&v, 0, sizeof(v));
			if (string(&j, &v))
				return -EINVAL;
			fl_strlcpy(key, v.str, sizeof(key));
			ws(&j);
			j.p++; /* ':' */
			ws(&j);
		}
		memset(&v, 0, sizeof(v));
		if (value(&j, &v, 1))
			return -EINVAL;
		ret = open == '{' ? mfn(ctx, key, &v) : efn(ctx, idx++, &v);
		if (ret < 0)
			return ret;
	}
}

int fj_parse_object(const char *s, size_t len, fj_member_fn fn, void *ctx)
{
	return top(s, len, '{', fn, NULL, ctx);
}

int fj_parse_array(const char *s, size_t len, fj_elem_fn fn, void *ctx)
{
	return top(s, len, '[', NULL, fn, ctx);
}

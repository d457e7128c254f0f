// SPDX-License-Identifier: MIT
/*
 * format.c - the journal's schema names and its line formatter.
 *
 * The lines are written by hand rather than through a JSON library, so
 * that libsacc (the writer's one user) links none.  The output is what
 * json-c printed when it wrote them (JSON_C_TO_STRING_PLAIN |
 * JSON_C_TO_STRING_NOSLASHESCAPE), byte for byte, so journals written
 * before and after read the same and compare equal: no blanks, members
 * in the schema's order, numbers in decimal, addresses as "0x..." hex
 * strings, and strings escaped as json-c escapes them (below).
 * tests/unit/faultlog/journal_lines.c holds the two side by side.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "sacc_hw_names.h"
#include "sacc_journal.h"

static const char *const kind_names[] = {
	[SACC_JEV_MAP] = "map",	      [SACC_JEV_UNMAP] = "unmap",
	[SACC_JEV_RANGES] = "ranges", [SACC_JEV_FAULT] = "fault",
	[SACC_JEV_RESET] = "reset",   [SACC_JEV_ROTATED] = "rotated",
};

const char *sacc_journal_kind_name(enum sacc_journal_kind kind)
{
	if (kind >= SACC_JEV_MAP && kind <= SACC_JEV_ROTATED)
		return kind_names[kind];
	return NULL;
}

static const char *perm_name(uint32_t perm)
{
	switch (perm) {
	case SACC_JOURNAL_PERM_READ:
		return "r";
	case SACC_JOURNAL_PERM_WRITE:
		return "w";
	case SACC_JOURNAL_PERM_READ | SACC_JOURNAL_PERM_WRITE:
		return "rw";
	}
	return NULL;
}

/* A line being built in the caller's buffer, one byte always kept for
 * the NUL; @over once something did not fit. */
struct line {
	char *buf;
	size_t len, off;
	bool over;
	bool first; /* no member in the object yet */
};

static void put(struct line *l, const char *s, size_t n)
{
	if (l->over || n >= l->len - l->off) {
		l->over = true;
		return;
	}
	memcpy(l->buf + l->off, s, n);
	l->off += n;
}

static void puts_(struct line *l, const char *s)
{
	put(l, s, strlen(s));
}

/*
 * A JSON string as json-c writes it: '"' and '\' escaped, the control
 * characters with a short form as \b \f \n \r \t, the others as \u00xx
 * (lowercase hex), '/' as it is (NOSLASHESCAPE), and every other byte
 * as it is, DEL and bytes past 0x7f included (no UTF-8 check: a name
 * is whatever bytes the caller gave).
 */
static void put_string(struct line *l, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s;
	char esc[7];

	put(l, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		const char *e = NULL;

		switch (c) {
		case '"':
			e = "\\\"";
			break;
		case '\\':
			e = "\\\\";
			break;
		case '\b':
			e = "\\b";
			break;
		case '\f':
			e = "\\f";
			break;
		case '\n':
			e = "\\n";
			break;
		case '\r':
			e = "\\r";
			break;
		case '\t':
			e = "\\t";
			break;
		default:
			if (c >= 0x20)
				continue;
			snprintf(esc, sizeof(esc), "\\u00%c%c", hex[c >> 4],
				 hex[c & 0xf]);
			put(l, run, (size_t)(s - run));
			put(l, esc, 6);
			run = s + 1;
			continue;
		}
		put(l, run, (size_t)(s - run));
		puts_(l, e);
		run = s + 1;
	}
	put(l, run, (size_t)(s - run));
	put(l, "\"", 1);
}

/* ,"key": (keys are the schema's names: nothing to escape) */
static void key(struct line *l, const char *k)
{
	if (!l->first)
		put(l, ",", 1);
	l->first = false;
	put(l, "\"", 1);
	puts_(l, k);
	put(l, "\":", 2);
}

static void str_member(struct line *l, const char *k, const char *s)
{
	key(l, k);
	put_string(l, s);
}

static void u64_member(struct line *l, const char *k, uint64_t v)
{
	char s[24];

	key(l, k);
	put(l, s, (size_t)snprintf(s, sizeof(s), "%" PRIu64, v));
}

static void put_hex(struct line *l, uint64_t v)
{
	char s[24];

	put(l, s, (size_t)snprintf(s, sizeof(s), "\"0x%" PRIx64 "\"", v));
}

static void hex_member(struct line *l, const char *k, uint64_t v)
{
	key(l, k);
	put_hex(l, v);
}

static void bool_member(struct line *l, const char *k, bool v)
{
	key(l, k);
	puts_(l, v ? "true" : "false");
}

/* [["0x0","0xfedfffff"],...] */
static void ranges_member(struct line *l, const struct sacc_journal_event *ev)
{
	key(l, "ranges");
	put(l, "[", 1);
	for (uint32_t i = 0; i < ev->nr_ranges; i++) {
		put(l, i ? ",[" : "[", i ? 2 : 1);
		put_hex(l, ev->ranges[i].start);
		put(l, ",", 1);
		put_hex(l, ev->ranges[i].end);
		put(l, "]", 1);
	}
	put(l, "]", 1);
}

/* The members of @ev, in the order the schema lists them. */
static void members(struct line *l, const struct sacc_journal_event *ev)
{
	str_member(l, "ev", sacc_journal_kind_name(ev->ev));
	u64_member(l, "t_ns", ev->t_ns);
	if (ev->pid)
		u64_member(l, "pid", ev->pid);
	str_member(l, "bdf", ev->bdf);

	switch (ev->ev) {
	case SACC_JEV_MAP:
	case SACC_JEV_UNMAP:
		str_member(l, "name", ev->name);
		hex_member(l, "iova", ev->iova);
		u64_member(l, "len", ev->len);
		if (ev->perm)
			str_member(l, "perm", perm_name(ev->perm));
		break;
	case SACC_JEV_RANGES:
		ranges_member(l, ev);
		break;
	case SACC_JEV_FAULT:
		u64_member(l, "req_id", ev->req_id);
		u64_member(l, "opcode", ev->opcode);
		u64_member(l, "status", ev->status);
		hex_member(l, "addr", ev->addr);
		str_member(l, "access", sacc_fault_access_name(ev->access));
		bool_member(l, "write", ev->write);
		bool_member(l, "fatal", ev->fatal);
		if (ev->has_fault_count)
			u64_member(l, "fault_count", ev->fault_count);
		if (ev->has_length)
			u64_member(l, "length", ev->length);
		if (ev->has_chan)
			u64_member(l, "chan", ev->chan);
		break;
	case SACC_JEV_RESET:
		break;
	case SACC_JEV_ROTATED:
		u64_member(l, "rotations", ev->rotations);
		u64_member(l, "faults", ev->rotated_faults);
		u64_member(l, "bytes", ev->rotated_bytes);
		break;
	}
}

int sacc_journal_format(const struct sacc_journal_event *ev, char *buf,
			size_t len)
{
	const char *kind = ev ? sacc_journal_kind_name(ev->ev) : NULL;
	struct line l = {.buf = buf, .len = len, .first = true};

	if (!kind || !buf || sacc_bdf_to_sid(ev->bdf, NULL, NULL, NULL))
		return -EINVAL;
	if ((ev->ev == SACC_JEV_MAP && !perm_name(ev->perm)) ||
	    (ev->ev == SACC_JEV_UNMAP && ev->perm && !perm_name(ev->perm)) ||
	    (ev->ev == SACC_JEV_FAULT && !sacc_fault_access_name(ev->access)) ||
	    (ev->ev == SACC_JEV_RANGES &&
	     ev->nr_ranges > SACC_IOMMU_MAX_RANGES))
		return -EINVAL;
	if (!len)
		return -EMSGSIZE;
	put(&l, "{", 1);
	members(&l, ev);
	put(&l, "}\n", 2);
	if (l.over || l.off > INT_MAX)
		return -EMSGSIZE;
	buf[l.off] = '\0';
	return (int)l.off;
}

// SPDX-License-Identifier: MIT
/*
 * journal.c - the reader of the SACC per-device event journal: one
 * line of the schema in sacc_journal.h (journal/, which writes it), read
 * tolerantly through json-c.
 */
#include <errno.h>
#include <string.h>

#include "fl_priv.h"
#include "sacc_hw.h"

enum {
	SEEN_EV = 1 << 0,
	SEEN_T = 1 << 1,
	SEEN_BDF = 1 << 2,
	SEEN_IOVA = 1 << 3,
	SEEN_LEN = 1 << 4,
	SEEN_PERM = 1 << 5,
	SEEN_RANGES = 1 << 6,
	SEEN_ADDR = 1 << 7,
	SEEN_ACCESS = 1 << 8,
	SEEN_WRITE = 1 << 9,
	SEEN_FAULTS = 1 << 10,
};

struct jctx {
	struct sacc_journal_event *ev;
	unsigned int seen;
	bool unknown_ev;
};

/* A string without NUL bytes ("\u0000"), or NULL. */
static const char *get_str(struct json_object *v)
{
	const char *s = json_object_get_string(v);

	if (!json_object_is_type(v, json_type_string) ||
	    strlen(s) != (size_t)json_object_get_string_len(v))
		return NULL;
	return s;
}

/* A non-negative integer, or a string "0x..." / decimal. */
static int get_u64(struct json_object *v, uint64_t *out)
{
	const char *s;

	if (json_object_is_type(v, json_type_int)) {
		if (json_object_get_int64(v) < 0)
			return -EINVAL;
		*out = json_object_get_uint64(v);
		return 0;
	}
	s = get_str(v);
	return s ? fl_parse_u64(s, out) : -EINVAL;
}

static int get_u32(struct json_object *v, uint32_t *out)
{
	uint64_t x;

	if (get_u64(v, &x) || x > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)x;
	return 0;
}

static int get_bool(struct json_object *v, bool *out)
{
	if (!json_object_is_type(v, json_type_boolean))
		return -EINVAL;
	*out = json_object_get_boolean(v);
	return 0;
}

/* [["0x0","0xfedfffff"],...]: each a [start, end] pair, start <= end. */
static int get_ranges(struct json_object *v, struct sacc_journal_event *ev)
{
	ev->nr_ranges = 0;
	ev->ranges_truncated = false;
	if (!json_object_is_type(v, json_type_array))
		return -EINVAL;
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		struct json_object *p = json_object_array_get_idx(v, i);
		struct sacc_iova_range r;

		if (!json_object_is_type(p, json_type_array) ||
		    json_object_array_length(p) != 2 ||
		    get_u64(json_object_array_get_idx(p, 0), &r.start) ||
		    get_u64(json_object_array_get_idx(p, 1), &r.end) ||
		    r.start > r.end)
			return -EINVAL;
		if (ev->nr_ranges == SACC_IOMMU_MAX_RANGES)
			ev->ranges_truncated = true;
		else
			ev->ranges[ev->nr_ranges++] = r;
	}
	return 0;
}

/* A name as written; a NUL byte in it reads as '?'. */
static void get_name(struct json_object *v, char *dst, size_t size)
{
	const char *s = json_object_get_string(v);
	size_t n = (size_t)json_object_get_string_len(v);

	if (n > size - 1)
		n = size - 1;
	for (size_t i = 0; i < n; i++)
		dst[i] = s[i] ? s[i] : '?';
	dst[n] = '\0';
}

static int member(struct jctx *jc, const char *key, struct json_object *v)
{
	struct sacc_journal_event *ev = jc->ev;
	const char *s = get_str(v);
	unsigned int access;
	uint64_t x;

	if (!strcmp(key, "ev")) {
		if (!s)
			return -EINVAL;
		jc->unknown_ev = true;
		for (int k = SACC_JEV_MAP; k <= SACC_JEV_ROTATED; k++) {
			if (!strcmp(s, sacc_journal_kind_name(k))) {
				ev->ev = (enum sacc_journal_kind)k;
				jc->unknown_ev = false;
			}
		}
		jc->seen |= SEEN_EV;
	} else if (!strcmp(key, "t_ns")) {
		if (get_u64(v, &ev->t_ns))
			return -EINVAL;
		jc->seen |= SEEN_T;
	} else if (!strcmp(key, "pid")) {
		if (get_u32(v, &ev->pid))
			return -EINVAL;
	} else if (!strcmp(key, "bdf")) {
		if (!s || sacc_bdf_to_sid(s, &ev->domain, &ev->sid, NULL))
			return -EINVAL;
		sacc_bdf_format(ev->domain, ev->sid, ev->bdf, sizeof(ev->bdf));
		jc->seen |= SEEN_BDF;
	} else if (!strcmp(key, "name")) {
		if (!json_object_is_type(v, json_type_string))
			return -EINVAL;
		get_name(v, ev->name, sizeof(ev->name));
	} else if (!strcmp(key, "iova")) {
		if (get_u64(v, &ev->iova))
			return -EINVAL;
		jc->seen |= SEEN_IOVA;
	} else if (!strcmp(key, "len")) {
		if (get_u64(v, &ev->len))
			return -EINVAL;
		jc->seen |= SEEN_LEN;
	} else if (!strcmp(key, "perm")) {
		if (!s)
			return -EINVAL;
		if (!strcmp(s, "r"))
			ev->perm = SACC_JOURNAL_PERM_READ;
		else if (!strcmp(s, "w"))
			ev->perm = SACC_JOURNAL_PERM_WRITE;
		else if (!strcmp(s, "rw"))
			ev->perm = SACC_JOURNAL_PERM_READ |
				   SACC_JOURNAL_PERM_WRITE;
		else
			return -EINVAL;
		jc->seen |= SEEN_PERM;
	} else if (!strcmp(key, "ranges")) {
		if (get_ranges(v, ev))
			return -EINVAL;
		jc->seen |= SEEN_RANGES;
	} else if (!strcmp(key, "req_id")) {
		if (get_u32(v, &ev->req_id))
			return -EINVAL;
	} else if (!strcmp(key, "opcode")) {
		if (get_u32(v, &ev->opcode))
			return -EINVAL;
	} else if (!strcmp(key, "status")) {
		if (get_u32(v, &ev->status))
			return -EINVAL;
	} else if (!strcmp(key, "addr")) {
		if (get_u64(v, &ev->addr))
			return -EINVAL;
		jc->seen |= SEEN_ADDR;
	} else if (!strcmp(key, "access")) {
		if (json_object_is_type(v, json_type_string)) {
			if (!s || sacc_fault_access_parse(s, &access))
				return -EINVAL;
		} else if (get_u64(v, &x) || !sacc_fault_access_name(x)) {
			return -EINVAL;
		} else {
			access = (unsigned int)x;
		}
		ev->access = access;
		jc->seen |= SEEN_ACCESS;
	} else if (!strcmp(key, "write")) {
		if (get_bool(v, &ev->write))
			return -EINVAL;
		jc->seen |= SEEN_WRITE;
	} else if (!strcmp(key, "fatal")) {
		if (get_bool(v, &ev->fatal))
			return -EINVAL;
	} else if (!strcmp(key, "fault_count")) {
		if (get_u32(v, &ev->fault_count))
			return -EINVAL;
		ev->has_fault_count = true;
	} else if (!strcmp(key, "length")) {
		if (get_u32(v, &ev->length))
			return -EINVAL;
		ev->has_length = true;
	} else if (!strcmp(key, "chan")) {
		if (get_u32(v, &ev->chan))
			return -EINVAL;
		ev->has_chan = true;
	} else if (!strcmp(key, "rotations")) {
		if (get_u64(v, &ev->rotations))
			return -EINVAL;
	} else if (!strcmp(key, "faults")) {
		if (get_u64(v, &ev->rotated_faults))
			return -EINVAL;
		jc->seen |= SEEN_FAULTS;
	} else if (!strcmp(key, "bytes")) {
		if (get_u64(v, &ev->rotated_bytes))
			return -EINVAL;
	}
	return 0; /* unknown keys: ignored */
}

static int members(struct jctx *jc, struct json_object *o)
{
	if (!json_object_is_type(o, json_type_object))
		return -EINVAL;
	json_object_object_foreach(o, key, v)
	{
		if (member(jc, key, v))
			return -EINVAL;
	}
	return 0;
}

int sacc_journal_parse_line(const char *line, struct sacc_journal_event *ev)
{
	struct jctx jc = { .ev = ev };
	struct json_object *o;
	size_t n;
	unsigned int need = SEEN_EV | SEEN_T | SEEN_BDF;
	int ret;

	if (!line || !ev)
		return -EINVAL;
	memset(ev, 0, sizeof(*ev));
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' ||
		     line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	if (!n)
		return 0;
	ret = fl_json_parse(line, n, &o);
	if (ret)
		return ret;
	ret = members(&jc, o);
	json_object_put(o);
	if (ret || !(jc.seen & SEEN_EV))
		return -EINVAL;
	if (jc.unknown_ev)
		return 0; /* a newer writer's event */
	switch (ev->ev) {
	case SACC_JEV_MAP:
		need |= SEEN_IOVA | SEEN_LEN | SEEN_PERM;
		break;
	case SACC_JEV_UNMAP:
		need |= SEEN_IOVA | SEEN_LEN;
		break;
	case SACC_JEV_RANGES:
		need |= SEEN_RANGES;
		break;
	case SACC_JEV_FAULT:
		need |= SEEN_ADDR | SEEN_ACCESS;
		break;
	case SACC_JEV_RESET:
		break;
	case SACC_JEV_ROTATED:
		need |= SEEN_FAULTS;
		break;
	}
	if ((jc.seen & need) != need)
		return -EINVAL;
	if ((ev->ev == SACC_JEV_MAP || ev->ev == SACC_JEV_UNMAP) &&
	    (ev->len == 0 || ev->iova + (ev->len - 1) < ev->iova))
		return -EINVAL;
	if (ev->ev == SACC_JEV_FAULT && !(jc.seen & SEEN_WRITE))
		ev->write = ev->access == SACC_FAULT_DST_WRITE ||
			    ev->access == SACC_FAULT_CQ_WRITE ||
			    ev->access == SACC_FAULT_DEV_WRITE;
	return 1;
}

// SPDX-License-Identifier: MIT
/*
 * helpers.c - faultlog/'s unit tests' helpers: fixtures, records, scratch
 * directories, JSON output read back
 */
#include "faultlog_test.h"

const char *fixture(const char *name)
{
	static char path[4096];
	const char *dir = getenv("SACC_FIXTURES");

	snprintf(path, sizeof(path), "%s/faults/%s",
		 dir && *dir ? dir : "tests/fixtures", name);
	return path;
}

struct lines read_lines(const char *path)
{
	struct lines l = { NULL, 0 };
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	ck_assert_msg(f, "cannot open fixture %s (set SACC_FIXTURES)", path);
	while ((len = getline(&line, &cap, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			line[len - 1] = '\0';
		l.v = realloc(l.v, (l.n + 1) * sizeof(*l.v));
		ck_assert_ptr_nonnull(l.v);
		l.v[l.n++] = strdup(line);
	}
	free(line);
	fclose(f);
	ck_assert_uint_gt(l.n, 0);
	return l;
}

void free_lines(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* The fixture line containing @needle (exactly one). */
const char *line_with(const struct lines *l, const char *needle)
{
	const char *hit = NULL;

	for (size_t i = 0; i < l->n; i++) {
		if (strstr(l->v[i], needle)) {
			ck_assert_msg(!hit, "'%s' is not unique", needle);
			hit = l->v[i];
		}
	}
	ck_assert_msg(hit, "no fixture line with '%s'", needle);
	return hit;
}

struct sacc_faultlog *load_fixtures(bool with_trace)
{
	struct sacc_faultlog *fl = sacc_faultlog_new();
	struct sacc_err err = { 0 };

	ck_assert_ptr_nonnull(fl);
	ck_assert_int_gt(sacc_faultlog_add_file(fl, SACC_FAULTLOG_KMSG,
						fixture("kmsg_6.1.txt"), &err),
			 0);
	ck_assert_int_eq(sacc_faultlog_add_file(fl, SACC_FAULTLOG_JOURNAL,
						fixture("journal.jsonl"), &err),
			 26);
	if (with_trace)
		ck_assert_int_gt(sacc_faultlog_add_file(fl,
							SACC_FAULTLOG_QEMU_TRACE,
							fixture("qemu_trace.log"),
							&err),
				 0);
	return fl;
}

const struct sacc_fault *by_req(const struct sacc_faultlog *fl, const char *bdf,
				uint32_t req_id)
{
	const struct sacc_fault *hit = NULL;

	for (size_t i = 0; i < sacc_faultlog_count(fl); i++) {
		const struct sacc_fault *f = sacc_faultlog_get(fl, i);

		if (f->has_req && f->req_id == req_id && !strcmp(f->bdf, bdf)) {
			ck_assert_msg(!hit, "req_id %u twice", req_id);
			hit = f;
		}
	}
	ck_assert_msg(hit, "no record for %s req_id %u", bdf, req_id);
	return hit;
}

/* The only record of @bdf at page @page without a device source. */
const struct sacc_fault *by_page(const struct sacc_faultlog *fl,
				 const char *bdf, uint64_t page)
{
	const struct sacc_fault *hit = NULL;

	for (size_t i = 0; i < sacc_faultlog_count(fl); i++) {
		const struct sacc_fault *f = sacc_faultlog_get(fl, i);

		if (!(f->sources & SACC_FSRC_DEVICE) && f->has_iova &&
		    f->page == page && !strcmp(f->bdf, bdf)) {
			ck_assert_msg(!hit, "page 0x%" PRIx64 " twice", page);
			hit = f;
		}
	}
	ck_assert_msg(hit, "no record for %s page 0x%" PRIx64, bdf, page);
	return hit;
}

char *make_tmpdir(void)
{
	char *d = strdup("/tmp/test_faultlog.XXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

void rm_tmpdir(char *d)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	ck_assert_int_eq(system(cmd), 0);
	free(d);
}

/* Braces and brackets balance outside strings; 0 if fine. */
int balanced(const char *s)
{
	int depth = 0;
	bool str = false;

	for (; *s; s++) {
		if (str) {
			if (*s == '\\' && s[1])
				s++;
			else if (*s == '"')
				str = false;
			continue;
		}
		if (*s == '"')
			str = true;
		else if (*s == '{' || *s == '[')
			depth++;
		else if ((*s == '}' || *s == ']') && --depth < 0)
			return -1;
	}
	return str ? -1 : depth;
}

/* One output line read back with json-c (strictly, as journal lines are
 * read): 0, or -EINVAL for bad JSON or a bad "sources". */
static int collect(struct keyset *k, struct json_object *o)
{
	if (!json_object_is_type(o, json_type_object))
		return -EINVAL;
	json_object_object_foreach(o, key, v)
	{
		for (size_t i = 0; i < k->n; i++)
			if (!strcmp(key, k->want[i]))
				k->seen |= 1ull << i;
		if (!strcmp(key, "summary"))
			k->has_summary = json_object_is_type(v, json_type_object);
		if (!strcmp(key, "attribution") &&
		    json_object_is_type(v, json_type_string))
			fl_strlcpy(k->attribution, json_object_get_string(v),
				   sizeof(k->attribution));
		if (!strcmp(key, "sources") &&
		    (!json_object_is_type(v, json_type_array) ||
		     !json_object_array_length(v)))
			return -EINVAL;
	}
	return 0;
}

/* collect() on @line's member @outer (NULL: the line), then its @inner. */
int collect_line(struct keyset *k, const char *line, const char *outer,
		 const char *inner)
{
	struct json_object *o, *v;
	int ret = fl_json_parse(line, strlen(line), &o);

	if (ret)
		return ret;
	v = o;
	if (outer && !json_object_object_get_ex(v, outer, &v))
		v = NULL;
	if (v && inner && !json_object_object_get_ex(v, inner, &v))
		v = NULL;
	ret = v ? collect(k, v) : -EINVAL;
	json_object_put(o);
	return ret;
}

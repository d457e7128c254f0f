// SPDX-License-Identifier: MIT
/*
 * json.c - saccctl's JSON output, built with json-c.  The builders note a
 * failed allocation instead of writing a wrong value; jprint() then
 * fails rather than print a partial object.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "saccctl.h"

static bool json_failed;

static struct json_object *note(struct json_object *v)
{
	if (!v)
		json_failed = true;
	return v;
}

struct json_object *jobj(void)
{
	return note(json_object_new_object());
}

struct json_object *jarr(void)
{
	return note(json_object_new_array());
}

void jset(struct json_object *o, const char *key, struct json_object *v)
{
	if (!o || !v) {
		json_failed = true;
		json_object_put(v);
		return;
	}
	if (json_object_object_add(o, key, v)) {
		json_failed = true;
		json_object_put(v);
	}
}

void jset_null(struct json_object *o, const char *key)
{
	if (!o || json_object_object_add(o, key, NULL))
		json_failed = true;
}

void jset_str(struct json_object *o, const char *key, const char *s)
{
	if (s)
		jset(o, key, json_object_new_string(s));
	else
		jset_null(o, key);
}

void jset_fmt(struct json_object *o, const char *key, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	jset(o, key, json_object_new_string(buf));
}

void jset_u64(struct json_object *o, const char *key, uint64_t v)
{
	jset(o, key, json_object_new_uint64(v));
}

void jset_int(struct json_object *o, const char *key, int64_t v)
{
	jset(o, key, json_object_new_int64(v));
}

void jset_bool(struct json_object *o, const char *key, bool v)
{
	jset(o, key, json_object_new_boolean(v));
}

void jset_hex(struct json_object *o, const char *key, uint64_t v)
{
	jset_fmt(o, key, "0x%" PRIx64, v);
}

void jset_double(struct json_object *o, const char *key, double v,
		 const char *fmt)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, v);
	jset(o, key, json_object_new_double_s(v, buf));
}

void jpush(struct json_object *a, struct json_object *v)
{
	if (!a || !v || json_object_array_add(a, v)) {
		json_failed = true;
		json_object_put(v);
	}
}

int jfprint(FILE *f, struct json_object *o, int flags)
{
	const char *s =
	    o && !json_failed ? json_object_to_json_string_ext(o, flags) : NULL;
	int rc = EXIT_OK;

	if (!s)
		rc = fail("out of memory building the JSON output");
	else if (fputs(s, f) == EOF || fputc('\n', f) == EOF)
		rc = fail("writing the output failed");
	json_object_put(o);
	json_failed = false;
	return rc;
}

int jprint(struct json_object *o, int flags)
{
	int rc = jfprint(stdout, o, flags);

	if (!rc && fflush(stdout))
		rc = fail("writing the output failed");
	return rc;
}

// SPDX-License-Identifier: MIT
/*
 * json.c - JSON through json-c: building the objects faultlog writes
 * (journal lines, fault records, the summary) member by member,
 * serialising them in one style, and parsing a line strictly.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "fl_priv.h"

/* Keys are string literals, each added once. */
#define ADD_OPTS (JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_ADD_CONSTANT_KEY)

int fl_json_add(struct json_object *o, const char *key, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_object_add_ex(o, key, v, ADD_OPTS)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

int fl_json_push(struct json_object *a, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_array_add(a, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

int fl_json_null(struct json_object *o, const char *key)
{
	return json_object_object_add_ex(o, key, NULL, ADD_OPTS) ? -ENOMEM : 0;
}

int fl_json_str(struct json_object *o, const char *key, const char *s)
{
	if (!s)
		return fl_json_null(o, key);
	return fl_json_add(o, key, json_object_new_string(s));
}

int fl_json_u64(struct json_object *o, const char *key, bool has, uint64_t v)
{
	if (!has)
		return fl_json_null(o, key);
	return fl_json_add(o, key, json_object_new_uint64(v));
}

struct json_object *fl_json_hexval(uint64_t v)
{
	char s[24];

	snprintf(s, sizeof(s), "0x%" PRIx64, v);
	return json_object_new_string(s);
}

int fl_json_hex(struct json_object *o, const char *key, bool has, uint64_t v)
{
	if (!has)
		return fl_json_null(o, key);
	return fl_json_add(o, key, fl_json_hexval(v));
}

int fl_json_bool(struct json_object *o, const char *key, bool has, bool v)
{
	if (!has)
		return fl_json_null(o, key);
	return fl_json_add(o, key, json_object_new_boolean(v));
}

int fl_json_format(struct json_object *o, const char *end, char *buf,
		   size_t len)
{
	size_t n, e = strlen(end);
	const char *s = json_object_to_json_string_length(o, FL_JSON_FLAGS, &n);

	if (!s)
		return -ENOMEM;
	if (n + e >= len || n + e > INT_MAX)
		return -EMSGSIZE;
	memcpy(buf, s, n);
	memcpy(buf + n, end, e + 1);
	return (int)(n + e);
}

int fl_json_print(struct json_object *o, FILE *out)
{
	size_t n;
	const char *s = json_object_to_json_string_length(o, FL_JSON_FLAGS, &n);

	if (!s)
		return -ENOMEM;
	if (fwrite(s, 1, n, out) != n || fputc('\n', out) == EOF)
		return -EIO;
	return 0;
}

/*
 * json-c 0.16 turns an integer beyond 2^64 - 1 into UINT64_MAX instead
 * of refusing it (strtoull's ERANGE is not checked), so look for such a
 * literal outside strings: a run of digits that is no fraction or
 * exponent and is larger than 18446744073709551615.
 */
static bool int_overflows(const char *s, size_t len)
{
	static const char max[] = "18446744073709551615";
	bool str = false;

	for (size_t i = 0; i < len; i++) {
		size_t n = 0;

		if (str) {
			if (s[i] == '\\')
				i++;
			else if (s[i] == '"')
				str = false;
			continue;
		}
		if (s[i] == '"') {
			str = true;
			continue;
		}
		if (s[i] < '0' || s[i] > '9')
			continue;
		while (i + n < len && s[i + n] >= '0' && s[i + n] <= '9')
			n++;
		if ((!i || !strchr(".eE+-", s[i - 1]) ||
		     (s[i - 1] == '-' && (i < 2 || !strchr("eE", s[i - 2])))) &&
		    (i + n == len || !strchr(".eE", s[i + n])) &&
		    (n > sizeof(max) - 1 ||
		     (n == sizeof(max) - 1 && memcmp(s + i, max, n) > 0)))
			return true;
		i += n - 1;
	}
	return false;
}

int fl_json_parse(const char *s, size_t len, struct json_object **out)
{
	struct json_tokener *tok;
	struct json_object *o;
	enum json_tokener_error e;

	*out = NULL;
	if (!s || len > INT_MAX || int_overflows(s, len))
		return -EINVAL;
	tok = json_tokener_new_ex(FL_JSON_DEPTH);
	if (!tok)
		return -ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, s, (int)len);
	e = json_tokener_get_error(tok);
	if (o && e == json_tokener_success &&
	    json_tokener_get_parse_end(tok) == len) {
		*out = o;
		json_tokener_free(tok);
		return 0;
	}
	json_object_put(o);
	json_tokener_free(tok);
	return -EINVAL; /* json-c 0.16 has no error code for ENOMEM */
}

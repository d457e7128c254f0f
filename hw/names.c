// SPDX-License-Identifier: MIT
/*
 * names.c - the one table of names for the hardware's numbers
 * (include/sacc_hw_names.h).  Indexed by the number itself, so adding
 * an opcode or a status to sacc_hw.h means adding one line here.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "sacc_hw_names.h"

struct hw_name {
	const char *name; /* identifier (journal, JSON); NULL: none needed */
	const char *text; /* phrase (messages, tables) */
};

static const struct hw_name opcodes[] = {
    [SACC_OP_NOP] = {"nop", "nop"},
    [SACC_OP_MEMCPY] = {"memcpy", "memcpy"},
    [SACC_OP_XFORM] = {"xform", "xform"},
    [SACC_OP_WRITE_INLINE] = {"write-inline", "write inline"},
    [SACC_OP_TIMESTAMP] = {"timestamp", "timestamp"},
    [SACC_OP_FILL] = {"fill", "fill"},
    [SACC_OP_SEGMENT] = {"segment", "segment"},
#ifdef SACC_HW_NAMES_TEST
    /* tests only: an opcode the tools must learn from this table alone */
    [0x7e] = {"test-fake", "test fake"},
#endif
};

static const struct hw_name statuses[] = {
    [SACC_STS_OK] = {NULL, "ok"},
    [SACC_STS_BAD_OPCODE] = {NULL, "bad opcode"},
    [SACC_STS_DMA_FAULT] = {NULL, "DMA fault"},
    [SACC_STS_BAD_LENGTH] = {NULL, "bad length"},
};

static const struct hw_name err_codes[] = {
    [SACC_ERR_NONE] = {NULL, "none"},
    [SACC_ERR_BAD_OPCODE] = {NULL, "unknown opcode"},
    [SACC_ERR_DMA] = {NULL, "DMA fault or misaligned ring base"},
    [SACC_ERR_INVALID] = {NULL, "bad size, doorbell or CQ_HEAD value"},
    [SACC_ERR_NOT_READY] = {NULL, "doorbell while not READY"},
};

static const struct hw_name accesses[] = {
    [SACC_FAULT_DESC_FETCH] = {"desc_fetch", "descriptor fetch"},
    [SACC_FAULT_SRC_READ] = {"src_read", "source read"},
    [SACC_FAULT_DST_WRITE] = {"dst_write", "destination write"},
    [SACC_FAULT_CQ_WRITE] = {"cq_write", "completion write"},
    [SACC_FAULT_PUT_READ] = {"put_read", "PUT word read"},
    [SACC_FAULT_INLINE_READ] = {"inline_read", "inline payload read"},
    [SACC_FAULT_DEV_READ] = {"dev_read", "device memory read out of range"},
    [SACC_FAULT_DEV_WRITE] = {"dev_write",
                              "device memory write out of range"},
    [SACC_FAULT_SEGMENT_READ] = {"segment_read", "segment fetch"},
};

/* The entry for number @i, NULL if the table has none. */
static const struct hw_name *entry(const struct hw_name *t, size_t n,
				   uint64_t i)
{
	return i < n && t[i].text ? &t[i] : NULL;
}

static int parse(const struct hw_name *t, size_t n, const char *name,
		 unsigned int *out)
{
	for (size_t i = 0; name && i < n; i++) {
		if (t[i].name && !strcmp(name, t[i].name)) {
			*out = (unsigned int)i;
			return 0;
		}
	}
	return -EINVAL;
}

#define ENTRY(t, i)	 entry(t, sizeof(t) / sizeof((t)[0]), i)
#define PARSE(t, s, out) parse(t, sizeof(t) / sizeof((t)[0]), s, out)

const char *sacc_op_name(unsigned int opcode)
{
	const struct hw_name *e = ENTRY(opcodes, opcode);

	return e ? e->name : NULL;
}

int sacc_op_parse(const char *name, unsigned int *opcode)
{
	return PARSE(opcodes, name, opcode);
}

const char *sacc_opcode_str(unsigned int opcode)
{
	const struct hw_name *e = ENTRY(opcodes, opcode);

	return e ? e->text : "unknown";
}

const char *sacc_status_str(unsigned int status)
{
	const struct hw_name *e = ENTRY(statuses, status);

	return e ? e->text : "unknown status";
}

const char *sacc_err_code_str(uint32_t err_code)
{
	const struct hw_name *e = ENTRY(err_codes, err_code);

	return e ? e->text : "unknown error code";
}

const char *sacc_fault_access_name(unsigned int access)
{
	const struct hw_name *e = ENTRY(accesses, access);

	return e ? e->name : NULL;
}

int sacc_fault_access_parse(const char *name, unsigned int *access)
{
	return PARSE(accesses, name, access);
}

const char *sacc_fault_access_str(uint32_t fault_info)
{
	const struct hw_name *e =
	    ENTRY(accesses, fault_info & SACC_FAULT_ACCESS_MASK);

	return e ? e->text : "unknown access";
}

static const struct {
	const struct hw_name *t;
	size_t n;
	const char *key; /* in sacc_hw_names_json() */
} tables[] = {
    [SACC_HW_OPCODES] = {opcodes, sizeof(opcodes) / sizeof(opcodes[0]),
			 "opcodes"},
    [SACC_HW_STATUSES] = {statuses, sizeof(statuses) / sizeof(statuses[0]),
			  "statuses"},
    [SACC_HW_ERR_CODES] = {err_codes,
			   sizeof(err_codes) / sizeof(err_codes[0]),
			   "err_codes"},
    [SACC_HW_FAULT_ACCESSES] = {accesses,
				sizeof(accesses) / sizeof(accesses[0]),
				"fault_accesses"},
};

void sacc_hw_names_each(enum sacc_hw_table which, sacc_hw_name_fn fn,
			void *arg)
{
	if ((unsigned int)which >= sizeof(tables) / sizeof(tables[0]))
		return;
	for (size_t i = 0; i < tables[which].n; i++)
		if (tables[which].t[i].text)
			fn((unsigned int)i, tables[which].t[i].name,
			   tables[which].t[i].text, arg);
}

struct json_out {
	FILE *f;
	const char *comma;
};

/* Our own strings, identifiers and phrases: nothing JSON would need
 * escaped (the Python tools' test parses the output). */
static void entry_json(unsigned int num, const char *name, const char *text,
		       void *arg)
{
	struct json_out *o = arg;

	fprintf(o->f, "%s\"%u\": {\"name\": ", o->comma, num);
	if (name)
		fprintf(o->f, "\"%s\"", name);
	else
		fputs("null", o->f);
	fprintf(o->f, ", \"text\": \"%s\"}", text);
	o->comma = ", ";
}

int sacc_hw_names_json(FILE *f)
{
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
		struct json_out o = {f, ""};

		fprintf(f, "%s\"%s\": {", t ? ", " : "{", tables[t].key);
		sacc_hw_names_each((enum sacc_hw_table)t, entry_json, &o);
		fputc('}', f);
	}
	fputs("}\n", f);
	return ferror(f) ? -EIO : 0;
}

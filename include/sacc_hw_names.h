/* SPDX-License-Identifier: MIT */
/*
 * sacc_hw_names.h - the names of sacc_hw.h's numbers: opcodes,
 * completion status, ERR_CODE and the FAULT_INFO access codes.
 *
 * The one table of them (hw/names.c), shared by libsacc, faultlog/ and
 * saccctl, so a number is called the same everywhere.  Two kinds of name:
 *   *_name()  a stable lower-case identifier for machines (journal and
 *             JSON fields: "memcpy", "desc_fetch"); NULL if unknown, and
 *             a *_parse() for the way back.
 *   *_str()   a phrase for people (messages and tables: "descriptor
 *             fetch"); never NULL ("unknown ..." if unknown).
 */
#ifndef SACC_HW_NAMES_H
#define SACC_HW_NAMES_H

#include <stdint.h>
#include <stdio.h>

#include "sacc_hw.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opcodes: "nop", "memcpy", "xform", "write-inline", "timestamp". */
const char *sacc_op_name(unsigned int opcode);		   /* NULL if unknown */
int sacc_op_parse(const char *name, unsigned int *opcode); /* 0, -EINVAL */
const char *sacc_opcode_str(unsigned int opcode);	   /* "unknown" */

/* Completion status (SACC_STS_*): "ok", "bad opcode", "DMA fault", ... */
const char *sacc_status_str(unsigned int status);

/* ERR_CODE (SACC_ERR_*): "none", "unknown opcode", ... */
const char *sacc_err_code_str(uint32_t err_code);

/* FAULT_INFO access codes (SACC_FAULT_DESC_FETCH...): "desc_fetch",
 * "src_read", "dst_write", "cq_write", "put_read", "inline_read". */
const char *sacc_fault_access_name(unsigned int access); /* NULL if unknown */
int sacc_fault_access_parse(const char *name, unsigned int *access);
/* For a whole FAULT_INFO value (the access bits): "descriptor fetch". */
const char *sacc_fault_access_str(uint32_t fault_info);

/* Every entry of one table, in number order. */
enum sacc_hw_table {
	SACC_HW_OPCODES,
	SACC_HW_STATUSES,
	SACC_HW_ERR_CODES,
	SACC_HW_FAULT_ACCESSES,
};
typedef void (*sacc_hw_name_fn)(unsigned int num, const char *name,
				const char *text, void *arg);
void sacc_hw_names_each(enum sacc_hw_table which, sacc_hw_name_fn fn,
			void *arg);

/*
 * Every table as one JSON object, numbers as keys:
 *   {"opcodes": {"1": {"name": "memcpy", "text": "memcpy"}, ...},
 *    "statuses": {...}, "err_codes": {...}, "fault_accesses": {...}}
 * (name null where the table has none).  `saccctl names --json` prints
 * it; the Python tools (telemetry/tools/sacc_names.py) read it, so a new
 * number is named in hw/names.c alone.  0, or -EIO if writing failed.
 */
int sacc_hw_names_json(FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* SACC_HW_NAMES_H */

/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - what the libFuzzer targets share: the entry point's
 * prototype, a NUL-terminated copy of the input, and an oracle check
 * that aborts (libFuzzer then saves the input as a crash artifact).
 */
#ifndef SACC_FUZZ_H
#define SACC_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* @data as a C string in a buffer of exactly size + 1 bytes (ASan sees
 * any read past its end), or NULL. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

#define FUZZ_ASSERT(cond)                                                      \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: oracle failed: %s\n",          \
				__FILE__, __LINE__, #cond);                    \
			abort();                                               \
		}                                                              \
	} while (0)

#endif /* SACC_FUZZ_H */

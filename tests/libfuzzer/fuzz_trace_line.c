// SPDX-License-Identifier: MIT
/*
 * fuzz_trace_line.c - sacc_trace_parse_line() and the line detector:
 * one line of QEMU's log trace backend.
 */
#include <errno.h>

#include "fuzz.h"
#include "sacc_faultlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sacc_trace_event ev;
	enum sacc_faultlog_input kind;
	char *line = fuzz_cstr(data, size);
	int r;

	if (!line)
		return 0;
	r = sacc_trace_parse_line(line, &ev);
	FUZZ_ASSERT(r == 1 || r == 0 || r == -EINVAL);
	if (r == 1)
		FUZZ_ASSERT(ev.kind == SACC_TRACE_DMAR_FAULT ||
			    ev.kind == SACC_TRACE_FRR_NEW);
	kind = sacc_faultlog_detect(line);
	FUZZ_ASSERT(kind == SACC_FAULTLOG_KMSG ||
		    kind == SACC_FAULTLOG_JOURNAL ||
		    kind == SACC_FAULTLOG_QEMU_TRACE);
	FUZZ_ASSERT((r == 1) == (kind == SACC_FAULTLOG_QEMU_TRACE));
	free(line);
	return 0;
}

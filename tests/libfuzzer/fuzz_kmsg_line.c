// SPDX-License-Identifier: MIT
/*
 * fuzz_kmsg_line.c - sacc_kmsg_parse_line(): one guest kernel log line
 * (kmsg record, dmesg, syslog or bare DMAR message).
 */
#include <errno.h>

#include "fuzz.h"
#include "sacc_faultlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sacc_kmsg_event ev;
	char *line = fuzz_cstr(data, size);
	int r;

	if (!line)
		return 0;
	r = sacc_kmsg_parse_line(line, &ev);
	FUZZ_ASSERT(r == 1 || r == 0 || r == -EINVAL);
	FUZZ_ASSERT(memchr(ev.reason_text, '\0', sizeof(ev.reason_text)));
	if (r == 1)
		FUZZ_ASSERT(ev.kind != SACC_KMSG_NONE && !ev.user_forged);
	else
		FUZZ_ASSERT(r || ev.kind == SACC_KMSG_NONE);
	free(line);
	return 0;
}

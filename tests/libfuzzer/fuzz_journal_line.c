// SPDX-License-Identifier: MIT
/*
 * fuzz_journal_line.c - sacc_journal_parse_line(): one journal line.
 * Oracle: an event the parser accepts and the formatter can write
 * reads back as the same event.
 */
#include <errno.h>

#include "fuzz.h"
#include "sacc_faultlog.h"

static void same(const struct sacc_journal_event *a,
		 const struct sacc_journal_event *b)
{
	FUZZ_ASSERT(a->ev == b->ev && a->t_ns == b->t_ns && a->pid == b->pid &&
		    !strcmp(a->bdf, b->bdf) && a->domain == b->domain &&
		    a->sid == b->sid);
	switch (a->ev) {
	case SACC_JEV_MAP:
	case SACC_JEV_UNMAP:
		FUZZ_ASSERT(!strcmp(a->name, b->name) && a->iova == b->iova &&
			    a->len == b->len && a->perm == b->perm);
		break;
	case SACC_JEV_RANGES:
		FUZZ_ASSERT(a->nr_ranges == b->nr_ranges);
		for (uint32_t i = 0; i < a->nr_ranges; i++)
			FUZZ_ASSERT(a->ranges[i].start == b->ranges[i].start &&
				    a->ranges[i].end == b->ranges[i].end);
		break;
	case SACC_JEV_FAULT:
		FUZZ_ASSERT(a->req_id == b->req_id && a->opcode == b->opcode &&
			    a->status == b->status && a->addr == b->addr &&
			    a->access == b->access && a->write == b->write &&
			    a->fatal == b->fatal &&
			    a->has_fault_count == b->has_fault_count &&
			    a->has_length == b->has_length);
		FUZZ_ASSERT(!a->has_fault_count ||
			    a->fault_count == b->fault_count);
		FUZZ_ASSERT(!a->has_length || a->length == b->length);
		break;
	case SACC_JEV_RESET:
		break;
	case SACC_JEV_ROTATED:
		FUZZ_ASSERT(a->rotations == b->rotations &&
			    a->rotated_faults == b->rotated_faults &&
			    a->rotated_bytes == b->rotated_bytes);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sacc_journal_event ev, again;
	static char buf[4096];
	char *line = fuzz_cstr(data, size);
	int r, n;

	if (!line)
		return 0;
	r = sacc_journal_parse_line(line, &ev);
	FUZZ_ASSERT(r == 1 || r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r == 1) {
		FUZZ_ASSERT(ev.nr_ranges <= SACC_IOMMU_MAX_RANGES);
		FUZZ_ASSERT(memchr(ev.name, '\0', sizeof(ev.name)));
		n = sacc_journal_format(&ev, buf, sizeof(buf));
		FUZZ_ASSERT(n > 0 || n == -EINVAL);
		if (n > 0) {
			FUZZ_ASSERT(sacc_journal_parse_line(buf, &again) == 1);
			same(&ev, &again);
		}
	}
	free(line);
	return 0;
}

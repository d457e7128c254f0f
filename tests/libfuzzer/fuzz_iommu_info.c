// SPDX-License-Identifier: MIT
/*
 * fuzz_iommu_info.c - sacc_iommu_parse_info(): a VFIO_IOMMU_GET_INFO
 * buffer and its capability chain, as the kernel would return it.  The
 * input is copied into a buffer of exactly its size, so ASan sees any
 * read past the end.
 */
#include <errno.h>

#include "fuzz.h"
#include "sacc_iommu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sacc_iommu_info info;
	struct sacc_err err = {0};
	uint8_t *buf = malloc(size ? size : 1);
	int r;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	r = sacc_iommu_parse_info(buf, size, &info, &err);
	FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -EMSGSIZE);
	FUZZ_ASSERT(!r || (err.code && err.msg[0]));
	if (!r) {
		FUZZ_ASSERT(info.nr_ranges <= SACC_IOMMU_MAX_RANGES);
		for (uint32_t i = 0; i < info.nr_ranges; i++)
			FUZZ_ASSERT(info.ranges[i].start <= info.ranges[i].end);
		FUZZ_ASSERT(!info.has_iova_ranges || info.has_caps);
	}
	free(buf);
	return 0;
}

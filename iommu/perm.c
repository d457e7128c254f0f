// SPDX-License-Identifier: MIT
/*
 * perm.c - least-privilege permissions: which VFIO map flags a DMA
 * direction gets, and its name.  Pure; the registry (registry.c) and
 * the DMA context (dma.c) both build on it, so neither needs the other
 * for this.
 */
#include <linux/vfio.h>

#include "sacc_iommu.h"

uint32_t sacc_dma_dir_flags(enum sacc_dma_dir dir)
{
	switch (dir) {
	case SACC_DMA_TO_DEVICE:
		return VFIO_DMA_MAP_FLAG_READ;
	case SACC_DMA_FROM_DEVICE:
		return VFIO_DMA_MAP_FLAG_WRITE;
	case SACC_DMA_BIDIRECTIONAL:
		return VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE;
	}
	return 0;
}

const char *sacc_dma_dir_name(enum sacc_dma_dir dir)
{
	switch (dir) {
	case SACC_DMA_TO_DEVICE:
		return "to_device";
	case SACC_DMA_FROM_DEVICE:
		return "from_device";
	case SACC_DMA_BIDIRECTIONAL:
		return "bidirectional";
	}
	return "invalid";
}

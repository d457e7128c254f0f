/* SPDX-License-Identifier: MIT */
/*
 * sacc_types.h - the few types and sizes the SACC libraries share with
 * their users: a PCI address's length, the DMA direction of a buffer,
 * a usable IOVA range and the length of a mapping's name.
 *
 * libsacc.h (public) and iommu/ and faultlog/ (internal) all speak
 * these, so they live here rather than in any one library's header:
 * a libsacc user sees them without seeing iommu/.  Header only, no
 * dependencies beyond <stdint.h>.
 */
#ifndef SACC_TYPES_H
#define SACC_TYPES_H

#include <stdint.h>

/* "0000:00:03.0" plus NUL, with room to spare. */
#define SACC_BDF_MAX 16

/* A DMA mapping's name (buffer names, fault reports), NUL included. */
#define SACC_DMA_NAME_MAX 64

/* What the device may do with a buffer; it is mapped with no more. */
enum sacc_dma_dir {
	SACC_DMA_TO_DEVICE = 1,	    /* device only reads: READ only */
	SACC_DMA_FROM_DEVICE = 2,   /* device only writes: WRITE only (but
				     * Linux 5.10-6.15 intel-iommu adds R) */
	SACC_DMA_BIDIRECTIONAL = 3, /* READ | WRITE */
};

/* IOVA the IOMMU lets a container use (VFIO_IOMMU_GET_INFO); at most
 * SACC_IOMMU_MAX_RANGES of them are kept (a big enough array). */
#define SACC_IOMMU_MAX_RANGES 64

struct sacc_iova_range {
	uint64_t start;
	uint64_t end; /* inclusive, as VFIO reports it */
};

#endif /* SACC_TYPES_H */

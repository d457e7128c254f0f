/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sacc_dma_devmem.h - SACC's device memory (BAR4) for kernel clients of
 * sacc_dma's dmaengine channels.
 *
 * sacc_dma_devmem_alloc() returns the CPU's (write-combining, __iomem)
 * mapping of @size bytes of device memory and, in @addr, the address a
 * client passes to dmaengine_prep_dma_memcpy()/memset() on any channel
 * of the same device, as source or destination, beside ordinary DMA API
 * addresses: copies in all four directions.  That address is BAR4's PCI
 * bus address (what pci_p2pmem_virt_to_bus() would give with P2PDMA,
 * which Debian's kernel does not build); the DMA API's IOVA allocator
 * never hands out addresses in the host bridge's windows, so it cannot be
 * mistaken for a mapped buffer, and the driver turns it into a device
 * address with SRC_DEV/DST_DEV (docs/spec.md section 18): the device
 * reaches its own memory directly, never through the IOMMU.
 *
 * The memory is the device's: a function reset zeroes it, and it is
 * given back at remove.  Free it before releasing the channel.
 */
#ifndef SACC_DMA_DEVMEM_H
#define SACC_DMA_DEVMEM_H

#include <linux/dmaengine.h>

void __iomem *sacc_dma_devmem_alloc(struct dma_chan *chan, size_t size,
				    dma_addr_t *addr);
void sacc_dma_devmem_free(struct dma_chan *chan, void __iomem *cpu,
			  size_t size);
/* Is @chan one of sacc_dma's?  Other drivers' channels are not. */
bool sacc_dma_is_sacc_chan(struct dma_chan *chan);

#endif /* SACC_DMA_DEVMEM_H */

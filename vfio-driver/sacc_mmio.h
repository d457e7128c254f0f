/* SPDX-License-Identifier: MIT */
/*
 * sacc_mmio.h - the only way libsacc loads from or stores to mmapped BAR
 * memory: 32-bit little-endian accesses through a volatile pointer, with
 * the ordering a driver needs around them, like Linux's readl()/writel(),
 * libvfn's mmio_read32()/mmio_write32() and SPDK's spdk_mmio_*_4().
 *
 * The ordering, and why:
 *   write  a release fence first, so the descriptors, ring indices and
 *          reaped CQ entries we touched before are done before the
 *          device sees the doorbell or the CQ_HEAD that tells it so;
 *   read   an acquire fence after, so nothing we read from DMA memory
 *          after checking STATUS (or any register) is read before it.
 * On x86 both fences are compiler barriers only: loads and stores to
 * uncached MMIO are not reordered with other memory accesses there.
 *
 * SACC's 64-bit registers are written as two 32-bit halves, low first
 * (spec: allowed, and what pwrite() on vfio-pci can do), by regs.c.
 */
#ifndef SACC_MMIO_H
#define SACC_MMIO_H

#include <endian.h>
#include <stdatomic.h>
#include <stdint.h>

static inline uint32_t sacc_mmio_read32(const volatile void *base, uint32_t off)
{
	uint32_t v =
	    *(const volatile uint32_t *)((const volatile char *)base + off);

	atomic_thread_fence(memory_order_acquire);
	return le32toh(v);
}

static inline void sacc_mmio_write32(volatile void *base, uint32_t off,
				     uint32_t val)
{
	atomic_thread_fence(memory_order_release);
	*(volatile uint32_t *)((volatile char *)base + off) = htole32(val);
}

#endif /* SACC_MMIO_H */

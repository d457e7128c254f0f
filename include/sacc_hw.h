/* SPDX-License-Identifier: MIT */
/*
 * sacc_hw.h - the SACC hardware interface, as docs/spec.md defines it.
 *
 * This is the only place register offsets, bits, ring entry layouts,
 * opcodes and status codes are written down in C.  It is included by the
 * QEMU device model (qemu-model/) and by the userspace driver, so the two
 * can never disagree.  Keep it free of QEMU and libc dependencies beyond
 * <stdint.h>.
 */
#ifndef SACC_HW_H
#define SACC_HW_H

#include <stdint.h>

/* PCI identity */
#define SACC_PCI_VENDOR_ID		0x1b36
#define SACC_PCI_DEVICE_ID		0x1092
#define SACC_PCI_SUBSYS_VENDOR_ID	0x1b36
#define SACC_PCI_SUBSYS_ID		0x1092
#define SACC_PCI_REVISION		0x01
#define SACC_PCI_CLASS			0x120000 /* processing accelerator */

/* BARs */
#define SACC_BAR_REGS			0
#define SACC_BAR0_SIZE			0x2000	/* page 0 registers, page 1 doorbell */
#define SACC_BAR_MSIX			1
#define SACC_BAR1_SIZE			0x1000
#define SACC_MSIX_VECTORS		1
#define SACC_MSIX_TABLE_OFFSET		0x000
#define SACC_MSIX_PBA_OFFSET		0x800
#define SACC_PAGE_SIZE			0x1000

/* BAR0 page 0: registers (little endian, 32-bit; 64-bit ones also as LO/HI) */
#define SACC_REG_MAGIC			0x00	/* RO */
#define SACC_REG_VERSION		0x04	/* RO */
#define SACC_REG_CTRL			0x08	/* RW */
#define SACC_REG_STATUS			0x0C	/* RO */
#define SACC_REG_SQ_BASE		0x10	/* RW 64 (LO 0x10, HI 0x14) */
#define SACC_REG_SQ_SIZE		0x18	/* RW */
#define SACC_REG_CQ_BASE		0x20	/* RW 64 (LO 0x20, HI 0x24) */
#define SACC_REG_CQ_SIZE		0x28	/* RW */
#define SACC_REG_CQ_HEAD		0x30	/* WO, reads 0 */
#define SACC_REG_IRQ_STATUS		0x34	/* RO */
#define SACC_REG_IRQ_ACK		0x38	/* WO, write 1s to clear */
#define SACC_REG_ERR_CODE		0x3C	/* RO, last error, kept until reset */
#define SACC_REG_SCRATCH		0x40	/* RW */
#define SACC_REG_FAULT_ADDR		0x48	/* RO 64 (LO 0x48, HI 0x4C) */
#define SACC_REG_FAULT_INFO		0x50	/* RO */
#define SACC_REG_FAULT_REQ_ID		0x54	/* RO */
#define SACC_REG_FAULT_COUNT		0x58	/* RO, saturating */

/* BAR0 page 1: doorbell */
#define SACC_DOORBELL_OFFSET		0x1000	/* WO: new SQ tail, reads 0 */

#define SACC_MAGIC			0x4A4E524Fu	/* "ORNJ" in memory */
#define SACC_VERSION			1u

/* CTRL */
#define SACC_CTRL_ENABLE		(1u << 0)
#define SACC_CTRL_RESET			(1u << 1)	/* self-clearing, reads 0 */

/* STATUS */
#define SACC_STATUS_READY		(1u << 0)
#define SACC_STATUS_ERROR		(1u << 1)

/* IRQ_STATUS / IRQ_ACK */
#define SACC_IRQ_COMPLETION		(1u << 0)
#define SACC_IRQ_FATAL			(1u << 1)

/* ERR_CODE: the last error the device saw; kept until reset */
#define SACC_ERR_NONE			0u
#define SACC_ERR_BAD_OPCODE		1u	/* a descriptor had an unknown opcode */
#define SACC_ERR_DMA			2u	/* DMA fault or misaligned ring base */
#define SACC_ERR_INVALID		3u	/* bad size, doorbell or CQ_HEAD value */
#define SACC_ERR_NOT_READY		4u	/* doorbell while not READY */

/* FAULT_INFO */
#define SACC_FAULT_ACCESS_MASK		0xffu
#define SACC_FAULT_DESC_FETCH		0u
#define SACC_FAULT_SRC_READ		1u
#define SACC_FAULT_DST_WRITE		2u
#define SACC_FAULT_CQ_WRITE		3u
#define SACC_FAULT_IS_WRITE		(1u << 8)

/* Ring geometry */
#define SACC_RING_MIN_ENTRIES		2u
#define SACC_RING_MAX_ENTRIES		65536u
#define SACC_SQ_ALIGN			32u
#define SACC_CQ_ALIGN			16u

/* Opcodes */
#define SACC_OP_NOP			0u
#define SACC_OP_MEMCPY			1u
#define SACC_OP_XFORM			2u	/* copy, each byte XOR SACC_XFORM_KEY */
#define SACC_XFORM_KEY			0x17u

#define SACC_MAX_XFER			(1u << 20)	/* 1 MiB */

/* Descriptor flags */
#define SACC_DESC_F_IRQ			(1u << 0)	/* interrupt on completion */

/* Completion status */
#define SACC_STS_OK			0u
#define SACC_STS_BAD_OPCODE		1u
#define SACC_STS_DMA_FAULT		2u
#define SACC_STS_BAD_LENGTH		3u

#define SACC_CQE_PHASE			(1u << 0)

/* Submission queue entry: 32 bytes, little endian */
struct sacc_desc {
	uint64_t src;
	uint64_t dst;
	uint32_t length;
	uint16_t opcode;
	uint16_t flags;
	uint32_t req_id;
	uint32_t reserved;
};

/* Completion queue entry: 16 bytes, little endian.  The device writes
 * bytes 0-13 first and the phase word last, in a separate DMA write. */
struct sacc_cqe {
	uint32_t req_id;
	uint32_t result_len;
	uint32_t reserved;
	uint16_t status;
	uint16_t phase;
};

#define SACC_CQE_PHASE_OFFSET		14u

_Static_assert(sizeof(struct sacc_desc) == 32, "SQ entry is 32 bytes");
_Static_assert(sizeof(struct sacc_cqe) == 16, "CQ entry is 16 bytes");

#endif /* SACC_HW_H */

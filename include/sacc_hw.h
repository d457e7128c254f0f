/* SPDX-License-Identifier: MIT */
/*
 * sacc_hw.h - the SACC hardware interface, as docs/spec.md defines it
 * (v0.3: channels, token doorbells, inline data, timestamps, engine time;
 * v0.4: device memory, copies in every direction, FILL, rings in device
 * memory).
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
#define SACC_BAR_CHAN			2	/* v0.3: device page, channel blocks */
#define SACC_BAR2_SIZE			0x8000
#define SACC_MSIX_VECTORS		64	/* vector k belongs to channel k */
#define SACC_MSIX_TABLE_OFFSET		0x000
#define SACC_MSIX_PBA_OFFSET		0x800
#define SACC_PAGE_SIZE			0x1000
/*
 * v0.4: BAR4 (64-bit, prefetchable, with BAR5) is the device's memory,
 * DEVMEM_SIZE bytes (a power of two, at least a page; 0: no BAR4).
 * A descriptor or ring names it by offset (a "device address"), never
 * through the IOMMU.
 */
#define SACC_BAR_DEVMEM			4
#define SACC_DEVMEM_DEFAULT		(64u << 20)	/* the model's default */

/* Channels (v0.3): CHANNELS of them, 1..SACC_CHANNELS_MAX; channel 0 is
 * the v0.2 device of BAR0 page 0. */
#define SACC_CHANNELS_MAX		64u
#define SACC_CHANNELS_DEFAULT		8u

/*
 * BAR0 page 0: registers (little endian, 32-bit; 64-bit ones also as LO/HI).
 * MAGIC, VERSION and SCRATCH are the device's; CTRL.RESET resets the
 * device; everything else is channel 0's.  A channel block in BAR2 has
 * the channel registers (CTRL to FAULT_COUNT) at these same offsets, and
 * MODE and PUT_ADDR after them.
 */
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

/* Channel block only (v0.3); reserved in BAR0 page 0 */
#define SACC_REG_MODE			0x60	/* RW, locked while ENABLE */
#define SACC_REG_PUT_ADDR		0x68	/* RW 64 (LO 0x68, HI 0x6C), locked */

/* BAR0 page 1: doorbells, all write-only, all read 0 */
#define SACC_DOORBELL_OFFSET		0x1000	/* channel 0's tail doorbell (v0.2) */
#define SACC_DOORBELL_STRIDE		4u
#define SACC_DOORBELL(ch)		(SACC_DOORBELL_OFFSET + (ch) * SACC_DOORBELL_STRIDE)
#define SACC_DOORBELL_TOKEN		0x1400	/* write a channel ID (token mode) */

/* BAR2 page 0: device registers (v0.3) */
#define SACC_DEV_CHANNELS		0x000	/* RO: number of channels */
#define SACC_DEV_ERR_CODE		0x004	/* RO: last error naming no channel */
#define SACC_DEV_CLOCK			0x008	/* RO 64 (LO 0x08, HI 0x0C): ns */
#define SACC_DEV_IRQ_PENDING		0x010	/* RO 64: bit k = channel k's IRQ_STATUS != 0 */
#define SACC_DEV_DEVMEM_SIZE		0x018	/* RO 64 (v0.4): device memory bytes, 0 = none */

/* BAR2 from 0x1000: one block per channel, channel 0's included */
#define SACC_CHAN_BASE			0x1000
#define SACC_CHAN_STRIDE		0x100
#define SACC_CHAN_BLOCK(ch)		(SACC_CHAN_BASE + (ch) * SACC_CHAN_STRIDE)

#define SACC_MAGIC			0x4A4E524Fu	/* "ORNJ" in memory */
#define SACC_VERSION			4u	/* v0.4 */
#define SACC_VERSION_V03		3u	/* what v0.3 devices report */
#define SACC_VERSION_V02		1u	/* what v0.1 and v0.2 devices report */

/* CTRL */
#define SACC_CTRL_ENABLE		(1u << 0)
#define SACC_CTRL_RESET			(1u << 1)	/* self-clearing, reads 0; in BAR0
							 * page 0 the device, in a channel
							 * block that channel */

/* MODE (channel block): chosen at enable, 0 = a v0.2 channel */
#define SACC_MODE_TOKEN			(1u << 0)	/* token doorbell + PUT word */
#define SACC_MODE_V3			(1u << 1)	/* v0.3 opcodes, engine time in CQEs */
#define SACC_MODE_SQ_DEV		(1u << 2)	/* v0.4: SQ_BASE, PUT_ADDR are device addresses */
#define SACC_MODE_MASK			(SACC_MODE_TOKEN | SACC_MODE_V3 | SACC_MODE_SQ_DEV)
#define SACC_PUT_ALIGN			4u	/* PUT word: 32-bit SQ tail */

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
#define SACC_FAULT_PUT_READ		4u	/* token mode: the PUT word */
#define SACC_FAULT_INLINE_READ		5u	/* inline payload slots of the SQ */
#define SACC_FAULT_DEV_READ		6u	/* v0.4: src in device memory out of range */
#define SACC_FAULT_DEV_WRITE		7u	/* v0.4: dst in device memory out of range */
#define SACC_FAULT_SEGMENT_READ		8u	/* v0.4: a segment's fetch (host memory) */
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
#define SACC_OP_WRITE_INLINE		3u	/* MODE.V3: payload in the SQ slots after it */
#define SACC_OP_TIMESTAMP		4u	/* MODE.V3: fence, then the clock to dst */
#define SACC_OP_FILL			5u	/* MODE.V3, v0.4: src = a 64-bit pattern, repeated over dst */
#define SACC_OP_SEGMENT			6u	/* MODE.V3, v0.4: run the commands of the segment at src */

#define SACC_MAX_XFER			(1u << 20)	/* 1 MiB */
#define SACC_INLINE_MAX			4096u
/* SQ slots an inline payload of @len bytes occupies after its descriptor */
#define SACC_INLINE_SLOTS(len)		(((uint64_t)(len) + 31) / 32)
#define SACC_TIMESTAMP_LEN		8u
/* v0.4 pushbuffer segments: commands in the descriptor format, inline
 * payloads after their WRITE_INLINE, 32..SACC_SEGMENT_MAX bytes, a
 * multiple of 32; no SEGMENT inside a segment. */
#define SACC_SEGMENT_MAX		(64u * 1024)
#define SACC_SEGMENT_ALIGN		32u

/* Round robin (informative, the model's): a turn is at most this much
 * work on one channel before the next channel with work gets its turn. */
#define SACC_TURN_MAX_DESCS		8u
#define SACC_TURN_MAX_BYTES		(1u << 20)

/* Descriptor flags */
#define SACC_DESC_F_IRQ			(1u << 0)	/* interrupt on completion */
#define SACC_DESC_F_SRC_DEV		(1u << 1)	/* MODE.V3, v0.4: src is a device address */
#define SACC_DESC_F_DST_DEV		(1u << 2)	/* MODE.V3, v0.4: dst is a device address */

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
 * bytes 0-13 first and the phase word last, in a separate DMA write.
 * Word 8 is the engine time in ns (saturating) on a MODE.V3 channel, 0
 * otherwise (v0.2 called it reserved). */
struct sacc_cqe {
	uint32_t req_id;
	uint32_t result_len;
	union {
		uint32_t engine_ns;
		uint32_t reserved;
	};
	uint16_t status;
	uint16_t phase;
};

#define SACC_CQE_PHASE_OFFSET		14u

_Static_assert(sizeof(struct sacc_desc) == 32, "SQ entry is 32 bytes");
_Static_assert(sizeof(struct sacc_cqe) == 16, "CQ entry is 16 bytes");
_Static_assert(SACC_MSIX_VECTORS >= SACC_CHANNELS_MAX,
	       "one MSI-X vector per channel");
_Static_assert(SACC_MSIX_VECTORS * 16 <= SACC_MSIX_PBA_OFFSET &&
	       SACC_MSIX_PBA_OFFSET + SACC_MSIX_VECTORS / 8 <= SACC_BAR1_SIZE,
	       "MSI-X table and PBA fit BAR1");
_Static_assert(SACC_DOORBELL(SACC_CHANNELS_MAX) <= SACC_DOORBELL_TOKEN &&
	       SACC_DOORBELL_TOKEN < SACC_BAR0_SIZE,
	       "tail doorbells and the token doorbell share the doorbell page");
_Static_assert(SACC_CHAN_BLOCK(SACC_CHANNELS_MAX) <= SACC_BAR2_SIZE,
	       "every channel block fits BAR2");
_Static_assert(SACC_SEGMENT_MAX % SACC_SEGMENT_ALIGN == 0 &&
	       SACC_SEGMENT_ALIGN == sizeof(struct sacc_desc) &&
	       SACC_SEGMENT_MAX <= SACC_MAX_XFER,
	       "a segment is whole commands, fetched like one copy's source");
_Static_assert(SACC_DEV_DEVMEM_SIZE + 8 <= SACC_CHAN_BASE,
	       "the device registers fit BAR2 page 0");
_Static_assert(SACC_BAR_DEVMEM > SACC_BAR_CHAN && SACC_BAR_DEVMEM % 2 == 0,
	       "BAR4 is a 64-bit BAR pair of its own");
_Static_assert(SACC_REG_PUT_ADDR + 8 <= SACC_CHAN_STRIDE &&
	       SACC_REG_MODE > SACC_REG_FAULT_COUNT,
	       "a channel block holds the v0.2 channel registers, MODE, PUT_ADDR");
_Static_assert(1 + SACC_INLINE_SLOTS(SACC_INLINE_MAX) < SACC_RING_MAX_ENTRIES,
	       "a maximal inline write fits the largest SQ");
_Static_assert(SACC_INLINE_SLOTS(1) == 1 && SACC_INLINE_SLOTS(32) == 1 &&
	       SACC_INLINE_SLOTS(33) == 2 &&
	       SACC_INLINE_SLOTS(SACC_INLINE_MAX) == 128,
	       "inline payload slots are 32 bytes");

#endif /* SACC_HW_H */

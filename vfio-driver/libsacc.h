/* SPDX-License-Identifier: MIT */
/*
 * libsacc.h - userspace VFIO driver for the SACC accelerator.
 *
 * The public header of libsacc.  A sacc_dev owns one SACC function
 * through VFIO (its own container, so its own IOVA space), maps BAR0's
 * register page and doorbell page separately, DMA-maps its rings and
 * buffers (page-granular, guard pages, least privilege) and submits work
 * kernel-bypass style.  It includes only the hardware contract
 * (sacc_hw.h, sacc_hw_names.h) and the shared types (sacc_types.h);
 * the hooks that bypass libsacc's checks are in libsacc_unsafe.h, which
 * is not installed.
 *
 * Errors: every call that can fail returns a negative errno and leaves a
 * message with context, readable with sacc_errmsg(dev) (or
 * sacc_errmsg(NULL) for calls without a device, and for sacc_open()).
 * libsacc never prints, never aborts and never waits on the device
 * without looking at it: sacc_wait() with a negative timeout sleeps in
 * slices and checks the device between them.
 *
 * The device is not trusted: a completion that cannot be the device's
 * (wrong req_id, order, length or status, lost, forged into a slot the
 * device may not write), a device reset behind libsacc's back and a
 * device that stops completing work are device errors: -EIO, and the
 * device is untrusted until sacc_reset().  When the kernel asks for the
 * device back (unbind), libsacc stops it and lets go of it at its next
 * slow-path look (sacc_wait(), sacc_poll(), sacc_check()); every call
 * then returns -ENODEV: sacc_close() it and open it again.  A process
 * that never calls into libsacc keeps the device (and the unbind
 * waiting) until it does or exits.
 *
 * Threads: a sacc_dev is not thread safe; use one per thread or lock
 * around it.  Different devices may be used from different threads.
 * Channels (v0.3, sacc_chan_open()): each channel is a sacc_dev handle
 * of its own, so one thread per channel runs without locks; see there.
 *
 * Typical use:
 *
 *	struct sacc_dev *dev;
 *	struct sacc_buf *src, *dst;
 *	struct sacc_result res;
 *
 *	if (sacc_open("0000:00:03.0", NULL, &dev) < 0)
 *		die(sacc_errmsg(NULL));
 *	sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "src", &src);
 *	sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "dst", &dst);
 *	struct sacc_op op = { .opcode = SACC_OP_MEMCPY, .len = 4096,
 *			      .src = src, .dst = dst };
 *	sacc_submit(dev, &op, 1);
 *	while (sacc_poll(dev, &res, 1) == 0)
 *		;				(bound this loop in real code)
 *	sacc_buf_free(src); sacc_buf_free(dst); sacc_close(dev);
 */
#ifndef LIBSACC_H
#define LIBSACC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sacc_hw.h"	   /* opcodes, status codes, registers, descriptors */
#include "sacc_hw_names.h" /* sacc_opcode_str(), sacc_status_str(), ... */
#include "sacc_types.h"	   /* SACC_BDF_MAX, enum sacc_dma_dir, IOVA range */

#ifdef __cplusplus
extern "C" {
#endif

#define SACC_DEFAULT_ENTRIES 256u

struct sacc_dev;
struct sacc_buf;

/* ---- errors ---- */

/*
 * The message of the last failure: of a call on @dev, or, with @dev
 * NULL, of the last failing libsacc call in this thread (sacc_open()
 * failures are only there, as there is no device).  Never NULL.
 */
const char *sacc_errmsg(const struct sacc_dev *dev);

/* ---- PCI discovery and binding (sysfs; $SACC_SYSFS_ROOT overrides /sys) */

/*
 * Validate and normalise a PCI address: "00:03.0" or "0000:00:03.0"
 * (hex, any case) into "0000:00:03.0".  -EINVAL with a message.
 */
int sacc_bdf_parse(const char *in, char out[SACC_BDF_MAX]);

struct sacc_pci_dev {
	char bdf[SACC_BDF_MAX];
	uint16_t vendor, device;
	uint16_t subsys_vendor, subsys_device;
	uint8_t revision;
	uint32_t class_code; /* 24-bit class/subclass/prog-if */
	bool is_sacc;	     /* vendor/device are SACC's */
	char driver[64];     /* bound driver, "" if none */
	int iommu_group;     /* -1 if none (IOMMU off) */
};

/*
 * Fill @out[0..max) with the SACC devices present, sorted by address.
 * Returns how many there are (may exceed @max), 0 if none, or -errno.
 */
int sacc_pci_list(struct sacc_pci_dev *out, unsigned int max);

/* Identity, driver and group of any PCI device.  -ENODEV if absent. */
int sacc_pci_get(const char *bdf, struct sacc_pci_dev *out);

/* Bound driver's name into @out ("" if none): 1 bound, 0 not, -errno. */
int sacc_pci_driver(const char *bdf, char *out, size_t len);

/* IOMMU group number, or -ENOENT if the device has none. */
int sacc_pci_iommu_group(const char *bdf);

struct sacc_pci_bar {
	uint64_t start;
	uint64_t size;	/* 0: BAR not implemented */
	uint64_t flags; /* IORESOURCE_* as in sysfs "resource" */
};

/* BARs 0-5 from sysfs "resource". */
int sacc_pci_bars(const char *bdf, struct sacc_pci_bar bars[6]);

bool sacc_iommu_enabled(void);	 /* /sys/kernel/iommu_groups non-empty */
bool sacc_vfio_pci_loaded(void); /* /sys/bus/pci/drivers/vfio-pci exists */

/*
 * Would VFIO accept group @group, ignoring @self (may be NULL)?  1 yes;
 * 0 no, with @why naming each member bound to a non-vfio driver, e.g.
 * "0000:00:03.1 is bound to ahci; bind it to vfio-pci or unbind it";
 * -errno if the group cannot be read.
 */
int sacc_group_viable(int group, const char *self, char *why, size_t len);

/*
 * Bind a SACC device to vfio-pci: driver_override, unbind from its
 * current driver, drivers_probe, check.  Refuses non-SACC devices.
 * Checks first, with messages saying what to do: device present, IOMMU
 * on and the device in a group, vfio-pci loaded.  0 if already bound.
 * Does not check the other members of the group (sacc_group_viable()).
 */
int sacc_pci_bind_vfio(const char *bdf);

/* Clear driver_override and unbind from the current driver, if any. */
int sacc_pci_unbind(const char *bdf);

/* ---- open / close ---- */

enum sacc_doorbell {
	/* 32-bit store to the mmapped doorbell page: no kernel entry. */
	SACC_DOORBELL_MMAP = 0,
	/* pwrite() of 4 bytes at BAR0 + 0x1000 on the VFIO device fd. */
	SACC_DOORBELL_SYSCALL = 1,
	/* v0.3, sacc_chan_open() only: MODE.TOKEN; the new tail in the
	 * channel's PUT word (DMA memory), then the channel number to the
	 * token doorbell (BAR0 + 0x1400); the device reads the PUT word. */
	SACC_DOORBELL_PUT_TOKEN = 2,
};

/*
 * Map BAR0 and open VFIO only: no reset, no rings, no interrupts, so
 * sacc_submit()/sacc_poll()/sacc_wait() return -ENOTCONN.  For tools
 * that only read registers (saccctl info) and for fault injection that
 * programs the device by hand.
 */
#define SACC_OPEN_NO_INIT (1u << 0)
/*
 * v0.3: enable channel 0 with MODE.V3 (through its BAR2 block), for
 * SACC_OP_WRITE_INLINE, SACC_OP_TIMESTAMP and engine time in results.
 * Without it channel 0 is the v0.2 device it always was.  Channels
 * opened with sacc_chan_open() are always MODE.V3.
 */
#define SACC_OPEN_V3 (1u << 1)

/*
 * v0.4: the SQ (and with SACC_DOORBELL_PUT_TOKEN the PUT word) in device
 * memory, allocated from the device's (as sacc_devmem_alloc() does) and
 * given back at close; the channel is enabled with MODE.SQ_DEV.
 * libsacc writes descriptors (and inline payloads, and the PUT word)
 * through the BAR4 mapping with plain stores; the device fetches them
 * from its own memory.  The CQ stays in host memory.  sacc_open()
 * (channel 0, with or without SACC_OPEN_V3) and sacc_chan_open() take
 * it.  -ENOTSUP (the message says why) on a device without device
 * memory, -ENOSPC if it has no room left for the ring.
 */
#define SACC_OPEN_SQ_DEV (1u << 2)

struct sacc_open_opts {
	uint32_t sq_entries; /* power of two 2..65536; 0 = 256 */
	uint32_t cq_entries; /* power of two 2..65536; 0 = sq_entries */
	enum sacc_doorbell doorbell;
	unsigned int flags; /* SACC_OPEN_* */
};

/*
 * Open the SACC function at @bdf (NULL @opts: defaults): check binding,
 * container (API version, Type1v2), group (viability, with the names of
 * the devices that spoil it), device fd, bus master, DMA context, BAR0
 * register and doorbell pages, ring buffers, MSI-X vector 0 on an
 * eventfd, CTRL.RESET (vfio-pci has already done an FLR when the device
 * fd was opened), enable, wait for READY.  On failure nothing is
 * left open and sacc_errmsg(NULL) says why and what to do.
 */
int sacc_open(const char *bdf, const struct sacc_open_opts *opts,
	      struct sacc_dev **out);

/*
 * Disable and reset the device (so it cannot DMA any more), then unmap
 * and free every buffer still allocated on it, then close the fds.
 * Safe with NULL.  Buffers of @dev are invalid afterwards.
 */
void sacc_close(struct sacc_dev *dev);

/*
 * Reset (FLR, or CTRL.RESET) and run the init sequence again.  Every
 * outstanding operation is abandoned (no result for it); buffers stay
 * mapped.  Also the way out of a fatal device error or an untrusted
 * completion.  -ENODEV once the kernel took the device back.
 */
int sacc_reset(struct sacc_dev *dev);

/* ---- channels (v0.3) ---- */

/*
 * Open channel @chan (1..sacc_dev_channels(dev) - 1) of @dev, which
 * must be a sacc_open() handle (channel 0) opened without
 * SACC_OPEN_NO_INIT.  The result is a sacc_dev handle for that channel
 * alone: sacc_submit(), sacc_poll(), sacc_wait(), sacc_write(),
 * sacc_check(), sacc_reset() (this channel only), sacc_stats(),
 * sacc_errmsg(), sacc_buf_alloc() and sacc_close() all work on it.  It
 * has its own rings (@opts: sq_entries, cq_entries as for sacc_open();
 * flags: SACC_OPEN_V3, implied, and SACC_OPEN_SQ_DEV), MODE.V3, its
 * doorbell (@opts->doorbell: SACC_DOORBELL_MMAP is channel
 * k's tail doorbell at BAR0 + 0x1000 + 4k, _SYSCALL the same by
 * pwrite(), _PUT_TOKEN the token doorbell with a PUT word), MSI-X vector
 * @chan on its own eventfd, its own counters and error message.
 *
 * Buffers belong to the handle they were allocated on: an op on a
 * channel names buffers allocated on that channel (their names in the
 * mapping registry and fault reports start "ch<k>:").  Device memory
 * (sacc_devmem_alloc() on the channel's handle) comes from the device's
 * one pool, shared by all its handles.
 *
 * Threads: each handle (the device's and every channel's) may be used
 * by its own thread at the same time, without locks.  sacc_chan_open()
 * and sacc_close() of a channel use the device handle: call them from
 * the device's thread while that channel's thread is not using it.
 * sacc_close(dev) closes every channel still open (their handles are
 * invalid afterwards).  sacc_reset(dev) with channels open resets
 * channel 0 only; a device error or unbind is seen by every channel
 * (-EIO / -ENODEV at its next look at the device).
 * -ENOTSUP on a device before v0.3 (no BAR2), -EINVAL for a channel the
 * device does not have, -EBUSY if it is open already.
 */
int sacc_chan_open(struct sacc_dev *dev, unsigned int chan,
		   const struct sacc_open_opts *opts, struct sacc_dev **out);

/* The channel @dev drives: 0 for a sacc_open() handle. */
unsigned int sacc_dev_channel(const struct sacc_dev *dev);
/* CHANNELS of the device (1 for a device before v0.3). */
unsigned int sacc_dev_channels(const struct sacc_dev *dev);
/* The device clock (BAR2 CLOCK, ns; TIMESTAMP's timebase); 0 if none. */
uint64_t sacc_dev_clock(struct sacc_dev *dev);

/*
 * What a handle can do, in one call (dmadev's rte_dma_info_get()): the
 * device's identity, this handle's channel, mode and rings, the opcodes
 * sacc_submit() accepts on it (bit k of @ops: opcode k), and SACC_CAP_*.
 * Nothing is read from the device: it is what libsacc learnt at open.
 */
#define SACC_CAP_V3	(1u << 0) /* MODE.V3: inline, timestamps, engine time */
#define SACC_CAP_FILL	(1u << 1) /* SACC_OP_FILL (v0.4 device, MODE.V3) */
#define SACC_CAP_DEVMEM (1u << 2) /* device memory buffers usable in ops */
#define SACC_CAP_IRQ	(1u << 3) /* interrupts: sacc_wait(), sacc_dev_eventfds() */
#define SACC_CAP_SQ_DEV (1u << 4) /* this handle's SQ is in device memory */
#define SACC_CAP_TOKEN	(1u << 5) /* token doorbell (SACC_DOORBELL_PUT_TOKEN) */
#define SACC_CAP_CHAIN	(1u << 6) /* sacc_chain_create() and _launch() */

struct sacc_dev_info {
	uint32_t version;     /* VERSION: 1 (v0.1, v0.2), 3 (v0.3), 4 (v0.4) */
	uint32_t channels;    /* CHANNELS of the device (1 before v0.3) */
	uint32_t channel;     /* this handle's */
	uint32_t mode;	      /* MODE it was enabled with (SACC_MODE_*) */
	uint32_t caps;	      /* SACC_CAP_* */
	uint32_t sq_entries;  /* ring sizes of this handle */
	uint32_t cq_entries;
	uint32_t max_xfer;    /* bytes per MEMCPY, XFORM, FILL: SACC_MAX_XFER */
	uint32_t inline_max;  /* WRITE_INLINE payload (0 without MODE.V3) */
	uint32_t reserved0;
	uint64_t ops;	      /* bit k: sacc_submit() takes opcode k here */
	uint64_t devmem_size; /* DEVMEM_SIZE, 0: none (v0.4) */
	enum sacc_doorbell doorbell;
	uint32_t reserved[7];
};

/* 0, or -EINVAL for a NULL @dev or @out, -ENOTCONN without rings
 * (SACC_OPEN_NO_INIT). */
int sacc_dev_info(const struct sacc_dev *dev, struct sacc_dev_info *out);

/*
 * The eventfds of @dev, for a program's own epoll or poll loop instead
 * of sacc_wait(): *irq_fd (may be NULL) the one the handle's MSI-X
 * vector signals (ops submitted with SACC_OPF_IRQ), *req_fd (may be
 * NULL) the one the kernel signals when it wants the device back (-1
 * if the kernel has none, and on a channel's handle: the device's
 * handle has it).  Both non-blocking; libsacc keeps owning
 * them (do not read or close them).  When irq_fd is readable, call
 * sacc_irq_take() and then sacc_poll(); when req_fd is, any call
 * (sacc_poll(), sacc_check()) lets the device go and says -ENODEV.
 * -ENOTSUP if the handle has no interrupts.
 */
int sacc_dev_eventfds(const struct sacc_dev *dev, int *irq_fd, int *req_fd);

/*
 * Take what irq_fd has counted (non-blocking): count the interrupts in
 * the stats and acknowledge IRQ_STATUS, as sacc_wait() does.  1 if
 * there was an interrupt, 0 if not, -EIO if it was a fatal one (the
 * device stopped; the message says why), -ENOTSUP without interrupts.
 */
int sacc_irq_take(struct sacc_dev *dev);

/* ---- accessors ---- */

const char *sacc_dev_bdf(const struct sacc_dev *dev);
int sacc_dev_group(const struct sacc_dev *dev);
enum sacc_doorbell sacc_dev_doorbell(const struct sacc_dev *dev);
uint32_t sacc_dev_sq_entries(const struct sacc_dev *dev);
uint32_t sacc_dev_cq_entries(const struct sacc_dev *dev);

/*
 * The container's usable IOVA ranges (VFIO_IOMMU_GET_INFO): up to @max
 * into @out; returns how many there are.  *pgsizes (may be NULL) gets
 * the IOMMU page size bitmap.
 */
int sacc_dev_iova_ranges(const struct sacc_dev *dev,
			 struct sacc_iova_range *out, unsigned int max,
			 uint64_t *pgsizes);

/*
 * The fault journal libsacc appends to for @dev (docs/faults.md):
 * $SACC_JOURNAL_DIR/<bdf>.jsonl, default /run/sacc/<bdf>.jsonl, created
 * with its directory at sacc_open(); `saccctl faults` joins it with the
 * kernel's DMAR messages.  Returns the path, or NULL if there is none
 * (sacc_open() does not fail for that).  *why (may be NULL) gets the
 * reason there is none, or the first failed write, else NULL.
 */
const char *sacc_dev_journal(const struct sacc_dev *dev, const char **why);

/* SQ slots in use (an operation takes 1, a SACC_OP_WRITE_INLINE of
 * len bytes 1 + SACC_INLINE_SLOTS(len)) and not yet reaped; free SQ
 * slots. */
uint32_t sacc_outstanding(const struct sacc_dev *dev);
uint32_t sacc_sq_free(const struct sacc_dev *dev);

/* ---- DMA buffers ---- */

#define SACC_BUF_NAME_MAX SACC_DMA_NAME_MAX

/*
 * Allocate @len bytes (> 0) of fresh zeroed page-granular memory shared
 * with no other buffer, and map it for the device with least privilege:
 * SACC_DMA_TO_DEVICE (device reads: source), SACC_DMA_FROM_DEVICE
 * (device writes: destination), SACC_DMA_BIDIRECTIONAL.  Note that
 * Linux 5.10-6.15's intel-iommu makes every page it maps readable, so a
 * FROM_DEVICE buffer is readable by the device on those kernels
 * (docs/threat-model.md).  Guard pages of
 * unmapped IOVA around it.  @name (may be NULL) names it in fault
 * reports.  -ENOMEM / -ENOSPC name the limit to raise (RLIMIT_MEMLOCK,
 * dma_entry_limit).
 */
int sacc_buf_alloc(struct sacc_dev *dev, size_t len, enum sacc_dma_dir dir,
		   const char *name, struct sacc_buf **out);

/*
 * Unmap and free.  -EBUSY (nothing freed) while a submitted operation
 * still names the buffer: reap it first, or sacc_reset().  NULL is ok.
 */
int sacc_buf_free(struct sacc_buf *buf);

void *sacc_buf_va(const struct sacc_buf *buf);
size_t sacc_buf_len(const struct sacc_buf *buf);
/* The IOVA; 0 for a device memory buffer (it has none). */
uint64_t sacc_buf_iova(const struct sacc_buf *buf);
/* The access mode; SACC_DMA_BIDIRECTIONAL for device memory. */
enum sacc_dma_dir sacc_buf_dir(const struct sacc_buf *buf);
const char *sacc_buf_name(const struct sacc_buf *buf);

/* ---- device memory (v0.4: BAR4) ---- */

/*
 * Allocate @len bytes (1..DEVMEM_SIZE) of the device's own memory:
 * page-granular, first fit, zeroed.  sacc_buf_va() is the CPU's view of
 * the range through the BAR4 mapping (read and write it with plain
 * loads and stores), sacc_buf_devaddr() its device address.  An
 * operation naming it as src or dst (sacc_submit(), sacc_write(),
 * chains) gives the device that address with SACC_DESC_F_SRC_DEV /
 * _DST_DEV, which needs a MODE.V3 handle (a channel, or sacc_open()
 * with SACC_OPEN_V3).  Every handle of a device allocates from the same
 * memory (BAR4 is mapped once, at sacc_open(), when VERSION >= 4 and
 * DEVMEM_SIZE != 0); the buffer belongs to the handle it was allocated
 * on, like a host buffer, and goes with sacc_buf_free() or that
 * handle's sacc_close().  The device reaches its memory without the
 * IOMMU: no guard pages, no access modes, no journal map lines; a range
 * past the end is a per-operation DMA_FAULT (access dev_read /
 * dev_write, FAULT_ADDR the device address).  Device memory is kept
 * across channel resets and CTRL.RESET; an FLR zeroes it (sacc_reset()
 * of the device handle does one, and vfio-pci does at open and close).
 * -ENOTSUP if the device has no device memory (before v0.4, DEVMEM_SIZE
 * 0, BAR4 not mappable: the message says which), -ENOSPC when it is
 * full (the message says how much is in use and free), -EINVAL.
 */
int sacc_devmem_alloc(struct sacc_dev *dev, size_t len, const char *name,
		      struct sacc_buf **out);

/* Is @buf device memory (sacc_devmem_alloc())? */
bool sacc_buf_is_dev(const struct sacc_buf *buf);
/* Its device address (offset into device memory); UINT64_MAX for a
 * host buffer. */
uint64_t sacc_buf_devaddr(const struct sacc_buf *buf);

struct sacc_devmem_info {
	uint64_t size;	       /* DEVMEM_SIZE; 0: none */
	uint64_t used;	       /* bytes allocated, whole pages, on every
				* handle of the device (libsacc's rings in
				* device memory included) */
	uint64_t largest_free; /* the largest allocation that fits now */
	uint32_t buffers;      /* device buffers allocated */
	bool mapped;	       /* BAR4 mapped: sacc_devmem_alloc() works */
	const char *why;       /* !mapped: why not (valid until close) */
};

/* The device memory of @dev's device, as this process uses it. */
int sacc_devmem_info(const struct sacc_dev *dev, struct sacc_devmem_info *out);

/* ---- submission and completion ---- */

#define SACC_OPF_IRQ (1u << 0) /* interrupt on completion (sacc_wait) */

/*
 * SACC_OP_WRITE_INLINE, SACC_OP_TIMESTAMP and SACC_OP_FILL need MODE.V3:
 * a channel from sacc_chan_open(), or channel 0 opened with
 * SACC_OPEN_V3.
 *   WRITE_INLINE: @data (len bytes, 1..SACC_INLINE_MAX) is copied into
 *     the SQ slots after the descriptor; no src.
 *   TIMESTAMP: a fence; the device clock (8 bytes) to dst; no src, len
 *     ignored.
 *   FILL (v0.4): @pattern repeated over len bytes (1..SACC_MAX_XFER) of
 *     dst: byte i of dst is byte i % 8 of the pattern, little endian
 *     (0x0807060504030201 writes 01 02 03 ... 08 01 02 ...); src must
 *     be NULL.
 * v0.4: src and dst may each be a host (DMA) buffer or a device memory
 * buffer (sacc_devmem_alloc()), in any combination (MEMCPY and XFORM in
 * every direction; WRITE_INLINE, TIMESTAMP and FILL to either memory);
 * a device buffer needs a MODE.V3 handle.
 */
struct sacc_op {
	uint16_t opcode;      /* SACC_OP_NOP, _MEMCPY, _XFORM, ... */
	uint16_t flags;	      /* SACC_OPF_* */
	uint32_t len;	      /* bytes, 1..SACC_MAX_XFER; NOP: ignored */
	struct sacc_buf *src; /* device-readable; NOP: NULL */
	size_t src_off;
	struct sacc_buf *dst; /* device-writable; NOP: NULL */
	size_t dst_off;
	uint64_t cookie;  /* returned untouched in the result */
	const void *data; /* WRITE_INLINE: the payload */
	uint64_t pattern; /* FILL (v0.4): the 8 bytes repeated over dst */
};

struct sacc_result {
	uint64_t cookie;
	uint32_t req_id;
	uint32_t len;	     /* requested */
	uint32_t result_len; /* what the device reports done */
	uint16_t opcode;
	uint16_t status; /* SACC_STS_*: per-op outcome */
	bool raw;	 /* submitted with sacc_submit_raw() */
	uint32_t engine_ns; /* MODE.V3: device time on it (ns), else 0 */
};

/*
 * Submit up to @n operations: every one is validated first (opcode,
 * length, buffers of this device, in bounds, device may read src / write
 * dst; device memory and FILL only on a MODE.V3 handle of a v0.4
 * device); if any is invalid nothing is submitted (-EINVAL naming it).
 * Then as many as the SQ has room for get descriptors with driver-chosen
 * req_ids, one release barrier and ONE doorbell for the batch.
 * Returns how many were submitted (0 when the SQ is full), or -errno;
 * -EIO if the device is stopped or untrusted (sacc_reset() it).
 */
int sacc_submit(struct sacc_dev *dev, const struct sacc_op *ops,
		unsigned int n);

/*
 * sacc_submit() without the doorbell (dmadev's rte_dma_copy() without
 * RTE_DMA_OP_FLAG_SUBMIT): the same checks, the descriptors written
 * into the SQ, the device not told.  sacc_doorbell() then hands the
 * device everything enqueued since the last doorbell with one release
 * fence and ONE doorbell (rte_dma_submit()); so does any call that
 * rings (sacc_submit(), sacc_write(), sacc_chain_launch(), ...).
 * Enqueued operations take SQ slots (sacc_outstanding(), sacc_sq_free())
 * but no completion is believed for one before its doorbell, and they
 * are never late (sacc_poll()'s stall checks count rung ones only).
 * Returns as sacc_submit() does; sacc_doorbell() 0 (also with nothing
 * to ring) or -errno.  sacc_unrung(): the SQ slots waiting for it, in
 * sacc_outstanding()'s unit (an enqueued WRITE_INLINE of len bytes is
 * 1 + SACC_INLINE_SLOTS(len)), so the device owes completions exactly
 * while sacc_outstanding() > sacc_unrung(): a reap loop waits on that.
 */
int sacc_enqueue(struct sacc_dev *dev, const struct sacc_op *ops,
		 unsigned int n);
int sacc_doorbell(struct sacc_dev *dev);
uint32_t sacc_unrung(const struct sacc_dev *dev);

/*
 * Reap up to @max completions without blocking, writing CQ_HEAD once
 * (at most CQ_SIZE - 1 per call: all the device may post between two
 * CQ_HEAD writes).  Every completion is checked: a req_id that is not
 * the oldest outstanding one (unknown or out of ring order), a
 * result_len larger than the requested length, an OK status with a
 * short result_len or an unknown status is a device error: counted,
 * reported as -EIO with the details, never passed on as a result; the
 * device is then untrusted until sacc_reset().  Results before the bad
 * entry are returned first.  So is a valid entry in the slot the device
 * must keep free (a forged completion).
 * Every few thousand empty polls (the slow path) it also looks at the
 * device: -EIO if it stopped (fatal error, reset behind our back), if a
 * completion was lost (a valid entry after an empty head), if a
 * completion libsacc took was not the device's (a stall probe: see
 * queue.c), or if nothing completed for 30 s with work outstanding;
 * -ENODEV once the kernel asked for the device back.
 * Returns the number of results (0: none ready) or -errno.
 */
int sacc_poll(struct sacc_dev *dev, struct sacc_result *out, unsigned int max);

/*
 * Sleep until a completion is ready (1), @timeout_ms passes (0; < 0:
 * no timeout) or a device error (-EIO: stopped, reset under us, lost or
 * forged completion, no completion for 30 s with work outstanding) or
 * the kernel asking for the device back (-ENODEV).  Only operations
 * submitted with SACC_OPF_IRQ raise the interrupt.  Waits on the MSI-X
 * and device request eventfds with poll(), in slices of 250 ms with
 * sacc_poll()'s slow-path checks between them (one STATUS read a
 * slice); acknowledges IRQ_STATUS.  Returns at once if a completion is
 * already there.
 */
int sacc_wait(struct sacc_dev *dev, int timeout_ms);

/*
 * Read STATUS: 0 if READY, -EIO (with the fault record) if stopped,
 * -EIO if it was reset or disabled behind libsacc's back, -ENODEV if
 * the kernel asked for the device back (libsacc let go of it).
 */
int sacc_check(struct sacc_dev *dev);

/*
 * Write @len bytes from @data to @dst at @dst_off (dst device-writable,
 * of this handle) with one operation whose result carries @cookie:
 *   SACC_WRITE_INLINE  SACC_OP_WRITE_INLINE, the bytes in the SQ
 *                      (len <= SACC_INLINE_MAX; needs MODE.V3);
 *   SACC_WRITE_DMA     copy into the handle's staging buffer (1 MiB,
 *                      device-readable, allocated at first use) and
 *                      SACC_OP_MEMCPY from there (len <= SACC_MAX_XFER);
 *   SACC_WRITE_AUTO    inline up to the crossover
 *                      (sacc_set_write_crossover(); MODE.V3 only), DMA
 *                      above it.
 * @flags: SACC_OPF_*.  Returns 1 (submitted), 0 (SQ full; reap and
 * retry), -EAGAIN if the staging buffer has no room for @len until
 * earlier DMA writes are reaped, or -errno.
 */
enum sacc_write_mode {
	SACC_WRITE_AUTO = 0,
	SACC_WRITE_INLINE = 1,
	SACC_WRITE_DMA = 2,
};

/* Inline up to this many bytes in SACC_WRITE_AUTO: every size inline
 * can carry.  Measured on this testbed (saccctl bench --sweep ... --op
 * write-inline, QEMU TCG, one write in flight): inline and DMA are
 * within noise up to 4 KiB (~50-80 us a write), so no crossover below
 * SACC_INLINE_MAX (vfio-driver/README.md, "Channels, inline writes"). */
#define SACC_WRITE_INLINE_MAX_DEFAULT 4096u

int sacc_write(struct sacc_dev *dev, struct sacc_buf *dst, size_t dst_off,
	       const void *data, uint32_t len, enum sacc_write_mode mode,
	       uint16_t flags, uint64_t cookie);

/* SACC_WRITE_AUTO's crossover for @dev: inline up to @bytes (0: never
 * inline; capped at SACC_INLINE_MAX).  Channels opened later inherit
 * the device's. */
void sacc_set_write_crossover(struct sacc_dev *dev, uint32_t bytes);
uint32_t sacc_write_crossover(const struct sacc_dev *dev);

/*
 * Chains (the CUDA-graph analog): @n validated operations prepared once
 * as ready descriptors (inline payloads copied into their slots), then
 * launched any number of times.  sacc_chain_launch() copies the
 * prepared descriptors into the SQ, stamps fresh req_ids and rings ONE
 * doorbell; results come from sacc_poll()/sacc_wait() as usual, one per
 * operation, in order, with the ops' cookies.  Launch returns the
 * number of operations submitted, 0 if the SQ has no room for the whole
 * chain (reap and retry: a launch is all or nothing), or -errno.
 * A chain takes at most sq_entries - 1 slots (-EINVAL at create).
 * The chain pins its buffers: sacc_buf_free() of one says -EBUSY until
 * sacc_chain_free().  Free chains before sacc_close() of their handle;
 * they survive sacc_reset().  Same thread rules as the handle.
 */
struct sacc_chain;

int sacc_chain_create(struct sacc_dev *dev, const struct sacc_op *ops,
		      unsigned int n, struct sacc_chain **out);
int sacc_chain_launch(struct sacc_chain *chain);
unsigned int sacc_chain_ops(const struct sacc_chain *chain);
/* Command bytes one launch writes into the SQ: 32 per descriptor plus
 * the inline payload slots (32 bytes each). */
size_t sacc_chain_bytes(const struct sacc_chain *chain);
void sacc_chain_free(struct sacc_chain *chain);

/*
 * Graphs (v0.4, pushbuffer segments, spec section 21): @n validated
 * operations encoded once into a segment of commands (each as
 * sacc_submit() would make its descriptor, device buffers and FILL
 * included; a WRITE_INLINE's payload in the segment's slots after it),
 * then launched any number of times, each launch ONE SQ entry
 * (SACC_OP_SEGMENT) and ONE doorbell, whatever n is: 32 command bytes
 * where a chain copies 32 per op.  Needs a MODE.V3 handle of a v0.4
 * device.  Flags:
 *   SACC_GRAPH_DEVMEM  the segment in device memory (written once
 *                      through BAR4, fetched by the device without the
 *                      IOMMU), else host memory the device may only
 *                      read;
 *   SACC_GRAPH_IRQ     an interrupt when a launch completes (an op's
 *                      SACC_OPF_IRQ is refused: a command has none).
 * Limits: 1..SACC_GRAPH_MAX_OPS ops, and at most SACC_SEGMENT_MAX bytes
 * of segment (32 per op, plus 32 per started 32 bytes of each inline
 * payload): -E2BIG says which op passes it; split the work.  -ENOTSUP
 * on a device before v0.4, -EINVAL on a handle without MODE.V3 or for
 * an invalid op (named, as sacc_submit() names it); nothing is made.
 *
 * sacc_graph_launch(h, g, cookie) launches @g on @h, the handle it was
 * created on: 1 (launched), 0 (the SQ is full: reap and retry), -errno.
 * Launches are in ring order with everything else on @h; several
 * launches of one graph may be outstanding.  Each completes as ONE
 * sacc_result: opcode SACC_OP_SEGMENT, @cookie, len = the graph's ops,
 * engine_ns = the whole segment's time on the engine, and
 *   status 0:   result_len = len (every op ran);
 *   status s:   op number result_len failed with status s (ops before
 *               it ran, none after it; a DMA fault of op 0 may be the
 *               segment's fetch); sacc_graph_explain() says which op it
 *               was and why.
 * The ops' cookies and their own results do not exist in a graph.
 *
 * The graph pins its ops' buffers (sacc_buf_free(): -EBUSY) until it is
 * destroyed, and each launch pins the graph: sacc_graph_destroy() and
 * sacc_graph_update() say -EBUSY while a launch is outstanding (reap
 * it, or sacc_reset()).  sacc_graph_update() rewrites the graph with
 * new ops (same flags; in place when they fit the segment's pages),
 * all or nothing.  Graphs survive sacc_reset() (an FLR zeroes device
 * memory: the segment is written again at the next launch).  Closing
 * the handle lets go of its graphs: then only sacc_graph_destroy()
 * works on them.  Same thread rules as the handle.
 */
struct sacc_graph;

#define SACC_GRAPH_DEVMEM  (1u << 0)
#define SACC_GRAPH_IRQ	   (1u << 1)
#define SACC_GRAPH_MAX_OPS (SACC_SEGMENT_MAX / 32u) /* 2048 */

int sacc_graph_create(struct sacc_dev *dev, const struct sacc_op *ops,
		      unsigned int n, unsigned int flags,
		      struct sacc_graph **out);
int sacc_graph_launch(struct sacc_dev *dev, struct sacc_graph *g,
		      uint64_t cookie);
int sacc_graph_update(struct sacc_graph *g, const struct sacc_op *ops,
		      unsigned int n);
int sacc_graph_destroy(struct sacc_graph *g); /* NULL is ok */
unsigned int sacc_graph_ops(const struct sacc_graph *g);
/* The segment's bytes: what a launch has the device fetch. */
size_t sacc_graph_bytes(const struct sacc_graph *g);
/*
 * A launch's result @r in words, into @buf (@len bytes), returned:
 * "ok: the graph's 10 ops ran (...)", or "op 3 of the graph's 10
 * (memcpy of 4096 bytes from 'a'+0 to 'b'+4096) failed: DMA fault
 * (destination write at IOVA 0x... (guard page after 'b')); ops before
 * it ran, none after it", or that the segment's fetch failed.  The
 * fault record is that of @g's last failed launch sacc_poll() reaped.
 */
const char *sacc_graph_explain(const struct sacc_graph *g,
			       const struct sacc_result *r, char *buf,
			       size_t len);

struct sacc_stats {
	uint64_t submitted; /* descriptors handed to the device */
	uint64_t completed; /* valid completions reaped */
	uint64_t doorbells; /* doorbell writes */
	uint64_t cq_head_writes;
	uint64_t interrupts;	/* MSI-X messages counted by the eventfd */
	uint64_t by_status[4];	/* completions per SACC_STS_* */
	uint64_t device_errors; /* untrusted completions, fatal stops */
	uint64_t abandoned;	/* outstanding ops dropped by resets */
	uint64_t resets;
};

void sacc_stats(const struct sacc_dev *dev, struct sacc_stats *out);
void sacc_stats_clear(struct sacc_dev *dev);

/* ---- API events and clock sync (events.c) ---- */

/*
 * What a profiler sees of each operation, recorded by libsacc itself
 * with CLOCK_MONOTONIC (the guest clock; sacc_monotonic_ns(), the
 * kernel's ktime_get_ns()), so "API time" (submit to reap) can be set
 * against the device's own engine time (sacc_result.engine_ns):
 *   SACC_EV_SUBMIT    one per operation handed to the device (req_id,
 *                     opcode, length), then
 *   SACC_EV_DOORBELL  one per doorbell (tail: the new SQ tail, count:
 *                     operations it covers); the batch's descriptors
 *                     are written, and the submit and doorbell events
 *                     share one clock read just before the doorbell
 *                     write (t_ns);
 *   SACC_EV_REAP      one per completion reaped (req_id, status,
 *                     engine_ns); t_ns: when sacc_poll() first saw the
 *                     batch it belongs to (one clock read per batch).
 * sacc_submit(), sacc_write(), sacc_chain_launch(), sacc_graph_launch()
 * (one submit event a launch: opcode segment, length its ops), the raw
 * submits and sacc_poll() record them; nothing else does.
 *
 * Off by default.  sacc_events_enable() gives the handle (one channel)
 * a ring of @capacity events: the handle's thread writes it without
 * locks or system calls (a TLS read for pid and tid, one clock read per
 * batch, a few stores); one other thread at a time may read it with
 * sacc_events_read() meanwhile.  When it is full, new events are
 * dropped and counted (sacc_events_drops()), never overwritten and
 * never lost silently: read it often enough or make it larger.
 * Enable, disable and resize from the handle's thread while no other
 * thread reads it.  It survives sacc_reset(); sacc_close() frees it.
 */
enum sacc_event_type {
	SACC_EV_SUBMIT = 1,
	SACC_EV_DOORBELL = 2,
	SACC_EV_REAP = 3,
};

struct sacc_event {
	uint64_t t_ns;	    /* CLOCK_MONOTONIC */
	uint32_t pid, tid;  /* of the thread that made the call */
	uint16_t type;	    /* SACC_EV_* */
	uint16_t chan;	    /* the handle's channel */
	uint16_t opcode;    /* submit, reap: SACC_OP_* */
	uint16_t status;    /* reap: SACC_STS_* */
	uint32_t req_id;    /* submit, reap */
	uint32_t length;    /* submit: bytes (0 for NOP; 8 for TIMESTAMP;
			     * a graph's launch: its ops) */
	uint32_t tail;	    /* doorbell: the SQ tail written */
	uint32_t count;	    /* doorbell: operations in the batch */
	uint32_t engine_ns; /* reap: the device's time on it (MODE.V3) */
};

/* Largest ring: 2^24 events (48 bytes each: 768 MiB). */
#define SACC_EVENTS_MAX (1u << 24)

/*
 * Record @dev's events into a new ring of @capacity events (rounded up
 * to a power of two, 2..SACC_EVENTS_MAX); 0 turns recording off and
 * frees the ring.  Events not read yet and the drop count are
 * discarded.  -EINVAL, -ENOMEM.
 */
int sacc_events_enable(struct sacc_dev *dev, uint32_t capacity);
/* Stop (@paused) or resume recording into the ring, which keeps its
 * events and drop count; -ENOENT if recording is off. */
int sacc_events_pause(struct sacc_dev *dev, bool paused);
/* Copy up to @max of the oldest events not read yet into @out, oldest
 * first, and free their room.  Returns how many (0: none, or off). */
unsigned int sacc_events_read(struct sacc_dev *dev, struct sacc_event *out,
			      unsigned int max);
/* Events dropped because the ring was full, since it was enabled. */
uint64_t sacc_events_drops(const struct sacc_dev *dev);
/* Ring capacity (0: recording is off) and events waiting to be read. */
uint32_t sacc_events_capacity(const struct sacc_dev *dev);
uint32_t sacc_events_pending(const struct sacc_dev *dev);

/*
 * One clock-sync sample between the guest clock and the device clock:
 * a SACC_OP_TIMESTAMP round trip on @dev, which must be MODE.V3 (a
 * channel, or sacc_open() with SACC_OPEN_V3; -ENOTSUP if not) and have
 * nothing outstanding (-EBUSY: its results would be consumed here).
 * guest_before_ns is read just before the doorbell, guest_after_ns just
 * after the completion is reaped, device_ns is what the device wrote
 * (its CLOCK: QEMU_CLOCK_REALTIME in the model).  The device clock at
 * guest time g is about device_ns + (g - (before + after) / 2), within
 * half the round trip.  Uses an 8-byte internal buffer allocated at the
 * first call; polls for at most @timeout_ms (-ETIMEDOUT).  The
 * operation is recorded like any other if events are on.
 */
struct sacc_clock_sample {
	uint64_t guest_before_ns;
	uint64_t guest_after_ns;
	uint64_t device_ns;
	unsigned int chan;
};

int sacc_clock_sync(struct sacc_dev *dev, int timeout_ms,
		    struct sacc_clock_sample *out);

/* ---- registers (tools, tests) ---- */

/* 32-bit read of BAR0 (offset 4-aligned, < 0x2000: page 1 is the
 * doorbell, which reads 0).  -EINVAL for a bad offset.  Writes are in
 * libsacc_unsafe.h: they would change the device behind libsacc's back. */
int sacc_reg_read(struct sacc_dev *dev, uint32_t off, uint32_t *val);

#ifdef __cplusplus
}
#endif

#endif /* LIBSACC_H */

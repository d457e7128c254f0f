/* SPDX-License-Identifier: MIT */
/*
 * sacc_priv.h - libsacc internals shared by its .c files.  Not installed,
 * not for tools: saccctl and the tests use libsacc.h only.
 */
#ifndef SACC_PRIV_H
#define SACC_PRIV_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "libsacc.h"
#include "libsacc_unsafe.h" /* defined here too, so the compiler checks */
#include "sacc_hw.h"
#include "sacc_ring.h"
#include "sacc_iommu.h"
#include "sacc_journal.h"

/* Bounds on how long we believe the device (never trust it to answer). */
#define SACC_READY_TIMEOUT_MS 1000
#define SACC_HEALTH_EVERY     4096  /* polls between slow-path checks */
#define SACC_WAIT_SLICE_MS    250   /* sacc_wait() looks at the device */
#define SACC_STALL_PROBE_MS   1000  /* no completion: probe the CQ */
#define SACC_HANG_MS	      30000 /* no completion: the device hung */

struct sacc_graph;
struct sacc_track; /* sacc_track.h */

#define SACC_BUF_MAGIC 0x53414342u /* "SACB" while alive */

struct sacc_buf {
	uint32_t magic;
	bool internal;	   /* a ring: freed by sacc_close only */
	bool is_dev;	   /* v0.4 device memory (devmem.c), not DMA memory */
	uint32_t inflight; /* submitted descriptors naming this buffer */
	uint32_t graphs;   /* graphs whose ops name it (graph.c) */
	struct sacc_dev *dev;
	struct sacc_buf *next; /* dev->bufs list */
	struct sacc_buf *prev;
	/* va, iova, len, map_len, dir.  Device memory: va in the BAR4
	 * mapping, iova 0, map_len whole pages, dir bidirectional. */
	struct sacc_dma_buf dma;
	uint64_t devaddr; /* device memory: the device address (offset) */
	char name[SACC_BUF_NAME_MAX];
};

/* What a descriptor names @b by: its device address or its IOVA. */
static inline uint64_t sacc_buf_addr(const struct sacc_buf *b)
{
	return b->is_dev ? b->devaddr : b->dma.iova;
}

struct sacc_region {
	uint64_t offset; /* in the device fd */
	uint64_t size;
	uint32_t flags;
	bool valid;
};

struct sacc_dev {
	char bdf[SACC_BDF_MAX];
	int group;
	int container_fd;
	int group_fd;
	int device_fd;
	int irq_fd;	  /* eventfd for MSI-X vector 0, or -1 */
	int req_fd;	  /* eventfd for the device request IRQ, or -1 */
	bool irq_enabled; /* VFIO_DEVICE_SET_IRQS done */
	bool has_flr;	  /* VFIO_DEVICE_FLAGS_RESET */
	bool initialised; /* rings programmed, ENABLE set */
	bool broken;	  /* the device lied; reset before reuse */
	bool gone;	  /* the kernel asked for it back; we let go */
	enum sacc_doorbell doorbell;
	unsigned int flags;

	struct sacc_region bar0;
	struct sacc_region cfg;
	struct sacc_region bar4; /* v0.4 device memory (devmem.c) */
	uint32_t version;	 /* VERSION, read at open (a channel: copied) */
	volatile uint32_t *regs; /* BAR0 page 0, NULL if not mmapped */
	volatile uint32_t *db;	 /* BAR0 page 1, NULL if not mmapped */

	struct sacc_dma_ctx *dma; /* iommu/: IOVA, mappings, registry */

	/* Rings: memory in two internal buffers, logic from rings/. */
	struct sacc_buf *sq_buf;
	struct sacc_buf *cq_buf;
	struct sacc_sq sq;
	struct sacc_cq cq;
	uint32_t sq_entries;
	uint32_t cq_entries;
	struct sacc_track *track; /* one per SQ slot */
	struct sacc_cqe *cqe_tmp; /* reap scratch, cq_entries */
	uint32_t next_req_id;
	uint32_t empty_polls;
	uint32_t busy_polls;
	/* sacc_enqueue(): ops pushed but not yet published and rung, from
	 * SQ slot unrung_first on; the next doorbell covers them */
	uint32_t unrung;
	uint32_t unrung_first;
	struct sacc_err why_broken; /* why it is untrusted */
	struct sacc_err why_gone;   /* why it was released */

	/*
	 * Progress watch (health.c, slow path only): since when nothing was
	 * reaped with work outstanding (0: not watching), and the CQ_HEAD
	 * rewind probe that tells a device stuck one completion behind
	 * (a completion libsacc took was not the device's) from a slow one.
	 */
	uint64_t stall_t0;
	uint64_t probe_at;	 /* next probe not before */
	uint64_t probe_armed_at; /* 0: no probe running */
	uint32_t probe_slot; /* the consumed slot CQ_HEAD was moved back to */
	uint32_t hang_ms;    /* SACC_HANG_MS; tests shorten it */
	uint32_t stall_probe_ms; /* SACC_STALL_PROBE_MS; tests shorten it */

	struct sacc_buf *bufs; /* every live buffer */
	struct sacc_graph *graphs; /* every live graph (graph.c) */
	struct sacc_stats stats;
	struct sacc_err err; /* the last failure (sacc_errmsg) */

	/*
	 * v0.3 channels (chan.c).  A channel is a sacc_dev of its own that
	 * shares the device's VFIO fds, DMA context, journal and BAR
	 * mappings (root) and owns its rings, buffers, eventfd, counters
	 * and error message.  regs points at its BAR2 block, so every
	 * register access of this file works on it unchanged.
	 */
	struct sacc_dev *root; /* a channel's device; NULL: the device */
	unsigned int chan;     /* 0 for the device */
	uint32_t db_slot;      /* tail doorbell: byte offset in the page */
	uint32_t mode;	       /* MODE set at enable (SACC_MODE_*) */
	volatile uint32_t *put; /* MODE.TOKEN: the PUT word (in put_buf) */
	struct sacc_buf *put_buf;
	/* the device only */
	struct sacc_region bar2;
	volatile uint32_t *bar2_map; /* BAR2 mmapped once, NULL if none */
	uint32_t channels;	     /* CHANNELS; 1 without BAR2 */
	unsigned int nchans;	     /* channels open besides 0 */
	struct sacc_dev *chans[SACC_CHANNELS_MAX];
	uint32_t inline_max; /* sacc_write(): inline up to here (auto) */
	struct sacc_buf *stage; /* sacc_write() DMA staging, or NULL */
	size_t stage_pos;

	/* v0.4 device memory (devmem.c), the device's only (a channel
	 * allocates from its root's): the BAR4 mapping and its allocator,
	 * NULL if there is none, and then why not. */
	struct sacc_devmem *devmem;
	struct sacc_err devmem_why;

	/* API events (events.c): the ring (NULL while recording is off)
	 * and what the hot path records into (NULL while off or paused);
	 * the clock-sync TIMESTAMP's 8 bytes, allocated at first use. */
	struct sacc_evring *ev_ring;
	struct sacc_evring *ev;
	struct sacc_buf *sync_buf;

	/* Fault journal (journal.c); NULL if it could not be opened. */
	struct sacc_journal *journal;
	uint64_t journal_errors;     /* failed journal writes */
	struct sacc_err journal_err; /* why none / first failure */
};

/* err.c */
int sacc_seterr(struct sacc_dev *dev, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int sacc_vseterr(struct sacc_dev *dev, int err, const char *fmt, va_list ap);
/* -ENODEV with the message, once the device was let go of (unbind.c). */
int sacc_gone_err(struct sacc_dev *dev);

/* sysfs.c */
const char *sacc_sysfs_root(void);

/* vfio.c */
int sacc_vfio_open(struct sacc_dev *dev);
void sacc_vfio_close(struct sacc_dev *dev);
int sacc_cfg_read(struct sacc_dev *dev, uint32_t off, void *buf, size_t len);
int sacc_cfg_write(struct sacc_dev *dev, uint32_t off, const void *buf,
		   size_t len);
int sacc_enable_bus_master(struct sacc_dev *dev);
void sacc_disable_bus_master(struct sacc_dev *dev);

/* regs.c: BAR0 registers (sacc_mmio.h when mmapped, else pread/pwrite) */
uint32_t sacc_rd(struct sacc_dev *dev, uint32_t off);
void sacc_wr(struct sacc_dev *dev, uint32_t off, uint32_t val);
/* 64-bit registers: two halves, low first. */
uint64_t sacc_rd64(struct sacc_dev *dev, uint32_t off);
void sacc_wr64(struct sacc_dev *dev, uint32_t off, uint64_t val);
/*
 * 0 if @val, a register just read, came from the device; -EIO with the
 * message if it is all-ones, which is what a read returns when nothing
 * answers (memory space disabled, device removed).  No register checked
 * this way (MAGIC, STATUS, IRQ_STATUS) can legitimately read all-ones.
 */
int sacc_reg_check(struct sacc_dev *dev, uint32_t val);

/* The device's error and fault record registers, as one snapshot. */
struct sacc_fault_regs {
	uint32_t status;
	uint32_t err_code;
	uint64_t addr; /* FAULT_ADDR */
	uint32_t info; /* FAULT_INFO: access, IS_WRITE */
	uint32_t req_id;
	uint32_t count; /* FAULT_COUNT, since reset */
};
void sacc_fault_regs_read(struct sacc_dev *dev, struct sacc_fault_regs *f);

/* hw.c: the device as the spec brings it up and down */
int sacc_bar_map(struct sacc_dev *dev);
void sacc_bar_unmap(struct sacc_dev *dev);
int sacc_bar2_map(struct sacc_dev *dev);
void sacc_bar2_unmap(struct sacc_dev *dev);
int sacc_irq_enable(struct sacc_dev *dev);
void sacc_irq_disable(struct sacc_dev *dev);
int sacc_hw_identity(struct sacc_dev *dev);
int sacc_hw_reset(struct sacc_dev *dev, bool flr);
int sacc_hw_init(struct sacc_dev *dev);
void sacc_hw_quiesce(struct sacc_dev *dev);

/* unbind.c: the device request IRQ (the kernel wants the device back) */
void sacc_req_enable(struct sacc_dev *dev);
void sacc_req_disable(struct sacc_dev *dev);
/* -ENODEV (and the device let go of) if the kernel asked for it. */
int sacc_req_check(struct sacc_dev *dev);

/* queue.c */
int sacc_queue_alloc(struct sacc_dev *dev);
void sacc_queue_free(struct sacc_dev *dev);
void sacc_queue_abandon(struct sacc_dev *dev);
int sacc_mark_broken(struct sacc_dev *dev, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void sacc_progress_reset(struct sacc_dev *dev);
/* 0 if @dev may take work, else the error (named @what), as
 * sacc_submit() checks it. */
int sacc_queue_ready(struct sacc_dev *dev, const char *what);

static inline uint32_t sacc_next_req_id(struct sacc_dev *dev)
{
	uint32_t id = dev->next_req_id;

	/* 1..INT32_MAX: never 0 (FAULT_REQ_ID's "no descriptor"), and
	 * representable as sacc_submit_raw()'s positive return value. */
	dev->next_req_id = id >= INT32_MAX ? 1 : id + 1;
	return id;
}

/* submit.c */
/* 0 if op @i of a submission is one the device may be given, else the
 * error (sacc_submit(), sacc_write(), sacc_chain_create()). */
int sacc_check_op(struct sacc_dev *dev, const struct sacc_op *op,
		  unsigned int i);
/* The same for a command of a graph's segment (@segment): an inline
 * payload goes into the segment, so the SQ's size does not bound it. */
int sacc_check_op_in(struct sacc_dev *dev, const struct sacc_op *op,
		     unsigned int i, bool segment);
/* The same for its destination alone, @len bytes of it. */
int sacc_check_dst(struct sacc_dev *dev, const struct sacc_op *op,
		   unsigned int i, uint32_t len);
/* The descriptor of validated @op (req_id 0): addresses (device
 * addresses with SRC_DEV / DST_DEV for device memory), FILL's pattern
 * in src.  sacc_submit() and sacc_chain_create(). */
void sacc_op_desc(const struct sacc_op *op, struct sacc_desc *d);
/* Push validated @ops with one doorbell (sacc_submit() after its
 * checks); *t_db (may be NULL) gets the clock just before the doorbell. */
int sacc_queue_push(struct sacc_dev *dev, const struct sacc_op *ops,
		    unsigned int n, uint64_t *t_db);
/* Publish the @count operations pushed from SQ slot @first on and ring
 * the doorbell (events stamped with one clock read, also into *t_db);
 * operations sacc_enqueue() left unrung before them go with them. */
int sacc_publish_ring(struct sacc_dev *dev, uint32_t first, uint32_t count,
		      uint64_t *t_db);

/* SQ slots handed to the device (published) and not yet reaped: the
 * only ones a completion may be for (unrung ones are not the device's). */
static inline uint32_t sacc_sq_published_in_flight(const struct sacc_dev *dev)
{
	return sacc_ring_used(dev->sq.head, dev->sq.published, dev->sq.size);
}

/* health.c: the slow path */
/* The device's look (STATUS, CQ, progress) when polls find nothing or a
 * wait wakes without a completion (@status: read STATUS even idle). */
int sacc_health(struct sacc_dev *dev, bool status);
/* Decide the CQ_HEAD rewind probe if it can be (@final: it must be). */
int sacc_probe_check(struct sacc_dev *dev, bool final);
/* The error for a device in STATUS.ERROR (a fatal ring error), with its
 * fault record attributed: -EIO. */
int sacc_fatal_msg(struct sacc_dev *dev, const char *what);

/* chan.c */
void sacc_chan_close_all(struct sacc_dev *dev);
void sacc_chan_release(struct sacc_dev *ch);
/* CTRL.RESET of @dev's own channel only (its BAR2 block). */
int sacc_chan_hw_reset(struct sacc_dev *dev);

/* buf.c */
int sacc_dev_dma_open(struct sacc_dev *dev);
void sacc_dev_dma_close(struct sacc_dev *dev);
int sacc_buf_alloc_internal(struct sacc_dev *dev, size_t len,
			    enum sacc_dma_dir dir, const char *name,
			    bool internal, struct sacc_buf **out);
void sacc_buf_free_all(struct sacc_dev *dev);
/* Free a buffer of libsacc's own (internal: a graph's segment). */
int sacc_buf_free_internal(struct sacc_buf *b);

/* The handle's list of live buffers (host and device memory alike),
 * kept by buf.c and devmem.c both. */
static inline void sacc_buf_link(struct sacc_dev *dev, struct sacc_buf *b)
{
	b->prev = NULL;
	b->next = dev->bufs;
	if (dev->bufs)
		dev->bufs->prev = b;
	dev->bufs = b;
}

static inline void sacc_buf_unlink(struct sacc_dev *dev, struct sacc_buf *b)
{
	if (b->prev)
		b->prev->next = b->next;
	else
		dev->bufs = b->next;
	if (b->next)
		b->next->prev = b->prev;
	b->next = b->prev = NULL;
}

/* devmem.c: v0.4 device memory */
/* Map BAR4 if the device has device memory (VERSION >= 4, DEVMEM_SIZE
 * != 0, BAR4 mmappable); none is no error: devmem_why says why. */
int sacc_devmem_open(struct sacc_dev *dev);
/* The allocator over @map, @size bytes mmapped (munmapped at close):
 * what sacc_devmem_open() does after its mmap, and the tests' seam. */
int sacc_devmem_attach(struct sacc_dev *dev, void *map, uint64_t size);
/* After the last device buffer is freed: unmap, free the allocator. */
void sacc_devmem_close(struct sacc_dev *dev);
/* The kernel wants the device back: BAR4's mapping is replaced by
 * anonymous memory (device buffers stay valid memory, their contents
 * lost) so no mapping holds the device. */
void sacc_devmem_release(struct sacc_dev *dev);
int sacc_devmem_alloc_internal(struct sacc_dev *dev, size_t len,
			       const char *name, bool internal,
			       struct sacc_buf **out);
/* DEVMEM_SIZE as mapped; 0 without device memory. */
uint64_t sacc_devmem_size(const struct sacc_dev *dev);
/* Bumped each time device memory is zeroed (an FLR of the device):
 * what was written there before is gone (graph.c writes its segments
 * again).  0 without device memory. */
uint64_t sacc_devmem_epoch(const struct sacc_dev *dev);
void sacc_devmem_scrubbed(struct sacc_dev *dev);
/* Is FAULT_INFO @info's address a device address (device memory)? */
bool sacc_fault_in_devmem(const struct sacc_dev *dev, uint32_t info);
/* Give @b's pages back (buf.c, on free). */
void sacc_devmem_put(struct sacc_buf *b);
/* The allocator alone (unit tests): page-granular first fit. */
struct sacc_devmem_pool;
int sacc_devmem_pool_create(uint64_t size, struct sacc_devmem_pool **out);
void sacc_devmem_pool_destroy(struct sacc_devmem_pool *p);
/* @len bytes (rounded up to pages) at *off: 0, -ENOSPC, -ENOMEM. */
int sacc_devmem_pool_take(struct sacc_devmem_pool *p, uint64_t len,
			  uint64_t *off);
/* 0, or -EINVAL if [off, off + len) is not allocated as a whole. */
int sacc_devmem_pool_give(struct sacc_devmem_pool *p, uint64_t off,
			  uint64_t len);
void sacc_devmem_pool_usage(struct sacc_devmem_pool *p, uint64_t *used,
			    uint64_t *largest, uint32_t *allocs,
			    uint32_t *extents);

/* graph.c */
/* A launch of @g completed with a failing status (@c): remember which
 * command and, for a DMA fault, the device's fault record, for
 * sacc_graph_explain(). */
void sacc_graph_failed(struct sacc_graph *g, const struct sacc_cqe *c);
/* Is the fault record (@rec_id FAULT_REQ_ID, @info FAULT_INFO) that of
 * a launch of @g (@entry_id its entry's req_id) failing at command
 * @index?  *fetch: the segment's fetch failed, not a command. */
bool sacc_graph_record_is(const struct sacc_graph *g, uint32_t entry_id,
			  uint32_t index, uint32_t rec_id, uint32_t info,
			  bool *fetch);
/* The same for any SEGMENT entry, its command @index being @cmd (NULL:
 * unknown): the fetch's record carries the entry's req_id (command 0,
 * access segment_read or dev_read), a command's its own req_id. */
bool sacc_segment_record_is(uint32_t entry_id, uint32_t index,
			    const struct sacc_desc *cmd, uint32_t rec_id,
			    uint32_t info, bool *fetch);
/* The slot after command @d of a segment, in slot @j, as the device
 * walks a segment: a WRITE_INLINE of a valid length skips its payload. */
uint32_t sacc_segment_next(const struct sacc_desc *d, uint32_t j);
/* Command @index of @g's segment (NULL past its last). */
const struct sacc_desc *sacc_graph_cmd(const struct sacc_graph *g,
				       uint32_t index);
/* @dev's queue goes (close): its graphs let go of it, its buffers and
 * their segments; sacc_graph_destroy() then only frees them. */
void sacc_graph_orphan_all(struct sacc_dev *dev);

/* events.c: record one event if dev->ev (the caller checks), at @t */
void sacc_ev_submit(struct sacc_dev *dev, uint64_t t, uint32_t req_id,
		    uint16_t opcode, uint32_t len);
void sacc_ev_doorbell(struct sacc_dev *dev, uint64_t t, uint32_t tail,
		      uint32_t count);
void sacc_ev_reap(struct sacc_dev *dev, uint64_t t,
		  const struct sacc_result *res);
void sacc_events_free(struct sacc_dev *dev);

/* journal.c: the fault journal; every function is a no-op without one. */
void sacc_dev_journal_open(struct sacc_dev *dev);
/* Use @j (may be NULL): observer, ranges and a reset event.  Tests. */
int sacc_dev_journal_attach(struct sacc_dev *dev, struct sacc_journal *j);
void sacc_dev_journal_close(struct sacc_dev *dev);
void sacc_dev_journal_reset(struct sacc_dev *dev);
/* A DMA_FAULT completion of the descriptor in SQ slot @slot; for a
 * graph's launch (a SEGMENT entry), @g and the failing command's index
 * @index (else NULL, 0). */
void sacc_dev_journal_fault(struct sacc_dev *dev, uint32_t slot,
			    uint32_t req_id, uint16_t opcode,
			    const struct sacc_graph *g, uint32_t index);
/* The device stopped on a ring fault (STATUS.ERROR, ERR_CODE DMA). */
void sacc_dev_journal_fatal(struct sacc_dev *dev);

#endif /* SACC_PRIV_H */

/* SPDX-License-Identifier: MIT */
/*
 * SACC: Synthetic PCIe ACCelerator, a QEMU device model.  This header is
 * the model's own, shared by its files as hw/nvme's nvme.h is by ctrl.c
 * and ns.c: the device's state, the rules every file keeps, the small
 * helpers several need, and what each file offers the others.  Drivers
 * know the device only through hw/misc/sacc_hw.h (include/sacc_hw.h),
 * whose register offsets, bits and layouts every file here uses;
 * docs/spec.md is the contract the model implements.
 *
 * A PCIe endpoint with up to 64 channels, each a submission ring (32-byte
 * descriptors) and a completion ring (16-byte entries) in guest memory.
 * The guest writes a channel's new SQ tail to its doorbell (or its ID to
 * the token doorbell, and the device fetches the tail from memory); the
 * device copies (MEMCPY), copies and transforms (XFORM), fills (FILL),
 * writes inline data (WRITE_INLINE) or a timestamp (TIMESTAMP), runs
 * pushbuffer segments (SEGMENT) and posts completions with a phase bit,
 * NVMe style.  Since v0.4 it has memory of its own behind BAR4, which
 * descriptors and the SQ may name.  Channel 0 is the v0.2 device of BAR0
 * page 0.
 *
 * The files, from the guest's side down; each calls only those below
 * it, and each one's head says why it is built the way it is:
 *  - sacc-pci.c: the PCI device: properties, realize and unrealize, FLR
 *    and system reset, device memory;
 *  - sacc-regs.c: the register and doorbell pages as a vCPU sees them,
 *    with or without the BQL, and what CTRL does (enable, disable, reset);
 *  - sacc-engine.c: the engine: its thread (or bottom half), its runs and
 *    the channels' round-robin turns;
 *  - sacc-exec.c: a descriptor's life, from its fetch to its completion,
 *    every opcode, pushbuffer segments;
 *  - sacc-copy.c: the bytes of MEMCPY, XFORM and FILL, staged or direct,
 *    in pieces that other channels' work may come between;
 *  - sacc-dma.c: DMA through the IOMMU, page by page, and the device's
 *    translation cache;
 *  - sacc-irq.c: MSI-X, the fault record, ring faults;
 *  - sacc-doorbell.c: doorbells and CQ_HEAD, posted with or without the
 *    BQL and applied under it;
 * and beside them sacc-monitor.c, "info sacc" and x-query-sacc, which
 * only read the device's state.
 *
 * Nothing the guest writes may stop QEMU: no hw_error, abort or assert on
 * guest-controlled values; errors go to SACC_GUEST_ERROR() (a trace
 * event, LOG_GUEST_ERROR and the ERR_CODE register).
 */
#ifndef HW_MISC_SACC_H
#define HW_MISC_SACC_H

#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/thread.h"
#include "qemu/timer.h"
#include "exec/memory.h"
#include "hw/pci/pci.h"
#include "qom/object.h"
#include "hw/misc/sacc_hw.h"
#include "hw/misc/sacc_ring.h"

#define TYPE_SACC "sacc"
OBJECT_DECLARE_SIMPLE_TYPE(SaccState, SACC)

/*
 * x-poll-us: the longest the idle engine thread polls before it sleeps;
 * the window adapts below it to the gaps between kicks.
 */
#define SACC_ENGINE_POLL_US 100
#define SACC_ENGINE_POLL_MAX_US 100000

/* A run held the BQL this long: stand back before the next (fairness) */
#define SACC_ENGINE_FAIR_MIN_NS (50 * SCALE_US)
#define SACC_ENGINE_FAIR_MAX_NS (1 * SCALE_MS)

/*
 * One channel's guest-visible registers that hold state: CTRL to
 * FAULT_COUNT at their BAR0 page 0 offsets (channel 0) or in the
 * channel's BAR2 block, MODE and PUT_ADDR in the block only.  CQ_HEAD,
 * IRQ_ACK and the doorbells are write-only and act on SaccDevRing or
 * irq_status.  All of them return to their power-on value in
 * sacc_chan_regs_reset().
 */
typedef struct SaccChanRegs {
    uint32_t ctrl;
    uint32_t status;
    uint64_t sq_base;
    uint32_t sq_size;
    uint64_t cq_base;
    uint32_t cq_size;
    uint32_t irq_status;
    uint32_t err_code;
    uint64_t fault_addr;
    uint32_t fault_info;
    uint32_t fault_req_id;
    uint32_t fault_count;
    uint32_t mode;
    uint64_t put_addr;
} SaccChanRegs;

/*
 * The device's ring indices and phase, meaningful only while
 * STATUS.READY: the device's half of the ring rules of docs/spec.md.
 * They move by the driver's own arithmetic, rings/sacc_ring.h's
 * header-only sacc_ring_*() (sacc_ring_next(), sacc_ring_full(), ...),
 * which needs power-of-two sizes: sizes are checked at enable and locked
 * while CTRL.ENABLE is set, so while READY both are powers of two in
 * [SACC_RING_MIN_ENTRIES, SACC_RING_MAX_ENTRIES].
 */
typedef struct SaccDevRing {
    uint32_t sq_head; /* next descriptor to fetch */
    uint32_t sq_tail; /* last doorbell (or PUT) value */
    uint32_t cq_head; /* last CQ_HEAD value */
    uint32_t cq_tail; /* next completion slot to write */
    uint16_t phase;   /* phase bit of the current CQ lap */
} SaccDevRing;

/*
 * A MEMCPY or XFORM in flight across turns.  The engine thread moves a
 * big direct copy in SACC_COPY_PIECE steps and, when another channel has
 * work, stops between two of them and ends the channel's turn, as a DMA
 * engine interleaves bursts of its queues (sacc_copy_direct(),
 * docs/spec.md section 11).  The channel's next turn goes on from here;
 * a reset or disable forgets it.
 */
typedef struct SaccCursor {
    bool active;
    struct sacc_desc d; /* the descriptor, as fetched */
    uint64_t fetch_ns;
    uint32_t done;      /* bytes moved */
    uint32_t upto;      /* bytes to move: length, or up to a dst fault */
    bool faulted;       /* a dst fault at upto ends it */
    uint32_t info;      /* that fault's record */
    uint64_t fault;
} SaccCursor;

/*
 * A SEGMENT entry under way (v0.4, docs/spec.md section 21): the
 * snapshot of its segment and the next command in it.  One command runs
 * per step (sacc_segment_step()), so a long segment spreads over the
 * channel's turns; a reset or disable forgets it.
 */
typedef struct SaccSegment {
    bool active;
    struct sacc_desc entry; /* the SQ entry, as fetched */
    uint64_t fetch_ns;
    uint32_t len;   /* the segment's bytes */
    uint32_t next;  /* offset of the next command */
    uint32_t index; /* commands run */
    uint8_t *buf;   /* the snapshot: SACC_SEGMENT_MAX bytes, at first use */
} SaccSegment;

typedef struct SaccChannel {
    uint32_t id;
    uint32_t epoch; /* bumped by reset/disable: abandons its work */
    bool token;     /* token doorbell rung, PUT word not read yet */
    SaccChanRegs regs;
    SaccDevRing ring;
    /*
     * The lockless doorbell (sacc_doorbell_post()).  db_hint: what a
     * doorbell may ring without the BQL: 0 (nothing), SACC_DB_HINT_TOKEN,
     * or SQ_SIZE (a tail below it); set under the BQL from the registers
     * (sacc_db_hint_update()), read without it.  db_pending: SACC_DB_TAIL
     * | tail and/or SACC_DB_TOKEN, set without the BQL, taken under it by
     * sacc_db_drain().
     */
    uint32_t db_hint;
    uint64_t db_pending;
    /*
     * CQ_HEAD without the BQL, the same way (x-reg-lockless): cq_hint is
     * CQ_SIZE while READY, else 0; cqh_pending is a CQ_HEAD below it + 1
     * (0: none), taken by sacc_db_drain().
     */
    uint32_t cq_hint;
    uint32_t cqh_pending;
    SaccCursor cur;
    uint8_t *fill; /* a page of the running FILL's pattern (v0.4) */
    SaccSegment seg;
} SaccChannel;

#define SACC_DB_HINT_TOKEN (1u << 31)
#define SACC_DB_TAIL (1ull << 32)
#define SACC_DB_TOKEN (1ull << 33)

struct SaccState {
    PCIDevice parent_obj;

    MemoryRegion bar0; /* container: page 0 regs, page 1 doorbells */
    MemoryRegion regs_mr;
    MemoryRegion doorbell_mr;
    MemoryRegion msix_bar;
    MemoryRegion bar2; /* device page, channel blocks */
    /*
     * v0.4: device memory, BAR4, RAM (property "devmem", bytes; 0: none).
     * Descriptors and rings name it by offset (a device address), never
     * through the IOMMU; every such range is checked against
     * devmem_size before a byte moves (sacc_devmem_has()).
     */
    MemoryRegion devmem_mr;
    uint64_t devmem_size;
    uint8_t *devmem;
    QEMUBH *bh;          /* the engine without x-engine-thread (v0.3) */
    uint8_t *bounce; /* SACC_MAX_XFER bytes, src is staged here */
    struct SaccCopyPlan *plan; /* the direct path's pieces (engine only) */
    bool direct_copy;    /* property "x-direct-copy" */
    struct SaccAtc *atc; /* translation cache of the direct path, or NULL */

    /* The engine thread (x-engine-thread), see sacc_engine_thread() */
    bool engine_thread;   /* property "x-engine-thread" */
    uint32_t poll_us;     /* property "x-poll-us": longest idle polling */
    bool db_lockless;     /* property "x-db-lockless" (with the thread) */
    bool reg_lockless;    /* property "x-reg-lockless" (with the thread) */
    bool db_run;          /* property "x-db-run" (with x-db-lockless) */
    /*
     * atomic: get_clock() until which the engine thread has no core of
     * its own (it found itself preempted while polling), and whether it
     * sleeps on its event now; see sacc_post_run().
     */
    int64_t nocore_until;
    bool engine_asleep;
    bool running;         /* under the BQL: sacc_run() is under way */
    /*
     * atomic: vCPUs in our register handlers waiting for the BQL
     * (sacc_bql_lock()); the engine makes way for them.
     */
    uint32_t bql_waiters;
    QemuThread engine;
    QemuEvent engine_ev;  /* set by sacc_kick(), the engine sleeps on it */
    QemuCond engine_cond; /* with the BQL: the engine has exited */
    bool engine_kicked;   /* atomic: there may be work */
    bool engine_stop;     /* atomic: unrealize asks the engine to exit */
    bool engine_exited;   /* under the BQL */
    bool engine_started;  /* its event and condition exist */
    /*
     * atomic: unrealized.  A vCPU's access already dispatched to us (or
     * one without the BQL, the doorbell) may still arrive after
     * sacc_exit(): it is ignored, and what it could touch is freed only
     * in sacc_finalize(), when the memory core has dropped its last
     * reference to us.
     */
    bool gone;
    /*
     * Held by the engine thread while it copies without the BQL
     * (sacc_copy_unlocked()); taken and dropped under the BQL by whatever
     * must not overlap such a copy (sacc_dma_quiesce()).  Lock order:
     * BQL, then dma_lock; the engine never takes the BQL holding it.
     */
    QemuMutex dma_lock;
    int64_t unlocked_ns;  /* this run's time without the BQL */
    uint32_t copy_delay_us; /* property "x-copy-delay-us" (tests) */
    uint32_t copies_held; /* atomic: copies that began that delay (tests) */

    bool db_any;          /* atomic: some channel's db_pending is set */
    /*
     * atomic: a vCPU rang a doorbell or wrote CQ_HEAD since the engine's
     * big copy began: the copy makes way at its next piece
     * (sacc_copy_unlocked(), sacc_yield_hint()).
     */
    bool copy_yield;
    uint32_t nr_channels; /* property "channels" */
    uint32_t rr_next;     /* channel whose turn comes next */
    uint32_t scratch;
    uint32_t dev_err_code;
    SaccChannel chan[SACC_CHANNELS_MAX];
};

typedef enum {
    SACC_DMA_OK,
    SACC_DMA_FAULT,     /* *fault holds the failing DMA address */
    SACC_DMA_ABANDONED, /* channel was reset/disabled meanwhile */
    SACC_DMA_PARTIAL,   /* part moved, the rest in a later turn (cur) */
} SaccDmaResult;

/*
 * A piece of a buffer: what one translation covers, as host memory
 * (the direct path of MEMCPY, XFORM and FILL).
 */
typedef struct SaccPiece {
    uint8_t *ptr; /* host address of the piece */
    uint32_t off; /* offset in the transfer */
    uint32_t len;
} SaccPiece;

/* A page per piece, plus one for an unaligned start, is the usual worst */
#define SACC_PIECES_MAX (2 * (SACC_MAX_XFER / SACC_PAGE_SIZE) + 2)

typedef enum {
    SACC_MAP_OK,
    SACC_MAP_FAULT,     /* pieces before the fault are valid */
    SACC_MAP_STAGED,    /* not plain RAM: use the staged path */
    SACC_MAP_ABANDONED, /* channel was reset/disabled meanwhile */
} SaccMapResult;

/* The pieces of the copy under way (the engine's only) */
typedef struct SaccCopyPlan {
    SaccPiece src[SACC_PIECES_MAX];
    SaccPiece dst[SACC_PIECES_MAX];
    SaccPiece tmp[2 * SACC_PIECES_MAX];
} SaccCopyPlan;

/*
 * Small helpers several files need, static inline so that none of them
 * makes one file of the model depend on another.
 */

/* v0.4: true if device addresses [@addr, @addr + @len) all exist. */
static inline bool sacc_devmem_has(SaccState *s, uint64_t addr,
                                   uint64_t len)
{
    return len <= s->devmem_size && addr <= s->devmem_size - len;
}

/*
 * v0.4: true if the descriptor's src (@flag SACC_DESC_F_SRC_DEV) or dst
 * (_DST_DEV) is a device address.  Only MODE.V3 channels know the flags;
 * a v0.2 channel's descriptors name IOVAs whatever their flags.
 */
static inline bool sacc_desc_dev(const SaccChannel *ch,
                                 const struct sacc_desc *d, uint16_t flag)
{
    return (ch->regs.mode & SACC_MODE_V3) && (d->flags & flag);
}

/*
 * The device clock (docs/spec.md section 16): nanoseconds of the host's
 * CLOCK_MONOTONIC.  QEMU_CLOCK_VIRTUAL would stand still during the
 * bottom half under qtest and -icount, so engine times would read 0.
 */
static inline uint64_t sacc_clock_ns(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
}

/*
 * The "ns" field of the timeline's trace events: the device clock, read
 * only while @event is enabled, so an untraced op pays nothing for it.
 */
#define SACC_TRACE_NS(event) \
    (trace_event_get_state_backends(event) ? sacc_clock_ns() : 0)

static inline void sacc_set_err_code(uint32_t *err_code, uint32_t err)
{
    if (err_code && err != SACC_ERR_NONE) {
        *err_code = err;
    }
}

/*
 * Report something the guest did wrong; never fatal to QEMU.  Each kind
 * of guest error has its own trace event, so each can be enabled alone
 * (they are named sacc_guest_error_*, except sacc_ring_fatal), as
 * hw/nvme does with pci_nvme_ub_*.  The same text goes to -d guest_errors
 * (LOG_GUEST_ERROR), and @err, unless SACC_ERR_NONE, to the ERR_CODE
 * register @err_code points at (a channel's, or DEV_ERR_CODE).
 */
#define SACC_GUEST_ERROR(err_code, err, event, fmt, ...)                \
    do {                                                                \
        sacc_set_err_code(err_code, err);                               \
        trace_##event(__VA_ARGS__);                                     \
        qemu_log_mask(LOG_GUEST_ERROR, #event ": " fmt "\n", __VA_ARGS__); \
    } while (0)

/*
 * What the engine and the vCPUs tell each other: that there is work, that
 * a vCPU waits for the BQL, that a big copy should make way.
 */

/*
 * True if a channel other than @ch (any channel, if @ch is NULL) has work
 * it can do now, or a doorbell waits to be applied (under the BQL): a big
 * copy of @ch then makes way after its first piece.
 */
static inline bool sacc_others_busy(SaccState *s, SaccChannel *ch)
{
    uint32_t i;

    for (i = 0; i < s->nr_channels; i++) {
        SaccChannel *o = &s->chan[i];

        /*
         * A token counts even with the CQ full: reading PUT needs no CQ
         * slot, and until it is read the SQ looks empty, so a CQ_HEAD
         * write would not reschedule the channel (sacc_cq_head_write()).
         */
        if (o != ch && (o->regs.status & SACC_STATUS_READY) &&
            (o->token ||
             ((o->cur.active || o->seg.active ||
               !sacc_ring_empty(o->ring.sq_head, o->ring.sq_tail)) &&
              !sacc_ring_full(o->ring.cq_head, o->ring.cq_tail,
                              o->regs.cq_size)))) {
            return true;
        }
    }
    return qatomic_read(&s->db_any);
}

/*
 * A vCPU waits for the BQL in our register handlers (sacc_bql_lock()):
 * let it have the lock before taking it again.  The BQL is not fair, and
 * the engine, back for its next run within microseconds, would otherwise
 * win it again and again (issue 19 measured 2-4 ms for one register
 * read).  Yielding, bounded: a vCPU the host does not run must not stall
 * the engine for long.
 */
static inline void sacc_engine_make_way(SaccState *s)
{
    int64_t until;

    if (!qatomic_read(&s->bql_waiters)) {
        return;
    }
    until = get_clock() + SACC_ENGINE_FAIR_MAX_NS;
    while (qatomic_read(&s->bql_waiters) && get_clock() < until &&
           !qatomic_read(&s->engine_stop)) {
        sched_yield();
    }
}

/*
 * A vCPU (not the engine applying what was posted) rang a doorbell or
 * wrote CQ_HEAD: a big copy under way makes way at its next piece.
 */
static inline void sacc_yield_hint(SaccState *s)
{
    if (s->engine_thread && !qemu_thread_is_self(&s->engine)) {
        qatomic_set(&s->copy_yield, true);
    }
}

/*
 * There may be work: wake the engine.  Called under the BQL (CQ_HEAD, a
 * run that ran out of budget, doorbells) or, with the engine thread,
 * without it (sacc_doorbell_post()): a flag, a QemuEvent and a bottom half
 * schedule are all thread-safe.  With the engine thread this
 * costs a memory barrier and a load while the engine is awake (running
 * or polling); only a sleeping engine needs the futex wake.
 */
static inline void sacc_kick(SaccState *s)
{
    if (qatomic_read(&s->gone)) {
        return;
    }
    if (s->engine_thread) {
        qatomic_set(&s->engine_kicked, true);
        qemu_event_set(&s->engine_ev); /* orders the store before it */
    } else {
        qemu_bh_schedule(s->bh);
    }
}

/* What each file offers the others, in the order of the list above */

/* sacc-regs.c: the register and doorbell pages; CTRL */
void sacc_regs_realize(SaccState *s);
void sacc_device_reset(SaccState *s, const char *why);

/* sacc-engine.c: the engine's thread (or bottom half), runs and turns */
void sacc_engine_start(SaccState *s);
void sacc_engine_stop(SaccState *s);
void sacc_process(void *opaque);
bool sacc_post_run(SaccState *s);

/* sacc-exec.c: a descriptor, from its fetch to its completion */
void sacc_read_put(SaccState *s, SaccChannel *ch, uint32_t epoch);
int64_t sacc_exec_one(SaccState *s, SaccChannel *ch, uint32_t epoch);

/* sacc-copy.c: MEMCPY, XFORM and FILL's bytes, staged or direct */
SaccDmaResult sacc_copy_run(SaccState *s, SaccChannel *ch,
                            const struct sacc_desc *d, uint32_t epoch,
                            uint32_t *info, uint64_t *fault);

/*
 * sacc-dma.c: DMA through the IOMMU, page by page, and the device's
 * translation cache
 */
typedef struct SaccAtc SaccAtc;
void sacc_dma_quiesce(SaccState *s);
SaccAtc *sacc_atc_get(SaccState *s);
void sacc_atc_free(SaccState *s);
MemTxResult sacc_dma_rw(SaccState *s, uint64_t addr, void *buf,
                        uint32_t len, DMADirection dir);
SaccDmaResult sacc_dma_pages(SaccState *s, SaccChannel *ch, uint64_t addr,
                             bool dev, uint8_t *buf, uint32_t len,
                             DMADirection dir, uint32_t epoch,
                             uint64_t *fault);
MemTxResult sacc_dma_ring_read(SaccState *s, SaccChannel *ch,
                               uint64_t addr, void *buf, uint32_t len);
SaccMapResult sacc_dma_map_buffer(SaccState *s, SaccChannel *ch,
                                  uint64_t addr, bool dev, uint32_t len,
                                  bool is_write, uint32_t epoch,
                                  SaccAtc *atc, SaccPiece *pieces,
                                  uint32_t *n, uint64_t *fault);
void sacc_dma_pieces_written(SaccState *s, const SaccPiece *dst,
                             uint32_t ndst, uint32_t upto);

/* sacc-irq.c: MSI-X, the fault record and ring faults */
bool sacc_irq_realize(SaccState *s, Error **errp);
void sacc_irq_unrealize(SaccState *s);
void sacc_irq_raise(SaccState *s, SaccChannel *ch, uint32_t bits);
uint64_t sacc_irq_pending(SaccState *s);
void sacc_fault_record(SaccChannel *ch, uint32_t info, uint64_t addr,
                       uint32_t req_id);
void sacc_ring_fatal(SaccState *s, SaccChannel *ch, uint32_t info,
                     uint64_t addr, uint32_t req_id);

/* sacc-doorbell.c: doorbells and CQ_HEAD, posted and applied */
void sacc_db_hint_update(SaccChannel *ch);
bool sacc_doorbell_post(SaccState *s, hwaddr addr, uint64_t val,
                        unsigned int size);
void sacc_tail_doorbell(SaccState *s, SaccChannel *ch, uint64_t val);
void sacc_token_doorbell(SaccState *s, uint64_t val);
void sacc_cq_head_write(SaccState *s, SaccChannel *ch, uint32_t val);
void sacc_db_drain(SaccState *s);

/* sacc-monitor.c: "info sacc" for HMP, registered at type init */
void hmp_info_sacc(Monitor *mon, const QDict *qdict);

#endif /* HW_MISC_SACC_H */

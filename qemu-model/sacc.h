/* SPDX-License-Identifier: MIT */
/*
 * sacc.h - the SACC device model's state, shared by the device
 * (sacc.c) and its monitor commands (sacc-monitor.c, "info sacc" and
 * x-query-sacc).  Internal to the model: drivers know the device only
 * through hw/misc/sacc_hw.h.
 */
#ifndef HW_MISC_SACC_H
#define HW_MISC_SACC_H

#include "qemu/thread.h"
#include "exec/memory.h"
#include "hw/pci/pci.h"
#include "qom/object.h"
#include "hw/misc/sacc_hw.h"
#include "hw/misc/sacc_ring.h"

#define TYPE_SACC "sacc"
OBJECT_DECLARE_SIMPLE_TYPE(SaccState, SACC)

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

/* sacc-monitor.c: "info sacc" for HMP, registered at type init */
void hmp_info_sacc(Monitor *mon, const QDict *qdict);

#endif /* HW_MISC_SACC_H */

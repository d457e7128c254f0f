/* SPDX-License-Identifier: MIT */
/*
 * SACC: Synthetic PCIe ACCelerator, a QEMU device model.
 *
 * A PCIe endpoint with one submission ring (32-byte descriptors) and one
 * completion ring (16-byte entries) in guest memory.  The guest writes the
 * new SQ tail to the doorbell page; the device copies (MEMCPY) or copies
 * and transforms (XFORM) buffers and posts completions with a phase bit,
 * NVMe style.  All register offsets, bits and layouts come from
 * sacc_hw.h, which the userspace driver shares; docs/spec.md is the
 * contract this file implements.
 *
 * Design notes:
 *  - The doorbell handler only validates and records the tail and
 *    schedules a bottom half, so the vCPU never waits for a copy.  The
 *    bottom half is created with the device's memory re-entrancy guard,
 *    so DMA aimed at the device's own BARs is rejected by the memory core
 *    (and then reported as a DMA fault) instead of recursing.
 *  - Every DMA result is checked.  Buffer DMA is done one IOVA page at a
 *    time so the fault record names the exact page that failed and no
 *    destination byte after a faulting page is ever written.
 *  - A DMA may land on some other device (e.g. the MMCONFIG window) and
 *    reset us underneath the bottom half.  Every reset or disable bumps
 *    s->epoch; the bottom half re-checks it after each DMA and abandons
 *    the descriptor, so there is no DMA after a reset returns.
 *  - Nothing the guest writes may stop QEMU: no hw_error, abort or assert
 *    on guest-controlled values; errors go to LOG_GUEST_ERROR, a trace
 *    event and ERR_CODE.
 *  - The guest-visible registers live in one struct (SaccRegs) and are
 *    reset in one place, sacc_regs_reset().
 *  - The device keeps its own ring indices and phase (SaccDevRing,
 *    sacc_dev_ring_*()).  They implement the device's half of the ring
 *    rules in docs/spec.md and share no code with the driver's rings/
 *    library, which QEMU does not link.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/bswap.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msix.h"
#include "migration/vmstate.h"
#include "qapi/error.h"
#include "qom/object.h"
#include "hw/misc/sacc_hw.h"
#include "trace.h"

#define TYPE_SACC "sacc"
OBJECT_DECLARE_SIMPLE_TYPE(SaccState, SACC)

/* Config space layout (drivers find these by walking the capability list) */
#define SACC_MSIX_CAP_OFFSET 0x70
#define SACC_PCIE_CAP_OFFSET 0x80

/* Work done per bottom-half run before yielding back to the main loop */
#define SACC_BH_MAX_DESCS 64
#define SACC_BH_MAX_BYTES (4 * SACC_MAX_XFER)

/*
 * The guest-visible registers of BAR0 page 0 that hold state.  MAGIC and
 * VERSION are constants; CQ_HEAD, IRQ_ACK and the doorbell are
 * write-only and act on SaccDevRing or irq_status.  All of them return
 * to their power-on value in sacc_regs_reset().
 */
typedef struct SaccRegs {
    uint32_t ctrl;
    uint32_t status;
    uint64_t sq_base;
    uint32_t sq_size;
    uint64_t cq_base;
    uint32_t cq_size;
    uint32_t irq_status;
    uint32_t err_code;
    uint32_t scratch;
    uint64_t fault_addr;
    uint32_t fault_info;
    uint32_t fault_req_id;
    uint32_t fault_count;
} SaccRegs;

/*
 * The device's ring indices and phase, meaningful only while
 * STATUS.READY.  This is the device's own copy of the ring rules of
 * docs/spec.md (the driver's is rings/sacc_ring.h, which QEMU does not
 * link); only the sacc_dev_ring_*() helpers below move these indices.
 */
typedef struct SaccDevRing {
    uint32_t sq_head; /* next descriptor to fetch */
    uint32_t sq_tail; /* last doorbell value */
    uint32_t cq_head; /* last CQ_HEAD value */
    uint32_t cq_tail; /* next completion slot to write */
    uint16_t phase;   /* phase bit of the current CQ lap */
} SaccDevRing;

struct SaccState {
    PCIDevice parent_obj;

    MemoryRegion bar0; /* container: page 0 regs, page 1 doorbell */
    MemoryRegion regs_mr;
    MemoryRegion doorbell_mr;
    MemoryRegion msix_bar;
    QEMUBH *bh;
    uint8_t *bounce; /* SACC_MAX_XFER bytes, src is staged here */
    uint32_t epoch;  /* bumped by reset/disable: abandons work */

    SaccRegs regs;
    SaccDevRing ring;
};

typedef enum {
    SACC_DMA_OK,
    SACC_DMA_FAULT,     /* *fault holds the failing DMA address */
    SACC_DMA_ABANDONED, /* device was reset/disabled meanwhile */
} SaccDmaResult;

/*
 * Device-side ring helpers.  Sizes are checked at enable and the size
 * registers are locked while CTRL.ENABLE is set, so while STATUS.READY
 * both sizes are powers of two in [SACC_RING_MIN_ENTRIES,
 * SACC_RING_MAX_ENTRIES].
 */
static bool sacc_dev_ring_size_valid(uint32_t n)
{
    return is_power_of_2(n) && n >= SACC_RING_MIN_ENTRIES &&
           n <= SACC_RING_MAX_ENTRIES;
}

/* True if a ring of @entries at @base would run past 2^64. */
static bool sacc_dev_ring_wraps(uint64_t base, uint32_t entries,
                                size_t entry_size)
{
    return base + (uint64_t)entries * entry_size - 1 < base;
}

/* All indices 0; @phase is 1 when starting a ring, 0 when stopping. */
static void sacc_dev_ring_reset(SaccDevRing *ring, uint16_t phase)
{
    ring->sq_head = 0;
    ring->sq_tail = 0;
    ring->cq_head = 0;
    ring->cq_tail = 0;
    ring->phase = phase;
}

static bool sacc_dev_ring_sq_empty(const SaccDevRing *ring)
{
    return ring->sq_head == ring->sq_tail;
}

/* NVMe rule: one CQ slot stays free, so a full ring never looks empty. */
static bool sacc_dev_ring_cq_full(const SaccDevRing *ring, uint32_t cq_size)
{
    return (ring->cq_tail + 1) % cq_size == ring->cq_head;
}

static void sacc_dev_ring_sq_advance(SaccDevRing *ring, uint32_t sq_size)
{
    ring->sq_head = (ring->sq_head + 1) % sq_size;
}

/* The phase flips each time the CQ tail wraps. */
static void sacc_dev_ring_cq_advance(SaccDevRing *ring, uint32_t cq_size)
{
    if (++ring->cq_tail == cq_size) {
        ring->cq_tail = 0;
        ring->phase ^= 1;
    }
}

/* Every register to its power-on value: the one place that does this. */
static void sacc_regs_reset(SaccRegs *regs)
{
    *regs = (SaccRegs) {
        .err_code = SACC_ERR_NONE,
    };
}

static void sacc_set_err_code(SaccState *s, uint32_t err)
{
    if (err != SACC_ERR_NONE) {
        s->regs.err_code = err;
    }
}

/*
 * Report something the guest did wrong; never fatal to QEMU.  Each kind
 * of guest error has its own trace event, so each can be enabled alone
 * (they are named sacc_guest_error_*, except sacc_ring_fatal), as
 * hw/nvme does with pci_nvme_ub_*.  The same text goes to -d guest_errors
 * (LOG_GUEST_ERROR), and @err, unless SACC_ERR_NONE, to ERR_CODE.
 */
#define SACC_GUEST_ERROR(s, err, event, fmt, ...)                       \
    do {                                                                \
        sacc_set_err_code(s, err);                                      \
        trace_##event(__VA_ARGS__);                                     \
        qemu_log_mask(LOG_GUEST_ERROR, #event ": " fmt "\n", __VA_ARGS__); \
    } while (0)

static void sacc_raise_irq(SaccState *s, uint32_t bits)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    bool msix = msix_enabled(pdev);

    s->regs.irq_status |= bits;
    trace_sacc_irq(bits, s->regs.irq_status, msix);
    /* msix_notify() sets the pending bit instead if the vector is masked */
    if (msix) {
        msix_notify(pdev, 0);
    }
}

static void sacc_record_fault(SaccState *s, uint32_t info, uint64_t addr,
                              uint32_t req_id)
{
    trace_sacc_dma_fault(info, addr, req_id);
    s->regs.fault_addr = addr;
    s->regs.fault_info = info;
    s->regs.fault_req_id = req_id;
    if (s->regs.fault_count != UINT32_MAX) {
        s->regs.fault_count++;
    }
}

/* A fault on the rings themselves: stop until reset (or re-enable). */
static void sacc_ring_fatal(SaccState *s, uint32_t info, uint64_t addr,
                            uint32_t req_id)
{
    sacc_record_fault(s, info, addr, req_id);
    SACC_GUEST_ERROR(s, SACC_ERR_DMA, sacc_ring_fatal,
                     "info 0x%x addr 0x%" PRIx64 " req_id 0x%x",
                     info, addr, req_id);
    s->regs.status = (s->regs.status & ~SACC_STATUS_READY) |
                     SACC_STATUS_ERROR;
    sacc_raise_irq(s, SACC_IRQ_FATAL);
}

/* Return every register to its power-on value and forget all work. */
static void sacc_reset(SaccState *s, const char *why)
{
    trace_sacc_reset(why);
    qemu_bh_cancel(s->bh);
    s->epoch++;
    sacc_regs_reset(&s->regs);
    sacc_dev_ring_reset(&s->ring, 0);
}

/* CTRL.ENABLE 0 -> 1: validate the ring registers and go READY. */
static void sacc_enable(SaccState *s)
{
    SaccRegs *r = &s->regs;

    if (!sacc_dev_ring_size_valid(r->sq_size) ||
        !sacc_dev_ring_size_valid(r->cq_size)) {
        SACC_GUEST_ERROR(s, SACC_ERR_INVALID,
                         sacc_guest_error_enable_ring_size,
                         "sq_size %u cq_size %u", r->sq_size, r->cq_size);
    } else if (r->sq_base % SACC_SQ_ALIGN || r->cq_base % SACC_CQ_ALIGN) {
        SACC_GUEST_ERROR(s, SACC_ERR_DMA, sacc_guest_error_enable_ring_align,
                         "sq_base 0x%" PRIx64 " cq_base 0x%" PRIx64,
                         r->sq_base, r->cq_base);
    } else if (sacc_dev_ring_wraps(r->sq_base, r->sq_size,
                                   sizeof(struct sacc_desc)) ||
               sacc_dev_ring_wraps(r->cq_base, r->cq_size,
                                   sizeof(struct sacc_cqe))) {
        SACC_GUEST_ERROR(s, SACC_ERR_DMA, sacc_guest_error_enable_ring_wrap,
                         "sq 0x%" PRIx64 "/%u cq 0x%" PRIx64 "/%u",
                         r->sq_base, r->sq_size, r->cq_base, r->cq_size);
    } else {
        trace_sacc_enable(r->sq_base, r->sq_size, r->cq_base, r->cq_size);
        sacc_dev_ring_reset(&s->ring, 1);
        /* Success also clears an earlier ERROR (ERR_CODE stays). */
        r->status = SACC_STATUS_READY;
        return;
    }
    r->status = (r->status & ~SACC_STATUS_READY) | SACC_STATUS_ERROR;
}

/* CTRL.ENABLE 1 -> 0: stop and drop ring state; STATUS.ERROR is kept. */
static void sacc_disable(SaccState *s)
{
    trace_sacc_disable();
    qemu_bh_cancel(s->bh);
    s->epoch++;
    s->regs.status &= ~SACC_STATUS_READY;
    sacc_dev_ring_reset(&s->ring, 0);
}

/*
 * Every DMA carries our requester ID, as a PCIe TLP would: the IOMMU
 * needs it to attribute (and source-check) writes into the interrupt
 * window, where there is no per-device address space to tell us apart.
 */
static MemTxResult sacc_dma_rw(SaccState *s, uint64_t addr, void *buf,
                               uint32_t len, DMADirection dir)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    MemTxAttrs attrs = { .requester_id = pci_requester_id(pdev) };

    return pci_dma_rw(pdev, addr, buf, len, dir, attrs);
}

/*
 * Move @len bytes between guest @addr and @buf one IOVA page at a time.
 * Stops at the first failing page, so for a write every byte before that
 * page may have landed and none after it.
 */
static SaccDmaResult sacc_dma(SaccState *s, uint64_t addr, uint8_t *buf,
                              uint32_t len, DMADirection dir, uint32_t epoch,
                              uint64_t *fault)
{

    while (len) {
        uint32_t n = MIN(len, SACC_PAGE_SIZE -
                                  (addr & (SACC_PAGE_SIZE - 1)));
        MemTxResult r;

        r = sacc_dma_rw(s, addr, buf, n, dir);
        if (s->epoch != epoch) {
            return SACC_DMA_ABANDONED;
        }
        if (r != MEMTX_OK) {
            *fault = addr;
            return SACC_DMA_FAULT;
        }
        addr += n;
        buf += n;
        len -= n;
    }
    return SACC_DMA_OK;
}

/* True if [addr, addr + len) does not fit below 2^64 (len >= 1). */
static bool sacc_range_wraps(uint64_t addr, uint32_t len)
{
    return len - 1 > UINT64_MAX - addr;
}

/*
 * Execute one descriptor.  Returns false if the device was reset or
 * disabled meanwhile (the descriptor is then abandoned, no completion);
 * otherwise fills *status and *result_len.
 */
static bool sacc_execute(SaccState *s, const struct sacc_desc *d,
                         uint32_t epoch, uint16_t *status,
                         uint32_t *result_len)
{
    uint32_t info = SACC_FAULT_SRC_READ;
    uint64_t fault = d->src;
    SaccDmaResult r;
    uint32_t i;

    *result_len = 0;
    switch (d->opcode) {
    case SACC_OP_NOP:
        *status = SACC_STS_OK;
        return true;
    case SACC_OP_MEMCPY:
    case SACC_OP_XFORM:
        break;
    default:
        *status = SACC_STS_BAD_OPCODE;
        SACC_GUEST_ERROR(s, SACC_ERR_BAD_OPCODE, sacc_guest_error_bad_opcode,
                         "req_id 0x%x opcode %u", d->req_id, d->opcode);
        return true;
    }

    if (d->length < 1 || d->length > SACC_MAX_XFER) {
        *status = SACC_STS_BAD_LENGTH;
        SACC_GUEST_ERROR(s, SACC_ERR_INVALID, sacc_guest_error_bad_length,
                         "req_id 0x%x length %u", d->req_id, d->length);
        return true;
    }

    /* A buffer running past 2^64 faults at its start, with no DMA. */
    if (sacc_range_wraps(d->src, d->length)) {
        r = SACC_DMA_FAULT;
    } else if (sacc_range_wraps(d->dst, d->length)) {
        info = SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE;
        fault = d->dst;
        r = SACC_DMA_FAULT;
    } else {
        /* All of src first, so a source fault leaves dst untouched. */
        r = sacc_dma(s, d->src, s->bounce, d->length,
                     DMA_DIRECTION_TO_DEVICE, epoch, &fault);
        if (r == SACC_DMA_OK) {
            if (d->opcode == SACC_OP_XFORM) {
                for (i = 0; i < d->length; i++) {
                    s->bounce[i] ^= SACC_XFORM_KEY;
                }
            }
            info = SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE;
            r = sacc_dma(s, d->dst, s->bounce, d->length,
                         DMA_DIRECTION_FROM_DEVICE, epoch, &fault);
        }
    }

    switch (r) {
    case SACC_DMA_ABANDONED:
        return false;
    case SACC_DMA_FAULT:
        sacc_record_fault(s, info, fault, d->req_id);
        SACC_GUEST_ERROR(s, SACC_ERR_DMA, sacc_guest_error_buffer_dma_fault,
                         "info 0x%x addr 0x%" PRIx64 " req_id 0x%x",
                         info, fault, d->req_id);
        *status = SACC_STS_DMA_FAULT;
        return true;
    default:
        *status = SACC_STS_OK;
        *result_len = d->length;
        return true;
    }
}

/*
 * Post one completion: bytes 0-13 first, then the phase word in a second
 * write, so a guest polling the phase never sees a half-written entry.
 * Returns false if the ring faulted or the device was reset meanwhile.
 */
static bool sacc_post_cqe(SaccState *s, uint32_t epoch, uint32_t req_id,
                          uint16_t status, uint32_t result_len)
{
    uint64_t addr = s->regs.cq_base +
                    (uint64_t)s->ring.cq_tail * sizeof(struct sacc_cqe);
    struct sacc_cqe cqe = {
        .req_id = cpu_to_le32(req_id),
        .result_len = cpu_to_le32(result_len),
        .reserved = 0,
        .status = cpu_to_le16(status),
    };
    uint16_t phase = cpu_to_le16(s->ring.phase);
    const uint32_t info = SACC_FAULT_CQ_WRITE | SACC_FAULT_IS_WRITE;
    MemTxResult r;

    r = sacc_dma_rw(s, addr, &cqe, SACC_CQE_PHASE_OFFSET,
                    DMA_DIRECTION_FROM_DEVICE);
    if (s->epoch != epoch) {
        return false;
    }
    if (r != MEMTX_OK) {
        sacc_ring_fatal(s, info, addr, req_id);
        return false;
    }
    r = sacc_dma_rw(s, addr + SACC_CQE_PHASE_OFFSET, &phase, sizeof(phase),
                    DMA_DIRECTION_FROM_DEVICE);
    if (s->epoch != epoch) {
        return false;
    }
    if (r != MEMTX_OK) {
        sacc_ring_fatal(s, info, addr + SACC_CQE_PHASE_OFFSET, req_id);
        return false;
    }

    trace_sacc_cqe_post(s->ring.cq_tail, req_id, status, result_len,
                        s->ring.phase);
    sacc_dev_ring_cq_advance(&s->ring, s->regs.cq_size);
    return true;
}

/* Bottom half: run descriptors from sq_head up to the recorded tail. */
static void sacc_process(void *opaque)
{
    SaccState *s = opaque;
    const uint32_t epoch = s->epoch;
    unsigned int descs = 0;
    uint64_t bytes = 0;

    /* The epoch check catches a reset caused by our own DMA or MSI. */
    while (s->epoch == epoch && (s->regs.status & SACC_STATUS_READY) &&
           !sacc_dev_ring_sq_empty(&s->ring)) {
        struct sacc_desc d;
        uint64_t addr;
        uint32_t result_len;
        uint16_t status;
        MemTxResult r;

        /* CQ full (one slot stays free); CQ_HEAD will reschedule us. */
        if (sacc_dev_ring_cq_full(&s->ring, s->regs.cq_size)) {
            trace_sacc_cq_full(s->ring.cq_tail, s->ring.cq_head);
            return;
        }
        if (descs >= SACC_BH_MAX_DESCS || bytes >= SACC_BH_MAX_BYTES) {
            /* Let the main loop breathe; continue in a later run. */
            qemu_bh_schedule(s->bh);
            return;
        }

        addr = s->regs.sq_base + (uint64_t)s->ring.sq_head * sizeof(d);
        r = sacc_dma_rw(s, addr, &d, sizeof(d), DMA_DIRECTION_TO_DEVICE);
        if (s->epoch != epoch) {
            return;
        }
        if (r != MEMTX_OK) {
            sacc_ring_fatal(s, SACC_FAULT_DESC_FETCH, addr, 0);
            return;
        }
        d.src = le64_to_cpu(d.src);
        d.dst = le64_to_cpu(d.dst);
        d.length = le32_to_cpu(d.length);
        d.opcode = le16_to_cpu(d.opcode);
        d.flags = le16_to_cpu(d.flags);
        d.req_id = le32_to_cpu(d.req_id);
        trace_sacc_desc_fetch(s->ring.sq_head, d.opcode, d.req_id, d.src,
                              d.dst, d.length);
        sacc_dev_ring_sq_advance(&s->ring, s->regs.sq_size);

        if (!sacc_execute(s, &d, epoch, &status, &result_len)) {
            return;
        }
        if (!sacc_post_cqe(s, epoch, d.req_id, status, result_len)) {
            return;
        }
        if (d.flags & SACC_DESC_F_IRQ) {
            sacc_raise_irq(s, SACC_IRQ_COMPLETION);
        }

        descs++;
        if (d.opcode == SACC_OP_MEMCPY || d.opcode == SACC_OP_XFORM) {
            bytes += MIN(d.length, SACC_MAX_XFER);
        }
    }
}

static void sacc_ctrl_write(SaccState *s, uint32_t val)
{
    bool was = s->regs.ctrl & SACC_CTRL_ENABLE;
    bool now = val & SACC_CTRL_ENABLE;

    if (val & SACC_CTRL_RESET) {
        /* Wins over ENABLE; the RESET bit itself reads back 0. */
        sacc_reset(s, "ctrl");
        return;
    }
    if (now && !was) {
        s->regs.ctrl = SACC_CTRL_ENABLE;
        sacc_enable(s);
    } else if (!now && was) {
        s->regs.ctrl = 0;
        sacc_disable(s);
    }
}

static void sacc_cq_head_write(SaccState *s, uint32_t val)
{
    if (!(s->regs.status & SACC_STATUS_READY)) {
        SACC_GUEST_ERROR(s, SACC_ERR_NONE, sacc_guest_error_cq_head_not_ready,
                         "head %u", val);
        return;
    }
    if (val >= s->regs.cq_size) {
        SACC_GUEST_ERROR(s, SACC_ERR_INVALID, sacc_guest_error_cq_head_range,
                         "head %u cq_size %u", val, s->regs.cq_size);
        return;
    }
    trace_sacc_cq_head(val, s->ring.cq_tail);
    s->ring.cq_head = val;
    /* The slot may have unblocked a stalled ring. */
    if (!sacc_dev_ring_sq_empty(&s->ring)) {
        qemu_bh_schedule(s->bh);
    }
}

static bool sacc_ring_regs_locked(SaccState *s, hwaddr addr, uint64_t val)
{
    if (!(s->regs.ctrl & SACC_CTRL_ENABLE)) {
        return false;
    }
    SACC_GUEST_ERROR(s, SACC_ERR_NONE, sacc_guest_error_ring_reg_locked,
                     "addr 0x%" HWADDR_PRIx " val 0x%" PRIx64, addr, val);
    return true;
}

static uint64_t sacc_regs_read(void *opaque, hwaddr addr, unsigned int size)
{
    SaccState *s = opaque;
    uint64_t val = 0;

    if (size == 8) {
        switch (addr) {
        case SACC_REG_SQ_BASE:
            val = s->regs.sq_base;
            break;
        case SACC_REG_CQ_BASE:
            val = s->regs.cq_base;
            break;
        case SACC_REG_FAULT_ADDR:
            val = s->regs.fault_addr;
            break;
        default:
            SACC_GUEST_ERROR(s, SACC_ERR_NONE, sacc_guest_error_read64,
                             "addr 0x%" HWADDR_PRIx, addr);
        }
        goto out;
    }
    if (size != 4) {
        SACC_GUEST_ERROR(s, SACC_ERR_NONE, sacc_guest_error_read_size,
                         "addr 0x%" HWADDR_PRIx " size %u", addr, size);
        goto out;
    }

    switch (addr) {
    case SACC_REG_MAGIC:
        val = SACC_MAGIC;
        break;
    case SACC_REG_VERSION:
        val = SACC_VERSION;
        break;
    case SACC_REG_CTRL:
        val = s->regs.ctrl;
        break;
    case SACC_REG_STATUS:
        val = s->regs.status;
        break;
    case SACC_REG_SQ_BASE:
    case SACC_REG_SQ_BASE + 4:
        val = extract64(s->regs.sq_base, (addr - SACC_REG_SQ_BASE) * 8, 32);
        break;
    case SACC_REG_SQ_SIZE:
        val = s->regs.sq_size;
        break;
    case SACC_REG_CQ_BASE:
    case SACC_REG_CQ_BASE + 4:
        val = extract64(s->regs.cq_base, (addr - SACC_REG_CQ_BASE) * 8, 32);
        break;
    case SACC_REG_CQ_SIZE:
        val = s->regs.cq_size;
        break;
    case SACC_REG_IRQ_STATUS:
        val = s->regs.irq_status;
        break;
    case SACC_REG_ERR_CODE:
        val = s->regs.err_code;
        break;
    case SACC_REG_SCRATCH:
        val = s->regs.scratch;
        break;
    case SACC_REG_FAULT_ADDR:
    case SACC_REG_FAULT_ADDR + 4:
        val = extract64(s->regs.fault_addr,
                        (addr - SACC_REG_FAULT_ADDR) * 8, 32);
        break;
    case SACC_REG_FAULT_INFO:
        val = s->regs.fault_info;
        break;
    case SACC_REG_FAULT_REQ_ID:
        val = s->regs.fault_req_id;
        break;
    case SACC_REG_FAULT_COUNT:
        val = s->regs.fault_count;
        break;
    default:
        /* CQ_HEAD, IRQ_ACK (write-only) and reserved space read 0 */
        break;
    }
out:
    trace_sacc_mmio_read(addr, size, val);
    return val;
}

static void sacc_regs_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned int size)
{
    SaccState *s = opaque;

    trace_sacc_mmio_write(addr, size, val);
    if (size == 8) {
        if (addr != SACC_REG_SQ_BASE && addr != SACC_REG_CQ_BASE) {
            SACC_GUEST_ERROR(s, SACC_ERR_NONE, sacc_guest_error_write64,
                             "addr 0x%" HWADDR_PRIx " val 0x%" PRIx64,
                             addr, val);
            return;
        }
        if (sacc_ring_regs_locked(s, addr, val)) {
            return;
        }
        if (addr == SACC_REG_SQ_BASE) {
            s->regs.sq_base = val;
        } else {
            s->regs.cq_base = val;
        }
        return;
    }
    if (size != 4) {
        SACC_GUEST_ERROR(s, SACC_ERR_NONE, sacc_guest_error_write_size,
                         "addr 0x%" HWADDR_PRIx " size %u val 0x%" PRIx64,
                         addr, size, val);
        return;
    }

    switch (addr) {
    case SACC_REG_CTRL:
        sacc_ctrl_write(s, val);
        break;
    case SACC_REG_SQ_BASE:
    case SACC_REG_SQ_BASE + 4:
        if (!sacc_ring_regs_locked(s, addr, val)) {
            s->regs.sq_base = deposit64(s->regs.sq_base,
                                   (addr - SACC_REG_SQ_BASE) * 8,
                                   32, val);
        }
        break;
    case SACC_REG_SQ_SIZE:
        if (!sacc_ring_regs_locked(s, addr, val)) {
            s->regs.sq_size = val;
        }
        break;
    case SACC_REG_CQ_BASE:
    case SACC_REG_CQ_BASE + 4:
        if (!sacc_ring_regs_locked(s, addr, val)) {
            s->regs.cq_base = deposit64(s->regs.cq_base,
                                   (addr - SACC_REG_CQ_BASE) * 8,
                                   32, val);
        }
        break;
    case SACC_REG_CQ_SIZE:
        if (!sacc_ring_regs_locked(s, addr, val)) {
            s->regs.cq_size = val;
        }
        break;
    case SACC_REG_CQ_HEAD:
        sacc_cq_head_write(s, val);
        break;
    case SACC_REG_IRQ_ACK:
        s->regs.irq_status &= ~(uint32_t)val;
        break;
    case SACC_REG_SCRATCH:
        s->regs.scratch = val;
        break;
    case SACC_REG_MAGIC:
    case SACC_REG_VERSION:
    case SACC_REG_STATUS:
    case SACC_REG_IRQ_STATUS:
    case SACC_REG_ERR_CODE:
    case SACC_REG_FAULT_ADDR:
    case SACC_REG_FAULT_ADDR + 4:
    case SACC_REG_FAULT_INFO:
    case SACC_REG_FAULT_REQ_ID:
    case SACC_REG_FAULT_COUNT:
        SACC_GUEST_ERROR(s, SACC_ERR_NONE, sacc_guest_error_write_ro,
                         "addr 0x%" HWADDR_PRIx " val 0x%" PRIx64, addr, val);
        break;
    default:
        SACC_GUEST_ERROR(s, SACC_ERR_NONE, sacc_guest_error_write_reserved,
                         "addr 0x%" HWADDR_PRIx " val 0x%" PRIx64, addr, val);
        break;
    }
}

static uint64_t sacc_doorbell_read(void *opaque, hwaddr addr,
                                   unsigned int size)
{
    /* The doorbell is write-only and the rest of the page reserved. */
    trace_sacc_mmio_read(SACC_DOORBELL_OFFSET + addr, size, 0);
    return 0;
}

static void sacc_doorbell_write(void *opaque, hwaddr addr, uint64_t val,
                                unsigned int size)
{
    SaccState *s = opaque;

    trace_sacc_mmio_write(SACC_DOORBELL_OFFSET + addr, size, val);
    if (addr != 0 || size != 4) {
        SACC_GUEST_ERROR(s, SACC_ERR_NONE, sacc_guest_error_doorbell_access,
                         "addr 0x%" HWADDR_PRIx " size %u",
                         SACC_DOORBELL_OFFSET + addr, size);
        return;
    }
    if (!(s->regs.status & SACC_STATUS_READY)) {
        SACC_GUEST_ERROR(s, SACC_ERR_NOT_READY,
                         sacc_guest_error_doorbell_not_ready,
                         "tail %" PRIu64 " status 0x%x", val, s->regs.status);
        return;
    }
    if (val >= s->regs.sq_size) {
        SACC_GUEST_ERROR(s, SACC_ERR_INVALID, sacc_guest_error_doorbell_range,
                         "tail %" PRIu64 " sq_size %u", val, s->regs.sq_size);
        return;
    }
    trace_sacc_doorbell(val, s->ring.sq_head);
    /* Record only; the copy happens in the bottom half, not on the vCPU */
    s->ring.sq_tail = val;
    qemu_bh_schedule(s->bh);
}

/*
 * 1..8 byte accesses reach the handlers so that odd sizes are reported as
 * guest errors (the handlers accept only 4 bytes, and 8 at the 64-bit
 * registers) rather than being split or widened by the memory core.
 */
static const MemoryRegionOps sacc_regs_ops = {
    .read = sacc_regs_read,
    .write = sacc_regs_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

static const MemoryRegionOps sacc_doorbell_ops = {
    .read = sacc_doorbell_read,
    .write = sacc_doorbell_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

/* FLR and system reset; pci_device_reset() also clears MSI/bus master. */
static void sacc_qdev_reset(DeviceState *dev)
{
    PCIDevice *pdev = PCI_DEVICE(dev);
    SaccState *s = SACC(dev);
    /* pcie_cap_flr_write_config() keeps BCR_FLR set while we run. */
    bool flr = pci_get_word(pdev->config + pdev->exp.exp_cap +
                            PCI_EXP_DEVCTL) & PCI_EXP_DEVCTL_BCR_FLR;

    sacc_reset(s, flr ? "flr" : "device");
    msix_reset(pdev);
}

static void sacc_config_write(PCIDevice *pdev, uint32_t addr, uint32_t val,
                              int len)
{
    pci_default_write_config(pdev, addr, val, len);
    pcie_cap_flr_write_config(pdev, addr, val, len);
}

static void sacc_realize(PCIDevice *pdev, Error **errp)
{
    SaccState *s = SACC(pdev);
    DeviceState *dev = DEVICE(pdev);

    pci_config_set_prog_interface(pdev->config, SACC_PCI_CLASS & 0xff);
    pci_config_set_interrupt_pin(pdev->config, 0); /* no INTx */

    if (pcie_endpoint_cap_init(pdev, SACC_PCIE_CAP_OFFSET) < 0) {
        error_setg(errp, "sacc: cannot add PCIe capability");
        return;
    }
    pcie_cap_flr_init(pdev);

    memory_region_init(&s->bar0, OBJECT(s), "sacc-bar0", SACC_BAR0_SIZE);
    memory_region_init_io(&s->regs_mr, OBJECT(s), &sacc_regs_ops, s,
                          "sacc-regs", SACC_PAGE_SIZE);
    memory_region_init_io(&s->doorbell_mr, OBJECT(s), &sacc_doorbell_ops, s,
                          "sacc-doorbell", SACC_PAGE_SIZE);
    memory_region_add_subregion(&s->bar0, 0, &s->regs_mr);
    memory_region_add_subregion(&s->bar0, SACC_DOORBELL_OFFSET,
                                &s->doorbell_mr);
    pci_register_bar(pdev, SACC_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->bar0);

    memory_region_init(&s->msix_bar, OBJECT(s), "sacc-msix",
                       SACC_BAR1_SIZE);
    pci_register_bar(pdev, SACC_BAR_MSIX, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->msix_bar);
    if (msix_init(pdev, SACC_MSIX_VECTORS, &s->msix_bar, SACC_BAR_MSIX,
                  SACC_MSIX_TABLE_OFFSET, &s->msix_bar, SACC_BAR_MSIX,
                  SACC_MSIX_PBA_OFFSET, SACC_MSIX_CAP_OFFSET, errp) < 0) {
        pcie_cap_exit(pdev);
        return;
    }
    msix_vector_use(pdev, 0);

    s->bounce = g_malloc(SACC_MAX_XFER);
    s->bh = qemu_bh_new_guarded(sacc_process, s,
                                &dev->mem_reentrancy_guard);
    sacc_reset(s, "realize");
}

static void sacc_exit(PCIDevice *pdev)
{
    SaccState *s = SACC(pdev);

    qemu_bh_delete(s->bh);
    g_free(s->bounce);
    msix_uninit(pdev, &s->msix_bar, &s->msix_bar);
}

/*
 * Not migratable: the ring state and an in-flight bottom half are not
 * described by a VMState yet, so refuse migration rather than lose work.
 */
static const VMStateDescription sacc_vmstate = {
    .name = TYPE_SACC,
    .unmigratable = 1,
};

static void sacc_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *pc = PCI_DEVICE_CLASS(klass);

    pc->realize = sacc_realize;
    pc->exit = sacc_exit;
    pc->config_write = sacc_config_write;
    pc->vendor_id = SACC_PCI_VENDOR_ID;
    pc->device_id = SACC_PCI_DEVICE_ID;
    pc->subsystem_vendor_id = SACC_PCI_SUBSYS_VENDOR_ID;
    pc->subsystem_id = SACC_PCI_SUBSYS_ID;
    pc->revision = SACC_PCI_REVISION;
    pc->class_id = SACC_PCI_CLASS >> 8;

    dc->desc = "SACC synthetic PCIe accelerator";
    dc->reset = sacc_qdev_reset;
    dc->vmsd = &sacc_vmstate;
    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
}

static const TypeInfo sacc_info = {
    .name = TYPE_SACC,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(SaccState),
    .class_init = sacc_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void sacc_register_types(void)
{
    type_register_static(&sacc_info);
}

type_init(sacc_register_types)

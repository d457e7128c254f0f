/* SPDX-License-Identifier: MIT */
/*
 * SACC: the register pages as a vCPU sees them (docs/spec.md sections 2,
 * 3, 4, 9, 13 and 14): BAR0's register page (MAGIC, VERSION, SCRATCH and
 * channel 0, the v0.2 device) and doorbell page, BAR2's device page and
 * channel blocks, and what CTRL does: enable, disable, reset.
 *
 * A channel's guest-visible registers live in one struct (SaccChanRegs)
 * and return to their power-on values in one place,
 * sacc_chan_regs_reset().  BAR0 page 0 and the channel's BAR2 block are
 * two windows on them (sacc_chan_read(), sacc_chan_write()).  Every
 * access meets v0.2's access rule (sacc_access_ok(): 32 bits, or 64 at a
 * 64-bit register); anything else is a guest error, never a crash.
 *
 * With the engine thread the pages are dispatched without the BQL
 * (patches/0005): a valid doorbell or CQ_HEAD is posted for the engine
 * (sacc-doorbell.c), a read that changes nothing is answered from values
 * published atomically (sacc_read_lockless()), and every other access
 * takes the BQL, counted so that the engine makes way for it
 * (sacc_bql_lock()).  Without the BQL the memory core applies no
 * re-entrancy guard, so the handlers check it themselves
 * (sacc_reentrant()).
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "exec/memory.h"
#include "hw/pci/pci.h"
#include "hw/misc/sacc.h"
#include "trace.h"

/* True if @bytes of ring memory at @base would run past 2^64. */
static bool sacc_dev_ring_wraps(uint64_t base, uint64_t bytes)
{
    return base + bytes - 1 < base;
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

/* Every channel register to its power-on value: the one place. */
static void sacc_chan_regs_reset(SaccChanRegs *regs)
{
    *regs = (SaccChanRegs) {
        .err_code = SACC_ERR_NONE,
    };
}

/* A channel's registers to power-on; its work is forgotten. */
static void sacc_chan_power_on(SaccChannel *ch)
{
    ch->epoch++;
    ch->token = false;
    ch->cur.active = false;
    ch->seg.active = false;
    sacc_chan_regs_reset(&ch->regs);
    sacc_dev_ring_reset(&ch->ring, 0);
    sacc_db_hint_update(ch);
}

/* Return every register to its power-on value and forget all work. */
void sacc_device_reset(SaccState *s, const char *why)
{
    unsigned int i;

    trace_sacc_reset(why);
    sacc_dma_quiesce(s);
    qemu_bh_cancel(s->bh);
    for (i = 0; i < SACC_CHANNELS_MAX; i++) {
        sacc_chan_power_on(&s->chan[i]);
    }
    s->scratch = 0;
    s->dev_err_code = SACC_ERR_NONE;
    s->rr_next = 0;
}

/* CTRL.ENABLE 0 -> 1: validate the ring registers and go READY. */
static void sacc_enable(SaccState *s, SaccChannel *ch)
{
    SaccChanRegs *r = &ch->regs;

    if (!sacc_ring_size_valid(r->sq_size) ||
        !sacc_ring_size_valid(r->cq_size)) {
        SACC_GUEST_ERROR(&r->err_code, SACC_ERR_INVALID,
                         sacc_guest_error_enable_ring_size,
                         "ch %u sq_size %u cq_size %u",
                         ch->id, r->sq_size, r->cq_size);
    } else if (r->sq_base % SACC_SQ_ALIGN || r->cq_base % SACC_CQ_ALIGN) {
        SACC_GUEST_ERROR(&r->err_code, SACC_ERR_DMA,
                         sacc_guest_error_enable_ring_align,
                         "ch %u sq_base 0x%" PRIx64 " cq_base 0x%" PRIx64,
                         ch->id, r->sq_base, r->cq_base);
    } else if ((r->mode & SACC_MODE_TOKEN) &&
               r->put_addr % SACC_PUT_ALIGN) {
        SACC_GUEST_ERROR(&r->err_code, SACC_ERR_DMA,
                         sacc_guest_error_enable_put_align,
                         "ch %u put_addr 0x%" PRIx64, ch->id, r->put_addr);
    } else if ((r->mode & SACC_MODE_SQ_DEV) &&
               (!sacc_devmem_has(s, r->sq_base, sacc_sq_bytes(r->sq_size)) ||
                ((r->mode & SACC_MODE_TOKEN) &&
                 !sacc_devmem_has(s, r->put_addr, sizeof(uint32_t))))) {
        SACC_GUEST_ERROR(&r->err_code, SACC_ERR_DMA,
                         sacc_guest_error_enable_devmem,
                         "ch %u sq 0x%" PRIx64 "/%u put 0x%" PRIx64
                         " devmem 0x%" PRIx64, ch->id, r->sq_base,
                         r->sq_size, r->put_addr, s->devmem_size);
    } else if (sacc_dev_ring_wraps(r->sq_base, sacc_sq_bytes(r->sq_size)) ||
               sacc_dev_ring_wraps(r->cq_base, sacc_cq_bytes(r->cq_size))) {
        SACC_GUEST_ERROR(&r->err_code, SACC_ERR_DMA,
                         sacc_guest_error_enable_ring_wrap,
                         "ch %u sq 0x%" PRIx64 "/%u cq 0x%" PRIx64 "/%u",
                         ch->id, r->sq_base, r->sq_size, r->cq_base,
                         r->cq_size);
    } else {
        trace_sacc_enable(ch->id, r->mode, r->sq_base, r->sq_size,
                          r->cq_base, r->cq_size, r->put_addr);
        sacc_dev_ring_reset(&ch->ring, 1);
        ch->token = false;
        /* Success also clears an earlier ERROR (ERR_CODE stays). */
        qatomic_set(&r->status, SACC_STATUS_READY);
        sacc_db_hint_update(ch);
        return;
    }
    qatomic_set(&r->status,
                (r->status & ~SACC_STATUS_READY) | SACC_STATUS_ERROR);
    sacc_db_hint_update(ch);
}

/* CTRL.ENABLE 1 -> 0: stop and drop ring state; STATUS.ERROR is kept. */
static void sacc_disable(SaccChannel *ch)
{
    trace_sacc_disable(ch->id);
    ch->epoch++;
    ch->token = false;
    ch->cur.active = false;
    ch->seg.active = false;
    qatomic_set(&ch->regs.status, ch->regs.status & ~SACC_STATUS_READY);
    sacc_db_hint_update(ch);
    sacc_dev_ring_reset(&ch->ring, 0);
}

/* A channel reset: CTRL.RESET in the channel's BAR2 block. */
static void sacc_chan_reset(SaccChannel *ch)
{
    trace_sacc_chan_reset(ch->id);
    sacc_chan_power_on(ch);
}

/* CTRL; @page0: written through BAR0 page 0, where RESET is the device's */
static void sacc_ctrl_write(SaccState *s, SaccChannel *ch, uint32_t val,
                            bool page0)
{
    bool was = ch->regs.ctrl & SACC_CTRL_ENABLE;
    bool now = val & SACC_CTRL_ENABLE;

    if (val & SACC_CTRL_RESET) {
        /* Wins over ENABLE; the RESET bit itself reads back 0. */
        if (page0) {
            sacc_device_reset(s, "ctrl");
        } else {
            sacc_dma_quiesce(s);
            sacc_chan_reset(ch);
        }
        return;
    }
    if (now && !was) {
        qatomic_set(&ch->regs.ctrl, SACC_CTRL_ENABLE);
        sacc_enable(s, ch);
    } else if (!now && was) {
        qatomic_set(&ch->regs.ctrl, 0);
        sacc_dma_quiesce(s);
        sacc_disable(ch);
    }
}

static bool sacc_ring_regs_locked(SaccChannel *ch, unsigned int bar,
                                  hwaddr addr, uint64_t val)
{
    if (!(ch->regs.ctrl & SACC_CTRL_ENABLE)) {
        return false;
    }
    SACC_GUEST_ERROR(NULL, SACC_ERR_NONE, sacc_guest_error_ring_reg_locked,
                     "ch %u bar %u addr 0x%" HWADDR_PRIx " val 0x%" PRIx64,
                     ch->id, bar, addr, val);
    return true;
}

/*
 * A channel's 64-bit register at offset @off of its register window, or
 * NULL.  @page0: the window is BAR0 page 0, which has no PUT_ADDR.
 */
static uint64_t *sacc_chan_reg64(SaccChannel *ch, hwaddr off, bool page0)
{
    switch (off) {
    case SACC_REG_SQ_BASE:
        return &ch->regs.sq_base;
    case SACC_REG_CQ_BASE:
        return &ch->regs.cq_base;
    case SACC_REG_FAULT_ADDR:
        return &ch->regs.fault_addr;
    case SACC_REG_PUT_ADDR:
        return page0 ? NULL : &ch->regs.put_addr;
    default:
        return NULL;
    }
}

/* The 64-bit register of which @off is the LO or HI half, or NULL. */
static uint64_t *sacc_chan_reg64_half(SaccChannel *ch, hwaddr off,
                                      bool page0)
{
    return off % 4 ? NULL : sacc_chan_reg64(ch, off & ~7ull, page0);
}

/*
 * Read channel register @off (a page-0 offset, docs/spec.md sections 2
 * and 13), @size 4, or 8 at a 64-bit register (the caller checks).
 */
static uint64_t sacc_chan_read(SaccChannel *ch, hwaddr off,
                               unsigned int size, bool page0)
{
    const SaccChanRegs *r = &ch->regs;
    uint64_t *reg64 = sacc_chan_reg64_half(ch, off, page0);

    if (reg64) {
        return size == 8 ? *reg64 : extract64(*reg64, (off & 4) * 8, 32);
    }
    switch (off) {
    case SACC_REG_CTRL:
        return r->ctrl;
    case SACC_REG_STATUS:
        return r->status;
    case SACC_REG_SQ_SIZE:
        return r->sq_size;
    case SACC_REG_CQ_SIZE:
        return r->cq_size;
    case SACC_REG_IRQ_STATUS:
        return r->irq_status;
    case SACC_REG_ERR_CODE:
        return r->err_code;
    case SACC_REG_FAULT_INFO:
        return r->fault_info;
    case SACC_REG_FAULT_REQ_ID:
        return r->fault_req_id;
    case SACC_REG_FAULT_COUNT:
        return r->fault_count;
    case SACC_REG_MODE:
        return page0 ? 0 : r->mode;
    default:
        /* CQ_HEAD, IRQ_ACK (write-only) and reserved space read 0 */
        return 0;
    }
}

/*
 * Write channel register @off of the window at @base in BAR @bar (BAR0
 * page 0 or a BAR2 block), @size 4, or 8 at a 64-bit register.
 */
static void sacc_chan_write(SaccState *s, SaccChannel *ch, unsigned int bar,
                            hwaddr base, hwaddr off, uint64_t val,
                            unsigned int size)
{
    const bool page0 = bar == SACC_BAR_REGS;
    SaccChanRegs *r = &ch->regs;
    uint64_t *reg64 = sacc_chan_reg64_half(ch, off, page0);

    if (reg64 == &r->fault_addr) {
        reg64 = NULL; /* read-only: below */
    }
    if (reg64) {
        if (!sacc_ring_regs_locked(ch, bar, base + off, val)) {
            *reg64 = size == 8 ? val
                               : deposit64(*reg64, (off & 4) * 8, 32, val);
        }
        return;
    }

    switch (off) {
    case SACC_REG_CTRL:
        sacc_ctrl_write(s, ch, val, page0);
        break;
    case SACC_REG_SQ_SIZE:
        if (!sacc_ring_regs_locked(ch, bar, base + off, val)) {
            r->sq_size = val;
        }
        break;
    case SACC_REG_CQ_SIZE:
        if (!sacc_ring_regs_locked(ch, bar, base + off, val)) {
            r->cq_size = val;
        }
        break;
    case SACC_REG_CQ_HEAD:
        sacc_cq_head_write(s, ch, val);
        break;
    case SACC_REG_IRQ_ACK:
        qatomic_set(&r->irq_status, r->irq_status & ~(uint32_t)val);
        break;
    case SACC_REG_STATUS:
    case SACC_REG_IRQ_STATUS:
    case SACC_REG_ERR_CODE:
    case SACC_REG_FAULT_ADDR:
    case SACC_REG_FAULT_ADDR + 4:
    case SACC_REG_FAULT_INFO:
    case SACC_REG_FAULT_REQ_ID:
    case SACC_REG_FAULT_COUNT:
        SACC_GUEST_ERROR(NULL, SACC_ERR_NONE, sacc_guest_error_write_ro,
                         "bar %u addr 0x%" HWADDR_PRIx " val 0x%" PRIx64,
                         bar, base + off, val);
        break;
    case SACC_REG_MODE:
        if (!page0) {
            if (!sacc_ring_regs_locked(ch, bar, base + off, val)) {
                r->mode = val & SACC_MODE_MASK;
            }
            break;
        }
        /* fall through: BAR0 page 0 has no MODE */
    default:
        SACC_GUEST_ERROR(NULL, SACC_ERR_NONE,
                         sacc_guest_error_write_reserved,
                         "bar %u addr 0x%" HWADDR_PRIx " val 0x%" PRIx64,
                         bar, base + off, val);
        break;
    }
}

/*
 * v0.2's access rule (docs/spec.md section 2), for every register page:
 * 32-bit accesses, and 64-bit ones at a 64-bit register (@reg64).  Logs
 * anything else and returns false.
 */
static bool sacc_access_ok(unsigned int bar, hwaddr addr, unsigned int size,
                           bool reg64, bool write, uint64_t val)
{
    if (size == 4 || (size == 8 && reg64)) {
        return true;
    }
    if (size == 8 && write) {
        SACC_GUEST_ERROR(NULL, SACC_ERR_NONE, sacc_guest_error_write64,
                         "bar %u addr 0x%" HWADDR_PRIx " val 0x%" PRIx64,
                         bar, addr, val);
    } else if (size == 8) {
        SACC_GUEST_ERROR(NULL, SACC_ERR_NONE, sacc_guest_error_read64,
                         "bar %u addr 0x%" HWADDR_PRIx, bar, addr);
    } else if (write) {
        SACC_GUEST_ERROR(NULL, SACC_ERR_NONE, sacc_guest_error_write_size,
                         "bar %u addr 0x%" HWADDR_PRIx " size %u val 0x%"
                         PRIx64, bar, addr, size, val);
    } else {
        SACC_GUEST_ERROR(NULL, SACC_ERR_NONE, sacc_guest_error_read_size,
                         "bar %u addr 0x%" HWADDR_PRIx " size %u",
                         bar, addr, size);
    }
    return false;
}

/* BAR0 page 0: MAGIC, VERSION, SCRATCH and channel 0's registers. */
static uint64_t sacc_regs_read(void *opaque, hwaddr addr, unsigned int size)
{
    SaccState *s = opaque;
    SaccChannel *ch = &s->chan[0];
    uint64_t val = 0;

    if (qatomic_read(&s->gone)) {
        return 0;
    }
    sacc_db_drain(s);
    if (!sacc_access_ok(SACC_BAR_REGS, addr, size,
                        sacc_chan_reg64(ch, addr, true), false, 0)) {
        goto out;
    }
    switch (addr) {
    case SACC_REG_MAGIC:
        val = SACC_MAGIC;
        break;
    case SACC_REG_VERSION:
        val = SACC_VERSION;
        break;
    case SACC_REG_SCRATCH:
        val = s->scratch;
        break;
    default:
        val = sacc_chan_read(ch, addr, size, true);
        break;
    }
out:
    trace_sacc_mmio_read(SACC_BAR_REGS, addr, size, val);
    return val;
}

static void sacc_regs_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned int size)
{
    SaccState *s = opaque;
    SaccChannel *ch = &s->chan[0];
    uint64_t *reg64 = sacc_chan_reg64(ch, addr, true);

    if (qatomic_read(&s->gone)) {
        return;
    }
    sacc_db_drain(s);
    trace_sacc_mmio_write(SACC_BAR_REGS, addr, size, val);
    /* 64-bit writes only where they can land: not at FAULT_ADDR */
    if (!sacc_access_ok(SACC_BAR_REGS, addr, size,
                        reg64 && reg64 != &ch->regs.fault_addr, true, val)) {
        return;
    }
    switch (addr) {
    case SACC_REG_SCRATCH:
        s->scratch = val;
        break;
    case SACC_REG_MAGIC:
    case SACC_REG_VERSION:
        SACC_GUEST_ERROR(NULL, SACC_ERR_NONE, sacc_guest_error_write_ro,
                         "bar %u addr 0x%" HWADDR_PRIx " val 0x%" PRIx64,
                         SACC_BAR_REGS, addr, val);
        break;
    default:
        sacc_chan_write(s, ch, SACC_BAR_REGS, 0, addr, val, size);
        break;
    }
}

/*
 * The doorbell page has no owner device for the memory core's re-entrancy
 * guard (sacc_realize()), which it would set and clear without the BQL;
 * this is that guard's check, made where it is safe: with the BQL held,
 * as the engine holds it while its guard is engaged.  So the engine's DMA
 * to the doorbell page still fails (a DMA fault), as before.
 */
static bool sacc_reentrant(SaccState *s, const char *mr, hwaddr addr)
{
    if (qemu_mutex_iothread_locked() &&
        s->parent_obj.qdev.mem_reentrancy_guard.engaged_in_io) {
        warn_report_once("Blocked re-entrant IO on MemoryRegion: "
                         "%s at addr: 0x%" HWADDR_PRIX, mr, addr);
        return true;
    }
    return false;
}

static bool sacc_doorbell_reentrant(SaccState *s, hwaddr addr)
{
    return sacc_reentrant(s, "sacc-doorbell", addr);
}

static MemTxResult sacc_doorbell_read(void *opaque, hwaddr addr,
                                      uint64_t *val, unsigned int size,
                                      MemTxAttrs attrs)
{
    if (sacc_doorbell_reentrant(opaque, addr)) {
        return MEMTX_ACCESS_ERROR;
    }
    /* The doorbells are write-only and the rest of the page reserved. */
    trace_sacc_mmio_read(SACC_BAR_REGS, SACC_DOORBELL_OFFSET + addr, size, 0);
    *val = 0;
    return MEMTX_OK;
}

/* A doorbell write, under the BQL, with every earlier doorbell drained. */
static void sacc_doorbell_write_locked(SaccState *s, hwaddr addr,
                                       uint64_t val, unsigned int size)
{
    const hwaddr off = SACC_DOORBELL_OFFSET + addr;
    const hwaddr k = addr / SACC_DOORBELL_STRIDE;

    trace_sacc_mmio_write(SACC_BAR_REGS, off, size, val);
    if (size == 4 && off == SACC_DOORBELL_TOKEN) {
        sacc_token_doorbell(s, val);
    } else if (size == 4 && addr % SACC_DOORBELL_STRIDE == 0 &&
               k < s->nr_channels) {
        sacc_tail_doorbell(s, &s->chan[k], val);
    } else {
        SACC_GUEST_ERROR(NULL, SACC_ERR_NONE,
                         sacc_guest_error_doorbell_access,
                         "addr 0x%" HWADDR_PRIx " size %u", off, size);
    }
}

static MemTxResult sacc_doorbell_write(void *opaque, hwaddr addr,
                                       uint64_t val, unsigned int size,
                                       MemTxAttrs attrs)
{
    SaccState *s = opaque;
    bool locked = qemu_mutex_iothread_locked();

    if (qatomic_read(&s->gone)) {
        return MEMTX_OK;
    }
    if (sacc_doorbell_reentrant(s, addr)) {
        return MEMTX_ACCESS_ERROR;
    }
    if (!locked && sacc_doorbell_post(s, addr, val, size)) {
        if (!sacc_post_run(s)) {
            sacc_kick(s); /* a flag and a QemuEvent: safe without the BQL */
        }
        return MEMTX_OK;
    }
    if (!locked) {
        qemu_mutex_lock_iothread();
    }
    sacc_db_drain(s);
    sacc_doorbell_write_locked(s, addr, val, size);
    if (!locked) {
        qemu_mutex_unlock_iothread();
    }
    return MEMTX_OK;
}

/* BAR2 page 0 (docs/spec.md section 13): CLOCK and IRQ_PENDING are 64 */
static bool sacc_dev_reg64(hwaddr addr)
{
    return addr == SACC_DEV_CLOCK || addr == SACC_DEV_IRQ_PENDING ||
           addr == SACC_DEV_DEVMEM_SIZE;
}

static uint64_t sacc_dev_read(SaccState *s, hwaddr addr, unsigned int size)
{
    uint64_t v;

    switch (addr) {
    case SACC_DEV_CHANNELS:
        return s->nr_channels;
    case SACC_DEV_ERR_CODE:
        return s->dev_err_code;
    case SACC_DEV_CLOCK:
    case SACC_DEV_CLOCK + 4:
        v = sacc_clock_ns();
        break;
    case SACC_DEV_IRQ_PENDING:
    case SACC_DEV_IRQ_PENDING + 4:
        v = sacc_irq_pending(s);
        break;
    case SACC_DEV_DEVMEM_SIZE:
    case SACC_DEV_DEVMEM_SIZE + 4:
        v = s->devmem_size;
        break;
    default:
        return 0;
    }
    return size == 8 ? v : extract64(v, (addr & 4) * 8, 32);
}

/* The channel whose BAR2 block holds @addr, or NULL; *off: within it */
static SaccChannel *sacc_bar2_chan(SaccState *s, hwaddr addr, hwaddr *off)
{
    hwaddr k;

    if (addr < SACC_CHAN_BASE) {
        return NULL;
    }
    k = (addr - SACC_CHAN_BASE) / SACC_CHAN_STRIDE;
    *off = (addr - SACC_CHAN_BASE) % SACC_CHAN_STRIDE;
    return k < s->nr_channels ? &s->chan[k] : NULL;
}

/* BAR2: the device page and the channel blocks. */
static uint64_t sacc_bar2_read(void *opaque, hwaddr addr, unsigned int size)
{
    SaccState *s = opaque;
    hwaddr off = 0;
    SaccChannel *ch = sacc_bar2_chan(s, addr, &off);
    bool reg64 = ch ? sacc_chan_reg64(ch, off, false) != NULL
                    : addr < SACC_CHAN_BASE && sacc_dev_reg64(addr);
    uint64_t val = 0;

    if (qatomic_read(&s->gone)) {
        return 0;
    }
    sacc_db_drain(s);
    if (sacc_access_ok(SACC_BAR_CHAN, addr, size, reg64, false, 0)) {
        if (ch) {
            val = sacc_chan_read(ch, off, size, false);
        } else if (addr < SACC_CHAN_BASE) {
            val = sacc_dev_read(s, addr, size);
        }
    }
    trace_sacc_mmio_read(SACC_BAR_CHAN, addr, size, val);
    return val;
}

static void sacc_bar2_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned int size)
{
    SaccState *s = opaque;
    hwaddr off = 0;
    SaccChannel *ch = sacc_bar2_chan(s, addr, &off);
    uint64_t *reg64 = ch ? sacc_chan_reg64(ch, off, false) : NULL;

    if (qatomic_read(&s->gone)) {
        return;
    }
    sacc_db_drain(s);
    trace_sacc_mmio_write(SACC_BAR_CHAN, addr, size, val);
    if (!sacc_access_ok(SACC_BAR_CHAN, addr, size,
                        reg64 && reg64 != &ch->regs.fault_addr, true, val)) {
        return;
    }
    if (ch) {
        sacc_chan_write(s, ch, SACC_BAR_CHAN, addr - off, off, val, size);
    } else if (addr < SACC_CHAN_BASE &&
               (addr & ~7ull) <= SACC_DEV_IRQ_PENDING) {
        SACC_GUEST_ERROR(NULL, SACC_ERR_NONE, sacc_guest_error_write_ro,
                         "bar %u addr 0x%" HWADDR_PRIx " val 0x%" PRIx64,
                         SACC_BAR_CHAN, addr, val);
    } else {
        SACC_GUEST_ERROR(NULL, SACC_ERR_NONE,
                         sacc_guest_error_write_reserved,
                         "bar %u addr 0x%" HWADDR_PRIx " val 0x%" PRIx64,
                         SACC_BAR_CHAN, addr, val);
    }
}

/*
 * The register pages without the BQL (x-reg-lockless, with the engine
 * thread; patches/0005).  Under the BQL a vCPU's register read waited for
 * the engine's run: behind a busy channel, milliseconds (issue 19), where
 * a device answers a read at once.  A read that changes nothing is
 * answered without the lock, from values their writers (all under the
 * BQL) publish with qatomic_set(): MAGIC, VERSION, CHANNELS, CLOCK,
 * DEVMEM_SIZE, and a channel's CTRL, STATUS and IRQ_STATUS (IRQ_PENDING,
 * all channels' IRQ_STATUS), even while a doorbell or CQ_HEAD waits for
 * sacc_db_drain(): applying one never changes them (it records a tail,
 * a token or a head, or an error in ERR_CODE, which is read under the
 * lock after the drain), so the guest still sees its doorbells and
 * register accesses in the order it made them.  Every other access takes
 * the BQL as before, counted in bql_waiters: the engine makes way for it
 * (sacc_engine_make_way()).  The memory core applies no re-entrancy guard
 * without the BQL, so these handlers check it themselves.
 */
static bool sacc_chan_read_lockless(SaccChannel *ch, hwaddr off,
                                    unsigned int size, uint64_t *val)
{
    if (size != 4) {
        return false;
    }
    switch (off) {
    case SACC_REG_CTRL:
        *val = qatomic_read(&ch->regs.ctrl);
        return true;
    case SACC_REG_STATUS:
        *val = qatomic_load_acquire(&ch->regs.status);
        return true;
    case SACC_REG_IRQ_STATUS:
        *val = qatomic_load_acquire(&ch->regs.irq_status);
        return true;
    default:
        return false;
    }
}

static bool sacc_read_lockless(SaccState *s, unsigned int bar, hwaddr addr,
                               unsigned int size, uint64_t *val)
{
    SaccChannel *ch;
    hwaddr off = 0;
    uint64_t v;

    if (bar == SACC_BAR_REGS) {
        if (addr == SACC_REG_MAGIC || addr == SACC_REG_VERSION) {
            *val = addr == SACC_REG_MAGIC ? SACC_MAGIC : SACC_VERSION;
            return size == 4;
        }
        return sacc_chan_read_lockless(&s->chan[0], addr, size, val);
    }
    ch = sacc_bar2_chan(s, addr, &off);
    if (ch) {
        return sacc_chan_read_lockless(ch, off, size, val);
    }
    switch (addr) {
    case SACC_DEV_CHANNELS:
        *val = s->nr_channels; /* fixed at realize */
        return size == 4;
    case SACC_DEV_CLOCK:
    case SACC_DEV_CLOCK + 4:
        v = sacc_clock_ns();
        break;
    case SACC_DEV_DEVMEM_SIZE: /* fixed at realize */
    case SACC_DEV_DEVMEM_SIZE + 4:
        v = s->devmem_size;
        break;
    case SACC_DEV_IRQ_PENDING:
    case SACC_DEV_IRQ_PENDING + 4:
        v = sacc_irq_pending(s);
        break;
    default:
        return false;
    }
    if (size == 8 && !(addr & 4)) {
        *val = v;
        return true;
    }
    *val = extract64(v, (addr & 4) * 8, 32);
    return size == 4;
}

/* The BQL for a vCPU's access to our registers, making it known. */
static void sacc_bql_lock(SaccState *s)
{
    qatomic_inc(&s->bql_waiters);
    qemu_mutex_lock_iothread();
    qatomic_dec(&s->bql_waiters);
}

static MemTxResult sacc_mmio_read_unlocked(SaccState *s, unsigned int bar,
                                           hwaddr addr, uint64_t *val,
                                           unsigned int size)
{
    bool locked = qemu_mutex_iothread_locked();

    *val = 0;
    if (qatomic_read(&s->gone)) {
        return MEMTX_OK;
    }
    if (sacc_reentrant(s, bar == SACC_BAR_REGS ? "sacc-regs" : "sacc-chan",
                       addr)) {
        return MEMTX_ACCESS_ERROR;
    }
    if (!locked && sacc_read_lockless(s, bar, addr, size, val)) {
        trace_sacc_mmio_read(bar, addr, size, *val);
        return MEMTX_OK;
    }
    if (!locked) {
        sacc_bql_lock(s);
    }
    *val = bar == SACC_BAR_REGS ? sacc_regs_read(s, addr, size)
                                : sacc_bar2_read(s, addr, size);
    if (!locked) {
        qemu_mutex_unlock_iothread();
    }
    return MEMTX_OK;
}

/*
 * A CQ_HEAD write without the BQL, as sacc_doorbell_post() does a
 * doorbell: a value the channel's cq_hint says is valid is recorded and
 * applied under the BQL by sacc_db_drain(), before the engine's next turn
 * and before any other register access is handled.  A driver writes
 * CQ_HEAD once per poll that found completions; taking the BQL for it
 * made each one wait for the engine's turn on another channel, and a
 * wait for a contended lock is a futex sleep, tens of microseconds on
 * this host (issue 19).  Anything else returns false and takes the lock,
 * so every guest error is reported as before.
 */
static bool sacc_cq_head_post(SaccState *s, unsigned int bar, hwaddr addr,
                              uint64_t val, unsigned int size)
{
    SaccChannel *ch = bar == SACC_BAR_REGS ? &s->chan[0] : NULL;
    hwaddr off = addr;
    uint32_t hint;

    if (!ch) {
        ch = sacc_bar2_chan(s, addr, &off);
    }
    if (!ch || off != SACC_REG_CQ_HEAD || size != 4) {
        return false;
    }
    hint = qatomic_read(&ch->cq_hint);
    if (val >= hint) {
        return false;
    }
    trace_sacc_mmio_write(bar, addr, size, val);
    /* xchg is a full barrier: cqh_pending is set before db_any. */
    qatomic_xchg(&ch->cqh_pending, (uint32_t)val + 1);
    qatomic_set(&s->db_any, true);
    sacc_yield_hint(s);
    if (!sacc_post_run(s)) {
        sacc_kick(s);
    }
    return true;
}

static MemTxResult sacc_mmio_write_unlocked(SaccState *s, unsigned int bar,
                                            hwaddr addr, uint64_t val,
                                            unsigned int size)
{
    bool locked = qemu_mutex_iothread_locked();

    if (qatomic_read(&s->gone)) {
        return MEMTX_OK;
    }
    if (sacc_reentrant(s, bar == SACC_BAR_REGS ? "sacc-regs" : "sacc-chan",
                       addr)) {
        return MEMTX_ACCESS_ERROR;
    }
    if (!locked && sacc_cq_head_post(s, bar, addr, val, size)) {
        return MEMTX_OK;
    }
    if (!locked) {
        sacc_bql_lock(s);
    }
    if (bar == SACC_BAR_REGS) {
        sacc_regs_write(s, addr, val, size);
    } else {
        sacc_bar2_write(s, addr, val, size);
    }
    if (!locked) {
        qemu_mutex_unlock_iothread();
    }
    return MEMTX_OK;
}

static MemTxResult sacc_regs_read_unlocked(void *opaque, hwaddr addr,
                                           uint64_t *val, unsigned int size,
                                           MemTxAttrs attrs)
{
    return sacc_mmio_read_unlocked(opaque, SACC_BAR_REGS, addr, val, size);
}

static MemTxResult sacc_regs_write_unlocked(void *opaque, hwaddr addr,
                                            uint64_t val, unsigned int size,
                                            MemTxAttrs attrs)
{
    return sacc_mmio_write_unlocked(opaque, SACC_BAR_REGS, addr, val, size);
}

static MemTxResult sacc_bar2_read_unlocked(void *opaque, hwaddr addr,
                                           uint64_t *val, unsigned int size,
                                           MemTxAttrs attrs)
{
    return sacc_mmio_read_unlocked(opaque, SACC_BAR_CHAN, addr, val, size);
}

static MemTxResult sacc_bar2_write_unlocked(void *opaque, hwaddr addr,
                                            uint64_t val, unsigned int size,
                                            MemTxAttrs attrs)
{
    return sacc_mmio_write_unlocked(opaque, SACC_BAR_CHAN, addr, val, size);
}

/*
 * 1..8 byte accesses reach the handlers so that odd sizes are reported as
 * guest errors (the handlers accept only 4 bytes, and 8 at the 64-bit
 * registers) rather than being split or widened by the memory core.
 */
#define SACC_MMIO_SIZES                                         \
    .endianness = DEVICE_LITTLE_ENDIAN,                         \
    .valid = { .min_access_size = 1, .max_access_size = 8 },    \
    .impl = { .min_access_size = 1, .max_access_size = 8 }

static const MemoryRegionOps sacc_regs_ops = {
    .read = sacc_regs_read,
    .write = sacc_regs_write,
    SACC_MMIO_SIZES,
};

static const MemoryRegionOps sacc_doorbell_ops = {
    .read_with_attrs = sacc_doorbell_read,
    .write_with_attrs = sacc_doorbell_write,
    SACC_MMIO_SIZES,
};

static const MemoryRegionOps sacc_bar2_ops = {
    .read = sacc_bar2_read,
    .write = sacc_bar2_write,
    SACC_MMIO_SIZES,
};

/* The same two pages without the BQL (x-reg-lockless) */
static const MemoryRegionOps sacc_regs_unlocked_ops = {
    .read_with_attrs = sacc_regs_read_unlocked,
    .write_with_attrs = sacc_regs_write_unlocked,
    SACC_MMIO_SIZES,
};

static const MemoryRegionOps sacc_bar2_unlocked_ops = {
    .read_with_attrs = sacc_bar2_read_unlocked,
    .write_with_attrs = sacc_bar2_write_unlocked,
    SACC_MMIO_SIZES,
};

/*
 * BAR0, the register page and the doorbell page, and BAR2, the device
 * page and the channel blocks: with the BQL, or, where the engine is a
 * thread, the doorbell page (x-db-lockless) and the register pages
 * (x-reg-lockless) without it.
 */
void sacc_regs_realize(SaccState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    bool lockless_regs;

    memory_region_init(&s->bar0, OBJECT(s), "sacc-bar0", SACC_BAR0_SIZE);
    /* x-reg-lockless: see sacc_read_lockless() */
    lockless_regs = s->engine_thread && s->reg_lockless;
    memory_region_init_io(&s->regs_mr, OBJECT(s),
                          lockless_regs ? &sacc_regs_unlocked_ops
                                        : &sacc_regs_ops,
                          s, "sacc-regs", SACC_PAGE_SIZE);
    if (lockless_regs) {
        s->regs_mr.dev = NULL; /* as the doorbell page, below */
        memory_region_enable_lockless_io(&s->regs_mr);
    }
    memory_region_init_io(&s->doorbell_mr, OBJECT(s), &sacc_doorbell_ops, s,
                          "sacc-doorbell", SACC_PAGE_SIZE);
    memory_region_add_subregion(&s->bar0, 0, &s->regs_mr);
    /*
     * The doorbell page: without the BQL when the engine is a thread
     * (sacc_doorbell_post(), patches/0005).  The memory core would set
     * and clear the device's re-entrancy guard around its accesses
     * without the BQL, racing with the engine's (7.2 clears it even when
     * the region disables it), so the page has no device for the core;
     * its handlers check the guard themselves (sacc_doorbell_reentrant()).
     */
    s->doorbell_mr.dev = NULL;
    if (s->engine_thread && s->db_lockless) {
        memory_region_enable_lockless_io(&s->doorbell_mr);
    }
    memory_region_add_subregion(&s->bar0, SACC_DOORBELL_OFFSET,
                                &s->doorbell_mr);
    pci_register_bar(pdev, SACC_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->bar0);

    memory_region_init_io(&s->bar2, OBJECT(s),
                          lockless_regs ? &sacc_bar2_unlocked_ops
                                        : &sacc_bar2_ops,
                          s, "sacc-chan", SACC_BAR2_SIZE);
    if (lockless_regs) {
        s->bar2.dev = NULL;
        memory_region_enable_lockless_io(&s->bar2);
    }
    pci_register_bar(pdev, SACC_BAR_CHAN, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->bar2);
}

/* SPDX-License-Identifier: MIT */
/*
 * SACC: doorbells and CQ_HEAD, the guest's word that there is work
 * (docs/spec.md sections 3 and 14), and what they do to a channel.
 *
 * A doorbell only validates and records (a tail, or that a token came)
 * and kicks the engine (sacc_kick()), so the vCPU never waits for a copy
 * or a PUT read.  A valid doorbell takes no BQL at all (x-db-lockless=on,
 * the default with the engine thread; patches/0005 makes the page
 * lockless): sacc_doorbell_post() records it in the channel's db_pending,
 * checked against the channel's db_hint, which sacc_db_hint_update()
 * publishes under the BQL wherever STATUS.READY changes.  CQ_HEAD is
 * posted the same way, in cqh_pending (x-reg-lockless, sacc-regs.c).
 * sacc_db_drain() applies what was posted, under the BQL, through the very
 * checks a doorbell or CQ_HEAD written under the BQL meets
 * (sacc_tail_doorbell(), sacc_token_doorbell(), sacc_cq_head_write()),
 * before the engine's next turn and before any other register access is
 * handled: the guest sees its doorbells and register accesses take effect
 * in the order it made them, and every guest error is reported as it
 * would be under the lock.  The register pages' handlers (sacc-regs.c)
 * decode the accesses; this file is what they mean.
 */

#include "qemu/osdep.h"
#include "hw/misc/sacc.h"
#include "trace.h"

/*
 * Publish which doorbells of @ch the vCPU may ring without the BQL,
 * wherever STATUS.READY changes (MODE and SQ_SIZE cannot change while it
 * is set: they are locked while CTRL.ENABLE is).  Only a hint:
 * sacc_db_drain() validates every doorbell again under the BQL.
 */
void sacc_db_hint_update(SaccChannel *ch)
{
    uint32_t hint = 0;

    if (ch->regs.status & SACC_STATUS_READY) {
        hint = ch->regs.mode & SACC_MODE_TOKEN ? SACC_DB_HINT_TOKEN
                                               : ch->regs.sq_size;
    }
    qatomic_set(&ch->db_hint, hint);
    qatomic_set(&ch->cq_hint, ch->regs.status & SACC_STATUS_READY
                                  ? ch->regs.cq_size : 0);
}

/*
 * CQ_HEAD (docs/spec.md section 5): the driver has consumed the
 * completions before @val.  The slots it freed may let a ring that
 * stalled on a full CQ go on.
 */
void sacc_cq_head_write(SaccState *s, SaccChannel *ch, uint32_t val)
{
    if (!(ch->regs.status & SACC_STATUS_READY)) {
        SACC_GUEST_ERROR(NULL, SACC_ERR_NONE,
                         sacc_guest_error_cq_head_not_ready,
                         "ch %u head %u", ch->id, val);
        return;
    }
    if (val >= ch->regs.cq_size) {
        SACC_GUEST_ERROR(&ch->regs.err_code, SACC_ERR_INVALID,
                         sacc_guest_error_cq_head_range,
                         "ch %u head %u cq_size %u",
                         ch->id, val, ch->regs.cq_size);
        return;
    }
    trace_sacc_cq_head(ch->id, val, ch->ring.cq_tail);
    sacc_yield_hint(s);
    ch->ring.cq_head = val;
    /* The slot may have unblocked a stalled ring. */
    if (!sacc_ring_empty(ch->ring.sq_head, ch->ring.sq_tail)) {
        sacc_kick(s);
    }
}

/* Channel @ch's tail doorbell (docs/spec.md sections 3 and 14). */
void sacc_tail_doorbell(SaccState *s, SaccChannel *ch, uint64_t val)
{
    if (!(ch->regs.status & SACC_STATUS_READY)) {
        SACC_GUEST_ERROR(&ch->regs.err_code, SACC_ERR_NOT_READY,
                         sacc_guest_error_doorbell_not_ready,
                         "ch %u value %" PRIu64 " status 0x%x",
                         ch->id, val, ch->regs.status);
        return;
    }
    if (ch->regs.mode & SACC_MODE_TOKEN) {
        SACC_GUEST_ERROR(&ch->regs.err_code, SACC_ERR_INVALID,
                         sacc_guest_error_doorbell_mode,
                         "ch %u value %" PRIu64 " mode 0x%x",
                         ch->id, val, ch->regs.mode);
        return;
    }
    if (val >= ch->regs.sq_size) {
        SACC_GUEST_ERROR(&ch->regs.err_code, SACC_ERR_INVALID,
                         sacc_guest_error_doorbell_range,
                         "ch %u tail %" PRIu64 " sq_size %u",
                         ch->id, val, ch->regs.sq_size);
        return;
    }
    trace_sacc_doorbell(ch->id, val, ch->ring.sq_head,
                        SACC_TRACE_NS(TRACE_SACC_DOORBELL));
    /* Record only; the copy happens in the engine, not on the vCPU */
    ch->ring.sq_tail = val;
    sacc_yield_hint(s);
    sacc_kick(s);
}

/* The token doorbell (docs/spec.md section 14): note it, read PUT later */
void sacc_token_doorbell(SaccState *s, uint64_t val)
{
    SaccChannel *ch;

    if (val >= s->nr_channels) {
        SACC_GUEST_ERROR(&s->dev_err_code, SACC_ERR_INVALID,
                         sacc_guest_error_token_range,
                         "token %" PRIu64 " channels %u",
                         val, s->nr_channels);
        return;
    }
    ch = &s->chan[val];
    if (!(ch->regs.status & SACC_STATUS_READY)) {
        SACC_GUEST_ERROR(&ch->regs.err_code, SACC_ERR_NOT_READY,
                         sacc_guest_error_doorbell_not_ready,
                         "ch %u value %" PRIu64 " status 0x%x",
                         ch->id, val, ch->regs.status);
        return;
    }
    if (!(ch->regs.mode & SACC_MODE_TOKEN)) {
        SACC_GUEST_ERROR(&ch->regs.err_code, SACC_ERR_INVALID,
                         sacc_guest_error_doorbell_mode,
                         "ch %u value %" PRIu64 " mode 0x%x",
                         ch->id, val, ch->regs.mode);
        return;
    }
    trace_sacc_doorbell_token(ch->id, ch->ring.sq_head,
                              SACC_TRACE_NS(TRACE_SACC_DOORBELL_TOKEN));
    ch->token = true;
    sacc_yield_hint(s);
    sacc_kick(s);
}

/*
 * Under the BQL (the engine, every register access, reset): act on the
 * doorbells sacc_doorbell_post() recorded, through the very checks a
 * doorbell under the BQL meets (sacc_tail_doorbell(),
 * sacc_token_doorbell()).  A vCPU's doorbell is drained before its next
 * register access is handled, so the guest sees its doorbells and
 * register accesses take effect in the order it made them.
 */
void sacc_db_drain(SaccState *s)
{
    uint32_t i;

    if (!qatomic_read(&s->db_any) || !qatomic_xchg(&s->db_any, false)) {
        return;
    }
    /* The xchg orders it before the reads (post() sets it after). */
    for (i = 0; i < s->nr_channels; i++) {
        SaccChannel *ch = &s->chan[i];
        uint64_t v;

        if (qatomic_read(&ch->cqh_pending)) {
            v = qatomic_xchg(&ch->cqh_pending, 0);
            if (v) {
                sacc_cq_head_write(s, ch, v - 1);
            }
        }
        if (!qatomic_read(&ch->db_pending)) {
            continue;
        }
        v = qatomic_xchg(&ch->db_pending, 0);
        if (v & SACC_DB_TOKEN) {
            sacc_token_doorbell(s, ch->id);
        }
        if (v & SACC_DB_TAIL) {
            sacc_tail_doorbell(s, ch, (uint32_t)v);
        }
    }
}

/*
 * A doorbell write without the BQL (x-db-lockless=on with the engine
 * thread makes the page lockless, patches/0005).  A doorbell
 * that the channel's db_hint says is valid is recorded in db_pending (a
 * later tail replaces an earlier one, as sq_tail would) and the engine
 * kicked; sacc_db_drain() then applies it under the BQL.  Anything else
 * (a wrong size or offset, a value out of range, a channel not READY or in
 * the other mode) returns false and takes the BQL, so every guest error
 * is reported exactly as before, in order.
 */
bool sacc_doorbell_post(SaccState *s, hwaddr addr, uint64_t val,
                        unsigned int size)
{
    const hwaddr off = SACC_DOORBELL_OFFSET + addr;
    const hwaddr k = addr / SACC_DOORBELL_STRIDE;
    SaccChannel *ch;
    uint64_t old, new, cur;
    uint32_t hint;

    if (size != 4) {
        return false;
    }
    if (off == SACC_DOORBELL_TOKEN) {
        if (val >= s->nr_channels) {
            return false;
        }
        ch = &s->chan[val];
        if (qatomic_read(&ch->db_hint) != SACC_DB_HINT_TOKEN) {
            return false;
        }
    } else if (addr % SACC_DOORBELL_STRIDE == 0 && k < s->nr_channels) {
        ch = &s->chan[k];
        hint = qatomic_read(&ch->db_hint);
        if (!hint || (hint & SACC_DB_HINT_TOKEN) || val >= hint) {
            return false;
        }
    } else {
        return false;
    }
    trace_sacc_mmio_write(SACC_BAR_REGS, off, size, val);
    /* cmpxchg is a full barrier: db_pending is set before db_any. */
    for (old = qatomic_read(&ch->db_pending);; old = cur) {
        new = off == SACC_DOORBELL_TOKEN
              ? old | SACC_DB_TOKEN
              : (old & SACC_DB_TOKEN) | SACC_DB_TAIL | (uint32_t)val;
        cur = qatomic_cmpxchg(&ch->db_pending, old, new);
        if (cur == old) {
            break;
        }
    }
    qatomic_set(&s->db_any, true);
    sacc_yield_hint(s);
    return true;
}

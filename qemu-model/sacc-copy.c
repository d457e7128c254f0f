/* SPDX-License-Identifier: MIT */
/*
 * SACC: the bytes of MEMCPY, XFORM and FILL (docs/spec.md sections 6 and
 * 19), for a descriptor sacc-exec.c has checked (sacc_copy_run()).
 *
 * Two paths give the guest the same result.  The staged path
 * (sacc_copy_staged(): x-direct-copy=off, and wherever a buffer is not
 * plain RAM) reads all of src into the bounce buffer, page by page, then
 * writes dst from it, page by page.  It is the reference for the direct
 * path (x-direct-copy=on, the default): each buffer is translated into
 * pieces, a piece being what one translation covers (an IOMMU page, or
 * more where the IOMMU entry and the RAM behind it are larger), and where
 * every piece is plain guest RAM the bytes are copied once, host memory
 * to host memory.  The guest sees what the staged path gives it:
 *  - the same translations in the same order (all of src, each page
 *    once, then dst), so the IOMMU reports a failing translation exactly
 *    once, as it would for the staged path's DMA, and nothing after it
 *    is translated;
 *  - the same fault record: the first failing page of src, else of dst
 *    (the exact start address if that is the buffer's first page);
 *  - a source fault writes nothing, a destination fault writes dst up to
 *    the faulting page and nothing from it on;
 *  - src is read as a whole before dst is written: where the two share
 *    host memory (overlapping or aliased IOVAs) the pieces are staged in
 *    the bounce buffer first.
 * Anything else (a piece that is MMIO, ROM for a write, more pieces than
 * expected) goes to the staged path before any translation has faulted
 * and before anything is written, so it starts from a clean slate.
 *
 * The engine runs under the BQL, with one exception, here: the engine
 * thread moves the bytes of a direct copy of SACC_UNLOCKED_MIN or more
 * with the BQL dropped and the device's re-entrancy guard lowered
 * (sacc_copy_unlocked()), and whatever must not overlap that move waits
 * for it (sacc_dma_quiesce()).  A big copy moves in SACC_COPY_PIECE steps
 * and may stop between two of them to make way for other channels' work;
 * the channel's cursor (SaccCursor) says how far it got, and its next
 * turn goes on from there.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/rcu.h"
#include "hw/misc/sacc.h"

/* FILL's bytes: byte i is byte (i mod 8) of @pattern, little endian. */
static void sacc_pattern(uint8_t *buf, uint64_t pattern, uint32_t len)
{
    const uint64_t le = cpu_to_le64(pattern);
    uint32_t i;

    for (i = 0; i + 8 <= len; i += 8) {
        memcpy(buf + i, &le, 8);
    }
    memcpy(buf + i, &le, len - i);
}

/*
 * MEMCPY and XFORM, staged: all of src into the bounce buffer, page by
 * page, then the bounce buffer to dst, page by page (sacc_dma_pages()).  This
 * is the reference for the direct path below, which must behave the
 * same, and what runs with x-direct-copy=off or where a buffer is not
 * plain RAM.  *info and *fault describe a fault.
 */
static SaccDmaResult sacc_copy_staged(SaccState *s, SaccChannel *ch,
                                      const struct sacc_desc *d,
                                      uint32_t epoch, uint32_t *info,
                                      uint64_t *fault)
{
    SaccDmaResult r;
    uint32_t i;

    /* All of src first, so a source fault leaves dst untouched. */
    *info = SACC_FAULT_SRC_READ;
    *fault = d->src;
    if (d->opcode == SACC_OP_FILL) {
        sacc_pattern(s->bounce, d->src, d->length);
    } else {
        r = sacc_dma_pages(s, ch, d->src,
                           sacc_desc_dev(ch, d, SACC_DESC_F_SRC_DEV),
                           s->bounce, d->length, DMA_DIRECTION_TO_DEVICE,
                           epoch, fault);
        if (r != SACC_DMA_OK) {
            return r;
        }
    }
    if (d->opcode == SACC_OP_XFORM) {
        for (i = 0; i < d->length; i++) {
            s->bounce[i] ^= SACC_XFORM_KEY;
        }
    }
    *info = SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE;
    *fault = d->dst;
    return sacc_dma_pages(s, ch, d->dst,
                          sacc_desc_dev(ch, d, SACC_DESC_F_DST_DEV),
                          s->bounce, d->length, DMA_DIRECTION_FROM_DEVICE,
                          epoch, fault);
}

/* Join pieces that continue each other in host memory. */
static uint32_t sacc_pieces_merge(SaccPiece *p, uint32_t n)
{
    uint32_t i, k = 0;

    for (i = 1; i < n; i++) {
        if (p[k].ptr + p[k].len == p[i].ptr &&
            p[k].len + p[i].len > p[k].len) {
            p[k].len += p[i].len;
        } else {
            p[++k] = p[i];
        }
    }
    return n ? k + 1 : 0;
}

static int sacc_piece_cmp(const void *a, const void *b)
{
    const SaccPiece *x = a, *y = b;

    return x->ptr < y->ptr ? -1 : x->ptr > y->ptr;
}

/*
 * True if any byte of host memory is in both piece lists.  Sorts
 * copies of them (in @tmp, room for @na + @nb) and sweeps.
 */
static bool sacc_pieces_overlap(const SaccPiece *a, uint32_t na,
                                const SaccPiece *b, uint32_t nb,
                                SaccPiece *tmp)
{
    SaccPiece *sa = tmp, *sb = tmp + na;
    uint32_t i = 0, j = 0;

    memcpy(sa, a, na * sizeof(*a));
    memcpy(sb, b, nb * sizeof(*b));
    qsort(sa, na, sizeof(*sa), sacc_piece_cmp);
    qsort(sb, nb, sizeof(*sb), sacc_piece_cmp);
    while (i < na && j < nb) {
        if (sa[i].ptr + sa[i].len <= sb[j].ptr) {
            i++;
        } else if (sb[j].ptr + sb[j].len <= sa[i].ptr) {
            j++;
        } else {
            return true;
        }
    }
    return false;
}

/* @n bytes from @src to @dst, each XOR SACC_XFORM_KEY if @xform. */
static void sacc_move(uint8_t *dst, const uint8_t *src, size_t n, bool xform)
{
    const uint64_t key = 0x0101010101010101ull * SACC_XFORM_KEY;
    size_t i = 0;
    uint64_t v;

    if (!xform) {
        memmove(dst, src, n);
        return;
    }
    for (; i + 8 <= n; i += 8) {
        memcpy(&v, src + i, 8);
        v ^= key;
        memcpy(dst + i, &v, 8);
    }
    for (; i < n; i++) {
        dst[i] = src[i] ^ SACC_XFORM_KEY;
    }
}

/*
 * A big copy is moved in steps of this size, and another channel's work
 * may come between two of them (SaccCursor): about 2 us of the engine's
 * time here, so a NOP behind a 1 MiB copy waits that, not the whole copy.
 */
#define SACC_COPY_PIECE (64 * 1024)

/*
 * Copy transfer bytes [0, @upto) from the @src pieces (or from @bounce
 * when not NULL, indexed by transfer offset) into the @dst pieces.
 * If @stop is not NULL it is looked at after every SACC_COPY_PIECE bytes
 * and, when set, the move ends there.  Returns the bytes moved: [0, that)
 * has been written.  Plain memory only: it may run without the BQL
 * (sacc_copy_unlocked()).
 */
static uint32_t sacc_pieces_move(const SaccPiece *src, const SaccPiece *dst,
                                 uint32_t ndst, uint32_t upto,
                                 const uint8_t *bounce, bool xform,
                                 const bool *stop)
{
    uint32_t i, si = 0, step = 0;

    for (i = 0; i < ndst && dst[i].off < upto; i++) {
        uint32_t end = MIN(dst[i].off + dst[i].len, upto);
        uint32_t off = dst[i].off;

        while (off < end) {
            const uint8_t *from;
            uint32_t n = end - off;

            if (bounce) {
                from = bounce + off;
            } else {
                while (src[si].off + src[si].len <= off) {
                    si++;
                }
                from = src[si].ptr + (off - src[si].off);
                n = MIN(n, src[si].off + src[si].len - off);
            }
            n = MIN(n, SACC_COPY_PIECE - step);
            sacc_move(dst[i].ptr + (off - dst[i].off), from, n, xform);
            off += n;
            step += n;
            if (step == SACC_COPY_PIECE) {
                if (stop && qatomic_read(stop) && off < upto) {
                    return off;
                }
                step = 0;
            }
        }
    }
    return upto;
}

/*
 * Copies at least this big are done without the BQL by the engine thread
 * (sacc_copy_unlocked()): below it, dropping and retaking the lock costs
 * more than the copy keeps a vCPU waiting.
 */
#define SACC_UNLOCKED_MIN (64 * 1024)

/*
 * The data movement of a direct copy, with the BQL dropped when the
 * engine thread does a big one: then a vCPU's register access (CQ_HEAD,
 * say) need not wait for the copy, and the engine need not stand back
 * after it.  Safe because only plain memory is touched (the pieces, the
 * bounce buffer, both the engine's alone): the RCU read lock keeps the RAM
 * behind the pieces, and everything that could make them stale (a reset,
 * disable or channel reset of any channel, an IOMMU invalidation, a
 * memory map change) waits in sacc_dma_quiesce() until the copy is done.
 * The re-entrancy guard is lowered meanwhile (no DMA through the memory
 * core happens), so the vCPUs' accesses to our registers are not refused
 * as re-entrant.  Only with the translation cache (@atc): its notifier
 * and listener are what make invalidations and map changes wait.
 *
 * Such a copy may also end part way (SaccCursor): after its first piece
 * if another channel has work now, else as soon as a vCPU rings a
 * doorbell or writes CQ_HEAD (copy_yield; the engine's own applying of
 * doorbells does not count).  Returns the bytes moved, [0, that)
 * written.
 */
static uint32_t sacc_copy_unlocked(SaccState *s, SaccChannel *ch,
                                   SaccAtc *atc, SaccCopyPlan *plan,
                                   uint32_t nsrc, uint32_t ndst,
                                   uint32_t upto, bool xform, bool fill)
{
    static const bool stop_now = true;
    const SaccPiece *src = plan->src, *dst = plan->dst;
    DeviceState *dev = DEVICE(s);
    const uint8_t *bounce = NULL;
    const bool *stop = NULL;
    bool unlock = atc && upto >= SACC_UNLOCKED_MIN && s->engine_thread &&
                  qemu_thread_is_self(&s->engine);
    bool engaged = dev->mem_reentrancy_guard.engaged_in_io;
    int64_t t0 = 0;
    uint32_t i, moved;

    if (unlock && !ch->seg.active) { /* a segment's copies move whole */
        qatomic_set(&s->copy_yield, false);
        smp_mb(); /* cleared before we look: no vCPU's hint is lost */
        stop = sacc_others_busy(s, ch) ? &stop_now : &s->copy_yield;
    }
    if (unlock) {
        qemu_mutex_lock(&s->dma_lock);
        dev->mem_reentrancy_guard.engaged_in_io = false;
        t0 = get_clock();
        qemu_mutex_unlock_iothread();
        if (s->copy_delay_us && !ch->cur.active) { /* a slow DMA engine */
            qatomic_inc(&s->copies_held);
            g_usleep(s->copy_delay_us);
        }
    }
    /* FILL's source is the channel's own page: it overlaps nothing */
    if (!fill && sacc_pieces_overlap(src, nsrc, dst, ndst, plan->tmp)) {
        /* src as a whole first: stage it, then write dst from there */
        for (i = 0; i < nsrc; i++) {
            memcpy(s->bounce + src[i].off, src[i].ptr, src[i].len);
        }
        bounce = s->bounce;
        stop = NULL; /* the bounce buffer is not ours past this copy */
    }
    moved = sacc_pieces_move(src, dst, ndst, upto, bounce, xform, stop);
    /*
     * Dirty bits and TCG's translated code before a stop waiting in
     * sacc_dma_quiesce() may return (address_space_unmap() needs no BQL,
     * an IOThread calls it too).
     */
    sacc_dma_pieces_written(s, dst, ndst, moved);
    if (unlock) {
        qemu_mutex_unlock(&s->dma_lock);
        sacc_engine_make_way(s); /* a vCPU got in meanwhile: let it go */
        qemu_mutex_lock_iothread();
        s->unlocked_ns += get_clock() - t0;
        dev->mem_reentrancy_guard.engaged_in_io = engaged;
    }
    return moved;
}

/*
 * FILL's source as pieces (v0.4): transfer bytes [@base, @base + @len)
 * of the pattern, from the channel's page of it (ch->fill), so the
 * direct path moves a FILL exactly as a MEMCPY from that page.
 */
static uint32_t sacc_fill_pieces(SaccChannel *ch, uint32_t base,
                                 uint32_t len, SaccPiece *pieces)
{
    uint32_t n = 0, off = 0;

    while (off < len) {
        uint32_t a = (base + off) % SACC_PAGE_SIZE;
        uint32_t l = MIN(len - off, SACC_PAGE_SIZE - a);

        pieces[n++] = (SaccPiece) { .ptr = ch->fill + a, .off = off,
                                    .len = l };
        off += l;
    }
    return n;
}

/*
 * The end of a copy that may have been under way (@cur): a destination
 * fault its first call found is its outcome, if nothing failed since.
 */
static SaccDmaResult sacc_copy_end(SaccCursor *cur, SaccDmaResult r,
                                   uint32_t *info, uint64_t *fault)
{
    if (cur->active && r == SACC_DMA_OK && cur->faulted) {
        r = SACC_DMA_FAULT;
        *info = cur->info;
        *fault = cur->fault;
    }
    cur->active = false;
    return r;
}

/*
 * MEMCPY/XFORM on the direct path.  Returns SACC_DMA_OK, _FAULT (with
 * *info, *fault), _ABANDONED or _PARTIAL (ch->cur says how far), or
 * false in *direct if the staged path must do it (nothing faulted,
 * nothing written).
 *
 * A copy's first call translates all of src, then dst, as the staged
 * path would, so its outcome (a source fault: nothing written; a
 * destination fault: dst up to the faulting page) is known before a
 * byte moves.  A call that goes on with a copy (ch->cur) translates what
 * is left again, as the earlier pieces' translations may be stale: a
 * buffer unmapped while its copy is in flight faults there, with the
 * bytes before it written (docs/spec.md section 11).
 */
static SaccDmaResult sacc_copy_direct(SaccState *s, SaccChannel *ch,
                                      const struct sacc_desc *d,
                                      uint32_t epoch, uint32_t *info,
                                      uint64_t *fault, bool *direct)
{
    const bool xform = d->opcode == SACC_OP_XFORM;
    SaccCursor *cur = &ch->cur;
    const uint32_t done = cur->active ? cur->done : 0;
    SaccCopyPlan *plan = s->plan;
    uint32_t nsrc, ndst, moved = 0;
    uint32_t upto = cur->active ? cur->upto : d->length;
    SaccAtc *atc = sacc_atc_get(s);
    SaccMapResult m;

    RCU_READ_LOCK_GUARD();
    *direct = true;
    if (d->opcode == SACC_OP_FILL) {
        if (!cur->active) {
            sacc_pattern(ch->fill, d->src, SACC_PAGE_SIZE);
        }
        nsrc = sacc_fill_pieces(ch, done, upto - done, plan->src);
        m = SACC_MAP_OK;
    } else {
        m = sacc_dma_map_buffer(s, ch, d->src + done,
                                sacc_desc_dev(ch, d, SACC_DESC_F_SRC_DEV),
                                upto - done, false, epoch, atc, plan->src,
                                &nsrc, fault);
    }
    if (m == SACC_MAP_OK) {
        m = sacc_dma_map_buffer(s, ch, d->dst + done,
                                sacc_desc_dev(ch, d, SACC_DESC_F_DST_DEV),
                                upto - done, true, epoch, atc, plan->dst, &ndst,
                                fault);
        if (m == SACC_MAP_FAULT) {
            /* dst up to the faulting page, as the staged path does */
            *info = SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE;
            upto = *fault - d->dst;
        }
    } else if (m == SACC_MAP_FAULT) {
        *info = SACC_FAULT_SRC_READ;
        cur->active = false;
        return SACC_DMA_FAULT;
    }
    if (m == SACC_MAP_ABANDONED) {
        return SACC_DMA_ABANDONED;
    }
    if (m == SACC_MAP_STAGED) {
        *direct = false; /* sacc_copy_run() goes on from ch->cur */
        return SACC_DMA_OK;
    }

    nsrc = sacc_pieces_merge(plan->src, nsrc);
    ndst = sacc_pieces_merge(plan->dst, ndst);
    if (upto > done) {
        moved = sacc_copy_unlocked(s, ch, atc, plan, nsrc, ndst,
                                   upto - done, xform,
                                   d->opcode == SACC_OP_FILL);
        if (ch->epoch != epoch) { /* reset or disabled while we copied */
            return SACC_DMA_ABANDONED;
        }
    }
    if (done + moved < upto) {
        if (!cur->active) {
            *cur = (SaccCursor) { .active = true };
        }
        cur->done = done + moved;
        cur->upto = upto;
        if (m == SACC_MAP_FAULT) {
            cur->faulted = true;
            cur->info = *info;
            cur->fault = *fault;
        }
        return SACC_DMA_PARTIAL;
    }
    return sacc_copy_end(cur, m == SACC_MAP_FAULT ? SACC_DMA_FAULT
                                                  : SACC_DMA_OK, info, fault);
}

/*
 * MEMCPY, XFORM or FILL of a valid descriptor (length and ranges checked
 * by sacc_execute()), or the next part of one under way (ch->cur).
 * Returns SACC_DMA_OK, _FAULT (with *info, *fault), _ABANDONED or
 * _PARTIAL.
 */
SaccDmaResult sacc_copy_run(SaccState *s, SaccChannel *ch,
                            const struct sacc_desc *d, uint32_t epoch,
                            uint32_t *info, uint64_t *fault)
{
    SaccCursor *cur = &ch->cur;
    struct sacc_desc rest = *d;
    bool direct = false;
    SaccDmaResult r;

    if (s->direct_copy) {
        r = sacc_copy_direct(s, ch, d, epoch, info, fault, &direct);
        if (direct) {
            return r;
        }
    }
    if (cur->active) {
        /* under way, and what is left is no longer plain RAM */
        rest.src = d->opcode == SACC_OP_FILL
                   ? ror64(d->src, 8 * (cur->done % 8))
                   : d->src + cur->done;
        rest.dst += cur->done;
        rest.length = cur->upto - cur->done;
    }
    r = rest.length ? sacc_copy_staged(s, ch, &rest, epoch, info, fault)
                    : SACC_DMA_OK;
    return r == SACC_DMA_ABANDONED ? r : sacc_copy_end(cur, r, info, fault);
}

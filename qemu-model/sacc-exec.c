/* SPDX-License-Identifier: MIT */
/*
 * SACC: a descriptor's life, from its fetch to its completion
 * (docs/spec.md sections 5, 6, 15, 16, 19 and 21).
 *
 * sacc_exec_one() is one step of a channel's turn (sacc-engine.c): it
 * fetches the descriptor at the channel's SQ head, or goes on with a copy
 * or a segment under way, executes it and posts its completion: bytes
 * 0-13 of the CQE, then its phase word, then the interrupt the descriptor
 * asked for.  What a descriptor names is checked before a byte moves: its
 * opcode (v0.3's only with MODE.V3), its length, its device-address
 * ranges, a host range that would wrap past 2^64.  The bytes of a copy
 * are sacc-copy.c's; every other access is sacc-dma.c's.  A DMA fault on
 * a buffer completes the descriptor with DMA_FAULT; one on the rings (the
 * descriptor, an inline payload, the PUT word, the CQE) stops the channel
 * (sacc_ring_fatal()).  A pushbuffer segment (SEGMENT, v0.4) is read
 * whole when its entry is fetched and then runs one command per step, so
 * a long one spreads over the channel's turns, and ends in one
 * completion.  A token doorbell's turn starts with the channel's PUT
 * word, its new SQ tail (sacc_read_put()).
 *
 * A DMA may reach some other device and reset or disable this channel
 * underneath us.  Every reset or disable bumps the channel's epoch; the
 * code here re-checks it after each DMA and abandons the descriptor (no
 * completion, no further DMA) when it has changed.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "hw/misc/sacc.h"
#include "trace.h"

/* True if [addr, addr + len) does not fit below 2^64 (len >= 1). */
static bool sacc_range_wraps(uint64_t addr, uint32_t len)
{
    return len - 1 > UINT64_MAX - addr;
}

/*
 * The outcome of a descriptor's buffer DMA as its completion status.
 * Returns false if the channel was reset or disabled meanwhile.
 */
static bool sacc_buffer_done(SaccChannel *ch, const struct sacc_desc *d,
                             SaccDmaResult r, uint32_t info, uint64_t fault,
                             uint32_t len, uint16_t *status,
                             uint32_t *result_len)
{
    switch (r) {
    case SACC_DMA_ABANDONED:
        return false;
    case SACC_DMA_PARTIAL: /* no status yet: ch->cur goes on with it */
        return true;
    case SACC_DMA_FAULT:
        sacc_fault_record(ch, info, fault, d->req_id);
        SACC_GUEST_ERROR(&ch->regs.err_code, SACC_ERR_DMA,
                         sacc_guest_error_buffer_dma_fault,
                         "ch %u info 0x%x addr 0x%" PRIx64 " req_id 0x%x",
                         ch->id, info, fault, d->req_id);
        *status = SACC_STS_DMA_FAULT;
        return true;
    default:
        *status = SACC_STS_OK;
        *result_len = len;
        return true;
    }
}

/*
 * v0.4: a device-address range of @d past the end of device memory (or
 * wrapping): a fault of its own access, @info SACC_FAULT_DEV_READ or
 * _DEV_WRITE | _IS_WRITE, at @addr; no byte of the descriptor moves.
 */
static void sacc_devmem_fault(SaccChannel *ch, const struct sacc_desc *d,
                              uint32_t info, uint64_t addr, uint16_t *status)
{
    sacc_fault_record(ch, info, addr, d->req_id);
    SACC_GUEST_ERROR(&ch->regs.err_code, SACC_ERR_DMA,
                     sacc_guest_error_devmem_range,
                     "ch %u req_id 0x%x info 0x%x addr 0x%" PRIx64
                     " length %u", ch->id, d->req_id, info, addr, d->length);
    *status = SACC_STS_DMA_FAULT;
}

/*
 * The destination of WRITE_INLINE and TIMESTAMP: @len bytes of @buf to
 * dst, host (page by page, a fault as a MEMCPY's destination) or device
 * memory (v0.4).  Returns as sacc_buffer_done().
 */
static bool sacc_write_dst(SaccState *s, SaccChannel *ch,
                           const struct sacc_desc *d, uint8_t *buf,
                           uint32_t len, uint32_t epoch, uint16_t *status,
                           uint32_t *result_len)
{
    const bool dev = sacc_desc_dev(ch, d, SACC_DESC_F_DST_DEV);
    uint64_t fault = d->dst;
    SaccDmaResult r;

    if (dev && !sacc_devmem_has(s, d->dst, len)) {
        sacc_devmem_fault(ch, d, SACC_FAULT_DEV_WRITE | SACC_FAULT_IS_WRITE,
                          d->dst, status);
        return true;
    }
    if (!dev && sacc_range_wraps(d->dst, len)) {
        r = SACC_DMA_FAULT;
    } else {
        r = sacc_dma_pages(s, ch, d->dst, dev, buf, len,
                           DMA_DIRECTION_FROM_DEVICE, epoch, &fault);
    }
    return sacc_buffer_done(ch, d, r,
                            SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE,
                            fault, len, status, result_len);
}

/*
 * WRITE_INLINE (docs/spec.md section 15).  The payload is in the slots
 * after the descriptor, where sq_head now points; they are consumed
 * whatever the outcome (a bad command: up to the tail).  A fault reading
 * them is a ring fault.
 */
static bool sacc_execute_inline(SaccState *s, SaccChannel *ch,
                                const struct sacc_desc *d, uint32_t epoch,
                                uint16_t *status, uint32_t *result_len)
{
    SaccDevRing *ring = &ch->ring;
    const uint32_t sq_size = ch->regs.sq_size;
    const uint32_t avail = sacc_ring_used(ring->sq_head, ring->sq_tail,
                                          sq_size);
    const uint64_t slots = SACC_INLINE_SLOTS(d->length);
    const uint32_t len = d->length;
    const bool sq_dev = ch->regs.mode & SACC_MODE_SQ_DEV;
    uint64_t addr, fault = d->dst;
    uint32_t first;
    SaccDmaResult r;

    if (len < 1 || len > SACC_INLINE_MAX || slots > avail) {
        ring->sq_head = sacc_ring_add(ring->sq_head, MIN(slots, avail),
                                      sq_size);
        *status = SACC_STS_BAD_LENGTH;
        SACC_GUEST_ERROR(&ch->regs.err_code, SACC_ERR_INVALID,
                         sacc_guest_error_inline_length,
                         "ch %u req_id 0x%x length %u slots %u",
                         ch->id, d->req_id, len, avail);
        return true;
    }

    /* The payload up to the end of the ring, then on from slot 0. */
    addr = ch->regs.sq_base +
           (uint64_t)ring->sq_head * sizeof(struct sacc_desc);
    first = MIN(len, (sq_size - ring->sq_head) * sizeof(struct sacc_desc));
    trace_sacc_inline_fetch(ch->id, d->req_id, ring->sq_head, slots, len);
    r = sacc_dma_pages(s, ch, addr, sq_dev, s->bounce, first,
                       DMA_DIRECTION_TO_DEVICE, epoch, &fault);
    if (r == SACC_DMA_OK && first < len) {
        r = sacc_dma_pages(s, ch, ch->regs.sq_base, sq_dev, s->bounce + first,
                           len - first, DMA_DIRECTION_TO_DEVICE, epoch, &fault);
    }
    if (r == SACC_DMA_ABANDONED) {
        return false;
    }
    if (r == SACC_DMA_FAULT) {
        sacc_ring_fatal(s, ch, SACC_FAULT_INLINE_READ, fault, d->req_id);
        return false;
    }
    ring->sq_head = sacc_ring_add(ring->sq_head, slots, sq_size);

    /* Then the destination, exactly as a MEMCPY's. */
    return sacc_write_dst(s, ch, d, s->bounce, len, epoch, status,
                          result_len);
}

/*
 * TIMESTAMP (docs/spec.md section 16).  The fence holds by construction:
 * a channel's descriptors run one at a time, and the previous one's
 * completion is posted before this one is fetched.
 */
static bool sacc_execute_timestamp(SaccState *s, SaccChannel *ch,
                                   const struct sacc_desc *d, uint32_t epoch,
                                   uint16_t *status, uint32_t *result_len)
{
    uint64_t now = sacc_clock_ns();
    uint64_t le = cpu_to_le64(now);

    trace_sacc_timestamp(ch->id, d->req_id, now);
    return sacc_write_dst(s, ch, d, (uint8_t *)&le, SACC_TIMESTAMP_LEN,
                          epoch, status, result_len);
}

/* The opcodes channel @ch runs: v0.3's only with MODE.V3. */
static bool sacc_opcode_known(const SaccChannel *ch, uint16_t opcode)
{
    switch (opcode) {
    case SACC_OP_NOP:
    case SACC_OP_MEMCPY:
    case SACC_OP_XFORM:
        return true;
    case SACC_OP_WRITE_INLINE:
    case SACC_OP_TIMESTAMP:
    case SACC_OP_FILL:
        return ch->regs.mode & SACC_MODE_V3;
    default:
        return false;
    }
}

/*
 * Execute one descriptor of @ch.  Returns false if the channel was
 * reset, disabled or stopped meanwhile (the descriptor is then
 * abandoned, no completion); otherwise fills *status and *result_len.
 */
static bool sacc_execute(SaccState *s, SaccChannel *ch,
                         const struct sacc_desc *d, uint32_t epoch,
                         uint16_t *status, uint32_t *result_len)
{
    uint32_t info = SACC_FAULT_SRC_READ;
    uint64_t fault = d->src;
    bool src_dev, dst_dev;
    SaccDmaResult r;

    *result_len = 0;
    if (!sacc_opcode_known(ch, d->opcode)) {
        *status = SACC_STS_BAD_OPCODE;
        SACC_GUEST_ERROR(&ch->regs.err_code, SACC_ERR_BAD_OPCODE,
                         sacc_guest_error_bad_opcode,
                         "ch %u req_id 0x%x opcode %u",
                         ch->id, d->req_id, d->opcode);
        return true;
    }
    switch (d->opcode) {
    case SACC_OP_NOP:
        *status = SACC_STS_OK;
        return true;
    case SACC_OP_WRITE_INLINE:
        return sacc_execute_inline(s, ch, d, epoch, status, result_len);
    case SACC_OP_TIMESTAMP:
        return sacc_execute_timestamp(s, ch, d, epoch, status, result_len);
    default: /* MEMCPY, XFORM, FILL (src: the pattern) */
        break;
    }

    if (d->length < 1 || d->length > SACC_MAX_XFER) {
        *status = SACC_STS_BAD_LENGTH;
        SACC_GUEST_ERROR(&ch->regs.err_code, SACC_ERR_INVALID,
                         sacc_guest_error_bad_length,
                         "ch %u req_id 0x%x length %u",
                         ch->id, d->req_id, d->length);
        return true;
    }

    /*
     * Device-address ranges first (v0.4), src then dst: out of range,
     * nothing moves.  FILL's src is its pattern, not an address.
     */
    src_dev = d->opcode != SACC_OP_FILL &&
              sacc_desc_dev(ch, d, SACC_DESC_F_SRC_DEV);
    dst_dev = sacc_desc_dev(ch, d, SACC_DESC_F_DST_DEV);
    if (src_dev && !sacc_devmem_has(s, d->src, d->length)) {
        sacc_devmem_fault(ch, d, SACC_FAULT_DEV_READ, d->src, status);
        return true;
    }
    if (dst_dev && !sacc_devmem_has(s, d->dst, d->length)) {
        sacc_devmem_fault(ch, d, SACC_FAULT_DEV_WRITE | SACC_FAULT_IS_WRITE,
                          d->dst, status);
        return true;
    }
    /* A host buffer running past 2^64 faults at its start, with no DMA. */
    if (!src_dev && d->opcode != SACC_OP_FILL &&
        sacc_range_wraps(d->src, d->length)) {
        r = SACC_DMA_FAULT;
    } else if (!dst_dev && sacc_range_wraps(d->dst, d->length)) {
        info = SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE;
        fault = d->dst;
        r = SACC_DMA_FAULT;
    } else {
        r = sacc_copy_run(s, ch, d, epoch, &info, &fault);
    }
    return sacc_buffer_done(ch, d, r, info, fault, d->length, status,
                            result_len);
}

/*
 * Post one completion: bytes 0-13 first, then the phase word in a second
 * write, so a guest polling the phase never sees a half-written entry.
 * On a MODE.V3 channel word 8 is the engine time since @fetch_ns.
 * Returns false if the ring faulted or the channel was reset meanwhile.
 */
static bool sacc_post_cqe(SaccState *s, SaccChannel *ch, uint32_t epoch,
                          uint32_t req_id, uint16_t status,
                          uint32_t result_len, uint64_t fetch_ns)
{
    SaccDevRing *ring = &ch->ring;
    uint64_t addr = ch->regs.cq_base +
                    (uint64_t)ring->cq_tail * sizeof(struct sacc_cqe);
    uint32_t engine_ns = 0;
    struct sacc_cqe cqe;
    uint16_t phase = cpu_to_le16(ring->phase);
    const uint32_t info = SACC_FAULT_CQ_WRITE | SACC_FAULT_IS_WRITE;
    MemTxResult r;

    if (ch->regs.mode & SACC_MODE_V3) {
        engine_ns = MIN(sacc_clock_ns() - fetch_ns, UINT32_MAX);
    }
    cqe = (struct sacc_cqe) {
        .req_id = cpu_to_le32(req_id),
        .result_len = cpu_to_le32(result_len),
        .engine_ns = cpu_to_le32(engine_ns),
        .status = cpu_to_le16(status),
    };
    r = sacc_dma_rw(s, addr, &cqe, SACC_CQE_PHASE_OFFSET,
                    DMA_DIRECTION_FROM_DEVICE);
    if (ch->epoch != epoch) {
        return false;
    }
    if (r != MEMTX_OK) {
        sacc_ring_fatal(s, ch, info, addr, req_id);
        return false;
    }
    r = sacc_dma_rw(s, addr + SACC_CQE_PHASE_OFFSET, &phase, sizeof(phase),
                    DMA_DIRECTION_FROM_DEVICE);
    if (ch->epoch != epoch) {
        return false;
    }
    if (r != MEMTX_OK) {
        sacc_ring_fatal(s, ch, info, addr + SACC_CQE_PHASE_OFFSET, req_id);
        return false;
    }

    trace_sacc_cqe_post(ch->id, ring->cq_tail, req_id, status, result_len,
                        ring->phase, engine_ns);
    ring->cq_tail = sacc_ring_next(ring->cq_tail, ch->regs.cq_size);
    if (ring->cq_tail == 0) { /* the phase flips each time it wraps */
        ring->phase ^= 1;
    }
    return true;
}

/*
 * Token mode: read the channel's PUT word, its new SQ tail (docs/spec.md
 * section 14).  A fault is a ring fault; a bad value is ignored.
 */
void sacc_read_put(SaccState *s, SaccChannel *ch, uint32_t epoch)
{
    uint64_t addr = ch->regs.put_addr;
    uint32_t put;
    MemTxResult r;

    r = sacc_dma_ring_read(s, ch, addr, &put, sizeof(put));
    if (ch->epoch != epoch) {
        return;
    }
    if (r != MEMTX_OK) {
        sacc_ring_fatal(s, ch, SACC_FAULT_PUT_READ, addr, 0);
        return;
    }
    put = le32_to_cpu(put);
    if (put >= ch->regs.sq_size) {
        SACC_GUEST_ERROR(&ch->regs.err_code, SACC_ERR_INVALID,
                         sacc_guest_error_put_range,
                         "ch %u put %u sq_size %u",
                         ch->id, put, ch->regs.sq_size);
        return;
    }
    trace_sacc_put_read(ch->id, addr, put, ch->ring.sq_head);
    ch->ring.sq_tail = put;
}

/* A descriptor as read (little endian) to host order; reserved stays LE */
static void sacc_desc_from_le(struct sacc_desc *d)
{
    d->src = le64_to_cpu(d->src);
    d->dst = le64_to_cpu(d->dst);
    d->length = le32_to_cpu(d->length);
    d->opcode = le16_to_cpu(d->opcode);
    d->flags = le16_to_cpu(d->flags);
    d->req_id = le32_to_cpu(d->req_id);
}

/*
 * The end of a SEGMENT entry: its one completion (docs/spec.md section
 * 21), with @status and @result_len (commands run, or the failing one's
 * index).  Returns false if the ring faulted or the channel was reset.
 */
static bool sacc_segment_done(SaccState *s, SaccChannel *ch, uint32_t epoch,
                              uint16_t status, uint32_t result_len)
{
    SaccSegment *seg = &ch->seg;
    const struct sacc_desc *e = &seg->entry;

    seg->active = false;
    trace_sacc_segment_done(ch->id, e->req_id, status, result_len);
    trace_sacc_op_end(ch->id, e->req_id, status, result_len,
                      SACC_TRACE_NS(TRACE_SACC_OP_END));
    if (!sacc_post_cqe(s, ch, epoch, e->req_id, status, result_len,
                       seg->fetch_ns)) {
        return false;
    }
    if (e->flags & SACC_DESC_F_IRQ) {
        sacc_irq_raise(s, ch, SACC_IRQ_COMPLETION);
    }
    return true;
}

/*
 * A SEGMENT entry @e, just fetched from the SQ: check it and take the
 * snapshot of its segment, or complete it with the error.  Returns false
 * if the channel was reset or its ring faulted meanwhile.
 */
static bool sacc_segment_start(SaccState *s, SaccChannel *ch,
                               const struct sacc_desc *e, uint64_t fetch_ns,
                               uint32_t epoch)
{
    SaccSegment *seg = &ch->seg;
    const bool dev = sacc_desc_dev(ch, e, SACC_DESC_F_SRC_DEV);
    uint64_t fault = e->src;
    SaccDmaResult r;

    *seg = (SaccSegment) { .active = true, .entry = *e,
                           .fetch_ns = fetch_ns, .len = e->length,
                           .buf = seg->buf };
    trace_sacc_segment_fetch(ch->id, e->req_id, e->src, e->length, dev);
    if (e->length < SACC_SEGMENT_ALIGN || e->length > SACC_SEGMENT_MAX ||
        e->length % SACC_SEGMENT_ALIGN) {
        SACC_GUEST_ERROR(&ch->regs.err_code, SACC_ERR_INVALID,
                         sacc_guest_error_bad_length,
                         "ch %u req_id 0x%x length %u",
                         ch->id, e->req_id, e->length);
        return sacc_segment_done(s, ch, epoch, SACC_STS_BAD_LENGTH, 0);
    }
    if (dev && !sacc_devmem_has(s, e->src, e->length)) {
        uint16_t status;

        sacc_devmem_fault(ch, e, SACC_FAULT_DEV_READ, e->src, &status);
        return sacc_segment_done(s, ch, epoch, status, 0);
    }
    if (!seg->buf) {
        seg->buf = g_malloc(SACC_SEGMENT_MAX);
    }
    r = !dev && sacc_range_wraps(e->src, e->length)
        ? SACC_DMA_FAULT
        : sacc_dma_pages(s, ch, e->src, dev, seg->buf, e->length,
                         DMA_DIRECTION_TO_DEVICE, epoch, &fault);
    if (r == SACC_DMA_ABANDONED) {
        return false;
    }
    if (r == SACC_DMA_FAULT) {
        sacc_fault_record(ch, SACC_FAULT_SEGMENT_READ, fault, e->req_id);
        SACC_GUEST_ERROR(&ch->regs.err_code, SACC_ERR_DMA,
                         sacc_guest_error_buffer_dma_fault,
                         "ch %u info 0x%x addr 0x%" PRIx64 " req_id 0x%x",
                         ch->id, SACC_FAULT_SEGMENT_READ, fault, e->req_id);
        return sacc_segment_done(s, ch, epoch, SACC_STS_DMA_FAULT, 0);
    }
    return true;
}

/*
 * A WRITE_INLINE command @c in a segment: its payload is in the
 * segment's slots after it (not the ring's), which it consumes.
 */
static bool sacc_segment_inline(SaccState *s, SaccChannel *ch,
                                const struct sacc_desc *c, uint32_t epoch,
                                uint16_t *status, uint32_t *result_len)
{
    SaccSegment *seg = &ch->seg;
    const uint64_t slots = SACC_INLINE_SLOTS(c->length);
    const uint32_t left = seg->len - seg->next;
    uint8_t *payload = seg->buf + seg->next;

    *result_len = 0;
    if (c->length < 1 || c->length > SACC_INLINE_MAX ||
        slots * SACC_SEGMENT_ALIGN > left) {
        seg->next = seg->len;
        *status = SACC_STS_BAD_LENGTH;
        SACC_GUEST_ERROR(&ch->regs.err_code, SACC_ERR_INVALID,
                         sacc_guest_error_inline_length,
                         "ch %u req_id 0x%x length %u slots %u",
                         ch->id, c->req_id, c->length,
                         left / SACC_SEGMENT_ALIGN);
        return true;
    }
    seg->next += slots * SACC_SEGMENT_ALIGN;
    return sacc_write_dst(s, ch, c, payload, c->length, epoch, status,
                          result_len);
}

/*
 * One command of the channel's segment (docs/spec.md section 21): run
 * it as the ring would, then complete the entry if it failed or was the
 * last.  Returns the bytes it moved, or -1 if the channel was reset or
 * its ring faulted meanwhile.
 */
static int64_t sacc_segment_step(SaccState *s, SaccChannel *ch,
                                 uint32_t epoch)
{
    SaccSegment *seg = &ch->seg;
    uint32_t result_len = 0;
    struct sacc_desc c;
    uint16_t status = SACC_STS_OK;
    bool ok;

    memcpy(&c, seg->buf + seg->next, sizeof(c));
    sacc_desc_from_le(&c);
    trace_sacc_segment_cmd(ch->id, seg->entry.req_id, seg->index, c.opcode,
                           c.req_id, c.src, c.dst, c.length, c.flags);
    seg->next += sizeof(c);
    if (c.opcode == SACC_OP_SEGMENT) { /* no nesting */
        status = SACC_STS_BAD_OPCODE;
        SACC_GUEST_ERROR(&ch->regs.err_code, SACC_ERR_BAD_OPCODE,
                         sacc_guest_error_bad_opcode,
                         "ch %u req_id 0x%x opcode %u",
                         ch->id, c.req_id, c.opcode);
        ok = true;
    } else if (c.opcode == SACC_OP_WRITE_INLINE) {
        ok = sacc_segment_inline(s, ch, &c, epoch, &status, &result_len);
    } else {
        ok = sacc_execute(s, ch, &c, epoch, &status, &result_len);
    }
    if (!ok) {
        return -1;
    }
    if (status != SACC_STS_OK) {
        return sacc_segment_done(s, ch, epoch, status, seg->index) ? 0 : -1;
    }
    seg->index++;
    if (seg->next >= seg->len &&
        !sacc_segment_done(s, ch, epoch, SACC_STS_OK, seg->index)) {
        return -1;
    }
    return result_len;
}

/*
 * Fetch, execute and complete the descriptor at @ch's SQ head.  Returns
 * the bytes it moved (for the turn and run bounds), or -1 if the channel
 * was stopped, reset or disabled meanwhile.
 */
int64_t sacc_exec_one(SaccState *s, SaccChannel *ch, uint32_t epoch)
{
    uint64_t fetch_ns = sacc_clock_ns();
    uint32_t done = 0, result_len;
    struct sacc_desc d;
    uint64_t addr;
    uint16_t status;
    MemTxResult r;

    if (ch->seg.active) { /* a segment under way: its next command */
        return sacc_segment_step(s, ch, epoch);
    }
    if (ch->cur.active) { /* a copy under way: go on with it */
        d = ch->cur.d;
        fetch_ns = ch->cur.fetch_ns;
        done = ch->cur.done;
        goto execute;
    }
    addr = ch->regs.sq_base + (uint64_t)ch->ring.sq_head * sizeof(d);
    r = sacc_dma_ring_read(s, ch, addr, &d, sizeof(d));
    if (ch->epoch != epoch) {
        return -1;
    }
    if (r != MEMTX_OK) {
        sacc_ring_fatal(s, ch, SACC_FAULT_DESC_FETCH, addr, 0);
        return -1;
    }
    sacc_desc_from_le(&d);
    trace_sacc_desc_fetch(ch->id, ch->ring.sq_head, d.opcode, d.req_id,
                          d.src, d.dst, d.length, d.flags,
                          le32_to_cpu(d.reserved));
    ch->ring.sq_head = sacc_ring_next(ch->ring.sq_head, ch->regs.sq_size);

    trace_sacc_op_start(ch->id, d.req_id, d.opcode,
                        SACC_TRACE_NS(TRACE_SACC_OP_START));
    if (d.opcode == SACC_OP_SEGMENT && (ch->regs.mode & SACC_MODE_V3)) {
        return sacc_segment_start(s, ch, &d, fetch_ns, epoch) ? 0 : -1;
    }
execute:
    if (!sacc_execute(s, ch, &d, epoch, &status, &result_len)) {
        return -1;
    }
    if (ch->cur.active) {
        ch->cur.d = d;
        ch->cur.fetch_ns = fetch_ns;
        trace_sacc_copy_part(ch->id, d.req_id, ch->cur.done, ch->cur.upto);
        return ch->cur.done - done;
    }
    trace_sacc_op_end(ch->id, d.req_id, status, result_len,
                      SACC_TRACE_NS(TRACE_SACC_OP_END));
    if (!sacc_post_cqe(s, ch, epoch, d.req_id, status, result_len,
                       fetch_ns)) {
        return -1;
    }
    if (d.flags & SACC_DESC_F_IRQ) {
        sacc_irq_raise(s, ch, SACC_IRQ_COMPLETION);
    }

    switch (d.opcode) {
    case SACC_OP_MEMCPY:
    case SACC_OP_XFORM:
    case SACC_OP_FILL:
        return MIN(d.length, SACC_MAX_XFER) - MIN(done, d.length);
    case SACC_OP_WRITE_INLINE:
        return MIN(d.length, SACC_INLINE_MAX);
    case SACC_OP_TIMESTAMP:
        return SACC_TIMESTAMP_LEN;
    default:
        return 0;
    }
}

/* SPDX-License-Identifier: MIT */
/*
 * SACC: x-query-sacc (QMP) and "info sacc" (HMP), the device as a
 * debugger sees it (docs/debugging.md).
 *
 * Behind the IOMMU a descriptor's address is an IOVA, so the monitor's
 * "xp" at SQ_BASE shows some unrelated guest-physical page.  These
 * commands read the rings the way the device's DMA would, through the
 * vIOMMU's translation, but without its side effects: the translation is
 * asked for with IOMMU_NONE, which records no fault, raises no fault
 * interrupt and fills no cache (patches/0008), and only RAM is read
 * (an MMIO read may have effects).  Reading never changes the device's
 * state: everything here runs in the main loop under the BQL, as the
 * engine's state changes do, and only reads.  Opcode, status and access
 * names come from the project's one names table (hw/names.c).
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/rcu.h"
#include "exec/memory.h"
#include "hw/pci/pci.h"
#include "hw/pci/msix.h"
#include "monitor/hmp.h"
#include "monitor/monitor.h"
#include "qapi/error.h"
#include "qapi/qapi-commands-sacc.h"
#include "qapi/qmp/qdict.h"
#include "hw/misc/sacc.h"
#include "hw/misc/sacc_hw_names.h"

#define SACC_PEEK_MAX_LEN   4096 /* x-query-sacc's @length, at most */
#define SACC_PEEK_SLOTS     8    /* @count by default */
#define SACC_PEEK_MAX_SLOTS 256
/*
 * A SEGMENT's commands decoded per entry, and an inline payload's bytes
 * shown from a segment: bounds on a reply of 256 entries
 */
#define SACC_PEEK_SEG_CMDS  16
#define SACC_PEEK_SEG_BYTES 256
/* x86's interrupt window: never memory, and VT-d must not translate it */
#define SACC_MSI_FIRST 0xfee00000ull
#define SACC_MSI_LAST  0xfeefffffull

/*
 * Copy what there is of RAM at [@addr, @addr + @len) of @as into @buf;
 * returns the bytes copied (0 if @addr is not RAM).  Looks the address
 * up only: no translation, no MMIO access.
 */
static uint64_t sacc_mon_peek_ram(AddressSpace *as, hwaddr addr, uint8_t *buf,
                                  uint64_t len)
{
    MemoryRegionSection sec = memory_region_find(as->root, addr, len);
    uint64_t n = 0;

    if (!sec.mr) {
        return 0;
    }
    if (sec.offset_within_address_space == addr &&
        memory_region_is_ram(sec.mr) && !memory_region_is_ram_device(sec.mr)) {
        n = MIN(len, int128_get64(sec.size));
        memcpy(buf, (uint8_t *)memory_region_get_ram_ptr(sec.mr) +
                        sec.offset_within_region, n);
    }
    memory_region_unref(sec.mr);
    return n;
}

/*
 * Read [@iova, @iova + @len) as the device's DMA would, without its side
 * effects, one IOVA page at a time; stops at the first page that does not
 * translate to readable RAM.  Through the device's IOMMU address space,
 * not its bus-master alias, so the answer does not depend on bus
 * mastering.  Returns the bytes read.
 */
static uint32_t sacc_mon_peek_iova(SaccState *s, uint64_t iova, uint8_t *buf,
                                   uint32_t len)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    AddressSpace *as = pci_device_iommu_address_space(pdev);
    MemTxAttrs attrs = { .requester_id = pci_requester_id(pdev) };
    uint32_t done = 0;

    if (len && len - 1 > UINT64_MAX - iova) {
        return 0; /* wraps past 2^64 */
    }
    RCU_READ_LOCK_GUARD();
    while (done < len) {
        uint64_t a = iova + done, got;
        uint32_t n = MIN(len - done,
                         SACC_PAGE_SIZE - (a & (SACC_PAGE_SIZE - 1)));
        MemoryRegionSection sec;

        if (a <= SACC_MSI_LAST && a + n - 1 >= SACC_MSI_FIRST) {
            break;
        }
        sec = memory_region_find(as->root, a, n);
        if (!sec.mr) {
            break;
        }
        if (sec.offset_within_address_space == a &&
            memory_region_is_iommu(sec.mr)) {
            IOMMUMemoryRegion *iommu = IOMMU_MEMORY_REGION(sec.mr);
            IOMMUMemoryRegionClass *imrc =
                IOMMU_MEMORY_REGION_GET_CLASS(iommu);
            hwaddr off = sec.offset_within_region;
            IOMMUTLBEntry e;

            e = imrc->translate(iommu, off, IOMMU_NONE,
                                memory_region_iommu_attrs_to_index(iommu,
                                                                   attrs));
            memory_region_unref(sec.mr);
            if (!(e.perm & IOMMU_RO)) {
                break;
            }
            /* what the entry covers from here (an all-ones mask too) */
            n = MIN((uint64_t)n - 1, e.addr_mask - (off & e.addr_mask)) + 1;
            got = sacc_mon_peek_ram(e.target_as,
                                    (e.translated_addr & ~e.addr_mask) |
                                    (off & e.addr_mask),
                                    buf + done, n);
        } else {
            /* no IOMMU on the way (DMAR off, pass-through) */
            memory_region_unref(sec.mr);
            got = sacc_mon_peek_ram(as, a, buf + done, n);
        }
        done += got;
        if (got < n) {
            break;
        }
    }
    return done;
}

/* Either kind of address: a device address is checked against its size */
static uint32_t sacc_mon_peek(SaccState *s, uint64_t addr, bool dev,
                              uint8_t *buf, uint32_t len)
{
    if (!dev) {
        return sacc_mon_peek_iova(s, addr, buf, len);
    }
    if (addr >= s->devmem_size) {
        return 0;
    }
    len = MIN(len, s->devmem_size - addr);
    memcpy(buf, s->devmem + addr, len);
    return len;
}

static char *sacc_mon_hex(const uint8_t *b, size_t n)
{
    GString *str = g_string_sized_new(2 * n + 1);
    size_t i;

    for (i = 0; i < n; i++) {
        g_string_append_printf(str, "%02x", b[i]);
    }
    return g_string_free(str, false);
}

static SaccDesc *sacc_mon_desc_at(SaccState *s, uint64_t addr, bool dev,
                                  uint32_t index);

/* Fill @q's fields from the 32 bytes at @b; the payload is the caller's */
static void sacc_mon_desc_decode(SaccDesc *q, const uint8_t *b)
{
    struct sacc_desc d;

    memcpy(&d, b, sizeof(d));
    q->has_opcode = q->has_op = q->has_flags = q->has_req_id = true;
    q->has_src = q->has_dst = q->has_length = true;
    q->opcode = le16_to_cpu(d.opcode);
    q->op = g_strdup(sacc_opcode_str(q->opcode));
    q->flags = le16_to_cpu(d.flags);
    q->req_id = le32_to_cpu(d.req_id);
    q->src = le64_to_cpu(d.src);
    q->dst = le64_to_cpu(d.dst);
    q->length = le32_to_cpu(d.length);
}

/*
 * A SEGMENT's commands (docs/spec.md section 21), read from the segment
 * as the device would fetch it, each WRITE_INLINE's payload with it (its
 * first SACC_PEEK_SEG_BYTES); the first SACC_PEEK_SEG_CMDS commands.
 */
static SaccDescList *sacc_mon_segment_decode(SaccState *s, const SaccDesc *e)
{
    const bool dev = e->flags & SACC_DESC_F_SRC_DEV;
    uint32_t len = MIN(e->length, SACC_SEGMENT_MAX), off = 0, n = 0;
    g_autofree uint8_t *buf = g_malloc0(SACC_SEGMENT_MAX);
    SaccDescList *head = NULL, **tail = &head;
    uint32_t got = sacc_mon_peek(s, e->src, dev, buf, len);

    while (off + sizeof(struct sacc_desc) <= len &&
           n < SACC_PEEK_SEG_CMDS) {
        SaccDesc *q = g_new0(SaccDesc, 1);

        q->index = n++;
        q->addr = e->src + off;
        q->dev = dev;
        q->fault = off + sizeof(struct sacc_desc) > got;
        QAPI_LIST_APPEND(tail, q);
        if (q->fault) {
            break;
        }
        sacc_mon_desc_decode(q, buf + off);
        off += sizeof(struct sacc_desc);
        if (q->opcode == SACC_OP_WRITE_INLINE && q->length &&
            q->length <= SACC_INLINE_MAX && off + q->length <= got) {
            q->has_payload = true;
            q->payload = sacc_mon_hex(buf + off,
                                      MIN(q->length, SACC_PEEK_SEG_BYTES));
            off += SACC_INLINE_SLOTS(q->length) * sizeof(struct sacc_desc);
        }
    }
    return head;
}

/*
 * SQ slot @index of @ch, decoded: its inline payload from the slots after
 * it (wrapping), a segment's commands from the segment.
 */
static SaccDesc *sacc_mon_sq_slot(SaccState *s, SaccChannel *ch,
                                  uint32_t index)
{
    const SaccChanRegs *r = &ch->regs;
    const bool dev = r->mode & SACC_MODE_SQ_DEV;
    SaccDesc *q = sacc_mon_desc_at(s, r->sq_base + (uint64_t)index * 32, dev,
                                   index);

    if (q->fault) {
        return q;
    }
    if (q->opcode == SACC_OP_WRITE_INLINE && q->length &&
        q->length <= SACC_INLINE_MAX) {
        g_autofree uint8_t *p = g_malloc0(q->length);
        uint32_t k, got = 0;

        for (k = 0; got < q->length; k++) {
            uint32_t slot = sacc_ring_add(index, 1 + k, r->sq_size);
            uint32_t n = MIN(32, q->length - got);

            if (sacc_mon_peek(s, r->sq_base + (uint64_t)slot * 32, dev,
                              p + got, n) < n) {
                break;
            }
            got += n;
        }
        q->has_payload = true;
        q->payload = sacc_mon_hex(p, got);
    }
    if (q->opcode == SACC_OP_SEGMENT && (r->mode & SACC_MODE_V3)) {
        q->has_segment = true;
        q->segment = sacc_mon_segment_decode(s, q);
    }
    return q;
}

static SaccDesc *sacc_mon_desc_at(SaccState *s, uint64_t addr, bool dev,
                                  uint32_t index)
{
    SaccDesc *q = g_new0(SaccDesc, 1);
    uint8_t b[sizeof(struct sacc_desc)];

    q->index = index;
    q->addr = addr;
    q->dev = dev;
    q->fault = sacc_mon_peek(s, addr, dev, b, sizeof(b)) < sizeof(b);
    if (!q->fault) {
        sacc_mon_desc_decode(q, b);
    }
    return q;
}

/*
 * The SQ slots to show, around the device's head and tail: the pending
 * ones (head to tail), with as many before the head (fetched already) as
 * after the tail (written since the last doorbell, or free) around them;
 * from the head if more than @count are pending.
 */
static SaccDescList *sacc_mon_sq_view(SaccState *s, SaccChannel *ch,
                                      uint32_t count)
{
    const SaccDevRing *ring = &ch->ring;
    const uint32_t size = ch->regs.sq_size;
    SaccDescList *head = NULL, **tail = &head;
    uint32_t pending, first, i;

    if (!(ch->regs.status & SACC_STATUS_READY) || !size) {
        return NULL;
    }
    pending = sacc_ring_used(ring->sq_head, ring->sq_tail, size);
    count = MIN(count, size);
    first = pending >= count
            ? ring->sq_head
            : (ring->sq_head + size - (count - pending) / 2) % size;
    for (i = 0; i < count; i++) {
        uint32_t idx = (first + i) % size;
        SaccDesc *q = sacc_mon_sq_slot(s, ch, idx);

        q->has_pending = true;
        q->pending = sacc_ring_used(ring->sq_head, idx, size) < pending;
        QAPI_LIST_APPEND(tail, q);
    }
    return head;
}

/*
 * The @count CQ slots the device wrote last, before its tail: this lap's
 * (below the tail) and, once the CQ has wrapped (phase 0: an odd number
 * of laps; with phase 1 the slots past the tail may never have been
 * written), the last lap's.  posted: the entry carries the phase of the
 * lap that wrote it.
 */
static SaccCqeList *sacc_mon_cq_view(SaccState *s, SaccChannel *ch,
                                     uint32_t count)
{
    const SaccDevRing *ring = &ch->ring;
    const uint32_t size = ch->regs.cq_size;
    SaccCqeList *head = NULL, **tail = &head;
    uint32_t i;

    if (!(ch->regs.status & SACC_STATUS_READY) || !size) {
        return NULL;
    }
    count = MIN(count, ring->phase ? ring->cq_tail : size);
    for (i = 0; i < count; i++) {
        uint32_t idx = (ring->cq_tail + size - count + i) % size;
        /* slots below the tail were written in this lap, others before */
        uint16_t lap = idx < ring->cq_tail ? ring->phase : !ring->phase;
        SaccCqe *e = g_new0(SaccCqe, 1);
        struct sacc_cqe c;

        e->index = idx;
        e->addr = ch->regs.cq_base + (uint64_t)idx * sizeof(c);
        e->fault = sacc_mon_peek_iova(s, e->addr, (uint8_t *)&c, sizeof(c)) <
                   sizeof(c);
        if (!e->fault) {
            e->has_req_id = e->has_result_len = e->has_engine_ns = true;
            e->has_status = e->has_status_name = true;
            e->has_phase = e->has_posted = true;
            e->req_id = le32_to_cpu(c.req_id);
            e->result_len = le32_to_cpu(c.result_len);
            e->engine_ns = le32_to_cpu(c.engine_ns);
            e->status = le16_to_cpu(c.status);
            e->status_name = g_strdup(sacc_status_str(e->status));
            e->phase = le16_to_cpu(c.phase) & SACC_CQE_PHASE;
            e->posted = e->phase == lap;
        }
        QAPI_LIST_APPEND(tail, e);
    }
    return head;
}

static SaccChannelInfo *sacc_mon_channel_info(SaccState *s, SaccChannel *ch,
                                              bool rings, uint32_t count)
{
    SaccChannelInfo *c = g_new0(SaccChannelInfo, 1);
    const SaccChanRegs *r = &ch->regs;
    const SaccDevRing *ring = &ch->ring;

    c->channel = ch->id;
    c->ctrl = r->ctrl;
    c->status = r->status;
    c->mode = r->mode;
    c->err_code = r->err_code;
    c->irq_status = r->irq_status;
    c->sq_base = r->sq_base;
    c->sq_size = r->sq_size;
    c->cq_base = r->cq_base;
    c->cq_size = r->cq_size;
    c->put_addr = r->put_addr;
    c->sq_head = ring->sq_head;
    c->sq_tail = ring->sq_tail;
    c->cq_head = ring->cq_head;
    c->cq_tail = ring->cq_tail;
    c->phase = ring->phase;
    c->outstanding = r->sq_size && (r->status & SACC_STATUS_READY)
                     ? sacc_ring_used(ring->sq_head, ring->sq_tail,
                                      r->sq_size)
                     : 0;
    c->token_pending = ch->token;
    c->db_pending = qatomic_read(&ch->db_pending);
    if (ch->cur.active) {
        c->has_copy_done = c->has_copy_length = true;
        c->copy_done = ch->cur.done;
        c->copy_length = ch->cur.upto;
    }
    if (ch->seg.active) {
        c->has_segment_req_id = c->has_segment_next = true;
        c->segment_req_id = ch->seg.entry.req_id;
        c->segment_next = ch->seg.index;
    }
    c->fault_addr = r->fault_addr;
    c->fault_info = r->fault_info;
    c->fault_access = g_strdup(r->fault_count
                               ? sacc_fault_access_str(r->fault_info)
                               : "none");
    c->fault_req_id = r->fault_req_id;
    c->fault_count = r->fault_count;
    c->msix_masked = msix_is_masked(PCI_DEVICE(s), ch->id);
    if (rings) {
        c->has_sq = c->has_cq = true;
        c->sq = sacc_mon_sq_view(s, ch, count);
        c->cq = sacc_mon_cq_view(s, ch, count);
    }
    return c;
}

static int sacc_mon_collect(Object *obj, void *opaque)
{
    GSList **list = opaque;

    if (object_dynamic_cast(obj, TYPE_SACC) && DEVICE(obj)->realized) {
        *list = g_slist_prepend(*list, obj);
    }
    return 0;
}

static gint sacc_mon_path_cmp(gconstpointer a, gconstpointer b)
{
    g_autofree char *pa = object_get_canonical_path(OBJECT(a));
    g_autofree char *pb = object_get_canonical_path(OBJECT(b));

    return strcmp(pa, pb);
}

/* The devices asked for: @id's, or all, in QOM path order. */
static GSList *sacc_mon_devices(bool has_id, const char *id, Error **errp)
{
    GSList *list = NULL;
    Object *obj;

    if (has_id) {
        obj = object_resolve_path_type(id, TYPE_SACC, NULL);
        if (!obj || !DEVICE(obj)->realized) {
            error_set(errp, ERROR_CLASS_DEVICE_NOT_FOUND,
                      "no SACC device '%s' (info sacc lists them)", id);
            return NULL;
        }
        return g_slist_prepend(NULL, obj);
    }
    object_child_foreach_recursive(object_get_root(), sacc_mon_collect, &list);
    return g_slist_sort(list, sacc_mon_path_cmp);
}

static SaccInfo *sacc_mon_info(SaccState *s, bool has_channel, uint32_t chan,
                               uint32_t count)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    SaccInfo *i = g_new0(SaccInfo, 1);
    SaccChannelInfoList **tail = &i->channel_info;
    uint32_t k;

    i->id = g_strdup(DEVICE(s)->id ? DEVICE(s)->id : "");
    i->qom_path = object_get_canonical_path(OBJECT(s));
    i->bdf = g_strdup_printf("%02x:%02x.%x", pci_dev_bus_num(pdev),
                             PCI_SLOT(pdev->devfn), PCI_FUNC(pdev->devfn));
    i->version = SACC_VERSION;
    i->bus_master = pci_get_word(pdev->config + PCI_COMMAND) &
                    PCI_COMMAND_MASTER;
    i->msix_enabled = msix_enabled(pdev);
    i->devmem_size = s->devmem_size;
    i->dev_err_code = s->dev_err_code;
    i->engine = g_strdup(s->engine_thread ? "thread" : "bottom-half");
    i->engine_running = s->running;
    i->engine_asleep = qatomic_read(&s->engine_asleep);
    i->engine_nocore = get_clock() < qatomic_read(&s->nocore_until);
    i->next_channel = s->rr_next;
    for (k = 0; k < s->nr_channels; k++) {
        if (!has_channel || k == chan) {
            QAPI_LIST_APPEND(tail, sacc_mon_channel_info(s, &s->chan[k],
                                                         has_channel, count));
        }
    }
    return i;
}

static SaccMemory *sacc_mon_memory(SaccState *s, uint64_t addr, uint32_t len,
                                   bool dev)
{
    SaccMemory *m = g_new0(SaccMemory, 1);
    g_autofree uint8_t *buf = g_malloc0(MAX(len, 1));
    uint32_t got = sacc_mon_peek(s, addr, dev, buf, len);

    m->addr = addr;
    m->dev = dev;
    m->data = sacc_mon_hex(buf, got);
    if (got < len) {
        m->has_fault_addr = true;
        m->fault_addr = addr + got;
    }
    return m;
}

SaccInfoList *qmp_x_query_sacc(bool has_id, const char *id,
                               bool has_channel, uint32_t channel,
                               bool has_count, uint32_t count,
                               bool has_addr, uint64_t addr,
                               bool has_length, uint32_t length,
                               bool has_dev, bool dev, Error **errp)
{
    SaccInfoList *head = NULL, **tail = &head;
    GSList *devs, *l;

    if (has_count && (count < 1 || count > SACC_PEEK_MAX_SLOTS)) {
        error_setg(errp, "count must be 1..%u", SACC_PEEK_MAX_SLOTS);
        return NULL;
    }
    if (has_addr != has_length) {
        error_setg(errp, "addr and length go together");
        return NULL;
    }
    if (has_length && (length < 1 || length > SACC_PEEK_MAX_LEN)) {
        error_setg(errp, "length must be 1..%u", SACC_PEEK_MAX_LEN);
        return NULL;
    }
    devs = sacc_mon_devices(has_id, id, errp);
    if (has_id && !devs) {
        return NULL;
    }
    if ((has_channel || has_addr) && g_slist_length(devs) != 1) {
        error_setg(errp, "channel and addr need one device: give its id");
        g_slist_free(devs);
        return NULL;
    }
    for (l = devs; l; l = l->next) {
        SaccState *s = SACC(l->data);
        SaccInfo *i;

        if (has_channel && channel >= s->nr_channels) {
            error_setg(errp, "the device has %u channels: no channel %u",
                       s->nr_channels, channel);
            qapi_free_SaccInfoList(head);
            g_slist_free(devs);
            return NULL;
        }
        i = sacc_mon_info(s, has_channel, channel,
                          has_count ? count : SACC_PEEK_SLOTS);
        if (has_addr) {
            i->has_memory = true;
            i->memory = sacc_mon_memory(s, addr, length, has_dev && dev);
        }
        QAPI_LIST_APPEND(tail, i);
    }
    g_slist_free(devs);
    return head;
}

/* ---- HMP: the same, for people ---- */

static void hmp_sacc_desc(Monitor *mon, const SaccDesc *q, const char *in,
                          char mark)
{
    if (q->fault) {
        monitor_printf(mon, "%s[%u] @%s0x%" PRIx64 ": unreadable (no "
                       "translation)\n", in, q->index, q->dev ? "dev " : "",
                       q->addr);
        return;
    }
    monitor_printf(mon, "%s[%u]%c %-12s req_id 0x%x src 0x%" PRIx64
                   " dst 0x%" PRIx64 " len %u flags 0x%x\n", in, q->index,
                   mark, q->op, q->req_id, q->src, q->dst, q->length,
                   q->flags);
    if (q->has_payload) {
        monitor_printf(mon, "%s      payload %s\n", in, q->payload);
    }
    if (q->has_segment) {
        SaccDescList *l;

        for (l = q->segment; l; l = l->next) {
            hmp_sacc_desc(mon, l->value, "        seg", ' ');
        }
    }
}

static void hmp_sacc_channel(Monitor *mon, const SaccChannelInfo *c)
{
    SaccDescList *d;
    SaccCqeList *e;

    monitor_printf(mon, "  ch %u: ctrl 0x%x status 0x%x mode 0x%x err %u "
                   "irq 0x%x%s\n", c->channel, c->ctrl, c->status, c->mode,
                   c->err_code, c->irq_status,
                   c->msix_masked ? " (vector masked)" : "");
    if (!(c->status & SACC_STATUS_READY) && !c->has_sq) {
        return;
    }
    monitor_printf(mon, "    sq 0x%" PRIx64 "/%u head %u tail %u (%u "
                   "outstanding)  cq 0x%" PRIx64 "/%u head %u tail %u "
                   "phase %u\n", c->sq_base, c->sq_size, c->sq_head,
                   c->sq_tail, c->outstanding, c->cq_base, c->cq_size,
                   c->cq_head, c->cq_tail, c->phase);
    if (c->token_pending || c->db_pending) {
        monitor_printf(mon, "    doorbell: token %s, posted word 0x%" PRIx64
                       " (put 0x%" PRIx64 ")\n",
                       c->token_pending ? "pending" : "none", c->db_pending,
                       c->put_addr);
    }
    if (c->has_copy_done) {
        monitor_printf(mon, "    copy under way: %u of %u bytes moved\n",
                       c->copy_done, c->copy_length);
    }
    if (c->has_segment_req_id) {
        monitor_printf(mon, "    segment under way: req_id 0x%x, next "
                       "command %u\n", c->segment_req_id, c->segment_next);
    }
    if (c->fault_count) {
        monitor_printf(mon, "    fault: %u, last %s at 0x%" PRIx64
                       " req_id 0x%x (info 0x%x)\n", c->fault_count,
                       c->fault_access, c->fault_addr, c->fault_req_id,
                       c->fault_info);
    }
    if (c->has_sq) {
        bool after = false; /* past the pending ones: after the tail */

        monitor_printf(mon, "    SQ (* rung, not fetched yet; + after the "
                       "tail: not rung):\n");
        for (d = c->sq; d; d = d->next) {
            const SaccDesc *q = d->value;

            after |= q->index == c->sq_tail;
            hmp_sacc_desc(mon, q, "      sq",
                          q->has_pending && q->pending ? '*'
                                                       : after ? '+' : ' ');
        }
        monitor_printf(mon, "    CQ, the last written (up to the device's "
                       "tail):\n");
        for (e = c->cq; e; e = e->next) {
            const SaccCqe *q = e->value;

            if (q->fault) {
                monitor_printf(mon, "      cq[%u] @0x%" PRIx64
                               ": unreadable\n", q->index, q->addr);
                continue;
            }
            monitor_printf(mon, "      cq[%u] %s req_id 0x%x status %u "
                           "(%s) result_len %u engine %u ns phase %u\n",
                           q->index, q->posted ? "posted" : "stale ",
                           q->req_id, q->status, q->status_name,
                           q->result_len, q->engine_ns, q->phase);
        }
    }
}

static void hmp_sacc_print(Monitor *mon, const SaccInfo *i)
{
    SaccChannelInfoList *c;

    monitor_printf(mon, "sacc %s (%s) at %s: VERSION %u, bus master %s, "
                   "MSI-X %s, device memory %" PRIu64 " bytes, "
                   "DEV_ERR_CODE %u\n", i->id[0] ? i->id : "-", i->qom_path,
                   i->bdf, i->version, i->bus_master ? "on" : "off",
                   i->msix_enabled ? "on" : "off", i->devmem_size,
                   i->dev_err_code);
    monitor_printf(mon, "  engine: %s, %s%s%s, next turn: channel %u\n",
                   i->engine, i->engine_running ? "running" : "idle",
                   i->engine_asleep ? ", asleep" : "",
                   i->engine_nocore ? ", no core of its own" : "",
                   i->next_channel);
    for (c = i->channel_info; c; c = c->next) {
        hmp_sacc_channel(mon, c->value);
    }
    if (i->has_memory) {
        const SaccMemory *m = i->memory;
        size_t k, n = strlen(m->data);

        for (k = 0; k < n; k += 32) {
            char text[17] = "";
            size_t j;

            for (j = 0; j < 16 && k + 2 * j + 1 < n; j++) {
                unsigned int b = 0;

                sscanf(m->data + k + 2 * j, "%2x", &b);
                text[j] = b >= 0x20 && b < 0x7f ? b : '.';
            }
            text[j] = 0;
            monitor_printf(mon, "  %s0x%" PRIx64 ": %-32.32s  %s\n",
                           m->dev ? "dev " : "", m->addr + k / 2,
                           m->data + k, text);
        }
        if (m->has_fault_addr) {
            monitor_printf(mon, "  0x%" PRIx64 ": no translation (the "
                           "device's DMA would fault here)\n",
                           m->fault_addr);
        }
    }
}

/*
 * info sacc [ID] [--ring CH [--count N]] [--mem ADDR LEN [--dev]]
 * (also -r, -n, -m, -d).  HMP options are single letters in a fixed
 * order, so the command takes the rest of the line and parses it here.
 */
void hmp_info_sacc(Monitor *mon, const QDict *qdict)
{
    const char *args = qdict_get_try_str(qdict, "args");
    g_auto(GStrv) v = g_strsplit_set(args ? args : "", " \t", -1);
    const char *id = NULL;
    uint64_t ch = 0, count = SACC_PEEK_SLOTS, addr = 0, len = 0;
    bool has_ch = false, has_count = false, has_mem = false, dev = false;
    Error *err = NULL;
    SaccInfoList *list, *l;
    int k;

    for (k = 0; v[k]; k++) {
        const char *a = v[k];

        if (!*a) {
            continue;
        }
        if ((!strcmp(a, "--ring") || !strcmp(a, "-r")) && v[k + 1] &&
            !qemu_strtou64(v[k + 1], NULL, 0, &ch)) {
            has_ch = true;
            k++;
        } else if ((!strcmp(a, "--count") || !strcmp(a, "-n")) &&
                   v[k + 1] && !qemu_strtou64(v[k + 1], NULL, 0, &count)) {
            has_count = true;
            k++;
        } else if ((!strcmp(a, "--mem") || !strcmp(a, "-m")) && v[k + 1] &&
                   v[k + 2] && !qemu_strtou64(v[k + 1], NULL, 0, &addr) &&
                   !qemu_strtou64(v[k + 2], NULL, 0, &len)) {
            has_mem = true;
            k += 2;
        } else if (!strcmp(a, "--dev") || !strcmp(a, "-d")) {
            dev = true;
        } else if (*a != '-' && !id) {
            id = a;
        } else {
            monitor_printf(mon, "info sacc: cannot read '%s'; usage: info "
                           "sacc [ID] [--ring CH [--count N]] [--mem ADDR "
                           "LEN [--dev]]\n", a);
            return;
        }
    }
    if (ch > UINT32_MAX || count > UINT32_MAX || len > UINT32_MAX) {
        monitor_printf(mon, "info sacc: a number is too large\n");
        return;
    }
    list = qmp_x_query_sacc(!!id, id, has_ch, ch, has_count, count, has_mem,
                            addr, has_mem, len, dev, dev, &err);
    if (err) {
        monitor_printf(mon, "info sacc: %s\n", error_get_pretty(err));
        error_free(err);
        return;
    }
    if (!list) {
        monitor_printf(mon, "no SACC device\n");
    }
    for (l = list; l; l = l->next) {
        hmp_sacc_print(mon, l->value);
    }
    qapi_free_SaccInfoList(list);
}

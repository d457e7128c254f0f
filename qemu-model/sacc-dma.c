/* SPDX-License-Identifier: MIT */
/*
 * SACC: DMA, as the device does it.
 *
 * Every DMA carries the device's requester ID, as a PCIe TLP would, goes
 * through the device's view of memory (the vIOMMU's translation when
 * there is one), and has its result checked.  A buffer moves one IOVA
 * page at a time (sacc_dma_pages()), so the fault record names the exact
 * page that failed and no destination byte after a faulting page is ever
 * written.  A DMA may land on another device, and reset this one (a write
 * into the MMCONFIG window, say): after each access the channel's epoch
 * is checked, and a descriptor whose channel was reset or disabled
 * meanwhile is abandoned, so there is no DMA after a reset returns.
 * Device addresses (v0.4: MODE.SQ_DEV, SACC_DESC_F_*_DEV) are the
 * device's own RAM, never translated; their range is checked before a
 * byte moves (sacc_devmem_has()).
 *
 * The direct path of a copy (sacc-copy.c) and the engine's own small
 * accesses (descriptors, CQEs, PUT words, inline data) translate through
 * the device's translation cache (SaccAtc), which every IOMMU
 * invalidation and memory map change empties.  Whatever must not overlap
 * a copy done without the BQL (those two, a reset, a disable) waits for
 * it in sacc_dma_quiesce().
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qapi/error.h"
#include "qemu/rcu.h"
#include "exec/memory.h"
#include "hw/misc/sacc.h"

/*
 * Under the BQL: wait until the engine thread is not copying without it
 * (sacc_copy_unlocked()), and none can start until the BQL is dropped.
 * Every epoch bump, IOMMU invalidation and memory map change calls this
 * first, so a copy that began before them ends before they take effect,
 * as a real device finishes a DMA in flight before its reset (or the
 * IOMMU's invalidation) completes.
 */
void sacc_dma_quiesce(SaccState *s)
{
    if (s->engine_thread && !qemu_thread_is_self(&s->engine)) {
        qemu_mutex_lock(&s->dma_lock);
        qemu_mutex_unlock(&s->dma_lock);
    }
}

/*
 * True if an access to @mr fails without reaching anything: QEMU's
 * "unassigned" region, where a failed IOMMU translation (reported by the
 * IOMMU as it translated), a hole or a disabled bus master lead.  Its
 * ops, unassigned_mem_ops, are those every region starts with, e.g. our
 * BAR0 container; their declaration (exec/memory-internal.h) needs
 * cpu.h, which a target-independent device cannot include.
 */
static bool sacc_mr_unassigned(SaccState *s, MemoryRegion *mr)
{
    return !memory_region_is_ram(mr) && mr->ops == s->bar0.ops;
}

/*
 * The device's translation cache (an ATC) for the direct path: IOVA page
 * to host address of plain guest RAM, per direction, filled from the
 * direct path's translations and used by later descriptors.  An entry
 * stands for a translation the IOMMU gave and could itself cache until
 * the guest invalidates it, so:
 *  - every IOMMU invalidation drops all entries (an UNMAP-only IOMMU
 *    notifier; patches/0004 makes domain, device and global
 *    invalidations reach it, as page-selective ones do);
 *  - so does every change of QEMU's memory map (a MemoryListener's
 *    commit: DMA remapping or bus mastering switched, RAM or a BAR moved);
 *  - only pages that one translation covered whole, with the access's
 *    permission, are cached, and a miss translates as before, so a fault
 *    is still reported by the IOMMU once per faulting access.
 * It is used with the BQL held only: invalidations and memory map
 * changes happen under it, so none can come between a lookup and the
 * copy that uses it; a copy done without the BQL (sacc_copy_unlocked())
 * is waited for by both (sacc_dma_quiesce()).
 */
#define SACC_ATC_ENTRIES 1024 /* per direction, direct mapped */

typedef struct SaccAtcEntry {
    uint64_t tag;  /* IOVA page number + 1; 0: empty */
    uint32_t gen;  /* valid while equal to SaccAtc.gen */
    uint32_t from; /* valid from this offset in the page on */
    uint8_t *host; /* the page's start */
} SaccAtcEntry;

struct SaccAtc {
    SaccState *s;
    MemoryListener listener;
    IOMMUNotifier notifier;
    MemoryRegion *iommu; /* the IOMMU region the notifier is on */
    bool broken;         /* notifier refused, or a second IOMMU region */
    uint32_t gen;        /* bumped to drop every entry */
    SaccAtcEntry e[2][SACC_ATC_ENTRIES]; /* [is_write] */
};

/*
 * Drop every entry, after a copy in flight (which uses the old
 * translations) has ended.
 */
static void sacc_atc_flush(SaccAtc *atc)
{
    sacc_dma_quiesce(atc->s);
    atc->gen++;
    if (atc->gen == 0) { /* wrapped: no old entry may look valid */
        memset(atc->e, 0, sizeof(atc->e));
        atc->gen = 1;
    }
}

static void sacc_atc_unmap(IOMMUNotifier *n, IOMMUTLBEntry *entry)
{
    sacc_atc_flush(container_of(n, SaccAtc, notifier));
}

static void sacc_atc_commit(MemoryListener *listener)
{
    sacc_atc_flush(container_of(listener, SaccAtc, listener));
}

/* A region of the device's DMA address space: listen to its IOMMU */
static void sacc_atc_region_add(MemoryListener *listener,
                                MemoryRegionSection *section)
{
    SaccAtc *atc = container_of(listener, SaccAtc, listener);
    Error *err = NULL;

    if (!memory_region_is_iommu(section->mr) || atc->iommu == section->mr) {
        return;
    }
    if (atc->iommu) {
        atc->broken = true;
        return;
    }
    iommu_notifier_init(&atc->notifier, sacc_atc_unmap,
                        IOMMU_NOTIFIER_UNMAP, 0, HWADDR_MAX,
                        memory_region_iommu_attrs_to_index(
                            IOMMU_MEMORY_REGION(section->mr),
                            MEMTXATTRS_UNSPECIFIED));
    if (memory_region_register_iommu_notifier(section->mr, &atc->notifier,
                                              &err)) {
        /* no cache then: every page is translated, as without one */
        warn_report_err(err);
        atc->broken = true;
        return;
    }
    atc->iommu = section->mr;
}

/* The cache of @s, created at the first use; NULL if it cannot be used */
SaccAtc *sacc_atc_get(SaccState *s)
{
    if (!qemu_mutex_iothread_locked()) {
        return NULL;
    }
    if (!s->atc) {
        s->atc = g_new0(SaccAtc, 1);
        s->atc->s = s;
        s->atc->gen = 1;
        s->atc->listener = (MemoryListener) {
            .name = "sacc-atc",
            .region_add = sacc_atc_region_add,
            .commit = sacc_atc_commit,
        };
        memory_listener_register(&s->atc->listener,
                                 pci_get_address_space(PCI_DEVICE(s)));
    }
    return s->atc->broken ? NULL : s->atc;
}

/* Unrealize: the cache stops listening, and goes */
void sacc_atc_free(SaccState *s)
{
    if (!s->atc) {
        return;
    }
    memory_listener_unregister(&s->atc->listener);
    if (s->atc->iommu) {
        memory_region_unregister_iommu_notifier(s->atc->iommu,
                                                &s->atc->notifier);
    }
    g_free(s->atc);
    s->atc = NULL;
}

/* The entry for @addr if the cache holds its translation, else NULL */
static SaccAtcEntry *sacc_atc_lookup(SaccAtc *atc, uint64_t addr,
                                     bool is_write)
{
    const uint64_t page = addr / SACC_PAGE_SIZE;
    SaccAtcEntry *e = &atc->e[is_write][page % SACC_ATC_ENTRIES];

    return e->tag == page + 1 && e->gen == atc->gen &&
           (addr & (SACC_PAGE_SIZE - 1)) >= e->from ? e : NULL;
}

/*
 * Cache @host as the translation of @addr's page from @addr's offset on,
 * under @gen, the cache's generation from before the translation (one
 * that flushed the cache leaves the entry stale at once).
 */
static SaccAtcEntry *sacc_atc_insert(SaccAtc *atc, uint64_t addr,
                                     bool is_write, uint32_t gen,
                                     uint8_t *host)
{
    const uint64_t page = addr / SACC_PAGE_SIZE;
    const uint32_t from = addr & (SACC_PAGE_SIZE - 1);
    SaccAtcEntry *e = &atc->e[is_write][page % SACC_ATC_ENTRIES];

    *e = (SaccAtcEntry) {
        .tag = page + 1, .gen = gen, .from = from, .host = host - from,
    };
    return e;
}

/*
 * Tell QEMU what sacc_pieces_move() wrote (dirty bits, TCG's translated
 * code); with or without the BQL.
 */
void sacc_dma_pieces_written(SaccState *s, const SaccPiece *dst,
                             uint32_t ndst, uint32_t upto)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(s));
    uint32_t i;

    for (i = 0; i < ndst && dst[i].off < upto; i++) {
        uint32_t end = MIN(dst[i].off + dst[i].len, upto);

        /*
         * What address_space_unmap() does after a write through
         * address_space_map(): mark the RAM dirty and invalidate TCG
         * code on it.  The reference taken here is the one it drops.
         */
        memory_region_ref(memory_region_from_host(dst[i].ptr,
                                                  &(ram_addr_t){ 0 }));
        address_space_unmap(as, dst[i].ptr, end - dst[i].off, true,
                            end - dst[i].off);
    }
}

/*
 * A DMA access of the engine's own (a descriptor, a CQE, a PUT word, a
 * segment's or inline data's page; never across a page) through the
 * translation cache, on the direct path and under the BQL: the IOMMU's
 * walk and the memory core's dispatch are paid once per page, not once
 * per access (issue 19: they were half the engine thread's time per NOP
 * on a busy host).  A miss translates from @addr to the page's end, as
 * the access itself would, so a fault is reported by the IOMMU once and
 * at the same address; plain RAM is then cached from @addr on.  Returns
 * false if the memory core must do the access (no cache, not RAM, an
 * access across a page), else true with its result in *@r.
 */
static bool sacc_dma_atc(SaccState *s, uint64_t addr, void *buf,
                         uint32_t len, bool is_write, MemTxResult *r)
{
    const uint64_t pmask = SACC_PAGE_SIZE - 1;
    SaccAtc *atc = s->direct_copy ? sacc_atc_get(s) : NULL;
    SaccAtcEntry *e;
    uint8_t *host;

    if (!atc || !len || len > SACC_PAGE_SIZE - (addr & pmask)) {
        return false;
    }
    /*
     * Ordered as the rings need: every earlier access before a write,
     * every earlier read before a read; a store may pass a later load,
     * as on x86, where both are compiler barriers.  dma_memory_rw()'s
     * full barrier, an mfence per access, took NOP batch 64 on a busy
     * host from 774k to 634k ops/s in one A/B.
     */
    if (is_write) {
        smp_mb_release();
    } else {
        smp_mb_acquire();
    }
    RCU_READ_LOCK_GUARD();
    e = sacc_atc_lookup(atc, addr, is_write);
    if (!e) {
        PCIDevice *pdev = PCI_DEVICE(s);
        MemTxAttrs attrs = { .requester_id = pci_requester_id(pdev) };
        const hwaddr rest = SACC_PAGE_SIZE - (addr & pmask);
        const uint32_t gen = atc->gen; /* translating may flush the cache */
        hwaddr xlat, l = rest;
        MemoryRegion *mr;

        mr = address_space_translate(pci_get_address_space(pdev), addr,
                                     &xlat, &l, is_write, attrs);
        if (sacc_mr_unassigned(s, mr)) {
            *r = MEMTX_DECODE_ERROR; /* the IOMMU faulted, and said so */
            return true;
        }
        if (!memory_access_is_direct(mr, is_write) || l < rest) {
            return false;
        }
        e = sacc_atc_insert(atc, addr, is_write, gen,
                            qemu_map_ram_ptr(mr->ram_block, xlat));
    }
    host = e->host + (addr & pmask);
    if (is_write) {
        memcpy(host, buf, len);
        sacc_dma_pieces_written(s, &(SaccPiece) { .ptr = host, .len = len }, 1,
                                len);
    } else {
        memcpy(buf, host, len);
    }
    *r = MEMTX_OK;
    return true;
}

/*
 * One DMA access of at most a page, through the translation cache if it
 * can (sacc_dma_atc()), else through the memory core.  Every DMA carries
 * our requester ID, as a PCIe TLP would: the IOMMU needs it to attribute
 * (and source-check) writes into the interrupt window, where there is no
 * per-device address space to tell us apart.
 */
MemTxResult sacc_dma_rw(SaccState *s, uint64_t addr, void *buf,
                        uint32_t len, DMADirection dir)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    MemTxAttrs attrs;
    MemTxResult r;

    if (sacc_dma_atc(s, addr, buf, len, dir == DMA_DIRECTION_FROM_DEVICE,
                     &r)) {
        return r;
    }
    attrs = (MemTxAttrs) { .requester_id = pci_requester_id(pdev) };
    return pci_dma_rw(pdev, addr, buf, len, dir, attrs);
}

/*
 * Move @len bytes between guest @addr and @buf one IOVA page at a time,
 * for channel @ch.  Stops at the first failing page, so for a write
 * every byte before that page may have landed and none after it.  With
 * @dev, @addr is a device address (v0.4): plain memory, no fault.
 */
SaccDmaResult sacc_dma_pages(SaccState *s, SaccChannel *ch,
                             uint64_t addr, bool dev, uint8_t *buf,
                             uint32_t len, DMADirection dir,
                             uint32_t epoch, uint64_t *fault)
{
    if (dev) { /* device memory: the caller checked the range */
        if (dir == DMA_DIRECTION_TO_DEVICE) {
            memcpy(buf, s->devmem + addr, len);
        } else {
            memcpy(s->devmem + addr, buf, len);
            memory_region_set_dirty(&s->devmem_mr, addr, len);
        }
        return SACC_DMA_OK;
    }

    while (len) {
        uint32_t n = MIN(len, SACC_PAGE_SIZE -
                                  (addr & (SACC_PAGE_SIZE - 1)));
        MemTxResult r;

        r = sacc_dma_rw(s, addr, buf, n, dir);
        if (ch->epoch != epoch) {
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

/*
 * A ring read (descriptor, inline payload, PUT word) from the channel's
 * SQ: device memory with MODE.SQ_DEV (its range checked at enable),
 * else DMA.
 */
MemTxResult sacc_dma_ring_read(SaccState *s, SaccChannel *ch,
                               uint64_t addr, void *buf, uint32_t len)
{
    if (ch->regs.mode & SACC_MODE_SQ_DEV) {
        memcpy(buf, s->devmem + addr, len);
        return MEMTX_OK;
    }
    return sacc_dma_rw(s, addr, buf, len, DMA_DIRECTION_TO_DEVICE);
}

/*
 * Translate [@addr, @addr + @len) for a read (@is_write false) or a write
 * into at most SACC_PIECES_MAX pieces (*@n of them), through the cache
 * @atc if not NULL; with @dev, @addr is a device address (one piece).
 * On a fault *@fault is the fault record's address: @addr if the first
 * page failed, else the failing page.  The caller holds the RCU read
 * lock for as long as it uses the pieces.
 */
SaccMapResult sacc_dma_map_buffer(SaccState *s, SaccChannel *ch,
                                  uint64_t addr, bool dev, uint32_t len,
                                  bool is_write, uint32_t epoch,
                                  SaccAtc *atc, SaccPiece *pieces,
                                  uint32_t *n, uint64_t *fault)
{
    const uint64_t pmask = SACC_PAGE_SIZE - 1;
    PCIDevice *pdev = PCI_DEVICE(s);
    AddressSpace *as = pci_get_address_space(pdev);
    MemTxAttrs attrs = { .requester_id = pci_requester_id(pdev) };
    uint32_t off = 0, gen;

    *n = 0;
    if (dev) { /* device memory, one piece: the caller checked the range */
        pieces[0] = (SaccPiece) { .ptr = s->devmem + addr, .len = len };
        *n = len ? 1 : 0;
        return SACC_MAP_OK;
    }
    while (off < len) {
        uint64_t a = addr + off, p;
        SaccAtcEntry *e = atc ? sacc_atc_lookup(atc, a, is_write) : NULL;
        hwaddr xlat, l = len - off;
        MemoryRegion *mr;
        uint8_t *ptr;

        if (*n == SACC_PIECES_MAX) {
            return SACC_MAP_STAGED;
        }
        if (e) {
            l = MIN(l, SACC_PAGE_SIZE - (a & pmask));
            pieces[(*n)++] = (SaccPiece) {
                .ptr = e->host + (a & pmask),
                .off = off,
                .len = l,
            };
            off += l;
            continue;
        }

        gen = atc ? atc->gen : 0; /* translating may flush the cache */
        mr = address_space_translate(as, a, &xlat, &l, is_write, attrs);
        /* A fault interrupt may have landed on us. */
        if (ch->epoch != epoch) {
            return SACC_MAP_ABANDONED;
        }
        if (!memory_access_is_direct(mr, is_write)) {
            if (sacc_mr_unassigned(s, mr)) {
                *fault = MAX(addr, a & ~pmask);
                return SACC_MAP_FAULT;
            }
            return SACC_MAP_STAGED;
        }
        if (l == 0) {
            return SACC_MAP_STAGED;
        }
        l = MIN(l, len - off);
        ptr = qemu_map_ram_ptr(mr->ram_block, xlat);
        pieces[(*n)++] = (SaccPiece) { .ptr = ptr, .off = off, .len = l };
        /* Cache the pages this translation covered whole. */
        for (p = (a + pmask) & ~pmask; atc && p + SACC_PAGE_SIZE <= a + l;
             p += SACC_PAGE_SIZE) {
            sacc_atc_insert(atc, p, is_write, gen, ptr + (p - a));
        }
        off += l;
    }
    return SACC_MAP_OK;
}

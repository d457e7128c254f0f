/* SPDX-License-Identifier: MIT */
/*
 * SACC: interrupts and faults.
 *
 * A channel interrupts on its own MSI-X vector (vector = channel,
 * docs/spec.md section 8) with bits in its IRQ_STATUS: COMPLETION for a
 * descriptor that asked for it, FATAL for a ring fault.  A DMA that fails
 * is recorded in the channel's fault record (FAULT_ADDR, FAULT_INFO,
 * FAULT_REQ_ID, FAULT_COUNT; section 2) by the code that saw it fail.  On
 * a buffer that only completes the descriptor with DMA_FAULT
 * (sacc-exec.c); on the channel's rings (a descriptor, CQE, PUT word or
 * inline payload) it is fatal: the channel stops until reset or
 * re-enabled (sacc_ring_fatal(), section 7).
 */

#include "qemu/osdep.h"
#include "hw/pci/msix.h"
#include "hw/misc/sacc.h"
#include "trace.h"

/* MSI-X's capability in config space (drivers walk the list to it) */
#define SACC_MSIX_CAP_OFFSET 0x70

/* Channel @ch's MSI-X vector is vector @ch (docs/spec.md section 8). */
void sacc_irq_raise(SaccState *s, SaccChannel *ch, uint32_t bits)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    bool msix = msix_enabled(pdev);

    /* read without the BQL too (sacc_read_lockless()), after the rest */
    qatomic_store_release(&ch->regs.irq_status, ch->regs.irq_status | bits);
    trace_sacc_irq(ch->id, bits, ch->regs.irq_status, msix,
                   SACC_TRACE_NS(TRACE_SACC_IRQ));
    /* msix_notify() sets the pending bit instead if the vector is masked */
    if (msix) {
        msix_notify(pdev, ch->id);
    }
}

/* The fault record of @ch: the last failing DMA, and how many failed */
void sacc_fault_record(SaccChannel *ch, uint32_t info, uint64_t addr,
                       uint32_t req_id)
{
    trace_sacc_dma_fault(info, addr, req_id);
    ch->regs.fault_addr = addr;
    ch->regs.fault_info = info;
    ch->regs.fault_req_id = req_id;
    if (ch->regs.fault_count != UINT32_MAX) {
        ch->regs.fault_count++;
    }
}

/* A fault on a channel's rings: stop it until reset (or re-enable). */
void sacc_ring_fatal(SaccState *s, SaccChannel *ch, uint32_t info,
                     uint64_t addr, uint32_t req_id)
{
    sacc_fault_record(ch, info, addr, req_id);
    SACC_GUEST_ERROR(&ch->regs.err_code, SACC_ERR_DMA, sacc_ring_fatal,
                     "info 0x%x addr 0x%" PRIx64 " req_id 0x%x",
                     info, addr, req_id);
    /* after ERR_CODE and the record: a lockless STATUS read sees them */
    qatomic_store_release(&ch->regs.status,
                          (ch->regs.status & ~SACC_STATUS_READY) |
                          SACC_STATUS_ERROR);
    trace_sacc_chan_stopped(ch->id, ch->regs.status, ch->regs.err_code);
    sacc_db_hint_update(ch);
    sacc_irq_raise(s, ch, SACC_IRQ_FATAL);
}

/* IRQ_PENDING (BAR2's device page): which channels' IRQ_STATUS is set */
uint64_t sacc_irq_pending(SaccState *s)
{
    uint64_t pending = 0;
    uint32_t i;

    for (i = 0; i < s->nr_channels; i++) {
        if (qatomic_read(&s->chan[i].regs.irq_status)) {
            pending |= 1ull << i;
        }
    }
    return pending;
}

/*
 * BAR1 holds the MSI-X table and PBA: SACC_MSIX_VECTORS vectors, one per
 * channel there can be, all in use from the start.
 */
bool sacc_irq_realize(SaccState *s, Error **errp)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    unsigned int i;

    memory_region_init(&s->msix_bar, OBJECT(s), "sacc-msix",
                       SACC_BAR1_SIZE);
    pci_register_bar(pdev, SACC_BAR_MSIX, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->msix_bar);
    if (msix_init(pdev, SACC_MSIX_VECTORS, &s->msix_bar, SACC_BAR_MSIX,
                  SACC_MSIX_TABLE_OFFSET, &s->msix_bar, SACC_BAR_MSIX,
                  SACC_MSIX_PBA_OFFSET, SACC_MSIX_CAP_OFFSET, errp) < 0) {
        return false;
    }
    for (i = 0; i < SACC_MSIX_VECTORS; i++) {
        msix_vector_use(pdev, i);
    }
    return true;
}

/* Unrealize, or a realize that failed after sacc_irq_realize() */
void sacc_irq_unrealize(SaccState *s)
{
    msix_uninit(PCI_DEVICE(s), &s->msix_bar, &s->msix_bar);
}

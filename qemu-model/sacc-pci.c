/* SPDX-License-Identifier: MIT */
/*
 * SACC: the PCI device (docs/spec.md sections 1, 9 and 18): its identity
 * and config space, its properties, realize and unrealize, FLR and
 * system reset, and its device memory, BAR4.  The other BARs are set up
 * by the files that own them (sacc_regs_realize(), sacc_irq_realize());
 * sacc.h says which file owns what.
 */

#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "exec/cpu-common.h"
#include "exec/memory.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "monitor/monitor.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qom/object.h"
#include "hw/misc/sacc.h"

#define SACC_DEVMEM_MAX (16ull << 30) /* property "devmem", at most */

/* The PCIe capability in config space (drivers walk the list to it) */
#define SACC_PCIE_CAP_OFFSET 0x80

/* FLR and system reset; pci_device_reset() also clears MSI/bus master. */
static void sacc_qdev_reset(DeviceState *dev)
{
    PCIDevice *pdev = PCI_DEVICE(dev);
    SaccState *s = SACC(dev);
    /* pcie_cap_flr_write_config() keeps BCR_FLR set while we run. */
    bool flr = pci_get_word(pdev->config + pdev->exp.exp_cap +
                            PCI_EXP_DEVCTL) & PCI_EXP_DEVCTL_BCR_FLR;

    sacc_db_drain(s); /* doorbells rung before the reset came first */
    sacc_device_reset(s, flr ? "flr" : "device");
    /*
     * FLR and system reset scrub device memory (a device handed to its
     * next owner, by VFIO's reset at open, shows it nothing of the
     * last); CTRL.RESET, a channel's reset and ENABLE keep it, as a
     * GPU keeps its memory (docs/spec.md section 18).  After
     * sacc_device_reset(): no copy into it is under way.
     */
    if (s->devmem) {
        /*
         * Give the pages back (they read as zeros) rather than write
         * gigabytes of them under the BQL; memset if the host can't.
         */
        if (ram_block_discard_range(s->devmem_mr.ram_block, 0,
                                    s->devmem_size)) {
            memset(s->devmem, 0, s->devmem_size);
        }
        memory_region_set_dirty(&s->devmem_mr, 0, s->devmem_size);
    }
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
    unsigned int i;

    if (s->nr_channels < 1 || s->nr_channels > SACC_CHANNELS_MAX) {
        error_setg(errp, "sacc: channels must be 1..%u, not %u",
                   SACC_CHANNELS_MAX, s->nr_channels);
        return;
    }
    if (s->poll_us > SACC_ENGINE_POLL_MAX_US) {
        error_setg(errp, "sacc: x-poll-us must be 0..%u, not %u",
                   SACC_ENGINE_POLL_MAX_US, s->poll_us);
        return;
    }
    if (s->devmem_size && (!is_power_of_2(s->devmem_size) ||
                           s->devmem_size < SACC_PAGE_SIZE ||
                           s->devmem_size > SACC_DEVMEM_MAX)) {
        error_setg(errp, "sacc: devmem must be 0 (none) or a power of two "
                   "from 4K to 16G, not %" PRIu64, s->devmem_size);
        return;
    }
    for (i = 0; i < SACC_CHANNELS_MAX; i++) {
        s->chan[i].id = i;
    }

    pci_config_set_prog_interface(pdev->config, SACC_PCI_CLASS & 0xff);
    pci_config_set_interrupt_pin(pdev->config, 0); /* no INTx */

    if (pcie_endpoint_cap_init(pdev, SACC_PCIE_CAP_OFFSET) < 0) {
        error_setg(errp, "sacc: cannot add PCIe capability");
        return;
    }
    pcie_cap_flr_init(pdev);

    sacc_regs_realize(s);
    if (!sacc_irq_realize(s, errp)) {
        pcie_cap_exit(pdev);
        return;
    }

    if (s->devmem_size) {
        Error *err = NULL;

        /*
         * Not registered for migration (SACC is unmigratable): a RAM
         * block registered by name would stop a hot-unplugged SACC's
         * successor at the same address from being realized.
         */
        memory_region_init_ram_nomigrate(&s->devmem_mr, OBJECT(s),
                                         "sacc-devmem", s->devmem_size,
                                         &err);
        if (err) {
            error_propagate(errp, err);
            pcie_cap_exit(pdev);
            sacc_irq_unrealize(s);
            return;
        }
        s->devmem = memory_region_get_ram_ptr(&s->devmem_mr);
        pci_register_bar(pdev, SACC_BAR_DEVMEM,
                         PCI_BASE_ADDRESS_SPACE_MEMORY |
                         PCI_BASE_ADDRESS_MEM_TYPE_64 |
                         PCI_BASE_ADDRESS_MEM_PREFETCH, &s->devmem_mr);
    }
    for (i = 0; i < s->nr_channels; i++) {
        s->chan[i].fill = g_malloc(SACC_PAGE_SIZE);
    }

    s->bounce = g_malloc(SACC_MAX_XFER);
    s->plan = g_new(SaccCopyPlan, 1);
    qemu_mutex_init(&s->dma_lock);
    s->bh = qemu_bh_new_guarded(sacc_process, s,
                                &dev->mem_reentrancy_guard);
    sacc_device_reset(s, "realize");
    if (s->engine_thread) {
        sacc_engine_start(s);
    }
}

static void sacc_exit(PCIDevice *pdev)
{
    SaccState *s = SACC(pdev);

    qatomic_set(&s->gone, true); /* no kick, no access from now on */
    if (s->engine_thread) {
        sacc_engine_stop(s);
    }
    qemu_bh_cancel(s->bh);
    sacc_atc_free(s);
    sacc_irq_unrealize(s);
}

/* x-copies-held: read atomically, the engine counts without the BQL */
static void sacc_get_copies_held(Object *obj, Visitor *v, const char *name,
                                 void *opaque, Error **errp)
{
    uint32_t n = qatomic_read(&SACC(obj)->copies_held);

    visit_type_uint32(v, name, &n, errp);
}

static void sacc_instance_init(Object *obj)
{
    /*
     * Tests only: how many copies have begun x-copy-delay-us's delay, so
     * a qtest stops the device once one is held, not after a sleep.
     */
    object_property_add(obj, "x-copies-held", "uint32",
                        sacc_get_copies_held, NULL, NULL, NULL);
}

/* The last reference is gone: no access can reach us any more */
static void sacc_finalize(Object *obj)
{
    SaccState *s = SACC(obj);

    if (s->engine_started) {
        qemu_cond_destroy(&s->engine_cond);
        qemu_event_destroy(&s->engine_ev);
    }
    if (s->bounce) { /* realized */
        qemu_bh_delete(s->bh);
        qemu_mutex_destroy(&s->dma_lock);
        g_free(s->bounce);
        g_free(s->plan);
    }
    for (unsigned int i = 0; i < SACC_CHANNELS_MAX; i++) {
        g_free(s->chan[i].fill);
        g_free(s->chan[i].seg.buf);
    }
}

/*
 * Not migratable: the ring state and the engine's work in flight are not
 * described by a VMState yet, so refuse migration rather than lose work.
 */
static const VMStateDescription sacc_vmstate = {
    .name = TYPE_SACC,
    .unmigratable = 1,
};

static Property sacc_properties[] = {
    DEFINE_PROP_SIZE("devmem", SaccState, devmem_size, SACC_DEVMEM_DEFAULT),
    DEFINE_PROP_UINT32("channels", SaccState, nr_channels,
                       SACC_CHANNELS_DEFAULT),
    /* off: every MEMCPY/XFORM staged, the v0.3 path (for comparisons) */
    DEFINE_PROP_BOOL("x-direct-copy", SaccState, direct_copy, true),
    /* off: v0.3's engine, a bottom half on the main loop (comparisons) */
    DEFINE_PROP_BOOL("x-engine-thread", SaccState, engine_thread, true),
    DEFINE_PROP_UINT32("x-poll-us", SaccState, poll_us, SACC_ENGINE_POLL_US),
    /*
     * on: valid doorbells without the BQL (sacc_doorbell_post()), so a
     * doorbell costs TCG's MMIO exit and a store, not a BQL hand-over
     * with the engine (docs/performance.md).  off: for comparisons.
     */
    DEFINE_PROP_BOOL("x-db-lockless", SaccState, db_lockless, true),
    DEFINE_PROP_BOOL("x-db-run", SaccState, db_run, true),
    /*
     * on: register reads that need no lock answered without the BQL, and
     * the engine making way for a vCPU waiting for it (issue 19,
     * sacc_read_lockless()).  off: for comparisons.
     */
    DEFINE_PROP_BOOL("x-reg-lockless", SaccState, reg_lockless, true),
    /*
     * Tests only: every copy done without the BQL waits this long before
     * it moves a byte, so a qtest can stop the device in the middle of
     * one (/sacc/engine/copy-quiesce).
     */
    DEFINE_PROP_UINT32("x-copy-delay-us", SaccState, copy_delay_us, 0),
    DEFINE_PROP_END_OF_LIST(),
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
    device_class_set_props(dc, sacc_properties);
    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
}

static const TypeInfo sacc_info = {
    .name = TYPE_SACC,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(SaccState),
    .instance_init = sacc_instance_init,
    .instance_finalize = sacc_finalize,
    .class_init = sacc_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void sacc_register_types(void)
{
    type_register_static(&sacc_info);
    /* "info sacc" (sacc-monitor.c; patches/0009 has its table entry) */
    monitor_register_hmp("sacc", true, hmp_info_sacc);
}

type_init(sacc_register_types)

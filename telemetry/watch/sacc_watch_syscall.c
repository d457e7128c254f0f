// SPDX-License-Identifier: GPL-2.0
/*
 * sacc_watch_syscall.c - the syscall doorbell: seen, reported untraced.
 *
 * A process may ring with pwrite() on the VFIO device (libsacc's
 * SACC_DOORBELL_SYSCALL): the kernel stores to its own mapping of BAR0,
 * which no user watchpoint sees, so those doorbells are not captured.
 * The device sees them as any tail doorbell, and its trace cannot tell
 * them from a doorbell the tracer missed.  So a kprobe on
 * vfio_pci_core_write() (vfio-pci's write, exported by vfio-pci-core)
 * reports each one as an UNTRACED record, in order with the others: a
 * reader counts what it published as untraced, not missing.
 */
#include "sacc_watch_int.h"

/* vfio_pci_core_write(core_vdev, buf, count, ppos), at its entry. */
static int sw_write_entry(struct kprobe *kp, struct pt_regs *regs)
{
	struct vfio_device *vdev = (struct vfio_device *)regs->di;
	const void __user *buf = (const void __user *)regs->si;
	size_t count = regs->dx;
	loff_t *ppos = (loff_t *)regs->cx;
	struct sacc_watch_rec r = {
		.size = sizeof(r),
		.type = SACC_WATCH_REC_UNTRACED,
		.chan = 0xffff,
		.value = 0xffffffff,
		.value64 = SACC_WATCH_UNTRACED_SYSCALL,
	};
	struct pci_dev *pdev;
	u64 pos, off;
	__le32 v;

	/* A doorbell is one 4-byte write at BAR0 + 0x1000 + 4 * ch or at
	 * the token doorbell; anything else is no doorbell (or one the
	 * device refuses as a guest error). */
	if (count != sizeof(v) || !vdev || !vdev->dev || !dev_is_pci(vdev->dev))
		return 0;
	pos = *ppos;
	off = pos & VFIO_PCI_OFFSET_MASK;
	if (VFIO_PCI_OFFSET_TO_INDEX(pos) != SACC_BAR_REGS || off % sizeof(v) ||
	    off < SACC_DOORBELL_OFFSET ||
	    (off >= SACC_DOORBELL(SACC_CHANNELS_MAX) &&
	     off != SACC_DOORBELL_TOKEN))
		return 0;
	pdev = to_pci_dev(vdev->dev);
	if (pdev->vendor != SACC_PCI_VENDOR_ID ||
	    pdev->device != SACC_PCI_DEVICE_ID)
		return 0;
	r.t_ns = ktime_get_ns();
	r.pid = task_tgid_nr(current);
	r.tid = task_pid_nr(current);
	r.bdf = pci_domain_nr(pdev->bus) << 16 | pdev->bus->number << 8 |
		pdev->devfn;
	/* The write has not happened yet: its value is still in the
	 * caller's buffer (a probe must not fault it in). */
	if (!copy_from_user_nofault(&v, buf, sizeof(v)))
		r.value = le32_to_cpu(v);
	if (off == SACC_DOORBELL_TOKEN) {
		r.kind = SACC_WATCH_KIND_TOKEN;
		if (r.value < SACC_CHANNELS_MAX)
			r.chan = r.value;
	} else {
		r.kind = SACC_WATCH_KIND_TAIL;
		r.chan = (off - SACC_DOORBELL_OFFSET) / SACC_DOORBELL_STRIDE;
	}
	sw_ring_push(&r);
	return 0;
}

static struct kprobe sw_kp_write = {
	.symbol_name = "vfio_pci_core_write",
	.pre_handler = sw_write_entry,
};

int sw_syscall_hook(void)
{
	return register_kprobe(&sw_kp_write);
}

void sw_syscall_unhook(void)
{
	unregister_kprobe(&sw_kp_write);
}

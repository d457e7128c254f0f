// SPDX-License-Identifier: GPL-2.0
/*
 * sacc_watch.ko - the SACC doorbell watchpoint tracer.
 *
 * Kernel bypass has no syscall to hook, but the mapping of the doorbell
 * page is one step user space cannot skip (the method of the Queen's
 * University paper on NVIDIA's nv_mmap).  So:
 *
 *  1. A kretprobe on vfio_pci_core_mmap() sees every mmap of a VFIO PCI
 *     region; for a SACC device (1b36:1092) whose BAR0 mapping covers
 *     the doorbell page (BAR0 offset 0x1000) it learns the user address
 *     of that page.  A probe handler cannot sleep, so it queues a
 *     task_work that runs when the mapping thread returns to user space.
 *  2. The task_work installs x86 hardware write watchpoints on the
 *     doorbell words (register_user_hw_breakpoint), on every thread of
 *     the process and, through perf's inherit, on threads made later.
 *  3. A doorbell store traps after it retired, with the writer stopped.
 *     The handler decodes the store from the instruction bytes before the
 *     saved IP (store_decode.c: the doorbell page reads 0, so this is how
 *     the new tail / the token is known), reads the channel's SQ_BASE,
 *     SQ_SIZE, MODE and PUT_ADDR through its own ioremap of the BARs,
 *     translates SQ IOVAs through the IOMMU domain the process attached
 *     (iommu_iova_to_phys) and copies the new descriptors from the
 *     pinned pages through the direct map: exactly the bytes the device
 *     will read, whole, since the only writer is stopped.
 *  4. For each new SEGMENT entry (v0.4, docs/spec.md section 21) the
 *     segment is captured whole, as the device will fetch it: host
 *     memory through the same IOMMU domain, device memory through an
 *     ioremap of BAR4, bounded (SACC_SEGMENT_MAX each, seg_kib per
 *     doorbell); one segment record each after the doorbell record.
 *     A channel with MODE.SQ_DEV has its SQ (and PUT word) read through
 *     BAR4 as well.
 *  5. Records go to a bounded ring read through /dev/sacc_watch
 *     (include/sacc_watch.h).  A doorbell's record holds every
 *     descriptor it published (up to SQ_SIZE - 1); its records go in
 *     whole or not at all.  A full ring drops and counts; the reader
 *     gets a drops record in order.
 *  6. A doorbell rung with pwrite() on the VFIO device (the syscall
 *     doorbell) is no store to trap: a kprobe on vfio_pci_core_write()
 *     reports it as an untraced record, so it is not taken for one the
 *     tracer missed.
 *
 * Watched words (4 debug registers): 0x1000 (channels 0-1), 0x1400
 * (token doorbell), 0x1008 (channels 2-3), 0x1010 (channels 4-5).
 *
 * This file: parameters, counters, the stats ioctl, load and unload;
 * sacc_watch_int.h lists the others.
 */
#include "sacc_watch_int.h"

/* 64 MiB: 1.6 million descriptors, 25 doorbells of 65,535; a few
 * seconds of the device's fastest (NOP batches) with no reader. */
unsigned int ring_kib = 65536;
module_param(ring_kib, uint, 0444);
MODULE_PARM_DESC(ring_kib, "record ring size in KiB (default 65536)");
unsigned int seg_kib = 1024;
module_param(seg_kib, uint, 0444);
MODULE_PARM_DESC(seg_kib, "segment bytes captured per doorbell at most, in KiB (default 1024)");
/* For measuring the tracer's cost: the trap alone, without the work. */
bool trap_only;
module_param(trap_only, bool, 0644);
MODULE_PARM_DESC(trap_only, "count traps, record nothing (cost breakdown only)");
atomic64_t st_traps;

atomic64_t st_records, st_drops, st_torn, st_descs, st_armed, st_arm_failed,
	st_kernel_hits, st_stale, st_segs, st_seg_cmds, st_seg_torn,
	st_untraced, st_work_ns, st_work_max_ns, st_max_ndesc;
static u64 sw_memory; /* bytes allocated for records, at load */

/* @v = max(@v, @x), from any context. */
void sw_stat_max(atomic64_t *v, u64 x)
{
	s64 old = atomic64_read(v);

	while ((u64)old < x && !atomic64_try_cmpxchg(v, &old, x))
		;
}

static long sw_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct sacc_watch_stats s = {};

	if (cmd == SACC_WATCH_IOC_SAMPLE)
		return sw_sample((void __user *)arg);
	if (cmd != SACC_WATCH_IOC_STATS)
		return -ENOTTY;
	s.records = atomic64_read(&st_records);
	s.drops = atomic64_read(&st_drops);
	s.torn = atomic64_read(&st_torn);
	s.descs = atomic64_read(&st_descs);
	s.armed = atomic64_read(&st_armed);
	s.arm_failed = atomic64_read(&st_arm_failed);
	s.kernel_hits = atomic64_read(&st_kernel_hits);
	s.kprobe_missed = sw_krp.nmissed;
	s.bare_traps = atomic64_read(&st_traps);
	s.stale_traps = atomic64_read(&st_stale);
	s.abi = SACC_WATCH_ABI;
	s.ring_bytes = sw_ring_bytes();
	s.max_descs = SACC_WATCH_MAX_DESCS;
	s.segments = atomic64_read(&st_segs);
	s.seg_cmds = atomic64_read(&st_seg_cmds);
	s.seg_torn = atomic64_read(&st_seg_torn);
	s.seg_kib = seg_kib;
	s.untraced = atomic64_read(&st_untraced);
	s.work_ns = atomic64_read(&st_work_ns);
	s.work_max_ns = atomic64_read(&st_work_max_ns);
	s.max_ndesc = atomic64_read(&st_max_ndesc);
	s.memory_bytes = sw_memory;
	mutex_lock(&sw_lock);
	s.watching = sw_nprocs;
	mutex_unlock(&sw_lock);
	return copy_to_user((void __user *)arg, &s, sizeof(s)) ? -EFAULT : 0;
}

static const struct file_operations sw_fops = {
	.owner = THIS_MODULE,
	.open = sw_open,
	.release = sw_release,
	.read = sw_read,
	.poll = sw_poll,
	.unlocked_ioctl = sw_ioctl,
	.llseek = no_llseek,
};

static struct miscdevice sw_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "sacc_watch",
	.fops = &sw_fops,
	.mode = 0600,
};

/* ---- load / unload ------------------------------------------------------ */

static void sw_free_buffers(void)
{
	sw_capture_free();
	sw_ring_free();
	sw_sample_free();
}

static int __init sw_init(void)
{
	int ret;

	/* A doorbell's records are pushed together, all or none: one
	 * larger than the ring is lost, counted (the default takes eight
	 * of the largest, 7.75 MiB each). */
	if (ring_kib < 64 || ring_kib > (1u << 20) || seg_kib < 64 ||
	    seg_kib > ring_kib / 4) {
		pr_err("sacc_watch: ring_kib must be 64..1048576, seg_kib 64..ring_kib/4\n");
		return -EINVAL;
	}
	ret = -ENOMEM;
	sw_memory = (u64)ring_kib * 1024;
	if (sw_ring_alloc(ring_kib * 1024) || sw_sample_alloc() ||
	    sw_capture_alloc(&sw_memory))
		goto err;
	ret = register_kretprobe(&sw_krp);
	if (ret) {
		pr_err("sacc_watch: kretprobe on vfio_pci_core_mmap: error %d; load vfio-pci first\n",
		       ret);
		goto err;
	}
	ret = sw_syscall_hook();
	if (ret) {
		pr_err("sacc_watch: kprobe on vfio_pci_core_write: error %d\n",
		       ret);
		unregister_kretprobe(&sw_krp);
		goto err;
	}
	ret = misc_register(&sw_misc);
	if (ret) {
		sw_syscall_unhook();
		unregister_kretprobe(&sw_krp);
		goto err;
	}
	pr_info("sacc_watch: watching SACC doorbell pages (ring %u KiB, every descriptor of a doorbell, %u KiB of segments a doorbell; %llu KiB allocated for records)\n",
		ring_kib, seg_kib, sw_memory / 1024);
	return 0;
err:
	sw_free_buffers();
	return ret;
}

static void __exit sw_exit(void)
{
	misc_deregister(&sw_misc);
	/* No new arms; pending ones hold a module reference, so none is
	 * left by the time the module can be removed. */
	unregister_kretprobe(&sw_krp);
	sw_syscall_unhook();
	sw_unwatch_all();
	sw_free_buffers();
}

module_init(sw_init);
module_exit(sw_exit);
MODULE_DESCRIPTION("SACC doorbell watchpoint tracer");
MODULE_LICENSE("Dual MIT/GPL");

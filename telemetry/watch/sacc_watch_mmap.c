// SPDX-License-Identifier: GPL-2.0
/*
 * sacc_watch_mmap.c - learning where a process maps the doorbell page,
 * and watching it there.  A kretprobe on vfio_pci_core_mmap() sees every
 * mmap of a VFIO PCI region; for a SACC device whose BAR0 mapping covers
 * the doorbell page it queues a task_work (a probe handler cannot
 * sleep) that sets the hardware watchpoints on every thread of the
 * process as it returns to user space.  A doorbell page no longer
 * mapped (seen by the trap) is unwatched the same way.
 */
#include "sacc_watch_int.h"

/* Offsets in the doorbell page (BAR0 page 1) and widths, in the order
 * they get debug registers: a task has four. */
static const struct {
	u32 off, len;
} sw_watch[SW_NWATCH] = {
	{ SACC_DOORBELL(0) - SACC_DOORBELL_OFFSET, 8 },	   /* channels 0, 1 */
	{ SACC_DOORBELL_TOKEN - SACC_DOORBELL_OFFSET, 4 }, /* token */
	{ SACC_DOORBELL(2) - SACC_DOORBELL_OFFSET, 8 },	   /* channels 2, 3 */
	{ SACC_DOORBELL(4) - SACC_DOORBELL_OFFSET, 8 },	   /* channels 4, 5 */
};

struct sw_arm {
	struct callback_head cb;
	struct pci_dev *pdev;
	unsigned long db;
};

DEFINE_MUTEX(sw_lock); /* sw_devs, sw_procs */
struct sw_dev sw_devs[SW_MAX_DEVS];
static LIST_HEAD(sw_procs);
unsigned int sw_nprocs;

static void sw_free_list(struct list_head *dead);

struct sw_disarm {
	struct callback_head cb;
	struct sw_proc *p; /* compared with sw_procs only: may be gone */
};

static void sw_disarm_fn(struct callback_head *cb)
{
	struct sw_disarm *w = container_of(cb, struct sw_disarm, cb);
	struct sw_proc *p;
	LIST_HEAD(dead);

	mutex_lock(&sw_lock);
	list_for_each_entry(p, &sw_procs, node) {
		if (p == w->p) {
			list_move(&p->node, &dead);
			sw_nprocs--;
			sw_push_event(SACC_WATCH_REC_DISARMED, p, 0);
			break;
		}
	}
	mutex_unlock(&sw_lock);
	sw_free_list(&dead);
	kfree(w);
	module_put(THIS_MODULE);
}

/* The doorbell page is no longer mapped there: stop watching, from
 * process context (unregistering sleeps). */
void sw_disarm_later(struct sw_proc *p)
{
	struct sw_disarm *w;

	if (atomic_xchg(&p->disarming, 1))
		return;
	w = kzalloc(sizeof(*w), GFP_ATOMIC);
	if (!w || !try_module_get(THIS_MODULE)) {
		kfree(w);
		atomic_set(&p->disarming, 0);
		return;
	}
	w->p = p;
	init_task_work(&w->cb, sw_disarm_fn);
	if (task_work_add(current, &w->cb, TWA_RESUME)) {
		kfree(w);
		module_put(THIS_MODULE);
		atomic_set(&p->disarming, 0);
	}
}

/* ---- arming, in process context ---------------------------------------- */

static struct sw_dev *sw_dev_get(struct pci_dev *pdev)
{
	struct sw_dev *d, *free = NULL;
	int i;

	for (i = 0; i < SW_MAX_DEVS; i++) {
		d = &sw_devs[i];
		if (d->pdev == pdev)
			return d;
		if (!d->pdev && !free)
			free = d;
	}
	if (!free)
		return NULL;
	d = free;
	d->bar0 = ioremap(pci_resource_start(pdev, SACC_BAR_REGS),
			  SACC_BAR0_SIZE);
	if (!d->bar0)
		return NULL;
	d->bar2 = NULL;
	d->channels = 1;
	if (pci_resource_len(pdev, SACC_BAR_CHAN) >= SACC_BAR2_SIZE &&
	    readl(d->bar0 + SACC_REG_VERSION) >= SACC_VERSION) {
		d->bar2 = ioremap(pci_resource_start(pdev, SACC_BAR_CHAN),
				  SACC_BAR2_SIZE);
		if (d->bar2)
			d->channels = min_t(u32, readl(d->bar2 + SACC_DEV_CHANNELS),
					    SACC_CHANNELS_MAX);
	}
	/* v0.4 device memory: segments and SQs there are read through it.
	 * RAM behind a BAR: reading it has no side effect. */
	d->bar4 = NULL;
	d->devmem = 0;
	if (d->bar2 && readl(d->bar0 + SACC_REG_VERSION) >= SACC_VERSION &&
	    pci_resource_len(pdev, SACC_BAR_DEVMEM)) {
		u64 size = readl(d->bar2 + SACC_DEV_DEVMEM_SIZE) |
			   (u64)readl(d->bar2 + SACC_DEV_DEVMEM_SIZE + 4) << 32;

		size = min_t(u64, size, pci_resource_len(pdev, SACC_BAR_DEVMEM));
		if (size) {
			d->bar4 = ioremap(pci_resource_start(pdev, SACC_BAR_DEVMEM),
					  size);
			d->devmem = d->bar4 ? size : 0;
		}
	}
	d->bdf = pci_domain_nr(pdev->bus) << 16 | pdev->bus->number << 8 |
		 pdev->devfn;
	d->db_pfn = (pci_resource_start(pdev, SACC_BAR_REGS) +
		     SACC_DOORBELL_OFFSET) >> PAGE_SHIFT;
	d->pdev = pci_dev_get(pdev);
	return d;
}

static void sw_proc_free(struct sw_proc *p)
{
	unsigned int i;

	for (i = 0; i < p->nev; i++)
		unregister_hw_breakpoint(p->ev[i]);
	/* A trap runs with interrupts off: an RCU grace period waits for
	 * any that still uses @p. */
	synchronize_rcu();
	put_pid(p->tgid);
	kfree(p);
}

/* Unlink processes that have exited, and the one of @tgid; return them
 * on @dead for sw_proc_free() outside sw_lock. */
static void sw_reap_locked(struct pid *tgid, struct list_head *dead)
{
	struct sw_proc *p, *n;

	list_for_each_entry_safe(p, n, &sw_procs, node) {
		if (p->tgid == tgid || !pid_has_task(p->tgid, PIDTYPE_TGID)) {
			list_move(&p->node, dead);
			sw_nprocs--;
		}
	}
}

static void sw_free_list(struct list_head *dead)
{
	struct sw_proc *p, *n;

	list_for_each_entry_safe(p, n, dead, node) {
		list_del(&p->node);
		sw_proc_free(p);
	}
}

/* Set the watches on @t: a mask of those set (bit w = sw_watch[w]). */
static u32 sw_arm_task(struct sw_proc *p, struct task_struct *t)
{
	struct perf_event_attr attr;
	struct perf_event *ev;
	u32 armed = 0;
	int w;

	for (w = 0; w < SW_NWATCH; w++) {
		hw_breakpoint_init(&attr);
		attr.bp_addr = p->db + sw_watch[w].off;
		attr.bp_len = sw_watch[w].len == 8 ? HW_BREAKPOINT_LEN_8 :
						     HW_BREAKPOINT_LEN_4;
		attr.bp_type = HW_BREAKPOINT_W;
		/* Threads the task makes later get their own copy (its
		 * handler and context too); a fork()ed child and an exec()
		 * do not keep it. */
		attr.inherit = 1;
		attr.inherit_thread = 1;
		attr.remove_on_exec = 1;
		ev = register_user_hw_breakpoint(&attr, sw_trap, p, t);
		if (IS_ERR(ev)) {
			pr_warn_ratelimited("sacc_watch: pid %d tid %d: watchpoint on doorbell +0x%x: error %ld\n",
					    task_tgid_nr(t), task_pid_nr(t),
					    sw_watch[w].off, PTR_ERR(ev));
			continue;
		}
		p->ev[p->nev++] = ev;
		armed |= 1u << w;
	}
	return armed;
}

static void sw_arm_fn(struct callback_head *cb)
{
	struct sw_arm *a = container_of(cb, struct sw_arm, cb);
	struct task_struct *threads[SW_MAX_THREADS], *t;
	unsigned int nt = 0, i;
	u32 armed = 0, mine = 0;
	struct sw_proc *p;
	LIST_HEAD(dead);

	/* One doorbell page per process: a new mapping (e.g. after
	 * sacc_close() + sacc_open()) replaces the watch of the old one,
	 * whose debug registers must be free before the new ones are
	 * taken (a task has four). */
	mutex_lock(&sw_lock);
	sw_reap_locked(task_tgid(current), &dead);
	mutex_unlock(&sw_lock);
	sw_free_list(&dead);

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	mutex_lock(&sw_lock);
	if (!p || sw_nprocs >= SW_MAX_PROCS)
		goto fail;
	p->dev = sw_dev_get(a->pdev);
	if (!p->dev)
		goto fail;
	p->tgid = get_pid(task_tgid(current));
	p->db = a->db;
	raw_spin_lock_init(&p->lock);

	rcu_read_lock();
	for_each_thread(current, t) {
		if (nt == SW_MAX_THREADS)
			break;
		get_task_struct(t);
		threads[nt++] = t;
	}
	rcu_read_unlock();
	for (i = 0; i < nt; i++) {
		if (threads[i] == current)
			armed |= mine = sw_arm_task(p, threads[i]);
		else if (!(threads[i]->flags & PF_EXITING))
			armed |= sw_arm_task(p, threads[i]);
		put_task_struct(threads[i]);
	}
	if (!armed) {
		put_pid(p->tgid);
		goto fail;
	}
	list_add(&p->node, &sw_procs);
	sw_nprocs++;
	/* Before any doorbell of this mapping can trap: under sw_lock. */
	sw_push_event(SACC_WATCH_REC_ARMED, p, mine);
	mutex_unlock(&sw_lock);
	atomic64_inc(&st_armed);
	goto out;
fail:
	mutex_unlock(&sw_lock);
	kfree(p);
	atomic64_inc(&st_arm_failed);
	pr_warn_ratelimited("sacc_watch: pid %d: doorbell page of %s not watched\n",
			    task_tgid_nr(current), pci_name(a->pdev));
out:
	sw_free_list(&dead);
	pci_dev_put(a->pdev);
	kfree(a);
	module_put(THIS_MODULE);
}

/* ---- the mapping path: vfio_pci_core_mmap(core_vdev, vma) --------------- */

struct sw_mmap_args {
	struct vfio_device *vdev;
	struct vm_area_struct *vma;
	unsigned long pgoff; /* at entry: the handler rewrites it to a PFN */
};

static int sw_mmap_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sw_mmap_args *a = (struct sw_mmap_args *)ri->data;

	a->vdev = (struct vfio_device *)regs->di;
	a->vma = (struct vm_area_struct *)regs->si;
	a->pgoff = a->vma->vm_pgoff;
	return 0;
}

static int sw_mmap_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sw_mmap_args *a = (struct sw_mmap_args *)ri->data;
	struct vm_area_struct *vma = a->vma;
	unsigned long start, index, pg_in;
	struct pci_dev *pdev;
	struct sw_arm *arm;

	if (regs_return_value(regs) != 0 || !a->vdev->dev ||
	    !dev_is_pci(a->vdev->dev))
		return 0;
	pdev = to_pci_dev(a->vdev->dev);
	if (pdev->vendor != SACC_PCI_VENDOR_ID ||
	    pdev->device != SACC_PCI_DEVICE_ID)
		return 0;
	/* VFIO's region offsets: region index << 40, then the offset. */
	index = a->pgoff >> (VFIO_PCI_OFFSET_SHIFT - PAGE_SHIFT);
	pg_in = a->pgoff &
		((1ul << (VFIO_PCI_OFFSET_SHIFT - PAGE_SHIFT)) - 1);
	start = pg_in << PAGE_SHIFT;
	if (index != SACC_BAR_REGS || start > SACC_DOORBELL_OFFSET ||
	    start + (vma->vm_end - vma->vm_start) <= SACC_DOORBELL_OFFSET)
		return 0;
	arm = kzalloc(sizeof(*arm), GFP_ATOMIC);
	if (!arm || !try_module_get(THIS_MODULE)) {
		kfree(arm);
		atomic64_inc(&st_arm_failed);
		return 0;
	}
	arm->db = vma->vm_start + SACC_DOORBELL_OFFSET - start;
	arm->pdev = pci_dev_get(pdev);
	init_task_work(&arm->cb, sw_arm_fn);
	if (task_work_add(current, &arm->cb, TWA_RESUME)) {
		pci_dev_put(arm->pdev);
		kfree(arm);
		module_put(THIS_MODULE);
		atomic64_inc(&st_arm_failed);
	}
	return 0;
}

struct kretprobe sw_krp = {
	.kp.symbol_name = "vfio_pci_core_mmap",
	.entry_handler = sw_mmap_entry,
	.handler = sw_mmap_ret,
	.data_size = sizeof(struct sw_mmap_args),
	.maxactive = 32,
};

/* At unload: every watch removed, every device's BARs unmapped. */
void sw_unwatch_all(void)
{
	struct sw_proc *p, *n;
	LIST_HEAD(dead);
	int i;

	mutex_lock(&sw_lock);
	list_for_each_entry_safe(p, n, &sw_procs, node)
		list_move(&p->node, &dead);
	sw_nprocs = 0;
	mutex_unlock(&sw_lock);
	sw_free_list(&dead);
	for (i = 0; i < SW_MAX_DEVS; i++) {
		if (!sw_devs[i].pdev)
			continue;
		iounmap(sw_devs[i].bar0);
		if (sw_devs[i].bar2)
			iounmap(sw_devs[i].bar2);
		if (sw_devs[i].bar4)
			iounmap(sw_devs[i].bar4);
		pci_dev_put(sw_devs[i].pdev);
	}
}

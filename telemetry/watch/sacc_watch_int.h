/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sacc_watch_int.h - what the files of sacc_watch.ko share (the record
 * ABI is include/sacc_watch.h).  One concern per file:
 *
 *   sacc_watch_main.c     parameters, counters, /dev/sacc_watch's ioctls,
 *                         load and unload
 *   sacc_watch_mmap.c     the mapping hook (kretprobe on
 *                         vfio_pci_core_mmap), the devices, arming and
 *                         disarming a process's watchpoints
 *   sacc_watch_trap.c     the #DB handler: is it still the doorbell page,
 *                         which store, which channel, the shadow tail
 *   sacc_watch_capture.c  reading what the device will read (SQ slots,
 *                         PUT word, segments) into records
 *   sacc_watch_syscall.c  the syscall doorbell: seen, reported untraced
 *   sacc_watch_ring.c     the record ring and read(2)/poll(2) on it
 *   sacc_watch_sample.c   the polling observer (SACC_WATCH_IOC_SAMPLE)
 *   store_decode.c        the trapping store, from its instruction bytes
 */
#ifndef SACC_WATCH_INT_H
#define SACC_WATCH_INT_H

#include <linux/hw_breakpoint.h>
#include <linux/io.h>
#include <linux/iommu.h>
#include <linux/kprobes.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/perf_event.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/uaccess.h>
#include <linux/vfio.h>
#include <linux/vfio_pci_core.h>
#include <linux/vmalloc.h>

#include "sacc_hw.h"
#include "sacc_watch.h"
#include "store_decode.h"

#define SW_MAX_DEVS	8
#define SW_MAX_PROCS	64
#define SW_MAX_THREADS	64
#define SW_NWATCH	4

/* Module parameters (sacc_watch_main.c). */
extern unsigned int ring_kib, seg_kib;
extern bool trap_only;

/* Counters since load (sacc_watch_main.c; SACC_WATCH_IOC_STATS). */
extern atomic64_t st_traps, st_records, st_drops, st_torn, st_descs,
	st_armed, st_arm_failed, st_kernel_hits, st_stale, st_segs,
	st_seg_cmds, st_seg_torn, st_untraced, st_work_ns, st_work_max_ns,
	st_max_ndesc;
void sw_stat_max(atomic64_t *v, u64 x);

struct sw_dev {
	struct pci_dev *pdev;
	void __iomem *bar0, *bar2; /* bar2: NULL before v0.3 */
	void __iomem *bar4;	   /* device memory (v0.4), NULL if none */
	u64 devmem;		   /* its bytes: device addresses 0..devmem-1 */
	u32 channels;
	u32 bdf;
	unsigned long db_pfn; /* page frame of the doorbell page (BAR0 + 0x1000) */
};

struct sw_proc {
	struct list_head node;
	struct pid *tgid;
	struct sw_dev *dev;
	unsigned long db; /* user address of the doorbell page */
	raw_spinlock_t lock;
	u32 shadow[SACC_CHANNELS_MAX]; /* SQ tail after the last doorbell */
	atomic_t disarming;
	unsigned int nev;
	struct perf_event *ev[SW_MAX_THREADS * SW_NWATCH];
};

/* sacc_watch_mmap.c: the devices and the watched processes */
extern struct mutex sw_lock; /* sw_devs, sw_procs */
extern struct sw_dev sw_devs[SW_MAX_DEVS];
extern unsigned int sw_nprocs;
extern struct kretprobe sw_krp;
void sw_disarm_later(struct sw_proc *p);
void sw_unwatch_all(void);

/* sacc_watch_trap.c */
void sw_trap(struct perf_event *bp, struct perf_sample_data *data,
	     struct pt_regs *regs);

/* sacc_watch_capture.c */
int sw_read_iova_range(struct iommu_domain *dom, u64 iova, void *dst,
		       u32 len);
int sw_read_dev(const struct sw_dev *d, u64 addr, void *dst, u32 len);
int sw_read_ring(const struct sw_dev *d, struct iommu_domain *dom, u32 mode,
		 u64 addr, void *dst, u32 len);
void __iomem *sw_chan_regs(const struct sw_dev *d, u32 ch);
bool sw_read_descs(struct sw_proc *p, struct iommu_domain *dom,
		   void __iomem *cr, u32 mode, struct sacc_watch_rec *rec);
u32 sw_capture_segs(struct sw_proc *p, struct iommu_domain *dom, u32 mode,
		    struct sacc_watch_rec *rec);
struct sacc_watch_rec *sw_scratch(void);
size_t sw_group_max(void);
int sw_capture_alloc(u64 *bytes);
void sw_capture_free(void);

/* sacc_watch_ring.c */
void ring_push_group(void *recs, u32 len, u32 nrec);
void sw_push_event(u16 type, const struct sw_proc *p, u32 value);
u32 sw_ring_bytes(void);
int sw_ring_alloc(u32 bytes);
void sw_ring_push(struct sacc_watch_rec *rec);
void sw_ring_free(void);
int sw_open(struct inode *inode, struct file *f);
int sw_release(struct inode *inode, struct file *f);
ssize_t sw_read(struct file *f, char __user *buf, size_t len, loff_t *ppos);
__poll_t sw_poll(struct file *f, struct poll_table_struct *pt);

/* sacc_watch_syscall.c */
int sw_syscall_hook(void);
void sw_syscall_unhook(void);

/* sacc_watch_sample.c */
long sw_sample(struct sacc_watch_sample_req __user *ureq);
int sw_sample_alloc(void);
void sw_sample_free(void);

#endif /* SACC_WATCH_INT_H */

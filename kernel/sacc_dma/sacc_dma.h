/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sacc_dma.h - the SACC dmaengine driver's own structures, shared by its
 * PCI half (sacc_dma_main.c) and its channel half (sacc_dma_chan.c).
 */
#ifndef SACC_DMA_H
#define SACC_DMA_H

#include <linux/dmaengine.h>
#include <linux/genalloc.h>
#include <linux/interrupt.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

#include "sacc_hw.h"
#include "sacc_dma_devmem.h"

#define SACC_DMA_NAME "sacc_dma"
/* how many of a channel's latest failures tx_status still reports */
#define SACC_FAILED_COOKIES 64

/* One dmaengine transaction: exactly one SACC descriptor. */
struct sacc_dma_desc {
	struct dma_async_tx_descriptor txd;
	struct list_head node;
	u64 src;		/* FILL: the 64-bit pattern */
	u64 dst;
	u32 len;
	u16 opcode;
	u16 flags;		/* SACC_DESC_F_* */
	u32 req_id;		/* given when it enters the SQ */
	enum dmaengine_tx_result result;
};

struct sacc_dma_stats {
	u64 submitted;
	u64 completed;
	u64 read_failed;
	u64 write_failed;
	u64 aborted;
	u64 bad_cqe;
	u64 recoveries;
	u64 timeouts;
	u64 terminated;
};

/*
 * A SACC channel as a dmaengine channel.  Transactions move through the
 * lists in this order, under @lock: submitted (tx_submit), issued
 * (issue_pending; waiting for room in the SQ), active (in the SQ, in
 * ring order), done (reaped or failed; callbacks not yet run), then
 * wait_ack (callback run, the client has not acked it yet).
 */
struct sacc_dma_chan {
	struct dma_chan dchan;
	struct sacc_dma_dev *sd;
	unsigned int id;
	void __iomem *regs;	/* the channel's block in BAR2 */
	void __iomem *doorbell;	/* its tail doorbell in BAR0 page 1 */
	int irq;

	spinlock_t lock;	/* everything below, and the channel's registers */
	bool dead;		/* device removed: never touch a register again */
	bool resetting;		/* FLR in progress: no doorbells */
	struct sacc_desc *sq;	/* NULL while no client holds the channel */
	struct sacc_cqe *cq;
	dma_addr_t sq_dma;
	dma_addr_t cq_dma;
	u32 size;		/* SQ and CQ entries */
	u32 sq_tail;
	u32 cq_head;
	u16 phase;
	u32 next_req_id;
	unsigned int n_active;
	unsigned long fatal;	/* bit 0: IRQ_STATUS.FATAL seen */
	unsigned long last_progress;	/* jiffies of the last completion */
	/* the latest failed transactions, for tx_status (DMA_ERROR) */
	dma_cookie_t failed[SACC_FAILED_COOKIES];
	unsigned int failed_next;
	struct list_head submitted;
	struct list_head issued;
	struct list_head active;
	struct list_head done;
	struct list_head wait_ack;
	struct list_head terminated;	/* freed by device_synchronize */
	struct tasklet_struct tasklet;
	struct timer_list watchdog;
	struct sacc_dma_stats stats;
	char irq_name[40];
};

/* BAR4 as memory kernel clients allocate from (sacc_dma_devmem.h). */
struct sacc_dma_devmem {
	struct gen_pool *pool;	/* NULL: no device memory offered */
	void __iomem *cpu;	/* BAR4, mapped write-combining */
	dma_addr_t bus;		/* BAR4's PCI bus address */
	u64 size;
};

struct sacc_dma_dev {
	struct dma_device dma;
	struct pci_dev *pdev;
	void __iomem *regs;	/* BAR0: page 0 registers, page 1 doorbells */
	void __iomem *bar2;	/* device page and channel blocks */
	u32 version;
	unsigned int nchan;
	struct sacc_dma_devmem devmem;
	struct dentry *debugfs;
	struct work_struct free_work;	/* after the last reference */
	struct sacc_dma_chan chan[];
};

static inline struct sacc_dma_chan *to_sacc_chan(struct dma_chan *c)
{
	return container_of(c, struct sacc_dma_chan, dchan);
}

static inline struct device *sacc_chan_dev(struct sacc_dma_chan *c)
{
	return &c->sd->pdev->dev;
}

extern unsigned int sacc_dma_ring_size;
extern unsigned int sacc_dma_timeout_ms;

void sacc_chan_init(struct sacc_dma_dev *sd, unsigned int id);
irqreturn_t sacc_chan_irq(int irq, void *arg);
void sacc_chan_kill(struct sacc_dma_chan *c);
void sacc_chan_drain(struct sacc_dma_chan *c);
void sacc_chan_free_rings(struct sacc_dma_chan *c);
void sacc_chan_reset_prepare(struct sacc_dma_chan *c);
void sacc_chan_reset_done(struct sacc_dma_chan *c);
void sacc_chan_release(struct sacc_dma_chan *c);
void sacc_chan_set_ops(struct dma_device *dma, bool memset);
bool sacc_devmem_addr(struct sacc_dma_dev *sd, dma_addr_t addr, size_t len,
		      u64 *dev_addr);

#endif /* SACC_DMA_H */

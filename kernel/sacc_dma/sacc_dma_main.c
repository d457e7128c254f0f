// SPDX-License-Identifier: GPL-2.0
/*
 * sacc_dma.ko - SACC (docs/spec.md) as a Linux dmaengine provider.
 *
 * The kernel path that libsacc bypasses: a PCI driver for 1b36:1092 that
 * offers each SACC channel as a dmaengine channel (DMA_MEMCPY, DMA_MEMSET
 * through v0.4's FILL, DMA_INTERRUPT), with its rings and every buffer in
 * the DMA API's (intel-iommu's) domain, one MSI-X vector per channel, and
 * device memory (BAR4) for kernel clients (sacc_dma_devmem.h).
 *
 * This file is the PCI half: probe, remove, function reset, the device's
 * lifetime and device memory; sacc_dma_chan.c is the channel half.
 *
 * Lifetime.  dmaengine lets a device be unbound while clients still hold
 * its channels (device_release).  Remove therefore stops the hardware
 * and fails everything first, then unregisters; the structure lives on,
 * dead, until the last client lets go.  Nothing reaches the device after
 * remove returns: every channel is reset (no DMA of it after the write
 * returns, spec section 13), then the device, then bus mastering is
 * turned off, and only then are the rings freed.
 */
#include <linux/debugfs.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "sacc_dma.h"

unsigned int sacc_dma_ring_size = 256;
module_param_named(ring_size, sacc_dma_ring_size, uint, 0444);
MODULE_PARM_DESC(ring_size, "SQ and CQ entries per channel, a power of two in 4..4096 (default 256)");

unsigned int sacc_dma_timeout_ms = 10000;
module_param_named(timeout_ms, sacc_dma_timeout_ms, uint, 0644);
MODULE_PARM_DESC(timeout_ms, "Reset a channel that completes nothing for this long with work outstanding (default 10000)");

static bool sacc_dma_public;
module_param_named(public, sacc_dma_public, bool, 0444);
MODULE_PARM_DESC(public, "Offer the channels to async_tx's opportunistic offload too (default: only to clients that ask, DMA_PRIVATE)");

static struct dentry *sacc_debugfs_root;
static struct workqueue_struct *sacc_wq;

static inline struct sacc_dma_dev *to_sacc_dev(struct dma_device *dma)
{
	return container_of(dma, struct sacc_dma_dev, dma);
}

/* ---- device memory (sacc_dma_devmem.h) --------------------------------- */

static void sacc_dma_release(struct dma_device *dma);

/* By its release function: still true after the device was unbound. */
bool sacc_dma_is_sacc_chan(struct dma_chan *chan)
{
	return chan && chan->device->device_release == sacc_dma_release;
}
EXPORT_SYMBOL_GPL(sacc_dma_is_sacc_chan);

void __iomem *sacc_dma_devmem_alloc(struct dma_chan *chan, size_t size,
				    dma_addr_t *addr)
{
	struct sacc_dma_dev *sd;

	if (!sacc_dma_is_sacc_chan(chan) || !size)
		return NULL;
	sd = to_sacc_dev(chan->device);
	if (!sd->devmem.pool || READ_ONCE(to_sacc_chan(chan)->dead))
		return NULL;
	return (void __iomem *)gen_pool_dma_alloc(sd->devmem.pool, size, addr);
}
EXPORT_SYMBOL_GPL(sacc_dma_devmem_alloc);

void sacc_dma_devmem_free(struct dma_chan *chan, void __iomem *cpu, size_t size)
{
	struct sacc_dma_dev *sd;

	if (!sacc_dma_is_sacc_chan(chan) || !cpu)
		return;
	sd = to_sacc_dev(chan->device);
	if (sd->devmem.pool)
		gen_pool_free(sd->devmem.pool, (unsigned long)(__force void *)cpu, size);
}
EXPORT_SYMBOL_GPL(sacc_dma_devmem_free);

/* Is [addr, addr + len) device memory?  Then *dev_addr is its offset. */
bool sacc_devmem_addr(struct sacc_dma_dev *sd, dma_addr_t addr, size_t len,
		      u64 *dev_addr)
{
	const struct sacc_dma_devmem *m = &sd->devmem;

	if (!m->pool || addr < m->bus || addr - m->bus >= m->size ||
	    len > m->size - (addr - m->bus))
		return false;
	*dev_addr = addr - m->bus;
	return true;
}

static int sacc_devmem_init(struct sacc_dma_dev *sd)
{
	struct pci_dev *pdev = sd->pdev;
	struct sacc_dma_devmem *m = &sd->devmem;
	u64 size = lo_hi_readq(sd->bar2 + SACC_DEV_DEVMEM_SIZE);
	int ret;

	if (sd->version < SACC_VERSION || !size)
		return 0;
	if (size != pci_resource_len(pdev, SACC_BAR_DEVMEM)) {
		dev_warn(&pdev->dev, "DEVMEM_SIZE %llu but BAR4 is %llu bytes: no device memory offered\n",
			 size, (u64)pci_resource_len(pdev, SACC_BAR_DEVMEM));
		return 0;
	}
	ret = pci_request_region(pdev, SACC_BAR_DEVMEM, SACC_DMA_NAME);
	if (ret)
		return ret;
	m->cpu = ioremap_wc(pci_resource_start(pdev, SACC_BAR_DEVMEM), size);
	m->pool = gen_pool_create(PAGE_SHIFT, dev_to_node(&pdev->dev));
	if (!m->cpu || !m->pool)
		goto err;
	m->bus = pci_bus_address(pdev, SACC_BAR_DEVMEM);
	m->size = size;
	if (gen_pool_add_virt(m->pool, (unsigned long)(__force void *)m->cpu,
			      m->bus, size, dev_to_node(&pdev->dev)))
		goto err;
	return 0;
err:
	if (m->pool)
		gen_pool_destroy(m->pool);
	if (m->cpu)
		iounmap(m->cpu);
	m->pool = NULL;
	m->cpu = NULL;
	pci_release_region(pdev, SACC_BAR_DEVMEM);
	return -ENOMEM;
}

/*
 * At remove.  Memory a client still holds stays mapped (its pointer must
 * not oops) until the device structure goes; the pool goes with it.
 */
static void sacc_devmem_remove(struct sacc_dma_dev *sd)
{
	struct sacc_dma_devmem *m = &sd->devmem;

	if (!m->pool)
		return;
	if (gen_pool_avail(m->pool) != m->size)
		dev_warn(&sd->pdev->dev, "removed with %llu bytes of device memory still allocated\n",
			 m->size - (u64)gen_pool_avail(m->pool));
	pci_release_region(sd->pdev, SACC_BAR_DEVMEM);
}

/* ---- debugfs: per-channel counters ------------------------------------ */

static int sacc_stats_show(struct seq_file *s, void *unused)
{
	struct sacc_dma_dev *sd = s->private;
	unsigned int i;

	seq_puts(s, "chan submitted completed read_failed write_failed aborted bad_cqe recoveries timeouts terminated\n");
	for (i = 0; i < sd->nchan; i++) {
		struct sacc_dma_chan *c = &sd->chan[i];
		struct sacc_dma_stats st;
		unsigned long fl;

		spin_lock_irqsave(&c->lock, fl);
		st = c->stats;
		spin_unlock_irqrestore(&c->lock, fl);
		seq_printf(s, "%u %llu %llu %llu %llu %llu %llu %llu %llu %llu\n",
			   i, st.submitted, st.completed, st.read_failed,
			   st.write_failed, st.aborted, st.bad_cqe,
			   st.recoveries, st.timeouts, st.terminated);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sacc_stats);

/* ---- lifetime ----------------------------------------------------------- */

static bool sacc_filter_none(struct dma_chan *chan, void *param)
{
	return false;
}

/*
 * The last reference went (device_release).  dma_release_channel() still
 * reads chan->device after the put that got here, under dmaengine's list
 * lock: free only once that lock is free again.  A channel request that
 * matches nothing takes and drops exactly that lock.
 */
static void sacc_dma_free_work(struct work_struct *w)
{
	struct sacc_dma_dev *sd = container_of(w, struct sacc_dma_dev, free_work);
	dma_cap_mask_t mask;
	unsigned int i;

	dma_cap_zero(mask);
	dma_cap_set(DMA_PQ, mask);
	__dma_request_channel(&mask, sacc_filter_none, NULL, NULL);
	for (i = 0; i < sd->nchan; i++)
		sacc_chan_release(&sd->chan[i]);
	if (sd->devmem.pool && gen_pool_avail(sd->devmem.pool) == sd->devmem.size)
		gen_pool_destroy(sd->devmem.pool);
	if (sd->devmem.cpu)
		iounmap(sd->devmem.cpu);
	pci_dev_put(sd->pdev);
	kfree(sd);
}

static void sacc_dma_release(struct dma_device *dma)
{
	struct sacc_dma_dev *sd = to_sacc_dev(dma);

	INIT_WORK(&sd->free_work, sacc_dma_free_work);
	queue_work(sacc_wq, &sd->free_work);
}

/* ---- probe, remove ------------------------------------------------------ */

/*
 * The device as a VFIO user (or anyone) left it: a function reset
 * abandons its work and zeroes device memory (spec section 9), so no
 * stale descriptor runs and nothing of the last owner is seen.
 */
static int sacc_dma_hw_init(struct pci_dev *pdev, void __iomem *regs)
{
	int ret = pci_reset_function_locked(pdev);

	if (ret)
		dev_warn(&pdev->dev, "function reset failed (%d): CTRL.RESET only\n", ret);
	writel(SACC_CTRL_RESET, regs + SACC_REG_CTRL);
	if (readl(regs + SACC_REG_MAGIC) != SACC_MAGIC) {
		dev_err(&pdev->dev, "MAGIC reads %#x, not %#x: not a SACC device\n",
			readl(regs + SACC_REG_MAGIC), SACC_MAGIC);
		return -ENODEV;
	}
	return 0;
}

static int sacc_dma_setup_dma(struct sacc_dma_dev *sd)
{
	struct dma_device *dma = &sd->dma;

	dma->dev = &sd->pdev->dev;
	dma_cap_set(DMA_MEMCPY, dma->cap_mask);
	dma_cap_set(DMA_INTERRUPT, dma->cap_mask);
	if (sd->version >= SACC_VERSION)
		dma_cap_set(DMA_MEMSET, dma->cap_mask);
	/*
	 * Private by default: SACC is a test device, and async_tx (md's RAID
	 * offload) should not pick it up unasked; dmatest and other clients
	 * ask by name or capability.
	 */
	if (!sacc_dma_public)
		dma_cap_set(DMA_PRIVATE, dma->cap_mask);
	dma->copy_align = DMAENGINE_ALIGN_1_BYTE;
	dma->fill_align = DMAENGINE_ALIGN_1_BYTE;
	dma->descriptor_reuse = false;
	dma->device_release = sacc_dma_release;
	sacc_chan_set_ops(dma, dma_has_cap(DMA_MEMSET, dma->cap_mask));
	return dma_async_device_register(dma);
}

static int sacc_dma_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct sacc_dma_dev *sd;
	void __iomem *regs, *bar2;
	unsigned int nchan, i;
	u32 version;
	int nvec, ret;

	if (!is_power_of_2(sacc_dma_ring_size) || sacc_dma_ring_size < 4 ||
	    sacc_dma_ring_size > 4096) {
		dev_err(&pdev->dev, "ring_size %u: want a power of two in 4..4096\n",
			sacc_dma_ring_size);
		return -EINVAL;
	}
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pcim_iomap_regions(pdev, BIT(SACC_BAR_REGS) | BIT(SACC_BAR_CHAN),
				 SACC_DMA_NAME);
	if (ret)
		return ret;
	regs = pcim_iomap_table(pdev)[SACC_BAR_REGS];
	bar2 = pcim_iomap_table(pdev)[SACC_BAR_CHAN];
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	ret = sacc_dma_hw_init(pdev, regs);
	if (ret)
		return ret;
	version = readl(regs + SACC_REG_VERSION);
	nchan = readl(bar2 + SACC_DEV_CHANNELS);
	if (version < SACC_VERSION_V03 || !nchan || nchan > SACC_CHANNELS_MAX) {
		dev_err(&pdev->dev, "VERSION %u, CHANNELS %u: need a v0.3 device or later with 1..%u channels\n",
			version, nchan, SACC_CHANNELS_MAX);
		return -ENODEV;
	}
	pci_set_master(pdev);
	/* One vector per channel; with fewer vectors, fewer channels. */
	nvec = pci_alloc_irq_vectors(pdev, 1, nchan, PCI_IRQ_MSIX);
	if (nvec < 0)
		return nvec;
	nchan = nvec;
	sd = kzalloc(struct_size(sd, chan, nchan), GFP_KERNEL);
	if (!sd) {
		ret = -ENOMEM;
		goto err_vec;
	}
	sd->pdev = pci_dev_get(pdev);
	sd->regs = regs;
	sd->bar2 = bar2;
	sd->version = version;
	sd->nchan = nchan;
	INIT_LIST_HEAD(&sd->dma.channels);
	for (i = 0; i < nchan; i++) {
		struct sacc_dma_chan *c = &sd->chan[i];

		sacc_chan_init(sd, i);
		snprintf(c->irq_name, sizeof(c->irq_name), "%s-%s-%u",
			 SACC_DMA_NAME, pci_name(pdev), i);
		c->irq = pci_irq_vector(pdev, i);
		ret = request_irq(c->irq, sacc_chan_irq, 0, c->irq_name, c);
		if (ret)
			goto err_irq;
	}
	ret = sacc_devmem_init(sd);
	if (ret)
		goto err_irq;
	pci_set_drvdata(pdev, sd);
	ret = sacc_dma_setup_dma(sd);
	if (ret)
		goto err_devmem;
	sd->debugfs = debugfs_create_dir(pci_name(pdev), sacc_debugfs_root);
	debugfs_create_file("stats", 0444, sd->debugfs, sd, &sacc_stats_fops);
	dev_info(&pdev->dev, "SACC v0.%u: %u dmaengine channels (dma%uchan0..%u), %llu KiB device memory, ring %u\n",
		 version == SACC_VERSION_V03 ? 3 : 4, nchan, sd->dma.dev_id,
		 nchan - 1, sd->devmem.size >> 10, sacc_dma_ring_size);
	return 0;

err_devmem:
	pci_set_drvdata(pdev, NULL);
	sacc_devmem_remove(sd);
	if (sd->devmem.pool)
		gen_pool_destroy(sd->devmem.pool);
	if (sd->devmem.cpu)
		iounmap(sd->devmem.cpu);
err_irq:
	while (i--)
		free_irq(sd->chan[i].irq, &sd->chan[i]);
	pci_dev_put(pdev);
	kfree(sd);
err_vec:
	pci_clear_master(pdev);
	pci_free_irq_vectors(pdev);
	return ret;
}

static void sacc_dma_remove(struct pci_dev *pdev)
{
	struct sacc_dma_dev *sd = pci_get_drvdata(pdev);
	unsigned int i;

	debugfs_remove_recursive(sd->debugfs);
	/* Stop every channel and fail what it held; prep fails from now. */
	for (i = 0; i < sd->nchan; i++)
		sacc_chan_kill(&sd->chan[i]);
	writel(SACC_CTRL_RESET, sd->regs + SACC_REG_CTRL);
	readl(sd->regs + SACC_REG_STATUS);
	pci_clear_master(pdev);
	for (i = 0; i < sd->nchan; i++)
		free_irq(sd->chan[i].irq, &sd->chan[i]);
	for (i = 0; i < sd->nchan; i++) {
		sacc_chan_drain(&sd->chan[i]);
		sacc_chan_free_rings(&sd->chan[i]);
	}
	pci_free_irq_vectors(pdev);
	sacc_devmem_remove(sd);
	/* Last: it may drop the final reference (sacc_dma_release). */
	dma_async_device_unregister(&sd->dma);
}

/*
 * A function reset while bound (sysfs reset, or any pci_reset_function()
 * caller): the reset abandons the rings' work (failed, ABORTED), then each
 * channel in use starts again with fresh rings; MSI-X state is restored
 * by the PCI core.
 */
static void sacc_dma_reset_prepare(struct pci_dev *pdev)
{
	struct sacc_dma_dev *sd = pci_get_drvdata(pdev);
	unsigned int i;

	/* probe's own reset comes before there is anything to stop */
	if (!sd)
		return;
	for (i = 0; i < sd->nchan; i++)
		sacc_chan_reset_prepare(&sd->chan[i]);
}

static void sacc_dma_reset_done(struct pci_dev *pdev)
{
	struct sacc_dma_dev *sd = pci_get_drvdata(pdev);
	unsigned int i;

	if (!sd)
		return;
	for (i = 0; i < sd->nchan; i++)
		sacc_chan_reset_done(&sd->chan[i]);
}

static const struct pci_error_handlers sacc_dma_err_handler = {
	.reset_prepare = sacc_dma_reset_prepare,
	.reset_done = sacc_dma_reset_done,
};

static const struct pci_device_id sacc_dma_ids[] = {
	{ PCI_DEVICE(SACC_PCI_VENDOR_ID, SACC_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, sacc_dma_ids);

static struct pci_driver sacc_dma_driver = {
	.name = SACC_DMA_NAME,
	.id_table = sacc_dma_ids,
	.probe = sacc_dma_probe,
	.remove = sacc_dma_remove,
	.err_handler = &sacc_dma_err_handler,
};

static int __init sacc_dma_init(void)
{
	int ret;

	sacc_wq = alloc_workqueue(SACC_DMA_NAME, 0, 0);
	if (!sacc_wq)
		return -ENOMEM;
	sacc_debugfs_root = debugfs_create_dir(SACC_DMA_NAME, NULL);
	ret = pci_register_driver(&sacc_dma_driver);
	if (ret) {
		debugfs_remove_recursive(sacc_debugfs_root);
		destroy_workqueue(sacc_wq);
	}
	return ret;
}

static void __exit sacc_dma_exit(void)
{
	pci_unregister_driver(&sacc_dma_driver);
	/* Frees of devices whose last client has just let go. */
	destroy_workqueue(sacc_wq);
	debugfs_remove_recursive(sacc_debugfs_root);
}

module_init(sacc_dma_init);
module_exit(sacc_dma_exit);

MODULE_DESCRIPTION("SACC synthetic accelerator as a dmaengine provider");
MODULE_LICENSE("GPL");

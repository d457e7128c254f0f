// SPDX-License-Identifier: GPL-2.0
/*
 * sacc_dma_selftest.ko - a dmaengine client of sacc_dma that checks what
 * dmatest cannot: faults and device memory.  It runs its checks when
 * loaded and refuses to load (-EIO) if one failed, so `insmod` is the
 * test and leaves nothing behind:
 *
 *   insmod sacc_dma_selftest.ko bdf=0000:01:00.0 chan=3 test=fault
 *
 *   fault   a memcpy whose destination, then one whose source, then a
 *           memset whose destination the DMA API never mapped (an IOVA
 *           the IOMMU domain has no page for): each must fail with
 *           DMA_TRANS_WRITE_FAILED / READ_FAILED / WRITE_FAILED, leave
 *           the other buffer untouched, and the channel must go on (a
 *           good copy after them, verified).  gap_ms apart, so each
 *           fault gets its DMAR line (one fault recording register, and
 *           the kernel's DMAR ratelimit).
 *   devmem  device memory (sacc_dma_devmem.h): host -> device, a memset
 *           in it, device -> device, device -> host, each verified, and
 *           what the CPU reads through the BAR.
 *   mapcost what the DMA API costs per operation on this device's IOMMU
 *           domain: dma_map_single() + dma_unmap_single() of 4 KiB,
 *           64 KiB and 1 MiB, mean of `rounds` pairs (a VFIO program maps
 *           its buffers once: 0 per operation).  Not a pass/fail check.
 *
 * One line per check: "sacc_dma_selftest: ok: ..." or "... FAILED: ...".
 */
#include <linux/completion.h>
#include <linux/dma-mapping.h>
#include <linux/dmaengine.h>
#include <linux/delay.h>
#include <linux/iommu.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "sacc_dma_devmem.h"

#define TAG "sacc_dma_selftest: "
#define BUF 4096

static char *bdf = "0000:01:00.0";
module_param(bdf, charp, 0444);
MODULE_PARM_DESC(bdf, "the SACC device (PCI address) bound to sacc_dma");
static unsigned int chan_id;
module_param_named(chan, chan_id, uint, 0444);
MODULE_PARM_DESC(chan, "its channel to use (default 0)");
static char *test = "fault";
module_param(test, charp, 0444);
MODULE_PARM_DESC(test, "fault, devmem, all (both) or mapcost");
static unsigned int gap_ms = 1500;
module_param(gap_ms, uint, 0444);
MODULE_PARM_DESC(gap_ms, "pause between two faults (default 1500)");
static unsigned int rounds = 2000;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "mapcost: map+unmap pairs per size (default 2000)");
static unsigned long iova = 0x10000000;
module_param(iova, ulong, 0444);
MODULE_PARM_DESC(iova, "first IOVA to try as never mapped (default 0x10000000)");

struct waiter {
	struct completion done;
	enum dmaengine_tx_result result;
};

static const char *const result_names[] = {
	[DMA_TRANS_NOERROR] = "noerror",
	[DMA_TRANS_READ_FAILED] = "read_failed",
	[DMA_TRANS_WRITE_FAILED] = "write_failed",
	[DMA_TRANS_ABORTED] = "aborted",
};

static void st_callback(void *arg, const struct dmaengine_result *res)
{
	struct waiter *w = arg;

	w->result = res->result;
	complete(&w->done);
}

static bool st_filter(struct dma_chan *chan, void *param)
{
	return sacc_dma_is_sacc_chan(chan) &&
	       !strcmp(dev_name(chan->device->dev), bdf) &&
	       chan->chan_id == chan_id;
}

/* Submits @tx and waits, bounded; returns the result, or -1: no callback. */
static int st_run(struct dma_chan *chan, struct dma_async_tx_descriptor *tx)
{
	struct waiter w;

	if (!tx)
		return -2;
	init_completion(&w.done);
	tx->callback_result = st_callback;
	tx->callback_param = &w;
	if (dma_submit_error(dmaengine_submit(tx)))
		return -2;
	dma_async_issue_pending(chan);
	if (!wait_for_completion_timeout(&w.done, msecs_to_jiffies(20000))) {
		dmaengine_terminate_sync(chan);
		return -1;
	}
	return w.result;
}

static const char *st_name(int r)
{
	if (r == -1)
		return "no completion within 20 s";
	if (r == -2)
		return "prep or submit refused";
	return r >= 0 && r < ARRAY_SIZE(result_names) ? result_names[r] : "?";
}

static int st_expect(const char *what, int got, int want)
{
	if (got == want) {
		pr_info(TAG "ok: %s: %s\n", what, st_name(got));
		return 0;
	}
	pr_err(TAG "FAILED: %s: %s, expected %s\n", what, st_name(got), st_name(want));
	return 1;
}

/* An IOVA with no page in the device's domain: never mapped. */
static dma_addr_t st_unmapped(struct device *dev)
{
	struct iommu_domain *dom = iommu_get_domain_for_dev(dev);
	dma_addr_t a = iova;
	int i;

	if (!dom)
		return 0;
	for (i = 0; i < 64; i++, a += SZ_1M)
		if (!iommu_iova_to_phys(dom, a) && !iommu_iova_to_phys(dom, a + BUF - 1))
			return a;
	return 0;
}

static bool st_filled(const u8 *p, size_t n, u8 v)
{
	while (n--)
		if (*p++ != v)
			return false;
	return true;
}

static int st_fault(struct dma_chan *chan)
{
	struct device *dev = chan->device->dev;
	dma_addr_t bad = st_unmapped(dev), a_dma, b_dma;
	u8 *a = kmalloc(BUF, GFP_KERNEL), *b = kmalloc(BUF, GFP_KERNEL);
	unsigned long fl = DMA_PREP_INTERRUPT | DMA_CTRL_ACK;
	int fails = 0, r;

	if (!a || !b || !bad) {
		pr_err(TAG "FAILED: setup (%s)\n", bad ? "no memory" : "no unmapped IOVA found, or no IOMMU");
		fails = 1;
		goto out;
	}
	memset(a, 0x5a, BUF);
	memset(b, 0xc3, BUF);
	a_dma = dma_map_single(dev, a, BUF, DMA_TO_DEVICE);
	b_dma = dma_map_single(dev, b, BUF, DMA_FROM_DEVICE);
	if (dma_mapping_error(dev, a_dma) || dma_mapping_error(dev, b_dma)) {
		pr_err(TAG "FAILED: dma_map_single\n");
		fails = 1;
		goto out;
	}
	pr_info(TAG "chan %s: never-mapped iova %#llx\n", dma_chan_name(chan), (u64)bad);

	r = st_run(chan, dmaengine_prep_dma_memcpy(chan, bad, a_dma, BUF, fl));
	fails += st_expect("memcpy to a never-mapped dst", r, DMA_TRANS_WRITE_FAILED);
	msleep(gap_ms);
	r = st_run(chan, dmaengine_prep_dma_memcpy(chan, b_dma, bad, BUF, fl));
	fails += st_expect("memcpy from a never-mapped src", r, DMA_TRANS_READ_FAILED);
	msleep(gap_ms);
	if (chan->device->device_prep_dma_memset) {
		r = st_run(chan, chan->device->device_prep_dma_memset(chan, bad, 0x11, BUF, fl));
		fails += st_expect("memset of a never-mapped dst", r, DMA_TRANS_WRITE_FAILED);
	}
	/* The source fault left dst as it was: the device read nothing. */
	dma_sync_single_for_cpu(dev, b_dma, BUF, DMA_FROM_DEVICE);
	if (!st_filled(b, BUF, 0xc3)) {
		pr_err(TAG "FAILED: the failed copy wrote its destination\n");
		fails++;
	}
	dma_sync_single_for_device(dev, b_dma, BUF, DMA_FROM_DEVICE);
	r = st_run(chan, dmaengine_prep_dma_memcpy(chan, b_dma, a_dma, BUF, fl));
	fails += st_expect("memcpy after the faults, same channel", r, DMA_TRANS_NOERROR);
	dma_sync_single_for_cpu(dev, b_dma, BUF, DMA_FROM_DEVICE);
	if (r == DMA_TRANS_NOERROR && !st_filled(b, BUF, 0x5a)) {
		pr_err(TAG "FAILED: the good copy's data is wrong\n");
		fails++;
	}
	dma_unmap_single(dev, a_dma, BUF, DMA_TO_DEVICE);
	dma_unmap_single(dev, b_dma, BUF, DMA_FROM_DEVICE);
out:
	kfree(a);
	kfree(b);
	return fails;
}

/* host -> device, memset in device memory, device -> device, device -> host. */
static int st_devmem(struct dma_chan *chan)
{
	struct device *dev = chan->device->dev;
	unsigned long fl = DMA_PREP_INTERRUPT | DMA_CTRL_ACK;
	u8 *h = kmalloc(BUF, GFP_KERNEL), *back = kmalloc(BUF, GFP_KERNEL);
	dma_addr_t d_dma = 0, h_dma = 0, back_dma = 0;
	void __iomem *d = NULL;
	int fails = 0, r, i;

	if (!h || !back)
		goto nomem;
	d = sacc_dma_devmem_alloc(chan, 2 * BUF, &d_dma);
	if (!d) {
		pr_err(TAG "FAILED: sacc_dma_devmem_alloc (no device memory?)\n");
		fails = 1;
		goto out;
	}
	for (i = 0; i < BUF; i++)
		h[i] = i * 7 + 3;
	memset(back, 0, BUF);
	h_dma = dma_map_single(dev, h, BUF, DMA_TO_DEVICE);
	back_dma = dma_map_single(dev, back, BUF, DMA_FROM_DEVICE);
	if (dma_mapping_error(dev, h_dma) || dma_mapping_error(dev, back_dma))
		goto nomem;
	pr_info(TAG "device memory at bus address %#llx\n", (u64)d_dma);
	r = st_run(chan, dmaengine_prep_dma_memcpy(chan, d_dma, h_dma, BUF, fl));
	fails += st_expect("memcpy host -> device memory", r, DMA_TRANS_NOERROR);
	for (i = 0; i < BUF; i += 512)
		if (readb(d + i) != (u8)(i * 7 + 3)) {
			pr_err(TAG "FAILED: the CPU reads %#x at device memory +%d\n", readb(d + i), i);
			fails++;
			break;
		}
	r = st_run(chan, chan->device->device_prep_dma_memset(chan, d_dma, 0xab, 100, fl));
	fails += st_expect("memset in device memory", r, DMA_TRANS_NOERROR);
	r = st_run(chan, dmaengine_prep_dma_memcpy(chan, d_dma + BUF, d_dma, BUF, fl));
	fails += st_expect("memcpy device -> device memory", r, DMA_TRANS_NOERROR);
	r = st_run(chan, dmaengine_prep_dma_memcpy(chan, back_dma, d_dma + BUF, BUF, fl));
	fails += st_expect("memcpy device memory -> host", r, DMA_TRANS_NOERROR);
	dma_sync_single_for_cpu(dev, back_dma, BUF, DMA_FROM_DEVICE);
	if (!st_filled(back, 100, 0xab) || memcmp(back + 100, h + 100, BUF - 100)) {
		pr_err(TAG "FAILED: the round trip through device memory changed the data\n");
		fails++;
	} else {
		pr_info(TAG "ok: %d bytes through device memory and back, verified\n", BUF);
	}
	goto out;
nomem:
	pr_err(TAG "FAILED: no memory, or dma_map_single failed\n");
	fails++;
out:
	if (h_dma && !dma_mapping_error(dev, h_dma))
		dma_unmap_single(dev, h_dma, BUF, DMA_TO_DEVICE);
	if (back_dma && !dma_mapping_error(dev, back_dma))
		dma_unmap_single(dev, back_dma, BUF, DMA_FROM_DEVICE);
	sacc_dma_devmem_free(chan, d, 2 * BUF);
	kfree(h);
	kfree(back);
	return fails;
}

static int st_mapcost(struct dma_chan *chan)
{
	static const size_t sizes[] = { SZ_4K, SZ_64K, SZ_1M };
	struct device *dev = chan->device->dev;
	struct iommu_domain *dom = iommu_get_domain_for_dev(dev);
	int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct page *pg = alloc_pages(GFP_KERNEL, get_order(sizes[i]));
		u64 t0, map_ns = 0, unmap_ns = 0;
		unsigned int n;

		if (!pg || !rounds)
			return 1;
		for (n = 0; n < rounds; n++) {
			dma_addr_t a;

			t0 = ktime_get_ns();
			a = dma_map_page(dev, pg, 0, sizes[i], DMA_BIDIRECTIONAL);
			map_ns += ktime_get_ns() - t0;
			if (dma_mapping_error(dev, a)) {
				__free_pages(pg, get_order(sizes[i]));
				return 1;
			}
			t0 = ktime_get_ns();
			dma_unmap_page(dev, a, sizes[i], DMA_BIDIRECTIONAL);
			unmap_ns += ktime_get_ns() - t0;
			cond_resched();
		}
		__free_pages(pg, get_order(sizes[i]));
		pr_info(TAG "mapcost %s %zu B: map %llu ns, unmap %llu ns, per operation (mean of %u)\n",
			dom && dom->type == IOMMU_DOMAIN_DMA_FQ ? "lazy" :
			dom && dom->type == IOMMU_DOMAIN_DMA ? "strict" : "other",
			sizes[i], map_ns / rounds, unmap_ns / rounds, rounds);
	}
	return 0;
}

static int __init st_init(void)
{
	bool all = !strcmp(test, "all");
	struct dma_chan *chan;
	dma_cap_mask_t mask;
	int fails = 0;

	dma_cap_zero(mask);
	dma_cap_set(DMA_MEMCPY, mask);
	chan = dma_request_channel(mask, st_filter, NULL);
	if (!chan) {
		pr_err(TAG "FAILED: no sacc_dma channel %u on %s (is sacc_dma bound?)\n",
		       chan_id, bdf);
		return -ENODEV;
	}
	if (all || !strcmp(test, "fault"))
		fails += st_fault(chan);
	if (all || !strcmp(test, "devmem"))
		fails += st_devmem(chan);
	if (!strcmp(test, "mapcost"))
		fails += st_mapcost(chan);
	dma_release_channel(chan);
	pr_info(TAG "%s: %d failed\n", test, fails);
	return fails ? -EIO : 0;
}

/* Loaded means passed; rmmod it to run it again. */
static void __exit st_exit(void)
{
}

module_init(st_init);
module_exit(st_exit);
MODULE_DESCRIPTION("sacc_dma's fault and device memory checks");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: MIT
/*
 * sacc_dmadev.c - a DPDK 22.11 dmadev driver for SACC: PCI probe, the
 * control path (info, configure, vchan setup, start, stop, close, stats,
 * vchan status, dump) and registration.  The fast path is in
 * sacc_dmadev_fp.c.
 *
 * Built as a plugin, librte_dma_sacc.so, loaded with EAL's -d; DPDK's
 * PCI bus maps the BARs of a SACC bound to vfio-pci (1b36:1092) and
 * calls saccdma_probe().  Polled only: dmadev has no completion interrupt.
 * docs/spec.md is the device; dmadev/README.md how to use the driver.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <bus_pci_driver.h>
#include <rte_cycles.h>
#include <rte_dmadev_pmd.h>
#include <rte_eal.h>
#include <rte_memzone.h>
#include <rte_pause.h>

#include "saccdma_internal.h"

RTE_LOG_REGISTER(saccdma_logtype, pmd.dma.sacc, INFO);

/* Bounded waits: a register that should settle at once gets this long. */
#define SACCDMA_SETTLE_US 100000u

/*
 * Poll @off of @base until (value & @mask) == @want, for at most
 * SACCDMA_SETTLE_US: 0, or -ETIMEDOUT with the last value in *@last.
 */
static int wait_reg(const uint8_t *base, uint32_t off, uint32_t mask,
		    uint32_t want, uint32_t *last)
{
	uint64_t end = rte_get_timer_cycles() +
		       rte_get_timer_hz() * SACCDMA_SETTLE_US / 1000000;
	uint32_t v;

	for (;;) {
		v = saccdma_rd32(base, off);
		if ((v & mask) == want)
			break;
		if (rte_get_timer_cycles() > end) {
			if (last)
				*last = v;
			return -ETIMEDOUT;
		}
		rte_pause();
	}
	if (last)
		*last = v;
	return 0;
}

/*
 * A reset (device: BAR0 page 0; channel: its block) returns before it
 * completes on no device we know, but we do not trust that: CTRL must
 * read 0 and STATUS.READY clear within SACCDMA_SETTLE_US.
 */
static int reset_regs(uint8_t *base, const char *what)
{
	uint32_t v;

	saccdma_wr32(base, SACC_REG_CTRL, SACC_CTRL_RESET);
	if (wait_reg(base, SACC_REG_CTRL, ~0u, 0, &v) ||
	    wait_reg(base, SACC_REG_STATUS, SACC_STATUS_READY, 0, &v)) {
		SACCDMA_LOG(ERR, "%s reset did not settle (last read %#x)",
			    what, v);
		return -EIO;
	}
	return 0;
}

static int saccdma_info_get(const struct rte_dma_dev *dev,
			    struct rte_dma_info *info, uint32_t size)
{
	const struct saccdma_dev *sd = dev->data->dev_private;

	if (size < sizeof(*info))
		return -EINVAL;
	/*
	 * HANDLES_ERRORS: a failed descriptor gets its own status and the
	 * channel goes on (spec section 6).  Not SVA: the IOMMU maps only
	 * what DPDK registered.  FILL from v0.4 (spec section 19).
	 */
	info->dev_capa = RTE_DMA_CAPA_MEM_TO_MEM | RTE_DMA_CAPA_OPS_COPY |
			 RTE_DMA_CAPA_HANDLES_ERRORS;
	if (sd->version >= SACC_VERSION)
		info->dev_capa |= RTE_DMA_CAPA_OPS_FILL;
	info->max_vchans = sd->channels;
	info->min_desc = SACCDMA_MIN_DESC;
	info->max_desc = SACCDMA_MAX_DESC;
	info->max_sges = 0;
	return 0;
}

static int saccdma_configure(struct rte_dma_dev *dev,
			     const struct rte_dma_conf *conf, uint32_t size)
{
	struct saccdma_dev *sd = dev->data->dev_private;

	if (size < sizeof(*conf) || conf->nb_vchans == 0 ||
	    conf->nb_vchans > sd->channels || conf->enable_silent)
		return -EINVAL;
	/* vchans no longer configured give their rings back (stopped) */
	for (uint16_t k = conf->nb_vchans; k < SACC_CHANNELS_MAX; k++) {
		rte_memzone_free(sd->vc[k].mz);
		memset(&sd->vc[k], 0, sizeof(sd->vc[k]));
	}
	sd->nb_vchans = conf->nb_vchans;
	return 0;
}

/* The rings of one vchan: one IOVA-contiguous memzone, SQ then CQ. */
static int saccdma_vchan_setup(struct rte_dma_dev *dev, uint16_t vchan,
			       const struct rte_dma_vchan_conf *conf,
			       uint32_t size)
{
	struct saccdma_dev *sd = dev->data->dev_private;
	struct saccdma_vchan *vc = &sd->vc[vchan];
	char name[RTE_MEMZONE_NAMESIZE];
	uint32_t nb;

	if (size < sizeof(*conf) || vchan >= sd->nb_vchans ||
	    conf->direction != RTE_DMA_DIR_MEM_TO_MEM)
		return -EINVAL;
	nb = rte_align32pow2(conf->nb_desc);
	if (nb < SACCDMA_MIN_DESC || nb > SACCDMA_MAX_DESC)
		return -EINVAL;
	rte_memzone_free(vc->mz); /* set up again: NULL is fine */
	vc->mz = NULL;
	snprintf(name, sizeof(name), "sacc_dma_%d_%u", dev->data->dev_id,
		 vchan);
	vc->mz = rte_memzone_reserve_aligned(
	    name, sacc_sq_bytes(nb) + sacc_cq_bytes(nb), dev->device->numa_node,
	    RTE_MEMZONE_IOVA_CONTIG, SACC_PAGE_SIZE);
	if (vc->mz == NULL) {
		SACCDMA_LOG(ERR, "no memory for %u descriptors on vchan %u", nb,
			    vchan);
		return -ENOMEM;
	}
	vc->sq_iova = vc->mz->iova;
	vc->cq_iova = vc->mz->iova + sacc_sq_bytes(nb);
	vc->nb_desc = nb;
	vc->chan = vchan;
	vc->blk = sd->bar2 + SACC_CHAN_BLOCK(vchan);
	vc->doorbell = sd->bar0 + SACC_DOORBELL(vchan);
	return 0;
}

static void put64(uint8_t *blk, uint32_t off, uint64_t v)
{
	saccdma_wr32(blk, off, (uint32_t)v);
	saccdma_wr32(blk, off + 4, (uint32_t)(v >> 32));
}

/* Channel @vc from scratch: reset, empty rings, MODE.V3, enable. */
static int start_vchan(struct saccdma_vchan *vc)
{
	uint8_t *sq = vc->mz->addr;
	uint32_t st;

	if (reset_regs(vc->blk, "channel"))
		return -EIO;
	/* zeroed by the init: every CQ phase bit 0, the first lap wants 1 */
	if (sacc_sq_init(&vc->sq, sq, vc->nb_desc) ||
	    sacc_cq_init(&vc->cq, sq + sacc_sq_bytes(vc->nb_desc), vc->nb_desc))
		return -EINVAL;
	put64(vc->blk, SACC_REG_SQ_BASE, vc->sq_iova);
	saccdma_wr32(vc->blk, SACC_REG_SQ_SIZE, vc->nb_desc);
	put64(vc->blk, SACC_REG_CQ_BASE, vc->cq_iova);
	saccdma_wr32(vc->blk, SACC_REG_CQ_SIZE, vc->nb_desc);
	saccdma_wr32(vc->blk, SACC_REG_MODE, SACC_MODE_V3);
	saccdma_wr32(vc->blk, SACC_REG_CTRL, SACC_CTRL_ENABLE);
	st = saccdma_rd32(vc->blk, SACC_REG_STATUS);
	if (!(st & SACC_STATUS_READY) || (st & SACC_STATUS_ERROR)) {
		SACCDMA_LOG(
		    ERR, "channel %u did not enable: STATUS %#x ERR_CODE %u",
		    vc->chan, st, saccdma_rd32(vc->blk, SACC_REG_ERR_CODE));
		saccdma_wr32(vc->blk, SACC_REG_CTRL, 0);
		return -EIO;
	}
	vc->next_id = 0;
	vc->done_id = 0;
	memset(&vc->stats, 0, sizeof(vc->stats));
	vc->bad_cqe = vc->err_src = vc->err_dst = vc->err_addr = 0;
	return 0;
}

static int saccdma_stop(struct rte_dma_dev *dev);

static int saccdma_start(struct rte_dma_dev *dev)
{
	struct saccdma_dev *sd = dev->data->dev_private;
	uint16_t k;
	int ret;

	for (k = 0; k < sd->nb_vchans; k++) {
		if (sd->vc[k].mz == NULL) {
			SACCDMA_LOG(ERR, "vchan %u was not set up", k);
			ret = -EINVAL;
			goto fail;
		}
		ret = start_vchan(&sd->vc[k]);
		if (ret)
			goto fail;
	}
	return 0;
fail:
	saccdma_stop(dev);
	return ret;
}

/* Clearing ENABLE stops the channel: no DMA for it after the write
 * returns, nothing in flight completes (spec section 4). */
static int saccdma_stop(struct rte_dma_dev *dev)
{
	struct saccdma_dev *sd = dev->data->dev_private;
	uint16_t k;

	for (k = 0; k < sd->nb_vchans; k++)
		if (sd->vc[k].blk != NULL)
			saccdma_wr32(sd->vc[k].blk, SACC_REG_CTRL, 0);
	return 0;
}

static int saccdma_close(struct rte_dma_dev *dev)
{
	struct saccdma_dev *sd = dev->data->dev_private;
	uint16_t k;

	/* the whole device, before the rings it could write are freed */
	reset_regs(sd->bar0, "device");
	for (k = 0; k < SACC_CHANNELS_MAX; k++) {
		rte_memzone_free(sd->vc[k].mz);
		memset(&sd->vc[k], 0, sizeof(sd->vc[k]));
	}
	sd->nb_vchans = 0;
	return 0;
}

static int saccdma_stats_get(const struct rte_dma_dev *dev, uint16_t vchan,
			     struct rte_dma_stats *stats, uint32_t size)
{
	const struct saccdma_dev *sd = dev->data->dev_private;
	uint16_t k;

	if (size < sizeof(*stats))
		return -EINVAL;
	if (vchan != RTE_DMA_ALL_VCHAN) {
		if (vchan >= sd->nb_vchans)
			return -EINVAL;
		*stats = sd->vc[vchan].stats;
		return 0;
	}
	memset(stats, 0, sizeof(*stats));
	for (k = 0; k < sd->nb_vchans; k++) {
		stats->submitted += sd->vc[k].stats.submitted;
		stats->completed += sd->vc[k].stats.completed;
		stats->errors += sd->vc[k].stats.errors;
	}
	return 0;
}

static int saccdma_stats_reset(struct rte_dma_dev *dev, uint16_t vchan)
{
	struct saccdma_dev *sd = dev->data->dev_private;
	uint16_t k;

	if (vchan != RTE_DMA_ALL_VCHAN && vchan >= sd->nb_vchans)
		return -EINVAL;
	for (k = 0; k < sd->nb_vchans; k++)
		if (vchan == RTE_DMA_ALL_VCHAN || vchan == k)
			memset(&sd->vc[k].stats, 0, sizeof(sd->vc[k].stats));
	return 0;
}

/*
 * IDLE once every op handed to the device has its completion posted;
 * HALTED_ERROR after a ring fault (spec section 7: the channel processes
 * nothing more until it is started again); ACTIVE otherwise.
 */
static int saccdma_vchan_status(const struct rte_dma_dev *dev, uint16_t vchan,
				enum rte_dma_vchan_status *status)
{
	const struct saccdma_dev *sd = dev->data->dev_private;
	const struct saccdma_vchan *vc;

	if (vchan >= sd->nb_vchans)
		return -EINVAL;
	vc = &sd->vc[vchan];
	if (!dev->data->dev_started || saccdma_vchan_idle(vc))
		*status = RTE_DMA_VCHAN_IDLE;
	else if (saccdma_rd32(vc->blk, SACC_REG_STATUS) & SACC_STATUS_ERROR)
		*status = RTE_DMA_VCHAN_HALTED_ERROR;
	else
		*status = RTE_DMA_VCHAN_ACTIVE;
	return 0;
}

static void dump_vchan(const struct saccdma_vchan *vc, FILE *f)
{
	fprintf(f,
		"  vchan %u (channel %u): STATUS %#x MODE %#x ERR_CODE %u "
		"FAULT_COUNT %u\n",
		vc->chan, vc->chan, saccdma_rd32(vc->blk, SACC_REG_STATUS),
		saccdma_rd32(vc->blk, SACC_REG_MODE),
		saccdma_rd32(vc->blk, SACC_REG_ERR_CODE),
		saccdma_rd32(vc->blk, SACC_REG_FAULT_COUNT));
	fprintf(f,
		"    last fault: FAULT_ADDR %#" PRIx64 " FAULT_INFO %#x "
		"FAULT_REQ_ID %u\n",
		(uint64_t)saccdma_rd32(vc->blk, SACC_REG_FAULT_ADDR + 4) << 32 |
		    saccdma_rd32(vc->blk, SACC_REG_FAULT_ADDR),
		saccdma_rd32(vc->blk, SACC_REG_FAULT_INFO),
		saccdma_rd32(vc->blk, SACC_REG_FAULT_REQ_ID));
	fprintf(f,
		"    ring %u: SQ iova %#" PRIx64 ", CQ iova %#" PRIx64
		"; next job %u, handed back %u, published slot %u, CQ head "
		"%u phase %u\n",
		vc->nb_desc, vc->sq_iova, vc->cq_iova, vc->next_id, vc->done_id,
		vc->sq.published, vc->cq.head, vc->cq.phase);
	fprintf(f,
		"    stats: submitted %" PRIu64 " completed %" PRIu64
		" errors %" PRIu64 " (source %" PRIu64 ", destination %" PRIu64
		", either %" PRIu64 "); bad completions %" PRIu64 "\n",
		vc->stats.submitted, vc->stats.completed, vc->stats.errors,
		vc->err_src, vc->err_dst, vc->err_addr, vc->bad_cqe);
}

static int saccdma_dump(const struct rte_dma_dev *dev, FILE *f)
{
	const struct saccdma_dev *sd = dev->data->dev_private;
	uint16_t k;

	fprintf(f, "  SACC: VERSION %u, CHANNELS %u, %u vchans configured\n",
		sd->version, sd->channels, sd->nb_vchans);
	for (k = 0; k < sd->nb_vchans; k++)
		if (sd->vc[k].mz != NULL)
			dump_vchan(&sd->vc[k], f);
	return 0;
}

static const struct rte_dma_dev_ops saccdma_ops = {
    .dev_info_get = saccdma_info_get,
    .dev_configure = saccdma_configure,
    .dev_start = saccdma_start,
    .dev_stop = saccdma_stop,
    .dev_close = saccdma_close,
    .vchan_setup = saccdma_vchan_setup,
    .stats_get = saccdma_stats_get,
    .stats_reset = saccdma_stats_reset,
    .vchan_status = saccdma_vchan_status,
    .dev_dump = saccdma_dump,
};

/* ---- PCI -------------------------------------------------------------- */

/* The BARs of a SACC this driver can drive: v0.3 or later (channels and
 * MODE.V3), 1..64 channels.  0, or -ENODEV with the reason logged. */
static int check_device(const char *name, uint8_t *bar0, uint8_t *bar2,
			uint32_t *version, uint32_t *channels)
{
	if (bar0 == NULL || bar2 == NULL) {
		SACCDMA_LOG(ERR,
			    "%s: BAR0 or BAR2 not mapped (bound to vfio-pci?)",
			    name);
		return -ENODEV;
	}
	if (saccdma_rd32(bar0, SACC_REG_MAGIC) != SACC_MAGIC) {
		SACCDMA_LOG(ERR, "%s: MAGIC %#x is not SACC's", name,
			    saccdma_rd32(bar0, SACC_REG_MAGIC));
		return -ENODEV;
	}
	*version = saccdma_rd32(bar0, SACC_REG_VERSION);
	if (*version < SACC_VERSION_V03) {
		SACCDMA_LOG(ERR,
			    "%s: VERSION %u, this driver needs v0.3 (3) or "
			    "later",
			    name, *version);
		return -ENODEV;
	}
	*channels = saccdma_rd32(bar2, SACC_DEV_CHANNELS);
	if (*channels < 1 || *channels > SACC_CHANNELS_MAX) {
		SACCDMA_LOG(ERR, "%s: CHANNELS %u is not 1..%u", name,
			    *channels, SACC_CHANNELS_MAX);
		return -ENODEV;
	}
	return 0;
}

static int saccdma_probe(struct rte_pci_driver *drv, struct rte_pci_device *pci)
{
	uint8_t *bar0 = pci->mem_resource[SACC_BAR_REGS].addr;
	uint8_t *bar2 = pci->mem_resource[SACC_BAR_CHAN].addr;
	char name[RTE_DEV_NAME_MAX_LEN];
	uint32_t version, channels;
	struct rte_dma_dev *dev;
	struct saccdma_dev *sd;

	rte_pci_device_name(&pci->addr, name, sizeof(name));
	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		SACCDMA_LOG(ERR, "%s: secondary processes are not supported",
			    name);
		return -ENOTSUP;
	}
	if (check_device(name, bar0, bar2, &version, &channels))
		return -ENODEV;
	/* vfio-pci reset it (FLR) when DPDK opened it; ours is the spec's
	 * initialisation step 2, and proves CTRL.RESET works */
	if (reset_regs(bar0, "device"))
		return -EIO;
	dev = rte_dma_pmd_allocate(name, pci->device.numa_node, sizeof(*sd));
	if (dev == NULL)
		return -ENOMEM;
	pci->device.driver = &drv->driver;
	dev->device = &pci->device;
	dev->dev_ops = &saccdma_ops;
	sd = dev->data->dev_private;
	sd->bar0 = bar0;
	sd->bar2 = bar2;
	sd->version = version;
	sd->channels = (uint16_t)channels;
	sd->dev_id = dev->data->dev_id;
	dev->fp_obj->dev_private = sd;
	saccdma_fp_install(dev->fp_obj);
	dev->state = RTE_DMA_DEV_READY;
	SACCDMA_LOG(INFO, "%s: SACC VERSION %u, %u channels: dmadev %d", name,
		    version, channels, dev->data->dev_id);
	return 0;
}

static int saccdma_remove(struct rte_pci_device *pci)
{
	char name[RTE_DEV_NAME_MAX_LEN];
	int id;

	rte_pci_device_name(&pci->addr, name, sizeof(name));
	id = rte_dma_get_dev_id_by_name(name);
	if (id < 0)
		return 0;
	/* close needs a stopped device; an application that exits without
	 * stopping still gets its device reset and its rings freed */
	rte_dma_stop(id);
	return rte_dma_pmd_release(name);
}

static const struct rte_pci_id saccdma_pci_ids[] = {
    {RTE_PCI_DEVICE(SACC_PCI_VENDOR_ID, SACC_PCI_DEVICE_ID)},
    {.vendor_id = 0},
};

static struct rte_pci_driver saccdma_pmd = {
    .id_table = saccdma_pci_ids,
    .drv_flags = RTE_PCI_DRV_NEED_MAPPING,
    .probe = saccdma_probe,
    .remove = saccdma_remove,
};

RTE_PMD_REGISTER_PCI(dma_sacc, saccdma_pmd);
RTE_PMD_REGISTER_PCI_TABLE(dma_sacc, saccdma_pci_ids);
RTE_PMD_REGISTER_KMOD_DEP(dma_sacc, "vfio-pci");

// SPDX-License-Identifier: MIT
/*
 * caps.c - what a handle can do (sacc_dev_info(), the analog of dmadev's
 * rte_dma_info_get()) and its eventfds for a program's own event loop
 * (sacc_dev_eventfds()).  Both answer from what libsacc learnt at open:
 * no register is read.
 */
#include <errno.h>
#include <string.h>

#include "sacc_priv.h"

/* Opcodes sacc_check_op() accepts on @dev (submit.c's rules). */
static uint64_t ops_of(const struct sacc_dev *dev)
{
	uint64_t ops = 1ull << SACC_OP_NOP | 1ull << SACC_OP_MEMCPY |
		       1ull << SACC_OP_XFORM;

	if (dev->mode & SACC_MODE_V3) {
		ops |= 1ull << SACC_OP_WRITE_INLINE | 1ull << SACC_OP_TIMESTAMP;
		if (dev->version >= SACC_VERSION)
			ops |= 1ull << SACC_OP_FILL;
	}
	return ops;
}

int sacc_dev_info(const struct sacc_dev *dev, struct sacc_dev_info *out)
{
	struct sacc_devmem_info dm;

	if (!dev || !out)
		return sacc_seterr(NULL, EINVAL,
				   "sacc_dev_info: dev or out is NULL");
	memset(out, 0, sizeof(*out));
	if (dev->flags & SACC_OPEN_NO_INIT)
		return sacc_seterr((struct sacc_dev *)dev, ENOTCONN,
				   "%s: opened without rings "
				   "(SACC_OPEN_NO_INIT)",
				   dev->bdf);
	out->version = dev->version;
	out->channels = sacc_dev_channels(dev);
	out->channel = dev->chan;
	out->mode = dev->mode;
	out->sq_entries = dev->sq_entries;
	out->cq_entries = dev->cq_entries;
	out->max_xfer = SACC_MAX_XFER;
	out->ops = ops_of(dev);
	out->doorbell = dev->doorbell;
	if (dev->mode & SACC_MODE_V3) {
		out->caps |= SACC_CAP_V3;
		out->inline_max = SACC_INLINE_MAX;
	}
	if (out->ops & 1ull << SACC_OP_FILL)
		out->caps |= SACC_CAP_FILL;
	if (sacc_devmem_info(dev, &dm) == 0) {
		out->devmem_size = dm.size;
		if (dm.mapped && dm.size && (dev->mode & SACC_MODE_V3) &&
		    dev->version >= SACC_VERSION)
			out->caps |= SACC_CAP_DEVMEM;
	}
	if (dev->irq_enabled && dev->irq_fd >= 0)
		out->caps |= SACC_CAP_IRQ;
	if (dev->mode & SACC_MODE_SQ_DEV)
		out->caps |= SACC_CAP_SQ_DEV;
	if (dev->mode & SACC_MODE_TOKEN)
		out->caps |= SACC_CAP_TOKEN;
	out->caps |= SACC_CAP_CHAIN;
	return 0;
}

int sacc_dev_eventfds(const struct sacc_dev *dev, int *irq_fd, int *req_fd)
{
	if (!dev)
		return sacc_seterr(NULL, EINVAL,
				   "sacc_dev_eventfds: no device");
	if (!dev->irq_enabled || dev->irq_fd < 0)
		return sacc_seterr((struct sacc_dev *)dev, ENOTSUP,
				   "%s: interrupts are not set up", dev->bdf);
	if (irq_fd)
		*irq_fd = dev->irq_fd;
	if (req_fd)
		*req_fd = dev->req_fd;
	return 0;
}

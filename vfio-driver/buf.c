// SPDX-License-Identifier: MIT
/*
 * buf.c - the handle's DMA context (iommu/'s: opened, closed, its IOVA
 * ranges) and DMA buffers on top of it: page-granular anonymous memory,
 * least-privilege mapping from the access mode, guard pages, registry
 * names for fault attribution.
 * Device memory buffers (v0.4) are devmem.c's; they share the handle's
 * list, sacc_buf_free() and the accessors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sacc_priv.h"

int sacc_dev_dma_open(struct sacc_dev *dev)
{
	struct sacc_err e = {0};
	int ret;

	ret = sacc_dma_ctx_open(&dev->dma, dev->container_fd, &e);
	if (ret) {
		dev->dma = NULL;
		return sacc_seterr(dev, ret, "%s: %s", dev->bdf, e.msg);
	}
	return 0;
}

void sacc_dev_dma_close(struct sacc_dev *dev)
{
	sacc_dma_ctx_close(dev->dma);
	dev->dma = NULL;
}

int sacc_dev_iova_ranges(const struct sacc_dev *dev,
			 struct sacc_iova_range *out, unsigned int max,
			 uint64_t *pgsizes)
{
	const struct sacc_iommu_info *info;
	unsigned int i;

	if (!dev || !dev->dma)
		return sacc_seterr(NULL, EBADF, "device is not open");
	info = sacc_dma_ctx_info(dev->dma);
	if (pgsizes)
		*pgsizes = info->pgsizes;
	if (!info->has_iova_ranges) {
		/* No CAP_IOVA_RANGE: what iommu/ falls back to. */
		if (out && max) {
			out[0].start = SACC_IOVA_FALLBACK_START;
			out[0].end = SACC_IOVA_FALLBACK_END;
		}
		return 1;
	}
	for (i = 0; out && i < max && i < info->nr_ranges; i++)
		out[i] = info->ranges[i];
	return (int)info->nr_ranges;
}

struct sacc_dma_ctx *sacc_dev_dma(struct sacc_dev *dev)
{
	return dev ? dev->dma : NULL;
}

int sacc_buf_alloc_internal(struct sacc_dev *dev, size_t len,
			    enum sacc_dma_dir dir, const char *name,
			    bool internal, struct sacc_buf **out)
{
	struct sacc_err e = {0};
	char chname[SACC_BUF_NAME_MAX];
	struct sacc_buf *b;
	int ret;

	if (!out)
		return sacc_seterr(dev, EINVAL, "sacc_buf_alloc: out is NULL");
	*out = NULL;
	if (!dev || !dev->dma)
		return sacc_seterr(dev, EBADF, "sacc_buf_alloc: no device");
	if (dev->gone)
		return sacc_gone_err(dev);
	if (!name || !*name)
		name = "unnamed";
	if (len == 0 || len > (size_t)1 << 40)
		return sacc_seterr(dev, EINVAL,
				   "buffer '%s': length %zu must be 1 byte to "
				   "1 TiB",
				   name, len);
	if (dir != SACC_DMA_TO_DEVICE && dir != SACC_DMA_FROM_DEVICE &&
	    dir != SACC_DMA_BIDIRECTIONAL)
		return sacc_seterr(dev, EINVAL,
				   "buffer '%s': access mode %d is not "
				   "SACC_DMA_TO_DEVICE, _FROM_DEVICE or "
				   "_BIDIRECTIONAL",
				   name, (int)dir);
	b = calloc(1, sizeof(*b));
	if (!b)
		return sacc_seterr(dev, ENOMEM, "buffer '%s': out of memory",
				   name);
	if (dev->root) { /* a channel's: the registry names it */
		snprintf(chname, sizeof(chname), "ch%u:%s", dev->chan, name);
		name = chname;
	}
	ret = sacc_dma_buf_alloc(dev->dma, len, dir, name, &b->dma, &e);
	if (ret) {
		free(b);
		return sacc_seterr(dev, ret, "%s: buffer '%s' (%zu bytes): %s",
				   dev->bdf, name, len, e.msg);
	}
	b->magic = SACC_BUF_MAGIC;
	b->dev = dev;
	b->internal = internal;
	snprintf(b->name, sizeof(b->name), "%s", name);
	sacc_buf_link(dev, b);
	*out = b;
	return 0;
}

int sacc_buf_alloc(struct sacc_dev *dev, size_t len, enum sacc_dma_dir dir,
		   const char *name, struct sacc_buf **out)
{
	return sacc_buf_alloc_internal(dev, len, dir, name, false, out);
}

/*
 * Unmap and free.  If the unmap fails the pages must stay (the device
 * might still reach them): with @force (sacc_close, device quiesced,
 * container about to go) the record is dropped and the pages leak;
 * without it the buffer stays alive and the error is returned.
 */
static int buf_release(struct sacc_buf *b, bool force)
{
	struct sacc_dev *dev = b->dev;
	struct sacc_err e = {0};
	int ret;

	if (b->is_dev) { /* device memory: no mapping to undo */
		sacc_devmem_put(b);
		sacc_buf_unlink(dev, b);
		b->magic = 0;
		free(b);
		return 0;
	}
	ret = sacc_dma_buf_free(dev->dma, &b->dma, &e);
	if (ret && !force && b->dma.va)
		return sacc_seterr(dev, ret, "%s: freeing buffer '%s': %s",
				   dev->bdf, b->name, e.msg);
	sacc_buf_unlink(dev, b);
	b->magic = 0;
	free(b);
	if (ret)
		return sacc_seterr(dev, ret, "%s: freeing a buffer: %s",
				   dev->bdf, e.msg);
	return 0;
}

int sacc_buf_free(struct sacc_buf *b)
{
	if (!b)
		return 0;
	if (b->magic != SACC_BUF_MAGIC)
		return sacc_seterr(NULL, EINVAL,
				   "sacc_buf_free: not a live buffer (freed "
				   "twice?)");
	if (b->internal)
		return sacc_seterr(b->dev, EINVAL,
				   "buffer '%s' belongs to libsacc", b->name);
	if (b->graphs)
		return sacc_seterr(b->dev, EBUSY,
				   "buffer '%s' is named by the ops of %u "
				   "graph%s: sacc_graph_destroy() %s first",
				   b->name, b->graphs,
				   b->graphs == 1 ? "" : "s",
				   b->graphs == 1 ? "it" : "them");
	if (b->inflight)
		return sacc_seterr(b->dev, EBUSY,
				   "buffer '%s' is named by %u submitted "
				   "operation%s: reap them with sacc_poll() "
				   "or abandon them with sacc_reset() first",
				   b->name, b->inflight,
				   b->inflight == 1 ? "" : "s");
	return buf_release(b, false);
}

int sacc_buf_free_internal(struct sacc_buf *b)
{
	if (!b)
		return 0;
	if (b->magic != SACC_BUF_MAGIC || !b->internal)
		return sacc_seterr(NULL, EINVAL,
				   "sacc_buf_free_internal: not a live buffer "
				   "of libsacc's");
	return buf_release(b, false);
}

/* sacc_close(): the device is quiesced, every buffer can go. */
void sacc_buf_free_all(struct sacc_dev *dev)
{
	while (dev->bufs)
		buf_release(dev->bufs, true);
}

void *sacc_buf_va(const struct sacc_buf *b)
{
	return b ? b->dma.va : NULL;
}

size_t sacc_buf_len(const struct sacc_buf *b)
{
	return b ? (size_t)b->dma.len : 0;
}

uint64_t sacc_buf_iova(const struct sacc_buf *b)
{
	return b ? b->dma.iova : 0;
}

enum sacc_dma_dir sacc_buf_dir(const struct sacc_buf *b)
{
	return b ? b->dma.dir : (enum sacc_dma_dir)0;
}

const char *sacc_buf_name(const struct sacc_buf *b)
{
	return b ? b->name : "";
}

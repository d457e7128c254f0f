// SPDX-License-Identifier: MIT
/*
 * devmem.c - v0.4 device memory: BAR4, mapped once per device; a
 * page-granular first-fit allocator over it, shared by the device's
 * handle and its channels' handles; device buffers.
 *
 * A device buffer is a struct sacc_buf with is_dev set: its va is the
 * CPU's view of the range in the BAR4 mapping (plain loads and stores:
 * the model backs BAR4 with RAM), its device address (devaddr, an
 * offset into device memory) is what a descriptor names with
 * SACC_DESC_F_SRC_DEV / _DST_DEV, and it has no IOVA: the device never
 * reaches its own memory through the IOMMU, so there is no mapping, no
 * registry entry and no journal map/unmap line for it.  Buffers belong
 * to the handle they were allocated on, as host buffers do; the pages
 * come from the device's one allocator, which takes a lock (each handle
 * may run in a thread of its own).
 *
 * Device memory outlives channel resets, CTRL.ENABLE changes and
 * CTRL.RESET; an FLR (sacc_reset() of the device handle, vfio-pci's own
 * at open and release) zeroes it.
 */
#include <errno.h>
#include <linux/vfio.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sacc_mmio.h"
#include "sacc_priv.h"

/* ---- the allocator: free extents, sorted by offset, never touching ---- */

struct sacc_devmem_ext {
	uint64_t off, len;
};

struct sacc_devmem_pool {
	uint64_t size; /* bytes, a page multiple */
	uint64_t used; /* bytes allocated (whole pages) */
	uint32_t allocs;
	uint32_t n, cap;
	struct sacc_devmem_ext *ext;
};

static uint64_t pages_of(uint64_t len)
{
	return (len + SACC_PAGE_SIZE - 1) & ~(uint64_t)(SACC_PAGE_SIZE - 1);
}

int sacc_devmem_pool_create(uint64_t size, struct sacc_devmem_pool **out)
{
	struct sacc_devmem_pool *p;

	*out = NULL;
	if (!size || size % SACC_PAGE_SIZE)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->cap = 2;
	p->ext = calloc(p->cap, sizeof(*p->ext));
	if (!p->ext) {
		free(p);
		return -ENOMEM;
	}
	p->size = size;
	p->n = 1;
	p->ext[0] = (struct sacc_devmem_ext){0, size};
	*out = p;
	return 0;
}

void sacc_devmem_pool_destroy(struct sacc_devmem_pool *p)
{
	if (!p)
		return;
	free(p->ext);
	free(p);
}

/*
 * Free extents are separated by allocations, so there are at most
 * allocs + 1 of them: room for that many, made here while taking, means
 * giving back never needs memory (and never fails for want of it).
 */
static int pool_reserve(struct sacc_devmem_pool *p)
{
	struct sacc_devmem_ext *e;
	uint32_t cap;

	if (p->cap >= p->allocs + 2)
		return 0;
	cap = p->cap * 2 > p->allocs + 2 ? p->cap * 2 : p->allocs + 2;
	e = realloc(p->ext, cap * sizeof(*e));
	if (!e)
		return -ENOMEM;
	p->ext = e;
	p->cap = cap;
	return 0;
}

int sacc_devmem_pool_take(struct sacc_devmem_pool *p, uint64_t len,
			  uint64_t *off)
{
	uint64_t need = pages_of(len);
	uint32_t i;

	if (!len || len > p->size)
		return len ? -ENOSPC : -EINVAL;
	if (pool_reserve(p))
		return -ENOMEM;
	for (i = 0; i < p->n && p->ext[i].len < need; i++)
		;
	if (i == p->n)
		return -ENOSPC;
	*off = p->ext[i].off;
	p->ext[i].off += need;
	p->ext[i].len -= need;
	if (!p->ext[i].len) {
		memmove(&p->ext[i], &p->ext[i + 1],
			(p->n - i - 1) * sizeof(*p->ext));
		p->n--;
	}
	p->used += need;
	p->allocs++;
	return 0;
}

int sacc_devmem_pool_give(struct sacc_devmem_pool *p, uint64_t off,
			  uint64_t len)
{
	uint64_t need = pages_of(len);
	uint32_t i;
	bool prev, next;

	if (!len || off % SACC_PAGE_SIZE || off > p->size ||
	    need > p->size - off || !p->allocs)
		return -EINVAL;
	for (i = 0; i < p->n && p->ext[i].off < off; i++)
		;
	/* Must not overlap free space: a double free, or not ours. */
	if ((i > 0 && p->ext[i - 1].off + p->ext[i - 1].len > off) ||
	    (i < p->n && off + need > p->ext[i].off))
		return -EINVAL;
	prev = i > 0 && p->ext[i - 1].off + p->ext[i - 1].len == off;
	next = i < p->n && off + need == p->ext[i].off;
	if (prev && next) {
		p->ext[i - 1].len += need + p->ext[i].len;
		memmove(&p->ext[i], &p->ext[i + 1],
			(p->n - i - 1) * sizeof(*p->ext));
		p->n--;
	} else if (prev) {
		p->ext[i - 1].len += need;
	} else if (next) {
		p->ext[i].off = off;
		p->ext[i].len += need;
	} else {
		/* room: pool_reserve() */
		memmove(&p->ext[i + 1], &p->ext[i],
			(p->n - i) * sizeof(*p->ext));
		p->ext[i] = (struct sacc_devmem_ext){off, need};
		p->n++;
	}
	p->used -= need;
	p->allocs--;
	return 0;
}

void sacc_devmem_pool_usage(struct sacc_devmem_pool *p, uint64_t *used,
			    uint64_t *largest, uint32_t *allocs,
			    uint32_t *extents)
{
	uint64_t big = 0;

	for (uint32_t i = 0; i < p->n; i++)
		if (p->ext[i].len > big)
			big = p->ext[i].len;
	if (used)
		*used = p->used;
	if (largest)
		*largest = big;
	if (allocs)
		*allocs = p->allocs;
	if (extents)
		*extents = p->n;
}

/* ---- BAR4 ---- */

struct sacc_devmem {
	pthread_mutex_t lock; /* the pool: every handle of the device */
	struct sacc_devmem_pool *pool;
	void *map;	/* BAR4 (anonymous memory once released) */
	uint64_t size;	/* DEVMEM_SIZE */
	uint64_t epoch; /* bumped when an FLR zeroes it (atomic) */
	bool released;	/* the kernel took the device back */
};

static struct sacc_dev *root_of(const struct sacc_dev *dev)
{
	return (struct sacc_dev *)(dev->root ? dev->root : dev);
}

int sacc_devmem_attach(struct sacc_dev *dev, void *map, uint64_t size)
{
	struct sacc_devmem *m = calloc(1, sizeof(*m));

	if (!m || sacc_devmem_pool_create(size, &m->pool)) {
		free(m);
		munmap(map, size);
		return sacc_seterr(dev, ENOMEM,
				   "%s: out of memory for the device memory "
				   "allocator",
				   dev->bdf);
	}
	pthread_mutex_init(&m->lock, NULL);
	m->map = map;
	m->size = size;
	dev->devmem = m;
	return 0;
}

static void no_devmem(struct sacc_dev *dev, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void no_devmem(struct sacc_dev *dev, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sacc_err_vset(&dev->devmem_why, err, fmt, ap);
	va_end(ap);
}

/* DEVMEM_SIZE (BAR2 page 0, v0.4): two halves, low first. */
static uint64_t devmem_size_reg(struct sacc_dev *dev)
{
	uint64_t lo = sacc_mmio_read32(dev->bar2_map, SACC_DEV_DEVMEM_SIZE);
	uint64_t hi = sacc_mmio_read32(dev->bar2_map, SACC_DEV_DEVMEM_SIZE + 4);

	return hi << 32 | lo;
}

int sacc_devmem_open(struct sacc_dev *dev)
{
	uint64_t size;
	void *p;

	dev->devmem = NULL;
	if (dev->version < SACC_VERSION || !dev->bar2_map) {
		no_devmem(dev, ENOTSUP,
			  "the device has VERSION %u; device memory needs a "
			  "v0.4 device (VERSION %u or later)",
			  dev->version, SACC_VERSION);
		return 0;
	}
	size = devmem_size_reg(dev);
	if (!size) {
		no_devmem(dev, ENOTSUP,
			  "DEVMEM_SIZE is 0: this device was made without "
			  "device memory (no BAR4)");
		return 0;
	}
	if ((size & (size - 1)) || size < SACC_PAGE_SIZE) {
		no_devmem(dev, EIO,
			  "DEVMEM_SIZE reads 0x%llx, not a power of two of at "
			  "least 4 KiB; not using it",
			  (unsigned long long)size);
		return 0;
	}
	if (!dev->bar4.valid || dev->bar4.size < size ||
	    !(dev->bar4.flags & VFIO_REGION_INFO_FLAG_MMAP)) {
		no_devmem(dev, ENOTSUP,
			  "DEVMEM_SIZE is %llu bytes but BAR4 is %llu bytes "
			  "(VFIO region flags 0x%x): it must be that large "
			  "and mmappable",
			  (unsigned long long)size,
			  (unsigned long long)dev->bar4.size, dev->bar4.flags);
		return 0;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, dev->device_fd,
		 (off_t)dev->bar4.offset);
	if (p == MAP_FAILED) {
		no_devmem(dev, errno, "mmap of BAR4 (%llu bytes): %s",
			  (unsigned long long)size, strerror(errno));
		return 0;
	}
	return sacc_devmem_attach(dev, p, size);
}

void sacc_devmem_close(struct sacc_dev *dev)
{
	struct sacc_devmem *m = dev->devmem;

	if (!m)
		return;
	munmap(m->map, m->size);
	sacc_devmem_pool_destroy(m->pool);
	pthread_mutex_destroy(&m->lock);
	free(m);
	dev->devmem = NULL;
}

void sacc_devmem_release(struct sacc_dev *dev)
{
	struct sacc_devmem *m = dev->devmem;
	void *p;

	if (!m || m->released)
		return;
	/* One call swaps BAR4's pages for zeroed anonymous ones: no
	 * moment where a device buffer's va is unmapped. */
	p = mmap(m->map, m->size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED)
		munmap(m->map, m->size); /* the device must go regardless */
	m->released = true;
}

uint64_t sacc_devmem_size(const struct sacc_dev *dev)
{
	const struct sacc_devmem *m = root_of(dev)->devmem;

	return m ? m->size : 0;
}

uint64_t sacc_devmem_epoch(const struct sacc_dev *dev)
{
	const struct sacc_devmem *m = root_of(dev)->devmem;

	return m ? __atomic_load_n(&m->epoch, __ATOMIC_ACQUIRE) : 0;
}

void sacc_devmem_scrubbed(struct sacc_dev *dev)
{
	struct sacc_devmem *m = root_of(dev)->devmem;

	if (m)
		__atomic_add_fetch(&m->epoch, 1, __ATOMIC_RELEASE);
}

/* Was the access of FAULT_INFO @info to device memory (its FAULT_ADDR a
 * device address, not an IOVA)? */
bool sacc_fault_in_devmem(const struct sacc_dev *dev, uint32_t info)
{
	uint32_t a = info & SACC_FAULT_ACCESS_MASK;

	if (a == SACC_FAULT_DEV_READ || a == SACC_FAULT_DEV_WRITE)
		return true;
	/* MODE.SQ_DEV: descriptors, payloads and PUT word are fetched
	 * from device memory */
	return (dev->mode & SACC_MODE_SQ_DEV) &&
	       (a == SACC_FAULT_DESC_FETCH || a == SACC_FAULT_INLINE_READ ||
		a == SACC_FAULT_PUT_READ);
}

/* ---- device buffers ---- */

int sacc_devmem_alloc_internal(struct sacc_dev *dev, size_t len,
			       const char *name, bool internal,
			       struct sacc_buf **out)
{
	char chname[SACC_BUF_NAME_MAX], a[32], b1[32], b2[32];
	struct sacc_devmem *m;
	struct sacc_buf *b;
	uint64_t off = 0, used = 0, big = 0;
	int ret;

	if (!out)
		return sacc_seterr(dev, EINVAL,
				   "sacc_devmem_alloc: out is NULL");
	*out = NULL;
	if (!dev)
		return sacc_seterr(NULL, EINVAL,
				   "sacc_devmem_alloc: dev is NULL");
	if (dev->gone)
		return sacc_gone_err(dev);
	if (root_of(dev)->gone)
		return sacc_seterr(dev, ENODEV, "%s",
				   root_of(dev)->why_gone.msg);
	if (!name || !*name)
		name = "unnamed";
	m = root_of(dev)->devmem;
	if (!m)
		return sacc_seterr(dev, root_of(dev)->devmem_why.code,
				   "%s: device buffer '%s': no device memory: "
				   "%s",
				   dev->bdf, name,
				   root_of(dev)->devmem_why.msg);
	if (len == 0 || len > m->size)
		return sacc_seterr(dev, EINVAL,
				   "device buffer '%s': length %zu must be 1 "
				   "byte to the device memory's %s",
				   name, len,
				   sacc_fmt_bytes(m->size, a, sizeof(a)));
	b = calloc(1, sizeof(*b));
	if (!b)
		return sacc_seterr(dev, ENOMEM, "buffer '%s': out of memory",
				   name);
	if (dev->root) { /* a channel's, named as its host buffers are */
		snprintf(chname, sizeof(chname), "ch%u:%s", dev->chan, name);
		name = chname;
	}
	pthread_mutex_lock(&m->lock);
	ret = sacc_devmem_pool_take(m->pool, len, &off);
	if (ret)
		sacc_devmem_pool_usage(m->pool, &used, &big, NULL, NULL);
	pthread_mutex_unlock(&m->lock);
	if (ret) {
		free(b);
		if (ret == -ENOMEM)
			return sacc_seterr(dev, ENOMEM,
					   "device buffer '%s': out of memory",
					   name);
		return sacc_seterr(
		    dev, ENOSPC,
		    "%s: device buffer '%s' (%zu bytes): out of device "
		    "memory: %s of %s in use, %s free, the largest free run "
		    "%s; free device buffers (sacc_buf_free()) or ask for less",
		    dev->bdf, name, len, sacc_fmt_bytes(used, a, sizeof(a)),
		    sacc_fmt_bytes(m->size, b1, sizeof(b1)),
		    sacc_fmt_bytes(m->size - used, b2, sizeof(b2)),
		    sacc_fmt_bytes(big, chname, sizeof(chname)));
	}
	b->magic = SACC_BUF_MAGIC;
	b->dev = dev;
	b->internal = internal;
	b->is_dev = true;
	b->devaddr = off;
	b->dma.va = (char *)m->map + off;
	b->dma.len = len;
	b->dma.map_len = pages_of(len);
	b->dma.dir = SACC_DMA_BIDIRECTIONAL;
	/* Fresh memory is zeroed, as a host buffer's is. */
	memset(b->dma.va, 0, b->dma.map_len);
	snprintf(b->name, sizeof(b->name), "%s", name);
	sacc_buf_link(dev, b);
	*out = b;
	return 0;
}

int sacc_devmem_alloc(struct sacc_dev *dev, size_t len, const char *name,
		      struct sacc_buf **out)
{
	return sacc_devmem_alloc_internal(dev, len, name, false, out);
}

void sacc_devmem_put(struct sacc_buf *b)
{
	struct sacc_devmem *m = root_of(b->dev)->devmem;

	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	sacc_devmem_pool_give(m->pool, b->devaddr, b->dma.map_len);
	pthread_mutex_unlock(&m->lock);
}

bool sacc_buf_is_dev(const struct sacc_buf *b)
{
	return b && b->is_dev;
}

uint64_t sacc_buf_devaddr(const struct sacc_buf *b)
{
	return b && b->is_dev ? b->devaddr : UINT64_MAX;
}

int sacc_devmem_info(const struct sacc_dev *dev, struct sacc_devmem_info *out)
{
	const struct sacc_dev *root;
	struct sacc_devmem *m;

	if (!dev || !out)
		return sacc_seterr(NULL, EINVAL,
				   "sacc_devmem_info: dev or out is NULL");
	memset(out, 0, sizeof(*out));
	root = root_of(dev);
	m = root->devmem;
	if (!m) {
		out->why = root->devmem_why.msg;
		if (root->version >= SACC_VERSION && root->bar2_map)
			out->size = devmem_size_reg(root_of(dev));
		return 0;
	}
	out->size = m->size;
	out->mapped = !m->released;
	if (m->released)
		out->why = "the device was let go of (unbind)";
	pthread_mutex_lock(&m->lock);
	sacc_devmem_pool_usage(m->pool, &out->used, &out->largest_free,
			       &out->buffers, NULL);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

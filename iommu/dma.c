// SPDX-License-Identifier: MIT
/*
 * dma.c - VFIO map/unmap, pinned-memory accounting and the per-container
 * DMA context (allocator + registry + the ioctls).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/vfio.h>

#include "sacc_iommu.h"

#define DMA_ENTRY_LIMIT_PATH                                                   \
	"/sys/module/vfio_iommu_type1/parameters/dma_entry_limit"

/* Bytes pinned by every context in this process (RLIMIT_MEMLOCK is
 * charged to the process, not to a container). */
static _Atomic uint64_t process_pinned;

/* ---- raw VFIO ---- */

int sacc_vfio_map_dma(int container_fd, uint64_t vaddr, uint64_t iova,
		      uint64_t len, uint32_t flags, struct sacc_err *err)
{
	struct vfio_iommu_type1_dma_map map = {
	    .argsz = sizeof(map),
	    .flags = flags,
	    .vaddr = vaddr,
	    .iova = iova,
	    .size = len,
	};

	if (ioctl(container_fd, VFIO_IOMMU_MAP_DMA, &map) < 0) {
		int e = errno;

		return sacc_err_set(err, e,
				    "VFIO_IOMMU_MAP_DMA of %" PRIu64
				    " bytes at iova 0x%" PRIx64
				    " (vaddr 0x%" PRIx64 "): %s",
				    len, iova, vaddr, strerror(e));
	}
	return 0;
}

static int vfio_unmap_raw(int container_fd, uint64_t iova, uint64_t len,
			  uint64_t *unmapped)
{
	struct vfio_iommu_type1_dma_unmap unmap = {
	    .argsz = sizeof(unmap),
	    .iova = iova,
	    .size = len,
	};

	if (ioctl(container_fd, VFIO_IOMMU_UNMAP_DMA, &unmap) < 0)
		return -errno;
	*unmapped = unmap.size;
	return 0;
}

static int check_unmapped(int ret, uint64_t iova, uint64_t len,
			  uint64_t unmapped, struct sacc_err *err)
{
	if (ret)
		return sacc_err_set(err, ret,
				    "VFIO_IOMMU_UNMAP_DMA of %" PRIu64
				    " bytes at iova 0x%" PRIx64 ": %s",
				    len, iova, strerror(-ret));
	if (unmapped != len)
		return sacc_err_set(err, EIO,
				    "VFIO_IOMMU_UNMAP_DMA at iova 0x%" PRIx64
				    " unmapped %" PRIu64
				    " bytes, expected %" PRIu64,
				    iova, unmapped, len);
	return 0;
}

int sacc_vfio_unmap_dma(int container_fd, uint64_t iova, uint64_t len,
			struct sacc_err *err)
{
	uint64_t unmapped = 0;
	int ret = vfio_unmap_raw(container_fd, iova, len, &unmapped);

	return check_unmapped(ret, iova, len, unmapped, err);
}

/* ---- limits ---- */

int sacc_dma_read_limits(struct sacc_dma_limits *lim, struct sacc_err *err)
{
	struct rlimit rl;
	struct __user_cap_header_struct hdr = {
	    .version = _LINUX_CAPABILITY_VERSION_3,
	    .pid = 0,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (!lim)
		return sacc_err_set(err, EINVAL, "NULL limits");
	memset(lim, 0, sizeof(*lim));
	if (getrlimit(RLIMIT_MEMLOCK, &rl) < 0)
		return sacc_err_set(err, errno, "getrlimit(RLIMIT_MEMLOCK): %s",
				    strerror(errno));
	lim->memlock_limit =
	    rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) == 0)
		lim->memlock_exempt =
		    !!(data[CAP_TO_INDEX(CAP_IPC_LOCK)].effective &
		       CAP_TO_MASK(CAP_IPC_LOCK));
	return 0;
}

static int memlock_msg(struct sacc_err *err, const char *prefix,
		       const struct sacc_dma_limits *lim, uint64_t pinned,
		       uint64_t add)
{
	char a[32], l[32], u[32];

	return sacc_err_set(
	    err, ENOMEM,
	    "%spinning %s more would exceed RLIMIT_MEMLOCK (%s, %s in use): "
	    "raise it with `ulimit -l` or limits.conf",
	    prefix, sacc_fmt_bytes(add, a, sizeof(a)),
	    lim->memlock_limit == UINT64_MAX
		? "unlimited"
		: sacc_fmt_bytes(lim->memlock_limit, l, sizeof(l)),
	    sacc_fmt_bytes(pinned, u, sizeof(u)));
}

static int entry_limit_msg(struct sacc_err *err, const char *prefix,
			   uint32_t nr)
{
	return sacc_err_set(err, ENOSPC,
			    "%sVFIO dma_entry_limit reached (%" PRIu32
			    " mappings): raise " DMA_ENTRY_LIMIT_PATH,
			    prefix, nr);
}

int sacc_dma_check_limits(const struct sacc_dma_limits *lim, uint64_t pinned,
			  uint32_t nr_new, uint64_t add_bytes,
			  struct sacc_err *err)
{
	if (!lim)
		return sacc_err_set(err, EINVAL, "NULL limits");
	if (!lim->memlock_exempt && lim->memlock_limit != UINT64_MAX &&
	    (pinned > lim->memlock_limit ||
	     add_bytes > lim->memlock_limit - pinned))
		return memlock_msg(err, "", lim, pinned, add_bytes);
	if (lim->dma_avail_known && nr_new >= lim->dma_avail)
		return entry_limit_msg(err, "", nr_new);
	return 0;
}

int sacc_dma_explain_map_errno(int errnum, const struct sacc_dma_limits *lim,
			       uint64_t pinned, uint32_t nr_new,
			       uint64_t add_bytes, struct sacc_err *err)
{
	static const struct sacc_dma_limits none = {
	    .memlock_limit = UINT64_MAX,
	};

	if (errnum < 0)
		errnum = -errnum;
	if (!lim)
		lim = &none;
	if (errnum == ENOMEM) {
		if (lim->memlock_exempt) {
			char a[32];

			return sacc_err_set(
			    err, ENOMEM,
			    "VFIO_IOMMU_MAP_DMA: out of memory pinning %s "
			    "(CAP_IPC_LOCK is held, so RLIMIT_MEMLOCK is not "
			    "the cause)",
			    sacc_fmt_bytes(add_bytes, a, sizeof(a)));
		}
		return memlock_msg(err, "VFIO_IOMMU_MAP_DMA: ", lim, pinned,
				   add_bytes);
	}
	if (errnum == ENOSPC)
		return entry_limit_msg(err, "VFIO_IOMMU_MAP_DMA: ", nr_new);
	return sacc_err_set(err, errnum, "VFIO_IOMMU_MAP_DMA: %s",
			    strerror(errnum));
}

/* ---- system memory ---- */

uint64_t sacc_mem_reserve(uint64_t mem_total)
{
	return mem_total / 32 > SACC_MEM_RESERVE_MIN ? mem_total / 32
						     : SACC_MEM_RESERVE_MIN;
}

int sacc_meminfo_read(const char *path, uint64_t *avail, uint64_t *total,
		      struct sacc_err *err)
{
	unsigned long long kb;
	bool has_avail = false, has_total = false;
	char line[256];
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return sacc_err_set(err, ENOENT, "cannot read %s: %s", path,
				    strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
			*avail = (uint64_t)kb * 1024;
			has_avail = true;
		} else if (sscanf(line, "MemTotal: %llu kB", &kb) == 1) {
			*total = (uint64_t)kb * 1024;
			has_total = true;
		}
	}
	fclose(f);
	if (!has_avail || !has_total)
		return sacc_err_set(err, EINVAL,
				    "%s has no MemAvailable or MemTotal line",
				    path);
	return 0;
}

int sacc_dma_check_memory(uint64_t avail, uint64_t total, uint64_t add,
			  struct sacc_err *err)
{
	uint64_t reserve = sacc_mem_reserve(total);
	char a[32], l[32], m[32], r[32];

	if (add <= avail && avail - add >= reserve)
		return 0;
	return sacc_err_set(
	    err, ENOMEM,
	    "pinning %s would leave %s of MemAvailable (%s now), less than "
	    "the %s libsacc keeps free: pinned memory cannot be reclaimed, "
	    "and the OOM killer would end this process; free buffers, use "
	    "smaller ones, or give the machine more memory",
	    sacc_fmt_bytes(add, a, sizeof(a)),
	    sacc_fmt_bytes(add <= avail ? avail - add : 0, l, sizeof(l)),
	    sacc_fmt_bytes(avail, m, sizeof(m)),
	    sacc_fmt_bytes(reserve, r, sizeof(r)));
}

/* ---- context ---- */

struct sacc_dma_ctx {
	pthread_mutex_t lock;
	int fd;
	struct sacc_iommu_info info;
	struct sacc_dma_limits limits;
	struct sacc_dma_backend backend;
	bool has_backend;
	struct sacc_iova_alloc *alloc;
	struct sacc_dma_registry *reg;
	uint64_t page;
	uint64_t pinned;
	uint32_t nr_maps;
	struct sacc_dma_observer obs; /* callbacks NULL: none */
	char meminfo[128];	      /* "": no memory check */
};

void sacc_dma_ctx_set_meminfo(struct sacc_dma_ctx *ctx, const char *path)
{
	pthread_mutex_lock(&ctx->lock);
	snprintf(ctx->meminfo, sizeof(ctx->meminfo), "%s", path ? path : "");
	pthread_mutex_unlock(&ctx->lock);
}

void sacc_dma_ctx_set_observer(struct sacc_dma_ctx *ctx,
			       const struct sacc_dma_observer *obs)
{
	if (!ctx)
		return;
	pthread_mutex_lock(&ctx->lock);
	if (obs)
		ctx->obs = *obs;
	else
		memset(&ctx->obs, 0, sizeof(ctx->obs));
	pthread_mutex_unlock(&ctx->lock);
}

/* Both with ctx->lock held. */
static void observe_map(struct sacc_dma_ctx *ctx, uint64_t iova)
{
	struct sacc_map_entry e;

	if (ctx->obs.mapped && !sacc_dma_registry_find(ctx->reg, iova, &e))
		ctx->obs.mapped(ctx->obs.opaque, &e);
}

static void observe_unmap(struct sacc_dma_ctx *ctx,
			  const struct sacc_map_entry *e)
{
	if (ctx->obs.unmapped)
		ctx->obs.unmapped(ctx->obs.opaque, e);
}

int sacc_dma_ctx_create(struct sacc_dma_ctx **out, int container_fd,
			const struct sacc_iommu_info *info,
			const struct sacc_dma_limits *limits,
			const struct sacc_dma_backend *backend,
			struct sacc_err *err)
{
	struct sacc_dma_ctx *ctx;
	struct sacc_iova_range fallback = {SACC_IOVA_FALLBACK_START,
					   SACC_IOVA_FALLBACK_END};
	const struct sacc_iova_range *ranges = &fallback;
	size_t nr = 1;
	int ret;

	if (!out || !info)
		return sacc_err_set(err, EINVAL, "NULL DMA context arguments");
	*out = NULL;
	if (backend && (!backend->map || !backend->unmap))
		return sacc_err_set(err, EINVAL, "incomplete DMA backend");
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return sacc_err_set(err, ENOMEM, "allocating the DMA context");
	ctx->fd = container_fd;
	ctx->info = *info;
	snprintf(ctx->meminfo, sizeof(ctx->meminfo), "/proc/meminfo");
	if (limits) {
		ctx->limits = *limits;
	} else {
		ret = sacc_dma_read_limits(&ctx->limits, err);
		if (ret)
			goto fail;
	}
	if (info->has_dma_avail) {
		ctx->limits.dma_avail_known = true;
		ctx->limits.dma_avail = info->dma_avail;
	}
	if (backend) {
		ctx->backend = *backend;
		ctx->has_backend = true;
	}
	if (info->has_iova_ranges && info->nr_ranges) {
		ranges = info->ranges;
		nr = info->nr_ranges;
	}
	ret =
	    sacc_iova_alloc_create(&ctx->alloc, ranges, nr, info->pgsizes, err);
	if (ret)
		goto fail;
	ctx->page = sacc_iova_page_size(ctx->alloc);
	/* Freed IOVA waits before reuse: a device holding a stale one
	 * keeps faulting instead of reaching the next buffer. */
	{
		uint64_t q = sacc_iova_free_bytes(ctx->alloc) / 8;

		sacc_iova_alloc_set_quarantine(
		    ctx->alloc, SACC_IOVA_QUARANTINE_ALLOCS,
		    q < SACC_IOVA_QUARANTINE_BYTES
			? q
			: SACC_IOVA_QUARANTINE_BYTES);
	}
	ret =
	    sacc_dma_registry_create(&ctx->reg, ranges, nr, ctx->page, 0, err);
	if (ret)
		goto fail;
	pthread_mutex_init(&ctx->lock, NULL);
	*out = ctx;
	return 0;
fail:
	sacc_iova_alloc_destroy(ctx->alloc);
	free(ctx);
	return ret;
}

int sacc_dma_ctx_open(struct sacc_dma_ctx **out, int container_fd,
		      struct sacc_err *err)
{
	struct sacc_iommu_info info;
	int ret = sacc_iommu_get_info(container_fd, &info, err);

	if (ret)
		return ret;
	return sacc_dma_ctx_create(out, container_fd, &info, NULL, NULL, err);
}

static int do_map(struct sacc_dma_ctx *ctx, uint64_t vaddr, uint64_t iova,
		  uint64_t len, uint32_t flags)
{
	if (ctx->has_backend)
		return ctx->backend.map(ctx->backend.opaque, vaddr, iova, len,
					flags);
	return sacc_vfio_map_dma(ctx->fd, vaddr, iova, len, flags, NULL);
}

static int do_unmap(struct sacc_dma_ctx *ctx, uint64_t iova, uint64_t len,
		    struct sacc_err *err)
{
	uint64_t unmapped = 0;
	int ret;

	if (ctx->has_backend)
		ret = ctx->backend.unmap(ctx->backend.opaque, iova, len,
					 &unmapped);
	else
		ret = vfio_unmap_raw(ctx->fd, iova, len, &unmapped);
	return check_unmapped(ret, iova, len, unmapped, err);
}

int sacc_dma_map(struct sacc_dma_ctx *ctx, void *vaddr, uint64_t len,
		 enum sacc_dma_dir dir, const char *name, uint64_t *iova,
		 struct sacc_err *err)
{
	uint32_t flags = sacc_dma_dir_flags(dir);
	uint64_t va = (uint64_t)(uintptr_t)vaddr, map_len, at;
	struct sacc_err sub;
	int ret;

	if (!ctx || !iova)
		return sacc_err_set(err, EINVAL, "NULL DMA map arguments");
	if (!name)
		name = "unnamed";
	if (!flags)
		return sacc_err_set(err, EINVAL,
				    "mapping '%s': invalid DMA direction %d",
				    name, (int)dir);
	if (!len || len > UINT64_MAX - ctx->page)
		return sacc_err_set(err, EINVAL,
				    "mapping '%s': bad length %" PRIu64, name,
				    len);
	if (va & (ctx->page - 1))
		return sacc_err_set(
		    err, EINVAL,
		    "mapping '%s': vaddr %p is not aligned to the %" PRIu64
		    "-byte IOMMU page (DMA buffers must be page-granular)",
		    name, vaddr, ctx->page);
	map_len = (len + ctx->page - 1) & ~(ctx->page - 1);

	pthread_mutex_lock(&ctx->lock);
	ret = sacc_dma_check_limits(&ctx->limits, atomic_load(&process_pinned),
				    ctx->nr_maps, map_len, err);
	if (ret)
		goto out;
	ret = sacc_iova_alloc(ctx->alloc, map_len, &at, &sub);
	if (ret) {
		sacc_err_set(err, ret, "mapping '%s': %s", name, sub.msg);
		goto out;
	}
	ret = do_map(ctx, va, at, map_len, flags);
	if (ret) {
		/* never mapped: no device can hold it */
		sacc_iova_release(ctx->alloc, at, NULL);
		if (ret == -ENOMEM || ret == -ENOSPC)
			sacc_dma_explain_map_errno(ret, &ctx->limits,
						   atomic_load(&process_pinned),
						   ctx->nr_maps, map_len, err);
		else
			sacc_err_set(err, ret,
				     "VFIO_IOMMU_MAP_DMA of '%s' (%" PRIu64
				     " bytes at iova 0x%" PRIx64 ", %s): %s",
				     name, map_len, at, sacc_dma_dir_name(dir),
				     strerror(-ret));
		goto out;
	}
	ret = sacc_dma_registry_add(ctx->reg, at, map_len, va, dir, name, err);
	if (ret) {
		do_unmap(ctx, at, map_len, NULL);
		sacc_iova_release(ctx->alloc, at,
				  NULL); /* no device was told */
		goto out;
	}
	ctx->pinned += map_len;
	ctx->nr_maps++;
	atomic_fetch_add(&process_pinned, map_len);
	*iova = at;
	observe_map(ctx, at);
out:
	pthread_mutex_unlock(&ctx->lock);
	return ret;
}

int sacc_dma_unmap(struct sacc_dma_ctx *ctx, uint64_t iova,
		   struct sacc_err *err)
{
	struct sacc_map_entry e;
	int ret;

	if (!ctx)
		return sacc_err_set(err, EINVAL, "NULL DMA context");
	pthread_mutex_lock(&ctx->lock);
	if (sacc_dma_registry_find(ctx->reg, iova, &e)) {
		ret = sacc_err_set(
		    err, ENOENT, "unmap: no mapping starts at iova 0x%" PRIx64,
		    iova);
		goto out;
	}
	ret = do_unmap(ctx, e.iova, e.len, err);
	if (ret && ret != -EIO)
		goto out; /* still mapped: keep every record */
	/*
	 * Unmapped (or the kernel unmapped a different size: -EIO).  On
	 * -EIO the IOVA is retired, never handed out again.
	 */
	sacc_dma_registry_remove(ctx->reg, e.iova, &e, NULL);
	if (!ret)
		sacc_iova_free(ctx->alloc, e.iova, NULL);
	ctx->pinned -= e.len;
	ctx->nr_maps--;
	atomic_fetch_sub(&process_pinned, e.len);
	observe_unmap(ctx, &e);
out:
	pthread_mutex_unlock(&ctx->lock);
	return ret;
}

void sacc_dma_ctx_close(struct sacc_dma_ctx *ctx)
{
	struct sacc_map_entry e;

	if (!ctx)
		return;
	/* unmap whatever is left, lowest IOVA first */
	while (sacc_dma_registry_snapshot(ctx->reg, &e, 1) == 1) {
		/* on failure drop the record anyway: closing the container
		 * releases the kernel's mappings */
		if (sacc_dma_unmap(ctx, e.iova, NULL) &&
		    sacc_dma_registry_find(ctx->reg, e.iova, NULL) == 0) {
			pthread_mutex_lock(&ctx->lock);
			if (!sacc_dma_registry_remove(ctx->reg, e.iova, &e,
						      NULL))
				observe_unmap(ctx, &e);
			pthread_mutex_unlock(&ctx->lock);
		}
	}
	/* whatever failed to unmap is released with the container */
	atomic_fetch_sub(&process_pinned, ctx->pinned);
	sacc_dma_registry_destroy(ctx->reg);
	sacc_iova_alloc_destroy(ctx->alloc);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
}

/* mmap @len bytes aligned to @align (a power of two >= the CPU page). */
static void *map_aligned(uint64_t len, uint64_t align)
{
	uint64_t cpu = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t extra = align > cpu ? align - cpu : 0;
	uint8_t *p, *a;

	p = mmap(NULL, len + extra, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	a = (uint8_t *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	if (a > p)
		munmap(p, a - p);
	if (extra - (uint64_t)(a - p))
		munmap(a + len, extra - (a - p));
	return a;
}

int sacc_dma_buf_alloc(struct sacc_dma_ctx *ctx, uint64_t len,
		       enum sacc_dma_dir dir, const char *name,
		       struct sacc_dma_buf *buf, struct sacc_err *err)
{
	uint64_t map_len;
	void *va;
	int ret;

	if (!ctx || !buf)
		return sacc_err_set(err, EINVAL, "NULL DMA buffer arguments");
	if (!len || len > UINT64_MAX / 2)
		return sacc_err_set(err, EINVAL,
				    "DMA buffer '%s': bad length %" PRIu64,
				    name ? name : "unnamed", len);
	map_len = (len + ctx->page - 1) & ~(ctx->page - 1);
	/* Before a page is touched: refuse what would wake the OOM killer
	 * (the memset below and the pinning fault every page in). */
	pthread_mutex_lock(&ctx->lock);
	if (ctx->meminfo[0]) {
		uint64_t avail, total;
		struct sacc_err sub;

		if (!sacc_meminfo_read(ctx->meminfo, &avail, &total, NULL) &&
		    sacc_dma_check_memory(avail, total, map_len, &sub)) {
			pthread_mutex_unlock(&ctx->lock);
			return sacc_err_set(err, ENOMEM, "DMA buffer '%s': %s",
					    name ? name : "unnamed", sub.msg);
		}
	}
	pthread_mutex_unlock(&ctx->lock);
	va = map_aligned(map_len, ctx->page);
	if (!va)
		return sacc_err_set(
		    err, errno,
		    "DMA buffer '%s': mmap of %" PRIu64 " bytes: %s",
		    name ? name : "unnamed", map_len, strerror(errno));
	/* Fault the pages in now and keep them out of fork()ed children. */
	memset(va, 0, map_len);
	madvise(va, map_len, MADV_DONTFORK);
	ret = sacc_dma_map(ctx, va, map_len, dir, name, &buf->iova, err);
	if (ret) {
		munmap(va, map_len);
		return ret;
	}
	buf->va = va;
	buf->len = len;
	buf->map_len = map_len;
	buf->dir = dir;
	return 0;
}

int sacc_dma_buf_free(struct sacc_dma_ctx *ctx, struct sacc_dma_buf *buf,
		      struct sacc_err *err)
{
	int ret;

	if (!ctx || !buf || !buf->va)
		return sacc_err_set(err, EINVAL, "NULL DMA buffer");
	ret = sacc_dma_unmap(ctx, buf->iova, err);
	if (ret && ret != -EIO)
		return ret; /* still mapped: the pages must stay */
	munmap(buf->va, buf->map_len);
	memset(buf, 0, sizeof(*buf));
	return ret;
}

int sacc_dma_lookup(struct sacc_dma_ctx *ctx, uint64_t iova, uint64_t at_ns,
		    struct sacc_iova_lookup *out)
{
	if (!ctx)
		return -EINVAL;
	return sacc_dma_registry_lookup(ctx->reg, iova, at_ns, out);
}

struct sacc_dma_registry *sacc_dma_ctx_registry(struct sacc_dma_ctx *ctx)
{
	return ctx->reg;
}

const struct sacc_iommu_info *sacc_dma_ctx_info(const struct sacc_dma_ctx *ctx)
{
	return &ctx->info;
}

void sacc_dma_ctx_stats(struct sacc_dma_ctx *ctx, struct sacc_dma_stats *st)
{
	pthread_mutex_lock(&ctx->lock);
	st->pinned_bytes = ctx->pinned;
	st->nr_mappings = ctx->nr_maps;
	st->process_pinned_bytes = atomic_load(&process_pinned);
	st->page_size = ctx->page;
	st->limits = ctx->limits;
	pthread_mutex_unlock(&ctx->lock);
}

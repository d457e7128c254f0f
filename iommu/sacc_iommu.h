/* SPDX-License-Identifier: MIT */
/*
 * sacc_iommu.h - VFIO Type1 DMA mapping for SACC: IOMMU info parsing,
 * IOVA allocation with guard pages, least-privilege permissions,
 * pinned-memory accounting and a mapping registry for fault attribution.
 *
 * Errors follow base/sacc_base.h: a negative errno, and the message in
 * the caller's `struct sacc_err *err` (may be NULL).
 *
 * Layers, lowest first (each file uses only the ones above it):
 *   sacc_iommu_parse_info()  pure parser of a VFIO_IOMMU_GET_INFO buffer
 *   sacc_iommu_get_info()    the ioctl wrapper (grows the buffer)  info.c
 *   sacc_iova_alloc_*        IOVA allocator (pure)                alloc.c
 *   sacc_dma_dir_flags()     permission choice (pure)              perm.c
 *   sacc_dma_registry_*      mapping registry + history (pure) registry.c
 *   sacc_vfio_map_dma()/unmap_dma()   raw ioctl wrappers            dma.c
 *   sacc_dma_check_limits()  memlock / dma_entry_limit check (pure) dma.c
 *   sacc_dma_ctx_*           per-container object combining all of the
 *                            above; what libsacc uses.  Thread safe. dma.c
 *
 * IOVA ranges use inclusive ends, as VFIO does.
 */
#ifndef SACC_IOMMU_H
#define SACC_IOMMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sacc_base.h"	 /* struct sacc_err, formatting, clock */
#include "sacc_types.h" /* enum sacc_dma_dir, struct sacc_iova_range */

/* ---- VFIO_IOMMU_GET_INFO ---- */

struct sacc_iommu_info {
	uint32_t flags;	       /* VFIO_IOMMU_INFO_* as reported */
	bool has_pgsizes;      /* VFIO_IOMMU_INFO_PGSIZES set */
	uint64_t pgsizes;      /* iova_pgsizes bitmap (0 if not reported) */
	bool has_caps;	       /* VFIO_IOMMU_INFO_CAPS set and chain walked */
	uint32_t nr_caps;      /* capabilities walked (known or not) */
	bool has_iova_ranges;  /* CAP_IOVA_RANGE found */
	bool ranges_truncated; /* more than SACC_IOMMU_MAX_RANGES reported */
	uint32_t nr_ranges;
	struct sacc_iova_range ranges[SACC_IOMMU_MAX_RANGES];
	bool has_dma_avail; /* TYPE1_INFO_DMA_AVAIL found */
	uint32_t dma_avail; /* further mappings the container accepts */
};

/*
 * Parse a struct vfio_iommu_type1_info buffer of @len valid bytes as
 * returned by VFIO_IOMMU_GET_INFO.  Every offset and count is bounds
 * checked against min(len, argsz); the capability chain must move
 * strictly forward (so a looping chain is rejected).  Unknown
 * capabilities are skipped.
 * Returns 0; -EINVAL for a malformed buffer (short header, cap header or
 * body out of bounds, backwards/looping next, range with start > end,
 * duplicate capability); -EMSGSIZE if the buffer advertises caps but
 * argsz > len (the caller must retry with argsz bytes).
 */
int sacc_iommu_parse_info(const void *buf, size_t len,
			  struct sacc_iommu_info *info, struct sacc_err *err);

/*
 * VFIO_IOMMU_GET_INFO on a container fd with SET_IOMMU done: first call
 * with argsz = sizeof(struct vfio_iommu_type1_info), grow to the
 * returned argsz, then sacc_iommu_parse_info().
 */
int sacc_iommu_get_info(int container_fd, struct sacc_iommu_info *info,
			struct sacc_err *err);

/*
 * Used when the kernel reports no CAP_IOVA_RANGE: stay below the x86
 * interrupt window 0xfee00000 and inside any 32-bit+ address width.
 */
#define SACC_IOVA_FALLBACK_START 0x0ull
#define SACC_IOVA_FALLBACK_END	 0xfedfffffull

/* Smallest page in @pgsizes, at least 4096 (4096 if @pgsizes is 0). */
uint64_t sacc_iommu_min_page(uint64_t pgsizes);

/* ---- IOVA allocator ---- */

/*
 * Page-granular first-fit allocator over usable ranges.  Every
 * allocation of N pages consumes N + 2 pages of IOVA: an unmapped guard
 * page before and after the returned range, so no two allocations are
 * ever adjacent and IOVA page 0 is never returned.  Range starts are
 * rounded up and ends rounded down to the page; ranges too small for
 * one page plus two guards are ignored.  Freed space is coalesced and
 * reused (guards included, so guards are preserved), at once or after a
 * quarantine (sacc_iova_alloc_set_quarantine).  Not thread safe.
 */
struct sacc_iova_alloc;

/*
 * @ranges need not be sorted; overlapping or adjacent ranges are merged.
 * Page = sacc_iommu_min_page(@pgsizes).  -EINVAL for a bad range
 * (start > end), -ENOMEM, -ENOSPC if no range can hold one allocation.
 */
int sacc_iova_alloc_create(struct sacc_iova_alloc **out,
			   const struct sacc_iova_range *ranges, size_t nr,
			   uint64_t pgsizes, struct sacc_err *err);
void sacc_iova_alloc_destroy(struct sacc_iova_alloc *a);

/* The allocator's page size. */
uint64_t sacc_iova_page_size(const struct sacc_iova_alloc *a);

/*
 * Allocate IOVA for @len bytes (rounded up to the page; @len > 0).
 * *iova receives the page-aligned start; the allocation is
 * round_up(len, page) bytes.  -EINVAL for len 0 / overflow, -ENOSPC when
 * no free interval fits, -ENOMEM.
 */
int sacc_iova_alloc(struct sacc_iova_alloc *a, uint64_t len, uint64_t *iova,
		    struct sacc_err *err);

/*
 * Free the allocation starting at @iova.  -ENOENT if not allocated.
 * With a quarantine set (below) the space is quarantined, not reusable
 * at once.
 */
int sacc_iova_free(struct sacc_iova_alloc *a, uint64_t iova,
		   struct sacc_err *err);

/*
 * Free without quarantine: for IOVA no device was ever told about (the
 * map that was to use it failed).  -ENOENT if not allocated.
 */
int sacc_iova_release(struct sacc_iova_alloc *a, uint64_t iova,
		      struct sacc_err *err);

/*
 * Quarantine of freed IOVA (off at create): a freed allocation (its
 * guards included) is not handed out again until @allocs later
 * allocations have been made, nor while it is among the newest @bytes
 * of quarantined space (the oldest leaves first when more is held).
 * So a stale IOVA a device still holds keeps faulting for a while
 * instead of reaching the next buffer.  It never makes an allocation
 * fail: when nothing else fits, the oldest quarantined space is used.
 * @allocs 0 turns it off and releases everything quarantined.
 */
void sacc_iova_alloc_set_quarantine(struct sacc_iova_alloc *a, uint32_t allocs,
				    uint64_t bytes);

/* What the DMA context (sacc_dma_ctx_create) sets: 64 allocations, at
 * most 1 GiB or an eighth of the usable IOVA space, if less. */
#define SACC_IOVA_QUARANTINE_ALLOCS 64u
#define SACC_IOVA_QUARANTINE_BYTES  (1ull << 30)

/* Bytes held in quarantine, guards included. */
uint64_t sacc_iova_quarantine_bytes(const struct sacc_iova_alloc *a);

/* Bytes in free intervals (guards of live allocations and quarantined
 * space excluded). */
uint64_t sacc_iova_free_bytes(const struct sacc_iova_alloc *a);

/* Number of live allocations. */
size_t sacc_iova_alloc_count(const struct sacc_iova_alloc *a);

/* ---- permissions ---- */

/* The rings, as the spec requires. */
#define SACC_DMA_DIR_SQ SACC_DMA_TO_DEVICE
#define SACC_DMA_DIR_CQ SACC_DMA_FROM_DEVICE

/* VFIO_DMA_MAP_FLAG_READ/WRITE bits for @dir, 0 for an invalid value. */
uint32_t sacc_dma_dir_flags(enum sacc_dma_dir dir);

/* "to_device", "from_device", "bidirectional", or "invalid". */
const char *sacc_dma_dir_name(enum sacc_dma_dir dir);

/* ---- raw VFIO map/unmap ---- */

/* VFIO_IOMMU_MAP_DMA.  Returns 0 or -errno of the ioctl. */
int sacc_vfio_map_dma(int container_fd, uint64_t vaddr, uint64_t iova,
		      uint64_t len, uint32_t flags, struct sacc_err *err);

/*
 * VFIO_IOMMU_UNMAP_DMA of exactly [iova, iova + len).  Returns 0, -errno
 * of the ioctl, or -EIO if the kernel unmapped a different size.
 */
int sacc_vfio_unmap_dma(int container_fd, uint64_t iova, uint64_t len,
			struct sacc_err *err);

/* ---- pinned memory accounting ---- */

struct sacc_dma_limits {
	uint64_t memlock_limit; /* RLIMIT_MEMLOCK (soft), UINT64_MAX: none */
	bool memlock_exempt;	/* CAP_IPC_LOCK: kernel does not enforce it */
	bool dma_avail_known;	/* dma_avail below is meaningful */
	uint32_t dma_avail;	/* mappings the container accepted at open */
};

/*
 * getrlimit(RLIMIT_MEMLOCK) and CAP_IPC_LOCK (capget) into @lim;
 * dma_avail_known = false.
 */
int sacc_dma_read_limits(struct sacc_dma_limits *lim, struct sacc_err *err);

/*
 * Would pinning @add_bytes more (one more mapping) be allowed, with
 * @pinned bytes already pinned (by this process) and @nr_new mappings
 * made since dma_avail was measured?
 * -ENOMEM "pinning 2 MiB more would exceed RLIMIT_MEMLOCK (64 KiB,
 *          1.9 MiB in use): raise it with `ulimit -l` or limits.conf"
 *          (not returned when memlock_exempt)
 * -ENOSPC "VFIO dma_entry_limit reached (N mappings): raise
 *          /sys/module/vfio_iommu_type1/parameters/dma_entry_limit"
 */
int sacc_dma_check_limits(const struct sacc_dma_limits *lim, uint64_t pinned,
			  uint32_t nr_new, uint64_t add_bytes,
			  struct sacc_err *err);

/*
 * Explain an errno from VFIO_IOMMU_MAP_DMA with the same messages:
 * ENOMEM -> the RLIMIT_MEMLOCK message, ENOSPC -> the dma_entry_limit
 * message, anything else a generic one.  Returns -abs(@errnum).
 */
int sacc_dma_explain_map_errno(int errnum, const struct sacc_dma_limits *lim,
			       uint64_t pinned, uint32_t nr_new,
			       uint64_t add_bytes, struct sacc_err *err);

/*
 * Memory the system can give before the OOM killer runs.  Pinned DMA
 * memory cannot be swapped or reclaimed, and VFIO_IOMMU_MAP_DMA faults
 * the pages in inside the kernel, where running out of memory does not
 * fail the ioctl: the OOM killer picks a process (with a buffer that
 * large, ours).  So a buffer is refused up front when pinning it would
 * leave less than a reserve of MemAvailable (/proc/meminfo).  This is
 * an estimate taken before the pages are touched, not a guarantee: it
 * does not see cgroup memory limits, nor what other processes allocate
 * meanwhile.
 */
#define SACC_MEM_RESERVE_MIN (64ull << 20)

/* Bytes to keep available: max(64 MiB, MemTotal / 32). */
uint64_t sacc_mem_reserve(uint64_t mem_total);

/*
 * MemAvailable and MemTotal, in bytes, from @path (a /proc/meminfo
 * text).  -ENOENT if it cannot be read, -EINVAL if a field is missing.
 */
int sacc_meminfo_read(const char *path, uint64_t *avail, uint64_t *total,
		      struct sacc_err *err);

/*
 * 0 if pinning @add bytes more leaves at least sacc_mem_reserve(@total)
 * of @avail; else -ENOMEM "pinning 256 MiB would leave 12 MiB of
 * MemAvailable (268 MiB), less than the 64 MiB reserve: the OOM killer
 * would end this process; free buffers, use smaller ones or give the
 * machine more memory".
 */
int sacc_dma_check_memory(uint64_t avail, uint64_t total, uint64_t add,
			  struct sacc_err *err);

/* ---- mapping registry ---- */

#define SACC_DMA_HISTORY_DEFAULT 256

struct sacc_map_entry {
	uint64_t iova;
	uint64_t len;	/* mapped bytes (page multiple) */
	uint64_t vaddr; /* process virtual address */
	enum sacc_dma_dir dir;
	uint32_t perm;		      /* VFIO_DMA_MAP_FLAG_READ/WRITE */
	uint64_t map_ns;	      /* CLOCK_MONOTONIC */
	uint64_t unmap_ns;	      /* 0 while mapped */
	char name[SACC_DMA_NAME_MAX]; /* copied, truncated */
};

enum sacc_iova_kind {
	SACC_IOVA_MAPPED,	    /* inside a live mapping: buf + offset */
	SACC_IOVA_UNMAPPED_EARLIER, /* inside a range unmapped before: stale */
	SACC_IOVA_GUARD,	    /* guard page next to prev and/or next */
	SACC_IOVA_NEVER_MAPPED,	    /* usable IOVA, nothing known */
	SACC_IOVA_BEYOND_RANGES,    /* outside every usable IOVA range */
};

struct sacc_iova_lookup {
	enum sacc_iova_kind kind;
	uint64_t iova;	/* the address looked up */
	uint64_t at_ns; /* the time the lookup describes */
	/* MAPPED: the buffer and the offset into it */
	bool has_buf;
	struct sacc_map_entry buf;
	uint64_t offset;
	/* nearest mappings live at at_ns below/above iova (any kind) */
	bool has_prev;
	struct sacc_map_entry prev;
	bool has_next;
	struct sacc_map_entry next;
	/* most recent mapping unmapped at or before at_ns containing iova
	 * (set for UNMAPPED_EARLIER, and for GUARD/BEYOND when it exists) */
	bool has_stale;
	struct sacc_map_entry stale;
	uint64_t stale_offset;
	uint64_t ns_since_unmap;
};

struct sacc_dma_registry;

/*
 * @ranges: usable IOVA ranges (for BEYOND_RANGES); @page_size: guard
 * size; @history_cap: unmapped entries kept (0 = default 256).
 * Thread safe (internal mutex).
 */
int sacc_dma_registry_create(struct sacc_dma_registry **out,
			     const struct sacc_iova_range *ranges, size_t nr,
			     uint64_t page_size, size_t history_cap,
			     struct sacc_err *err);
void sacc_dma_registry_destroy(struct sacc_dma_registry *reg);

/* Replace the clock (tests, replay).  NULL restores CLOCK_MONOTONIC. */
void sacc_dma_registry_set_clock(struct sacc_dma_registry *reg,
				 uint64_t (*now)(void *ctx), void *ctx);

/*
 * Record a live mapping (name copied).  -EINVAL for len 0 / wrap,
 * -EEXIST if it overlaps a live mapping, -ENOMEM.
 */
int sacc_dma_registry_add(struct sacc_dma_registry *reg, uint64_t iova,
			  uint64_t len, uint64_t vaddr, enum sacc_dma_dir dir,
			  const char *name, struct sacc_err *err);

/*
 * Move the live mapping starting at @iova into the history (oldest
 * history entry dropped when full) with unmap_ns = now.  @removed (may
 * be NULL) receives it.  -ENOENT if no live mapping starts at @iova.
 */
int sacc_dma_registry_remove(struct sacc_dma_registry *reg, uint64_t iova,
			     struct sacc_map_entry *removed,
			     struct sacc_err *err);

/* Live mapping starting exactly at @iova.  -ENOENT if none. */
int sacc_dma_registry_find(struct sacc_dma_registry *reg, uint64_t iova,
			   struct sacc_map_entry *out);

/* Live mappings / history entries held. */
size_t sacc_dma_registry_count(struct sacc_dma_registry *reg);
size_t sacc_dma_registry_history_count(struct sacc_dma_registry *reg);

/*
 * Copy up to @max live entries (sorted by IOVA) / history entries
 * (oldest first) into @out; return how many were copied.
 */
size_t sacc_dma_registry_snapshot(struct sacc_dma_registry *reg,
				  struct sacc_map_entry *out, size_t max);
size_t sacc_dma_registry_history(struct sacc_dma_registry *reg,
				 struct sacc_map_entry *out, size_t max);

/*
 * Classify @iova as of time @at_ns (0 = now): mapped at that time
 * (history entries live at at_ns count too), else beyond every range,
 * else guard page (within one page after a mapping's end or before its
 * start), else unmapped earlier (most recent), else never mapped.
 * Returns 0 (always fills @out when both pointers are valid).
 */
int sacc_dma_registry_lookup(struct sacc_dma_registry *reg, uint64_t iova,
			     uint64_t at_ns, struct sacc_iova_lookup *out);

/* Stable lower-case names: "mapped", "unmapped_earlier", "guard",
 * "never_mapped", "beyond_ranges". */
const char *sacc_iova_kind_name(enum sacc_iova_kind kind);

/*
 * One human sentence, e.g. "inside buffer 'src' at offset 0x10",
 * "guard page between 'src' and 'dst'", "guard page after 'src'",
 * "belonged to buffer 'x', unmapped 3.1 ms earlier", "never mapped",
 * "beyond the usable IOVA ranges".  Returns snprintf()'s result.
 */
int sacc_iova_lookup_format(const struct sacc_iova_lookup *res, char *buf,
			    size_t len);

/* ---- per-container DMA context (what libsacc uses) ---- */

/*
 * Test / fault-injection seam: replaces the two ioctls.  map returns 0
 * or -errno; unmap returns 0 or -errno and stores the unmapped size.
 */
struct sacc_dma_backend {
	int (*map)(void *opaque, uint64_t vaddr, uint64_t iova, uint64_t len,
		   uint32_t flags);
	int (*unmap)(void *opaque, uint64_t iova, uint64_t len,
		     uint64_t *unmapped);
	void *opaque;
};

struct sacc_dma_ctx;

/*
 * Open the DMA context of a container (SET_IOMMU already done): reads
 * the IOMMU info (IOVA ranges, page sizes, DMA_AVAIL), RLIMIT_MEMLOCK
 * and CAP_IPC_LOCK, creates the allocator and the registry.
 */
int sacc_dma_ctx_open(struct sacc_dma_ctx **out, int container_fd,
		      struct sacc_err *err);

/*
 * Same, from explicit info and limits (@limits NULL: read them), with
 * an optional backend (NULL: VFIO ioctls on @container_fd).
 */
int sacc_dma_ctx_create(struct sacc_dma_ctx **out, int container_fd,
			const struct sacc_iommu_info *info,
			const struct sacc_dma_limits *limits,
			const struct sacc_dma_backend *backend,
			struct sacc_err *err);

/*
 * Unmap every remaining mapping (the device must already be quiesced)
 * and free the context.  Safe with NULL.
 */
void sacc_dma_ctx_close(struct sacc_dma_ctx *ctx);

/*
 * Map [vaddr, vaddr + round_up(len, page)) with permissions from @dir at
 * a freshly allocated IOVA (guards around it), check the limits first,
 * record it under @name.  @vaddr must be page aligned and the caller
 * must own the whole pages.  *iova receives the IOVA.
 * -EINVAL, -ENOMEM / -ENOSPC (limits, with the "raise ..." message),
 * or the ioctl's -errno.
 */
int sacc_dma_map(struct sacc_dma_ctx *ctx, void *vaddr, uint64_t len,
		 enum sacc_dma_dir dir, const char *name, uint64_t *iova,
		 struct sacc_err *err);

/*
 * Unmap the mapping starting at @iova: exactly the recorded range, the
 * returned size checked; the entry moves to the history and the IOVA is
 * freed.  -ENOENT if @iova starts no mapping.
 */
int sacc_dma_unmap(struct sacc_dma_ctx *ctx, uint64_t iova,
		   struct sacc_err *err);

/* A page-granular DMA buffer: anonymous pages owned by nobody else. */
struct sacc_dma_buf {
	void *va; /* page aligned */
	uint64_t iova;
	uint64_t len;	  /* requested bytes */
	uint64_t map_len; /* mapped bytes (page multiple) */
	enum sacc_dma_dir dir;
};

/*
 * mmap fresh zeroed anonymous pages for @len bytes and sacc_dma_map()
 * them.  On failure nothing is left allocated.  -ENOMEM before any page
 * is touched if sacc_dma_check_memory() refuses it (the context's
 * meminfo file, /proc/meminfo unless changed; skipped if unreadable).
 */
int sacc_dma_buf_alloc(struct sacc_dma_ctx *ctx, uint64_t len,
		       enum sacc_dma_dir dir, const char *name,
		       struct sacc_dma_buf *buf, struct sacc_err *err);

/* Test seam: read @path instead of /proc/meminfo (NULL: no check). */
void sacc_dma_ctx_set_meminfo(struct sacc_dma_ctx *ctx, const char *path);

/* sacc_dma_unmap() then munmap.  The buffer is zeroed afterwards. */
int sacc_dma_buf_free(struct sacc_dma_ctx *ctx, struct sacc_dma_buf *buf,
		      struct sacc_err *err);

/*
 * Observer of the context's mappings (libsacc writes its fault journal
 * from it).  @mapped is called after every successful sacc_dma_map()
 * (also through sacc_dma_buf_alloc()), @unmapped after every mapping
 * leaves the registry (sacc_dma_unmap(), sacc_dma_buf_free(),
 * sacc_dma_ctx_close()), each with the registry entry (@unmapped: with
 * unmap_ns set).  Both run with the context's lock held, in exactly the
 * order the mappings changed, so a log written from them replays
 * faithfully even though freed IOVA is reused first-fit.  They must not
 * call sacc_dma_map()/sacc_dma_unmap() on the same context.  Either
 * callback may be NULL; @obs is copied; NULL @obs removes the observer.
 */
struct sacc_dma_observer {
	void (*mapped)(void *opaque, const struct sacc_map_entry *e);
	void (*unmapped)(void *opaque, const struct sacc_map_entry *e);
	void *opaque;
};

void sacc_dma_ctx_set_observer(struct sacc_dma_ctx *ctx,
			       const struct sacc_dma_observer *obs);

/* sacc_dma_registry_lookup() on the context's registry. */
int sacc_dma_lookup(struct sacc_dma_ctx *ctx, uint64_t iova, uint64_t at_ns,
		    struct sacc_iova_lookup *out);

/* The registry (owned by the context; valid until close). */
struct sacc_dma_registry *sacc_dma_ctx_registry(struct sacc_dma_ctx *ctx);

/* The IOMMU info the context was opened with. */
const struct sacc_iommu_info *sacc_dma_ctx_info(const struct sacc_dma_ctx *ctx);

struct sacc_dma_stats {
	uint64_t pinned_bytes;	       /* this context */
	uint32_t nr_mappings;	       /* this context */
	uint64_t process_pinned_bytes; /* every context in the process */
	uint64_t page_size;
	struct sacc_dma_limits limits;
};

void sacc_dma_ctx_stats(struct sacc_dma_ctx *ctx, struct sacc_dma_stats *st);

#endif /* SACC_IOMMU_H */

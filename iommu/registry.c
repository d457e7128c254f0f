// SPDX-License-Identifier: MIT
/*
 * registry.c - IOVA mapping registry with a bounded unmap history, and
 * the classification of an IOVA for fault attribution.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sacc_iommu.h"

struct sacc_dma_registry {
	pthread_mutex_t lock;
	uint64_t page;
	struct sacc_iova_range *ranges;
	size_t nranges;
	struct sacc_map_entry *live; /* sorted by iova */
	size_t nlive, caplive;
	struct sacc_map_entry *hist; /* ring, oldest at hist_head */
	size_t hist_cap, hist_head, hist_n;
	uint64_t (*now)(void *ctx);
	void *now_ctx;
};

static uint64_t default_now(void *ctx)
{
	(void)ctx;
	return sacc_monotonic_ns();
}

int sacc_dma_registry_create(struct sacc_dma_registry **out,
			     const struct sacc_iova_range *ranges, size_t nr,
			     uint64_t page_size, size_t history_cap,
			     struct sacc_err *err)
{
	struct sacc_dma_registry *reg;

	if (!out || (!ranges && nr))
		return sacc_err_set(err, EINVAL, "NULL registry arguments");
	*out = NULL;
	if (page_size == 0 || (page_size & (page_size - 1)))
		return sacc_err_set(
		    err, EINVAL,
		    "registry page size %llu is not a power of two",
		    (unsigned long long)page_size);
	if (!history_cap)
		history_cap = SACC_DMA_HISTORY_DEFAULT;
	reg = calloc(1, sizeof(*reg));
	if (!reg)
		return sacc_err_set(err, ENOMEM, "allocating the DMA registry");
	reg->page = page_size;
	reg->hist_cap = history_cap;
	reg->hist = calloc(history_cap, sizeof(*reg->hist));
	reg->ranges = calloc(nr ? nr : 1, sizeof(*reg->ranges));
	if (!reg->hist || !reg->ranges) {
		free(reg->hist);
		free(reg->ranges);
		free(reg);
		return sacc_err_set(err, ENOMEM, "allocating the DMA registry");
	}
	if (nr)
		memcpy(reg->ranges, ranges, nr * sizeof(*ranges));
	reg->nranges = nr;
	reg->now = default_now;
	pthread_mutex_init(&reg->lock, NULL);
	*out = reg;
	return 0;
}

void sacc_dma_registry_destroy(struct sacc_dma_registry *reg)
{
	if (!reg)
		return;
	pthread_mutex_destroy(&reg->lock);
	free(reg->live);
	free(reg->hist);
	free(reg->ranges);
	free(reg);
}

void sacc_dma_registry_set_clock(struct sacc_dma_registry *reg,
				 uint64_t (*now)(void *ctx), void *ctx)
{
	pthread_mutex_lock(&reg->lock);
	reg->now = now ? now : default_now;
	reg->now_ctx = now ? ctx : NULL;
	pthread_mutex_unlock(&reg->lock);
}

static inline uint64_t last_byte(const struct sacc_map_entry *e)
{
	return e->iova + (e->len - 1);
}

static inline bool contains(const struct sacc_map_entry *e, uint64_t iova)
{
	return iova >= e->iova && iova - e->iova < e->len;
}

int sacc_dma_registry_add(struct sacc_dma_registry *reg, uint64_t iova,
			  uint64_t len, uint64_t vaddr, enum sacc_dma_dir dir,
			  const char *name, struct sacc_err *err)
{
	struct sacc_map_entry e = {0};
	size_t pos;
	int ret = 0;

	if (!reg)
		return sacc_err_set(err, EINVAL, "NULL registry");
	if (len == 0 || iova + (len - 1) < iova)
		return sacc_err_set(err, EINVAL,
				    "bad mapping [0x%llx, +0x%llx) for '%s'",
				    (unsigned long long)iova,
				    (unsigned long long)len, name ? name : "");
	e.iova = iova;
	e.len = len;
	e.vaddr = vaddr;
	e.dir = dir;
	e.perm = sacc_dma_dir_flags(dir);
	snprintf(e.name, sizeof(e.name), "%s", name ? name : "");

	pthread_mutex_lock(&reg->lock);
	for (pos = 0; pos < reg->nlive; pos++) {
		const struct sacc_map_entry *o = &reg->live[pos];

		if (iova <= last_byte(o) && o->iova <= last_byte(&e)) {
			ret =
			    sacc_err_set(err, EEXIST,
					 "mapping '%s' [0x%llx, +0x%llx) "
					 "overlaps live mapping '%s' at 0x%llx",
					 e.name, (unsigned long long)iova,
					 (unsigned long long)len, o->name,
					 (unsigned long long)o->iova);
			goto out;
		}
	}
	if (reg->nlive == reg->caplive) {
		size_t ncap = reg->caplive ? reg->caplive * 2 : 16;
		void *n = realloc(reg->live, ncap * sizeof(*reg->live));

		if (!n) {
			ret = sacc_err_set(err, ENOMEM,
					   "growing the DMA registry");
			goto out;
		}
		reg->live = n;
		reg->caplive = ncap;
	}
	for (pos = 0; pos < reg->nlive && reg->live[pos].iova < iova; pos++)
		;
	memmove(&reg->live[pos + 1], &reg->live[pos],
		(reg->nlive - pos) * sizeof(*reg->live));
	e.map_ns = reg->now(reg->now_ctx);
	reg->live[pos] = e;
	reg->nlive++;
out:
	pthread_mutex_unlock(&reg->lock);
	return ret;
}

int sacc_dma_registry_remove(struct sacc_dma_registry *reg, uint64_t iova,
			     struct sacc_map_entry *removed,
			     struct sacc_err *err)
{
	struct sacc_map_entry e;
	size_t pos, slot;

	if (!reg)
		return sacc_err_set(err, EINVAL, "NULL registry");
	pthread_mutex_lock(&reg->lock);
	for (pos = 0; pos < reg->nlive; pos++)
		if (reg->live[pos].iova == iova)
			break;
	if (pos == reg->nlive) {
		pthread_mutex_unlock(&reg->lock);
		return sacc_err_set(err, ENOENT,
				    "no live mapping starts at IOVA 0x%llx",
				    (unsigned long long)iova);
	}
	e = reg->live[pos];
	memmove(&reg->live[pos], &reg->live[pos + 1],
		(reg->nlive - pos - 1) * sizeof(*reg->live));
	reg->nlive--;
	e.unmap_ns = reg->now(reg->now_ctx);
	if (e.unmap_ns == 0)
		e.unmap_ns = 1; /* 0 means "live" */
	if (reg->hist_n < reg->hist_cap) {
		slot = (reg->hist_head + reg->hist_n) % reg->hist_cap;
		reg->hist_n++;
	} else {
		slot = reg->hist_head; /* drop the oldest */
		reg->hist_head = (reg->hist_head + 1) % reg->hist_cap;
	}
	reg->hist[slot] = e;
	pthread_mutex_unlock(&reg->lock);
	if (removed)
		*removed = e;
	return 0;
}

int sacc_dma_registry_find(struct sacc_dma_registry *reg, uint64_t iova,
			   struct sacc_map_entry *out)
{
	int ret = -ENOENT;

	pthread_mutex_lock(&reg->lock);
	for (size_t i = 0; i < reg->nlive; i++) {
		if (reg->live[i].iova == iova) {
			if (out)
				*out = reg->live[i];
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&reg->lock);
	return ret;
}

size_t sacc_dma_registry_count(struct sacc_dma_registry *reg)
{
	size_t n;

	pthread_mutex_lock(&reg->lock);
	n = reg->nlive;
	pthread_mutex_unlock(&reg->lock);
	return n;
}

size_t sacc_dma_registry_history_count(struct sacc_dma_registry *reg)
{
	size_t n;

	pthread_mutex_lock(&reg->lock);
	n = reg->hist_n;
	pthread_mutex_unlock(&reg->lock);
	return n;
}

size_t sacc_dma_registry_snapshot(struct sacc_dma_registry *reg,
				  struct sacc_map_entry *out, size_t max)
{
	size_t n;

	pthread_mutex_lock(&reg->lock);
	n = reg->nlive < max ? reg->nlive : max;
	if (n)
		memcpy(out, reg->live, n * sizeof(*out));
	pthread_mutex_unlock(&reg->lock);
	return n;
}

size_t sacc_dma_registry_history(struct sacc_dma_registry *reg,
				 struct sacc_map_entry *out, size_t max)
{
	size_t n;

	pthread_mutex_lock(&reg->lock);
	n = reg->hist_n < max ? reg->hist_n : max;
	for (size_t i = 0; i < n; i++)
		out[i] = reg->hist[(reg->hist_head + i) % reg->hist_cap];
	pthread_mutex_unlock(&reg->lock);
	return n;
}

static bool in_ranges(const struct sacc_dma_registry *reg, uint64_t iova)
{
	for (size_t i = 0; i < reg->nranges; i++)
		if (iova >= reg->ranges[i].start && iova <= reg->ranges[i].end)
			return true;
	return false;
}

/* Track the nearest live-at-T mappings below and above @iova. */
static void consider(struct sacc_iova_lookup *out,
		     const struct sacc_map_entry *e)
{
	uint64_t iova = out->iova;

	if (contains(e, iova)) {
		if (!out->has_buf) {
			out->has_buf = true;
			out->buf = *e;
			out->offset = iova - e->iova;
		}
	} else if (last_byte(e) < iova) {
		if (!out->has_prev || last_byte(e) > last_byte(&out->prev)) {
			out->has_prev = true;
			out->prev = *e;
		}
	} else if (e->iova > iova) {
		if (!out->has_next || e->iova < out->next.iova) {
			out->has_next = true;
			out->next = *e;
		}
	}
}

int sacc_dma_registry_lookup(struct sacc_dma_registry *reg, uint64_t iova,
			     uint64_t at_ns, struct sacc_iova_lookup *out)
{
	bool guard_prev, guard_next;

	if (!reg || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->iova = iova;

	pthread_mutex_lock(&reg->lock);
	out->at_ns = at_ns ? at_ns : reg->now(reg->now_ctx);
	at_ns = out->at_ns;

	for (size_t i = 0; i < reg->nlive; i++)
		if (reg->live[i].map_ns <= at_ns)
			consider(out, &reg->live[i]);
	for (size_t k = 0; k < reg->hist_n; k++) {
		const struct sacc_map_entry *e =
		    &reg->hist[(reg->hist_head + k) % reg->hist_cap];

		if (e->map_ns <= at_ns && at_ns < e->unmap_ns) {
			consider(out, e); /* was live at that time */
		} else if (e->unmap_ns <= at_ns && contains(e, iova)) {
			/* later in the ring = more recent on ties */
			if (!out->has_stale ||
			    e->unmap_ns >= out->stale.unmap_ns) {
				out->has_stale = true;
				out->stale = *e;
			}
		}
	}
	if (out->has_stale) {
		out->stale_offset = iova - out->stale.iova;
		out->ns_since_unmap = at_ns - out->stale.unmap_ns;
	}

	guard_prev = out->has_prev && iova - last_byte(&out->prev) <= reg->page;
	guard_next = out->has_next && out->next.iova - iova <= reg->page;
	if (out->has_buf)
		out->kind = SACC_IOVA_MAPPED;
	else if (!in_ranges(reg, iova))
		out->kind = SACC_IOVA_BEYOND_RANGES;
	else if (guard_prev || guard_next)
		out->kind = SACC_IOVA_GUARD;
	else if (out->has_stale)
		out->kind = SACC_IOVA_UNMAPPED_EARLIER;
	else
		out->kind = SACC_IOVA_NEVER_MAPPED;
	/* Only a guard page's own owners are named as its neighbours. */
	if (out->kind == SACC_IOVA_GUARD) {
		uint64_t gap_m1 =
		    out->has_prev && out->has_next
			? out->next.iova - last_byte(&out->prev) - 2
			: UINT64_MAX;

		/* "between" only if the whole gap is guard pages */
		if (!guard_prev && gap_m1 >= 2 * reg->page)
			out->has_prev = false;
		if (!guard_next && gap_m1 >= 2 * reg->page)
			out->has_next = false;
	}
	pthread_mutex_unlock(&reg->lock);
	return 0;
}

const char *sacc_iova_kind_name(enum sacc_iova_kind kind)
{
	switch (kind) {
	case SACC_IOVA_MAPPED:
		return "mapped";
	case SACC_IOVA_UNMAPPED_EARLIER:
		return "unmapped_earlier";
	case SACC_IOVA_GUARD:
		return "guard";
	case SACC_IOVA_NEVER_MAPPED:
		return "never_mapped";
	case SACC_IOVA_BEYOND_RANGES:
		return "beyond_ranges";
	}
	return "unknown";
}

static const char *perm_text(uint32_t perm)
{
	switch (perm) {
	case 1:
		return "device read-only";
	case 2:
		return "device write-only";
	case 3:
		return "device read-write";
	}
	return "no access";
}

int sacc_iova_lookup_format(const struct sacc_iova_lookup *r, char *buf,
			    size_t len)
{
	char t[32];
	char stale[160] = "";
	const char *suffix = stale;

	if (!r || !buf)
		return -EINVAL;
	if (r->has_stale && r->kind != SACC_IOVA_UNMAPPED_EARLIER)
		snprintf(
		    stale, sizeof(stale),
		    "; earlier it belonged to buffer '%s', unmapped %s earlier",
		    r->stale.name,
		    sacc_fmt_ns(r->ns_since_unmap, t, sizeof(t)));

	switch (r->kind) {
	case SACC_IOVA_MAPPED:
		return snprintf(buf, len,
				"inside buffer '%s' at offset 0x%" PRIx64
				" (%s, iova 0x%" PRIx64 "-0x%" PRIx64 ")",
				r->buf.name, r->offset, perm_text(r->buf.perm),
				r->buf.iova, last_byte(&r->buf));
	case SACC_IOVA_UNMAPPED_EARLIER:
		return snprintf(buf, len,
				"belonged to buffer '%s', unmapped %s earlier "
				"(offset 0x%" PRIx64 ")",
				r->stale.name,
				sacc_fmt_ns(r->ns_since_unmap, t, sizeof(t)),
				r->stale_offset);
	case SACC_IOVA_GUARD:
		if (r->has_prev && r->has_next)
			return snprintf(buf, len,
					"guard page between '%s' and '%s'%s",
					r->prev.name, r->next.name, suffix);
		if (r->has_prev)
			return snprintf(buf, len,
					"guard page after '%s' (0x%" PRIx64
					" bytes past its end)%s",
					r->prev.name,
					r->iova - last_byte(&r->prev) - 1,
					suffix);
		return snprintf(buf, len,
				"guard page before '%s' (0x%" PRIx64
				" bytes before its start)%s",
				r->next.name, r->next.iova - r->iova, suffix);
	case SACC_IOVA_NEVER_MAPPED:
		return snprintf(buf, len, "never mapped%s", suffix);
	case SACC_IOVA_BEYOND_RANGES:
		return snprintf(
		    buf, len,
		    "beyond the usable IOVA ranges (never mappable)%s", suffix);
	}
	return snprintf(buf, len, "unknown");
}

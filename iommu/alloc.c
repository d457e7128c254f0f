// SPDX-License-Identifier: MIT
/*
 * alloc.c - page-granular first-fit IOVA allocator with guard pages.
 *
 * Each allocation owns a footprint of guard page + data pages + guard
 * page.  Free space is a sorted list of inclusive intervals, coalesced
 * on free.  All arithmetic is done on inclusive ends so a range ending
 * at 2^64 - 1 never overflows.
 *
 * With a quarantine set, a freed footprint waits in a FIFO before it
 * joins the free list, so an IOVA a device may still hold keeps
 * faulting for a while instead of landing in the next buffer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sacc_iommu.h"

struct ival {
	uint64_t start;
	uint64_t end; /* inclusive */
};

struct live {
	uint64_t iova; /* data start */
	uint64_t len;  /* data bytes, page multiple */
};

struct quar {
	struct ival iv; /* footprint, guards included */
	uint64_t seq;	/* allocations made before it was freed */
};

struct sacc_iova_alloc {
	uint64_t page;
	struct ival *free;
	size_t nfree, capfree;
	struct live *live;
	size_t nlive, caplive;
	/* quarantine: oldest first */
	struct quar *q;
	size_t nq, capq;
	uint64_t q_bytes;
	uint32_t q_allocs; /* 0: no quarantine */
	uint64_t q_max;	   /* bytes */
	uint64_t allocs;   /* successful allocations, ever */
};

static int cmp_ival(const void *a, const void *b)
{
	const struct ival *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	void *n;
	size_t ncap;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	while (ncap < need)
		ncap *= 2;
	n = realloc(*arr, ncap * elem);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

/* [start, end] rounded inward to whole pages; false if nothing is left. */
static bool align_inward(uint64_t start, uint64_t end, uint64_t page,
			 struct ival *out)
{
	uint64_t s, e;

	if (start & (page - 1)) {
		if (start > UINT64_MAX - (page - 1))
			return false;
		s = (start + page - 1) & ~(page - 1);
	} else {
		s = start;
	}
	if (end == UINT64_MAX) {
		e = UINT64_MAX; /* 2^64 is page aligned */
	} else {
		uint64_t x = (end + 1) & ~(page - 1);

		if (x == 0)
			return false;
		e = x - 1;
	}
	if (s > e)
		return false;
	out->start = s;
	out->end = e;
	return true;
}

int sacc_iova_alloc_create(struct sacc_iova_alloc **out,
			   const struct sacc_iova_range *ranges, size_t nr,
			   uint64_t pgsizes, struct sacc_err *err)
{
	struct sacc_iova_alloc *a;
	struct ival *tmp;
	size_t n = 0;

	if (!out || (!ranges && nr))
		return sacc_err_set(err, EINVAL, "NULL allocator arguments");
	*out = NULL;
	for (size_t i = 0; i < nr; i++)
		if (ranges[i].start > ranges[i].end)
			return sacc_err_set(
			    err, EINVAL,
			    "IOVA range %zu is inverted (0x%llx > 0x%llx)", i,
			    (unsigned long long)ranges[i].start,
			    (unsigned long long)ranges[i].end);
	a = calloc(1, sizeof(*a));
	tmp = calloc(nr ? nr : 1, sizeof(*tmp));
	if (!a || !tmp) {
		free(a);
		free(tmp);
		return sacc_err_set(err, ENOMEM,
				    "allocating the IOVA allocator");
	}
	a->page = sacc_iommu_min_page(pgsizes);

	/* Sort and merge raw ranges (overlapping or adjacent). */
	for (size_t i = 0; i < nr; i++) {
		tmp[i].start = ranges[i].start;
		tmp[i].end = ranges[i].end;
	}
	qsort(tmp, nr, sizeof(*tmp), cmp_ival);
	for (size_t i = 0; i < nr; i++) {
		if (n && (tmp[n - 1].end == UINT64_MAX ||
			  tmp[i].start <= tmp[n - 1].end + 1)) {
			if (tmp[i].end > tmp[n - 1].end)
				tmp[n - 1].end = tmp[i].end;
			continue;
		}
		tmp[n++] = tmp[i];
	}

	/* Align inward; keep ranges that fit guard + page + guard. */
	for (size_t i = 0; i < n; i++) {
		struct ival iv;

		if (!align_inward(tmp[i].start, tmp[i].end, a->page, &iv))
			continue;
		if (iv.end - iv.start < 3 * a->page - 1)
			continue;
		if (grow((void **)&a->free, &a->capfree, a->nfree + 1,
			 sizeof(*a->free))) {
			free(tmp);
			sacc_iova_alloc_destroy(a);
			return sacc_err_set(err, ENOMEM,
					    "allocating the IOVA free list");
		}
		a->free[a->nfree++] = iv;
	}
	free(tmp);
	if (!a->nfree) {
		sacc_iova_alloc_destroy(a);
		return sacc_err_set(
		    err, ENOSPC,
		    "no usable IOVA range holds one %llu-byte page plus two "
		    "guard pages (%zu ranges given)",
		    (unsigned long long)sacc_iommu_min_page(pgsizes), nr);
	}
	*out = a;
	return 0;
}

void sacc_iova_alloc_destroy(struct sacc_iova_alloc *a)
{
	if (!a)
		return;
	free(a->free);
	free(a->live);
	free(a->q);
	free(a);
}

uint64_t sacc_iova_page_size(const struct sacc_iova_alloc *a)
{
	return a->page;
}

static int unquarantine_oldest(struct sacc_iova_alloc *a);
static void quarantine_expire(struct sacc_iova_alloc *a);

static bool first_fit(struct sacc_iova_alloc *a, uint64_t data,
		      uint64_t foot_m1, uint64_t *iova)
{
	for (size_t i = 0; i < a->nfree; i++) {
		struct ival *f = &a->free[i];
		uint64_t start = f->start; /* always page aligned */

		if (f->end - start < foot_m1)
			continue;
		if (f->end - start == foot_m1) {
			memmove(f, f + 1, (a->nfree - i - 1) * sizeof(*f));
			a->nfree--;
		} else {
			f->start = start + foot_m1 + 1;
		}
		*iova = start + a->page;
		a->live[a->nlive].iova = *iova;
		a->live[a->nlive].len = data;
		a->nlive++;
		return true;
	}
	return false;
}

int sacc_iova_alloc(struct sacc_iova_alloc *a, uint64_t len, uint64_t *iova,
		    struct sacc_err *err)
{
	uint64_t data, foot_m1;

	if (!a || !iova)
		return sacc_err_set(err, EINVAL, "NULL allocator arguments");
	if (len == 0)
		return sacc_err_set(err, EINVAL, "zero-length IOVA allocation");
	/* data = round_up(len), footprint = data + 2 pages, no overflow */
	if (len > UINT64_MAX - 3 * a->page)
		return sacc_err_set(
		    err, EINVAL, "IOVA allocation of %llu bytes is too large",
		    (unsigned long long)len);
	data = (len + a->page - 1) & ~(a->page - 1);
	foot_m1 = data + 2 * a->page - 1;

	if (grow((void **)&a->live, &a->caplive, a->nlive + 1,
		 sizeof(*a->live)))
		return sacc_err_set(err, ENOMEM, "allocating IOVA bookkeeping");

	quarantine_expire(a);
	for (;;) {
		if (first_fit(a, data, foot_m1, iova)) {
			a->allocs++;
			return 0;
		}
		/* Out of space: quarantine never makes an allocation fail
		 * that would succeed without it. */
		if (!a->nq || unquarantine_oldest(a))
			break;
	}
	return sacc_err_set(
	    err, ENOSPC,
	    "IOVA space exhausted: no free interval holds %llu bytes plus two "
	    "%llu-byte guard pages (%zu allocations live)",
	    (unsigned long long)data, (unsigned long long)a->page, a->nlive);
}

/* Put @iv into the free list, coalescing.  Room for one more first. */
static void free_insert(struct sacc_iova_alloc *a, struct ival iv)
{
	size_t pos;

	for (pos = 0; pos < a->nfree && a->free[pos].start < iv.start; pos++)
		;
	memmove(&a->free[pos + 1], &a->free[pos],
		(a->nfree - pos) * sizeof(*a->free));
	a->free[pos] = iv;
	a->nfree++;
	/* coalesce with the following interval, then the preceding one */
	if (pos + 1 < a->nfree && a->free[pos].end != UINT64_MAX &&
	    a->free[pos].end + 1 == a->free[pos + 1].start) {
		a->free[pos].end = a->free[pos + 1].end;
		memmove(&a->free[pos + 1], &a->free[pos + 2],
			(a->nfree - pos - 2) * sizeof(*a->free));
		a->nfree--;
	}
	if (pos > 0 && a->free[pos - 1].end + 1 == a->free[pos].start) {
		a->free[pos - 1].end = a->free[pos].end;
		memmove(&a->free[pos], &a->free[pos + 1],
			(a->nfree - pos - 1) * sizeof(*a->free));
		a->nfree--;
	}
}

/* The oldest quarantined footprint joins the free list.  -ENOMEM (and
 * it stays quarantined) if the free list cannot grow. */
static int unquarantine_oldest(struct sacc_iova_alloc *a)
{
	if (grow((void **)&a->free, &a->capfree, a->nfree + 1,
		 sizeof(*a->free)))
		return -ENOMEM;
	free_insert(a, a->q[0].iv);
	a->q_bytes -= a->q[0].iv.end - a->q[0].iv.start + 1;
	memmove(&a->q[0], &a->q[1], (a->nq - 1) * sizeof(*a->q));
	a->nq--;
	return 0;
}

/* Release what has served its time: q_allocs later allocations, or
 * the oldest while the quarantine holds more than q_max bytes. */
static void quarantine_expire(struct sacc_iova_alloc *a)
{
	while (a->nq && (a->allocs - a->q[0].seq >= a->q_allocs ||
			 a->q_bytes > a->q_max))
		if (unquarantine_oldest(a))
			return;
}

static int iova_free(struct sacc_iova_alloc *a, uint64_t iova, bool quar,
		     struct sacc_err *err)
{
	struct ival iv;
	size_t i;

	if (!a)
		return sacc_err_set(err, EINVAL, "NULL allocator");
	for (i = 0; i < a->nlive; i++)
		if (a->live[i].iova == iova)
			break;
	if (i == a->nlive)
		return sacc_err_set(
		    err, ENOENT,
		    "IOVA 0x%llx is not the start of an allocation",
		    (unsigned long long)iova);
	iv.start = iova - a->page;
	iv.end = iova + a->live[i].len + a->page - 1;
	quar = quar && a->q_allocs;
	/* Make room first so failure leaves everything unchanged. */
	if (quar ? grow((void **)&a->q, &a->capq, a->nq + 1, sizeof(*a->q))
		 : grow((void **)&a->free, &a->capfree, a->nfree + 1,
			sizeof(*a->free)))
		return sacc_err_set(err, ENOMEM,
				    "allocating the IOVA free list");
	a->live[i] = a->live[--a->nlive];
	if (!quar) {
		free_insert(a, iv);
		return 0;
	}
	a->q[a->nq].iv = iv;
	a->q[a->nq].seq = a->allocs;
	a->nq++;
	a->q_bytes += iv.end - iv.start + 1;
	quarantine_expire(a);
	return 0;
}

int sacc_iova_free(struct sacc_iova_alloc *a, uint64_t iova,
		   struct sacc_err *err)
{
	return iova_free(a, iova, true, err);
}

int sacc_iova_release(struct sacc_iova_alloc *a, uint64_t iova,
		      struct sacc_err *err)
{
	return iova_free(a, iova, false, err);
}

void sacc_iova_alloc_set_quarantine(struct sacc_iova_alloc *a, uint32_t allocs,
				    uint64_t bytes)
{
	a->q_allocs = allocs;
	a->q_max = bytes;
	if (!allocs)
		a->q_max = 0; /* drain: everything is over any limit */
	while (a->nq && (!allocs || a->q_bytes > a->q_max ||
			 a->allocs - a->q[0].seq >= a->q_allocs))
		if (unquarantine_oldest(a))
			break;
}

uint64_t sacc_iova_quarantine_bytes(const struct sacc_iova_alloc *a)
{
	return a->q_bytes;
}

uint64_t sacc_iova_free_bytes(const struct sacc_iova_alloc *a)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < a->nfree; i++) {
		uint64_t span_m1 = a->free[i].end - a->free[i].start;

		/* saturate: a free interval of the whole 2^64 space */
		if (span_m1 == UINT64_MAX || sum > UINT64_MAX - span_m1 - 1)
			return UINT64_MAX;
		sum += span_m1 + 1;
	}
	return sum;
}

size_t sacc_iova_alloc_count(const struct sacc_iova_alloc *a)
{
	return a->nlive;
}

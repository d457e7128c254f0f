// SPDX-License-Identifier: MIT
/*
 * attr.c - fault attribution: replay each device's journaled map/unmap
 * events in time order into an iommu/ mapping registry, stopping at each
 * fault's time, and classify the faulting address there.  The registry's
 * clock is the replay clock, so "unmapped N ms earlier" is measured at
 * the fault.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fl_priv.h"

static const char *const attr_names[] = {
	[SACC_ATTR_UNATTRIBUTED] = "unattributed",
	[SACC_ATTR_MAPPED] = "mapped",
	[SACC_ATTR_GUARD] = "guard",
	[SACC_ATTR_UNMAPPED_EARLIER] = "unmapped_earlier",
	[SACC_ATTR_NEVER_MAPPED] = "never_mapped",
	[SACC_ATTR_BEYOND_RANGES] = "beyond_ranges",
	[SACC_ATTR_DEVMEM] = "device_memory",
	[SACC_ATTR_KERNEL_DRIVER] = "kernel_driver",
};

const char *sacc_fault_attr_name(enum sacc_fault_attr attr)
{
	if ((unsigned int)attr < sizeof(attr_names) / sizeof(attr_names[0]))
		return attr_names[attr];
	return "unattributed";
}

static enum sacc_fault_attr from_kind(enum sacc_iova_kind k)
{
	switch (k) {
	case SACC_IOVA_MAPPED:
		return SACC_ATTR_MAPPED;
	case SACC_IOVA_GUARD:
		return SACC_ATTR_GUARD;
	case SACC_IOVA_UNMAPPED_EARLIER:
		return SACC_ATTR_UNMAPPED_EARLIER;
	case SACC_IOVA_NEVER_MAPPED:
		return SACC_ATTR_NEVER_MAPPED;
	case SACC_IOVA_BEYOND_RANGES:
		return SACC_ATTR_BEYOND_RANGES;
	}
	return SACC_ATTR_UNATTRIBUTED;
}

struct clk {
	uint64_t now;
};

static uint64_t clk_now(void *ctx)
{
	return ((struct clk *)ctx)->now;
}

/* A map that overlaps live mappings: those died unjournaled (a process
 * crashed, its container went away).  Retire them, then map. */
static void map_event(struct sacc_dma_registry *reg, const struct fl_jmap *m)
{
	struct sacc_map_entry *live;
	size_t n;

	if (sacc_dma_registry_add(reg, m->iova, m->len, 0,
				  (enum sacc_dma_dir)m->perm, m->name,
				  NULL) != -EEXIST)
		return;
	n = sacc_dma_registry_count(reg);
	live = calloc(n ? n : 1, sizeof(*live));
	if (!live)
		return;
	n = sacc_dma_registry_snapshot(reg, live, n);
	for (size_t i = 0; i < n; i++) {
		uint64_t last = live[i].iova + (live[i].len - 1);

		if (m->iova <= last && live[i].iova <= m->iova + (m->len - 1))
			sacc_dma_registry_remove(reg, live[i].iova, NULL, NULL);
	}
	free(live);
	sacc_dma_registry_add(reg, m->iova, m->len, 0,
			      (enum sacc_dma_dir)m->perm, m->name, NULL);
}

static void apply(struct sacc_dma_registry *reg, struct clk *c,
		  const struct fl_jmap *m)
{
	c->now = m->t_ns ? m->t_ns : 1;
	if (m->kind == SACC_JEV_MAP)
		map_event(reg, m);
	else if (m->kind == SACC_JEV_UNMAP) /* an unknown one is skipped */
		sacc_dma_registry_remove(reg, m->iova, NULL, NULL);
}

static void unattributed(struct sacc_fault *r, const char *why)
{
	r->attr = SACC_ATTR_UNATTRIBUTED;
	snprintf(r->attr_text, sizeof(r->attr_text), "%s", why);
}

static void attribute_one(struct sacc_dma_registry *reg, struct sacc_fault *r,
			  uint64_t at)
{
	struct sacc_iova_lookup lk;
	char text[256];
	const char *extra = "";

	if (!r->has_iova) {
		if (r->has_intr_index)
			snprintf(r->attr_text, sizeof(r->attr_text),
				 "interrupt remapping fault (index 0x%" PRIx64
				 "): no DMA address to attribute",
				 r->intr_index);
		else
			snprintf(r->attr_text, sizeof(r->attr_text),
				 "no address");
		r->attr = SACC_ATTR_UNATTRIBUTED;
		return;
	}
	if (fl_devmem_access(r->has_access, r->access)) {
		r->attr = SACC_ATTR_DEVMEM;
		snprintf(r->attr_text, sizeof(r->attr_text),
			 "device address 0x%" PRIx64 " in the device's own "
			 "memory (BAR4): past its end; the device reaches it "
			 "without the IOMMU",
			 r->iova);
		return;
	}
	sacc_dma_registry_lookup(reg, r->iova, at, &lk);
	r->attr = from_kind(lk.kind);
	sacc_iova_lookup_format(&lk, text, sizeof(text));
	if (lk.kind == SACC_IOVA_MAPPED) {
		r->has_buffer = true;
		snprintf(r->buffer, sizeof(r->buffer), "%s", lk.buf.name);
		r->buffer_offset = lk.offset;
		r->buffer_perm = lk.buf.perm;
		if (r->has_write && lk.buf.perm & (r->write ? 2u : 1u))
			extra = "; the mapping permits this access";
		else if (r->has_write && r->write)
			extra = "; a device write to a mapping it may only read";
		else if (r->has_write)
			extra = "; a device read from a mapping it may only write";
	} else if (lk.kind == SACC_IOVA_UNMAPPED_EARLIER) {
		r->has_buffer = true;
		snprintf(r->buffer, sizeof(r->buffer), "%s", lk.stale.name);
		r->buffer_offset = lk.stale_offset;
		r->buffer_perm = lk.stale.perm;
	}
	snprintf(r->attr_text, sizeof(r->attr_text), "%s%s%s%s", text, extra,
		 r->iova >= SACC_IRQ_WINDOW_START &&
				 r->iova <= SACC_IRQ_WINDOW_END ?
			 " (x86 interrupt window)" :
			 "",
		 r->iova_exact ? "" :
				 " (page from the kernel; exact offset unknown)");
}

/*
 * A fault of the kernel's dmaengine driver: no journal of mappings, but
 * the driver read the DMA API's IOMMU page table for the address when it
 * reaped the failure, and names its channel and transaction.
 */
static void kernel_driver(struct sacc_fault *r)
{
	const char *state = !r->iommu_known ? "not looked up (device memory)" :
			    r->iommu_mapped ?
				    "mapped by the DMA API (a permission fault)" :
				    "never mapped by the DMA API (no page in its IOMMU domain)";

	r->attr = SACC_ATTR_KERNEL_DRIVER;
	snprintf(r->attr_text, sizeof(r->attr_text),
		 "sacc_dma (the kernel's dmaengine driver) channel %" PRIu32
		 ", req_id %" PRIu32 ": %s",
		 r->chan, r->req_id, state);
}

struct arec {
	uint64_t t;
	size_t i;
};

static int cmp_arec(const void *a, const void *b)
{
	const struct arec *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int attribute_dev(struct sacc_faultlog *fl, struct fl_dev *d)
{
	static const struct sacc_iova_range everything = { 0, UINT64_MAX };
	struct sacc_dma_registry *reg;
	struct arec *a;
	struct clk c = { 1 };
	size_t na = 0, nmaps = 0, nunmaps = 0, m = 0;
	char why[96];

	a = calloc(fl->nrec ? fl->nrec : 1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < fl->nrec; i++)
		if (fl->rec[i].sid == d->sid)
			a[na++] = (struct arec){
				fl->rec[i].t_from ? fl->rec[i].t_ns :
						    UINT64_MAX,
				i
			};
	for (size_t i = 0; i < fl->njm; i++) {
		if (fl->jm[i].sid != d->sid)
			continue;
		nmaps += fl->jm[i].kind == SACC_JEV_MAP;
		nunmaps += fl->jm[i].kind == SACC_JEV_UNMAP;
	}
	if (!na)
		goto out;
	if (!d->has_journal || (!nmaps && !d->has_ranges)) {
		snprintf(why, sizeof(why), d->has_journal ?
				 "the SACC journal of %s records no mappings" :
				 "no SACC journal for %s",
			 d->c.bdf);
		for (size_t i = 0; i < na; i++) {
			if (fl->rec[a[i].i].from_driver)
				kernel_driver(&fl->rec[a[i].i]);
			else
				unattributed(&fl->rec[a[i].i], why);
		}
		goto out;
	}
	/* no "ranges" event: assume everything is usable (never "beyond") */
	if (sacc_dma_registry_create(&reg,
				     d->has_ranges ? d->ranges : &everything,
				     d->has_ranges ? d->nr_ranges : 1, 4096,
				     nunmaps + 16, NULL)) {
		free(a);
		return -ENOMEM;
	}
	sacc_dma_registry_set_clock(reg, clk_now, &c);
	qsort(a, na, sizeof(*a), cmp_arec);
	for (size_t i = 0; i < na; i++) {
		while (m < fl->njm && fl->jm[m].t_ns <= a[i].t) {
			if (fl->jm[m].sid == d->sid)
				apply(reg, &c, &fl->jm[m]);
			m++;
		}
		if (a[i].t != UINT64_MAX)
			c.now = a[i].t ? a[i].t : 1;
		attribute_one(reg, &fl->rec[a[i].i], c.now);
	}
	sacc_dma_registry_destroy(reg);
out:
	free(a);
	return 0;
}

/* ---- device faults without a DMAR line: why ---- */

static const struct {
	const char *name, *text;
} unlogged[] = {
	[SACC_UNLOGGED_NOT_IOMMU] = {
		"not_iommu",
		"the mapping permits this access: the IOMMU translated it and "
		"its target refused it (e.g. the device's own BAR, refused by "
		"QEMU's re-entrancy guard), so no IOMMU fault exists" },
	[SACC_UNLOGGED_NO_DMA] = {
		"no_dma",
		"the range wraps past 2^64: the device refused it before any "
		"DMA, so the IOMMU never saw it" },
	[SACC_UNLOGGED_DROPPED] = {
		"dropped",
		"an IOMMU fault the kernel did not print: its DMAR ratelimit, "
		"or the vIOMMU's single fault recording register was busy" },
	[SACC_UNLOGGED_VIOMMU_DROPPED] = {
		"viommu_dropped",
		"the vIOMMU saw it but dropped it: its one fault recording "
		"register was pending" },
	[SACC_UNLOGGED_DEVMEM] = {
		"device_memory",
		"the device's own memory (v0.4, BAR4), which it reaches "
		"without the IOMMU: a range past its end, refused before any "
		"byte moved, so no IOMMU fault exists" },
	[SACC_UNLOGGED_RATELIMITED] = {
		"ratelimited",
		"the vIOMMU recorded it and the kernel handled it without "
		"printing it (DMAR ratelimit)" },
};

const char *sacc_fault_unlogged_name(enum sacc_fault_unlogged u)
{
	if (u > SACC_UNLOGGED_NONE &&
	    (size_t)u < sizeof(unlogged) / sizeof(unlogged[0]))
		return unlogged[u].name;
	return NULL;
}

const char *sacc_fault_unlogged_text(enum sacc_fault_unlogged u)
{
	if (u > SACC_UNLOGGED_NONE &&
	    (size_t)u < sizeof(unlogged) / sizeof(unlogged[0]))
		return unlogged[u].text;
	return NULL;
}

static enum sacc_fault_unlogged classify(const struct sacc_fault *r)
{
	uint32_t need = r->write ? 2u : 1u;

	if (!(r->sources & SACC_FSRC_DEVICE) || r->has_kernel)
		return SACC_UNLOGGED_NONE;
	if (r->attr == SACC_ATTR_DEVMEM)
		return SACC_UNLOGGED_DEVMEM;
	if (r->has_length && r->length &&
	    r->length - 1 > UINT64_MAX - r->iova)
		return SACC_UNLOGGED_NO_DMA;
	if (r->attr == SACC_ATTR_MAPPED && (r->buffer_perm & need))
		return SACC_UNLOGGED_NOT_IOMMU;
	if (r->has_viommu_recorded)
		return r->viommu_recorded ? SACC_UNLOGGED_RATELIMITED
					  : SACC_UNLOGGED_VIOMMU_DROPPED;
	return SACC_UNLOGGED_DROPPED;
}

int fl_attribute(struct sacc_faultlog *fl)
{
	for (size_t i = 0; i < fl->ndev; i++)
		if (attribute_dev(fl, &fl->devs[i]))
			return -ENOMEM;
	for (size_t i = 0; i < fl->nrec; i++)
		fl->rec[i].unlogged = classify(&fl->rec[i]);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * fake_dev.c - the in-process stand-in for the device (test code only) and
 * the helpers the tests share: a DMA backend that accepts everything,
 * descriptors run from the SQ into the CQ as the device would run them
 * (segments included), and what sacc_open() and sacc_reset() would do
 * to the rings, minus VFIO
 */
#include <sys/eventfd.h>
#include <sys/mman.h>

#include "fake_dev.h"

/* DMA backend: accept everything. */
static int fake_map(void *o, uint64_t va, uint64_t iova, uint64_t len,
		    uint32_t flags)
{
	return 0;
}

static int fake_unmap(void *o, uint64_t iova, uint64_t len, uint64_t *done)
{
	*done = len;
	return 0;
}

struct fake F;
void *xlate(uint64_t iova, uint32_t len, bool write)
{
	struct sacc_iova_lookup lk;

	sacc_dma_lookup(F.dev->dma, iova, 0, &lk);
	if (lk.kind != SACC_IOVA_MAPPED || lk.offset + len > lk.buf.len)
		return NULL;
	if (!(lk.buf.dir & (write ? SACC_DMA_FROM_DEVICE : SACC_DMA_TO_DEVICE)))
		return NULL; /* what the IOMMU would refuse */
	return (void *)(uintptr_t)(lk.buf.vaddr + lk.offset);
}

/* A descriptor's side: device memory (@dev_side, v0.4: refused past
 * DEVMEM_SIZE, never through the IOMMU) or an IOVA. */
static void *xlate_side(uint64_t a, uint32_t len, bool write, bool dev_side)
{
	if (!dev_side)
		return xlate(a, len, write);
	if (!F.dm || a >= F.dm_size || len > F.dm_size - a)
		return NULL;
	return F.dm + a;
}

/* MEMCPY, XFORM and FILL (v0.4), either side in either memory. */
static void dev_data_op(const struct sacc_desc *d, struct sacc_cqe *c)
{
	bool fill = d->opcode == SACC_OP_FILL;
	uint8_t *s = NULL, *t;
	uint32_t i;

	if (!fill)
		s = xlate_side(d->src, d->length, false,
			       d->flags & SACC_DESC_F_SRC_DEV);
	t = xlate_side(d->dst, d->length, true, d->flags & SACC_DESC_F_DST_DEV);
	if ((!fill && !s) || !t) {
		c->status = SACC_STS_DMA_FAULT;
		return;
	}
	for (i = 0; i < d->length; i++)
		t[i] = fill
			   ? (uint8_t)(d->src >> (8 * (i % 8)))
			   : s[i] ^ (d->opcode == SACC_OP_XFORM ? SACC_XFORM_KEY
								: 0);
	c->result_len = d->length;
}

/*
 * WRITE_INLINE on a MODE.V3 channel (spec section 15) at SQ slot @h,
 * with @avail slots after it up to the tail: its payload is read from
 * those slots and written to dst; a bad length is status 3.  Returns
 * the payload slots to skip.
 */
static uint32_t dev_inline(const struct sacc_desc *sq, uint32_t h,
			   uint32_t avail, const struct sacc_desc *d,
			   struct sacc_cqe *c)
{
	uint32_t size = F.dev->sq_entries;
	uint64_t p = (d->length + 31ull) / 32;
	uint8_t *t;

	if (!d->length || d->length > SACC_INLINE_MAX || p > avail) {
		c->status = SACC_STS_BAD_LENGTH;
		return (uint32_t)(p < avail ? p : avail);
	}
	t = xlate_side(d->dst, d->length, true, d->flags & SACC_DESC_F_DST_DEV);
	if (!t) {
		c->status = SACC_STS_DMA_FAULT;
		return (uint32_t)p;
	}
	for (uint32_t i = 0; i < d->length; i++)
		t[i] = ((const uint8_t *)&sq[(h + 1 + i / 32) % size])[i % 32];
	c->result_len = d->length;
	return (uint32_t)p;
}

/* The fault record, as the device writes it (fake_devmem's BAR0). */
void set_fault_regs(struct sacc_dev *dev, uint64_t addr, uint32_t info,
		    uint32_t req_id, uint32_t count)
{
	dev->regs[SACC_REG_FAULT_ADDR / 4] = (uint32_t)addr;
	dev->regs[SACC_REG_FAULT_ADDR / 4 + 1] = (uint32_t)(addr >> 32);
	dev->regs[SACC_REG_FAULT_INFO / 4] = info;
	dev->regs[SACC_REG_FAULT_REQ_ID / 4] = req_id;
	dev->regs[SACC_REG_FAULT_COUNT / 4] = count;
}

/* TIMESTAMP @d (spec section 16): the clock, 8 bytes, to dst; its
 * status.  Its length field is ignored. */
static uint16_t dev_timestamp(const struct sacc_desc *d)
{
	uint64_t now = sacc_monotonic_ns();
	void *t = xlate_side(d->dst, 8, true, d->flags & SACC_DESC_F_DST_DEV);

	if (!t)
		return SACC_STS_DMA_FAULT;
	memcpy(t, &now, 8);
	return SACC_STS_OK;
}

/* Command @cmds[j] of a segment of @slots slots, run as the ring would
 * run it (v0.4, section 21): its status; *next is the slot after it and
 * its payload. */
static uint16_t dev_cmd(const struct sacc_desc *cmds, uint32_t j,
			uint32_t slots, uint32_t *next)
{
	const struct sacc_desc *d = &cmds[j];
	struct sacc_cqe c = {0};
	uint32_t p = (uint32_t)SACC_INLINE_SLOTS(d->length);
	bool dd = d->flags & SACC_DESC_F_DST_DEV;
	void *t;

	*next = j + 1;
	switch (d->opcode) {
	case SACC_OP_NOP:
		return SACC_STS_OK;
	case SACC_OP_MEMCPY:
	case SACC_OP_XFORM:
	case SACC_OP_FILL:
		if (d->length < 1 || d->length > SACC_MAX_XFER)
			return SACC_STS_BAD_LENGTH;
		dev_data_op(d, &c);
		return c.status;
	case SACC_OP_WRITE_INLINE:
		if (d->length < 1 || d->length > SACC_INLINE_MAX ||
		    j + 1 + p > slots)
			return SACC_STS_BAD_LENGTH;
		*next = j + 1 + p;
		t = xlate_side(d->dst, d->length, true, dd);
		if (!t)
			return SACC_STS_DMA_FAULT;
		memcpy(t, &cmds[j + 1], d->length);
		return SACC_STS_OK;
	case SACC_OP_TIMESTAMP:
		return dev_timestamp(d);
	default: /* a SEGMENT inside a segment too */
		return SACC_STS_BAD_OPCODE;
	}
}

/* A SEGMENT entry @e: fetch the segment (a snapshot), run it, one
 * completion (status 0 and the commands run, or the failing command's
 * status and index); F's knobs inject failures and lies. */
static void dev_segment(const struct sacc_desc *e, struct sacc_cqe *c)
{
	struct sacc_desc *seg = NULL;
	const void *at;
	uint32_t slots = e->length / 32, j = 0, k = 0;
	uint16_t st = SACC_STS_OK;

	F.seg_runs++;
	if (e->length % 32 || !e->length || e->length > SACC_SEGMENT_MAX) {
		c->status = SACC_STS_BAD_LENGTH;
		return;
	}
	at = xlate_side(e->src, e->length, false, e->flags & SACC_DESC_F_SRC_DEV);
	if (!at || F.seg_fetch_fault) {
		c->status = SACC_STS_DMA_FAULT;
		set_fault_regs(F.dev, e->src, SACC_FAULT_SEGMENT_READ,
			       e->req_id, 1);
		return;
	}
	seg = malloc(e->length);
	ck_assert_ptr_nonnull(seg);
	memcpy(seg, at, e->length);
	for (; j < slots; k++) { /* on a failure k stays its index */
		if (F.seg_fail_cmd == k + 1) {
			st = F.seg_status;
			if (st == SACC_STS_DMA_FAULT) /* the command's */
				set_fault_regs(F.dev, seg[j].dst,
					       SACC_FAULT_DST_WRITE |
						   SACC_FAULT_IS_WRITE,
					       seg[j].req_id, 1);
			break;
		}
		st = dev_cmd(seg, j, slots, &j);
		if (st)
			break;
	}
	free(seg);
	c->status = st;
	c->result_len = (uint32_t)((int32_t)k + F.seg_lie);
}

/* Process up to @max descriptors; honours the CQ full rule. */
unsigned int dev_run(unsigned int max)
{
	struct sacc_dev *dev = F.dev;
	uint32_t tail = dev->db[0];
	uint32_t cq_head = dev->regs[SACC_REG_CQ_HEAD / 4];
	struct sacc_desc *sq = sacc_buf_va(dev->sq_buf);
	struct sacc_cqe *cq = sacc_buf_va(dev->cq_buf);
	unsigned int n = 0;

	while (F.head != tail && n < max) {
		struct sacc_desc d = sq[F.head];
		struct sacc_cqe c = {.req_id = d.req_id};
		bool v4 = F.dm && (dev->mode & SACC_MODE_V3);
		uint32_t skip = 0;

		if ((F.cq_tail + 1) % dev->cq_entries == cq_head)
			break;
		if (d.opcode == SACC_OP_NOP) {
			c.status = SACC_STS_OK;
		} else if (d.opcode == SACC_OP_WRITE_INLINE &&
			   (dev->mode & SACC_MODE_V3)) {
			skip = dev_inline(sq, F.head,
					  (tail - F.head - 1) % dev->sq_entries,
					  &d, &c);
		} else if (v4 && d.opcode == SACC_OP_SEGMENT) {
			dev_segment(&d, &c);
		} else if (d.opcode == SACC_OP_TIMESTAMP &&
			   (dev->mode & SACC_MODE_V3)) {
			c.status = dev_timestamp(&d);
			c.result_len = c.status ? 0 : 8;
		} else if (d.opcode > SACC_OP_XFORM &&
			   !(v4 && d.opcode == SACC_OP_FILL)) {
			c.status = SACC_STS_BAD_OPCODE;
		} else if (d.length < 1 || d.length > SACC_MAX_XFER) {
			c.status = SACC_STS_BAD_LENGTH;
		} else {
			dev_data_op(&d, &c);
		}
		switch (F.corrupt) {
		case C_REQ_ID_UNKNOWN:
			c.req_id += 1000;
			break;
		case C_REQ_ID_NEXT:
			c.req_id += 1;
			break;
		case C_RESULT_LEN_BIG:
			c.result_len = d.length + 1;
			break;
		case C_SHORT_OK:
			c.result_len = d.length ? d.length - 1 : 0;
			break;
		case C_BAD_STATUS:
			c.status = 9;
			break;
		case C_NONE:
			break;
		}
		F.corrupt = C_NONE;
		/* bytes 0-13, then the phase word */
		memcpy(&cq[F.cq_tail], &c, SACC_CQE_PHASE_OFFSET);
		__atomic_store_n(&cq[F.cq_tail].phase, (uint16_t)F.phase,
				 __ATOMIC_RELEASE);
		F.cq_tail = (F.cq_tail + 1) % dev->cq_entries;
		if (F.cq_tail == 0)
			F.phase ^= 1;
		F.head = (F.head + 1 + skip) % dev->sq_entries;
		n++;
	}
	return n;
}

/*
 * A v0.4 device's memory for @dev: @size bytes of anonymous memory
 * standing in for the BAR4 mapping (libsacc munmaps it at close), and
 * VERSION 4.  Before sacc_queue_alloc() for an SQ in device memory.
 */
void fake_devmem(struct sacc_dev *dev, uint64_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert(p != MAP_FAILED);
	dev->version = SACC_VERSION;
	ck_assert_int_eq(sacc_devmem_attach(dev, p, size), 0);
	F.dm = p;
	F.dm_size = size;
}

/* A sacc_dev with everything but VFIO: what sacc_open() would build. */
struct sacc_dev *fake_open(uint32_t sq, uint32_t cq)
{
	return fake_open_mode(sq, cq, 0, 0);
}

/* The same with MODE @mode (SACC_MODE_*) and, if @devmem, that much
 * device memory (v0.4; an SQ there with SACC_MODE_SQ_DEV). */
struct sacc_dev *fake_open_mode(uint32_t sq, uint32_t cq, uint32_t mode,
				uint64_t devmem)
{
	struct sacc_iommu_info info = {
	    .has_iova_ranges = true, .nr_ranges = 1, .pgsizes = 4096};
	struct sacc_dma_limits lim = {.memlock_limit = UINT64_MAX,
				      .memlock_exempt = true};
	struct sacc_dma_backend be = {fake_map, fake_unmap, NULL};
	struct sacc_err e;
	struct sacc_dev *dev = calloc(1, sizeof(*dev));

	ck_assert_ptr_nonnull(dev);
	info.ranges[0].start = 0;
	info.ranges[0].end = (1ull << 39) - 1;
	snprintf(dev->bdf, sizeof(dev->bdf), "0000:00:03.0");
	dev->container_fd = dev->group_fd = dev->device_fd = dev->irq_fd = -1;
	dev->sq_entries = sq;
	dev->cq_entries = cq;
	dev->next_req_id = 1;
	ck_assert_int_eq(
	    sacc_dma_ctx_create(&dev->dma, -1, &info, &lim, &be, &e), 0);
	/* Anonymous pages, as libsacc munmaps BAR pages when it lets go. */
	dev->regs = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	dev->db = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(dev->regs != MAP_FAILED && dev->db != MAP_FAILED);
	dev->regs[SACC_REG_STATUS / 4] = SACC_STATUS_READY;
	dev->regs[SACC_REG_CTRL / 4] = SACC_CTRL_ENABLE;
	dev->req_fd = -1;
	memset(&F, 0, sizeof(F));
	dev->mode = mode;
	if (devmem)
		fake_devmem(dev, devmem);
	ck_assert_int_eq(sacc_queue_alloc(dev), 0);
	ck_assert_int_eq(sacc_sq_init(&dev->sq, sacc_buf_va(dev->sq_buf), sq),
			 0);
	ck_assert_int_eq(sacc_cq_init(&dev->cq, sacc_buf_va(dev->cq_buf), cq),
			 0);
	dev->initialised = true;
	F.dev = dev;
	F.phase = 1;
	return dev;
}

void fake_close(struct sacc_dev *dev)
{
	sacc_queue_free(dev);
	sacc_graph_orphan_all(dev); /* as sacc_close() */
	sacc_buf_free_all(dev);
	sacc_devmem_close(dev);
	F.dm = NULL;
	sacc_dev_dma_close(dev);
	sacc_bar_unmap(dev);
	if (dev->irq_fd >= 0)
		close(dev->irq_fd);
	if (dev->req_fd >= 0)
		close(dev->req_fd);
	free(dev);
}

/* MSI-X vector 0 on an eventfd, as sacc_irq_enable() would set up. */
void fake_irq(struct sacc_dev *dev)
{
	dev->irq_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ck_assert_int_ge(dev->irq_fd, 0);
	dev->irq_enabled = true;
}

uint64_t ms_since(uint64_t t0)
{
	return (sacc_monotonic_ns() - t0) / 1000000;
}

/* Poll (the stand-in device runs between polls) until a result, an
 * error or @max_polls; returns the last sacc_poll() value. */
int poll_until(struct sacc_dev *dev, struct sacc_result *r, unsigned int max,
	       long max_polls, bool run)
{
	int k = 0;

	for (long i = 0; i < max_polls; i++) {
		if (run)
			dev_run(1u << 20);
		k = sacc_poll(dev, r, max);
		if (k)
			return k;
	}
	return k;
}

/* What sacc_reset() does to the rings, minus the hardware. */
void fake_reset(struct sacc_dev *dev)
{
	sacc_queue_abandon(dev);
	ck_assert_int_eq(
	    sacc_sq_init(&dev->sq, sacc_buf_va(dev->sq_buf), dev->sq_entries),
	    0);
	ck_assert_int_eq(
	    sacc_cq_init(&dev->cq, sacc_buf_va(dev->cq_buf), dev->cq_entries),
	    0);
	dev->broken = false;
	dev->db[0] = 0;
	dev->regs[SACC_REG_CQ_HEAD / 4] = 0;
	F.head = F.cq_tail = 0;
	F.phase = 1;
}

int reap_all(struct sacc_dev *dev, struct sacc_result *r, int want)
{
	int got = 0, k, spins = 0;

	while (got < want && spins++ < 100000) {
		dev_run(1u << 20);
		k = sacc_poll(dev, r + got, (unsigned int)(want - got));
		if (k < 0)
			return k;
		got += k;
	}
	return got;
}

/* Every line of @path parsed, in order; returns how many. */
int read_journal(const char *path, struct sacc_journal_event *ev, int max)
{
	char line[4096];
	FILE *f = fopen(path, "r");
	int n = 0;

	ck_assert_ptr_nonnull(f);
	while (n < max && fgets(line, sizeof(line), f))
		ck_assert_int_eq(sacc_journal_parse_line(line, &ev[n++]), 1);
	fclose(f);
	return n;
}

/* The descriptor sacc_submit() wrote into SQ slot @slot. */
struct sacc_desc sq_desc(struct sacc_dev *dev, uint32_t slot)
{
	return ((struct sacc_desc *)sacc_buf_va(dev->sq_buf))[slot];
}

/* Launch @g, run the device, reap its one result into @r. */
void launch_reap(struct sacc_dev *dev, struct sacc_graph *g, uint64_t cookie,
		 struct sacc_result *r)
{
	ck_assert_int_eq(sacc_graph_launch(dev, g, cookie), 1);
	ck_assert_int_eq(reap_all(dev, r, 1), 1);
	ck_assert_uint_eq(r->cookie, cookie);
	ck_assert_uint_eq(r->opcode, SACC_OP_SEGMENT);
}

// SPDX-License-Identifier: MIT
/*
 * test_libsacc.c - host unit tests for libsacc's data path and sysfs
 * logic, no VFIO: the device is an in-process stand-in (test code only)
 * that reads the doorbell and CQ_HEAD from plain memory pages standing in
 * for BAR0, translates IOVAs through the DMA registry and posts CQEs.
 * The DMA context uses iommu/'s backend seam instead of the ioctls.
 *
 * What runs against the real device behind intel-iommu is the guest
 * suite; this covers the bookkeeping: validation, batching, doorbells,
 * CQ_HEAD writes, untrusted completions, busy buffers, sysfs messages.
 */
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sacc_priv.h"
#include "sacc_faultlog.h" /* the journal's reader, to check what was written */

/* ---- DMA backend: accept everything ---- */

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

/* ---- device stand-in ---- */

enum corruption {
	C_NONE,
	C_REQ_ID_UNKNOWN,
	C_REQ_ID_NEXT, /* an outstanding id, but out of ring order */
	C_RESULT_LEN_BIG,
	C_SHORT_OK,
	C_BAD_STATUS,
};

static struct fake {
	struct sacc_dev *dev;
	uint32_t head, cq_tail, phase;
	enum corruption corrupt;
	uint32_t last_db_seen;
	uint8_t *dm; /* v0.4 device memory (fake_devmem()), or NULL */
	uint64_t dm_size;
	/* v0.4 segments: command k - 1 fails with seg_status (0: none),
	 * or the fetch faults; a lying device adds seg_lie to result_len */
	uint32_t seg_fail_cmd;
	uint16_t seg_status;
	bool seg_fetch_fault;
	int32_t seg_lie;
	uint32_t seg_runs; /* segments run */
} F;

static void *xlate(uint64_t iova, uint32_t len, bool write)
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
static void set_fault_regs(struct sacc_dev *dev, uint64_t addr, uint32_t info,
			   uint32_t req_id, uint32_t count)
{
	dev->regs[SACC_REG_FAULT_ADDR / 4] = (uint32_t)addr;
	dev->regs[SACC_REG_FAULT_ADDR / 4 + 1] = (uint32_t)(addr >> 32);
	dev->regs[SACC_REG_FAULT_INFO / 4] = info;
	dev->regs[SACC_REG_FAULT_REQ_ID / 4] = req_id;
	dev->regs[SACC_REG_FAULT_COUNT / 4] = count;
}

/* Command @cmds[j] of a segment of @slots slots, run as the ring would
 * run it (v0.4, section 21): its status; *next is the slot after it and
 * its payload. */
static uint16_t dev_cmd(const struct sacc_desc *cmds, uint32_t j,
			uint32_t slots, uint32_t *next)
{
	const struct sacc_desc *d = &cmds[j];
	struct sacc_cqe c = {0};
	uint64_t now = sacc_monotonic_ns();
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
		t = xlate_side(d->dst, 8, true, dd);
		if (!t)
			return SACC_STS_DMA_FAULT;
		memcpy(t, &now, 8);
		return SACC_STS_OK;
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
static unsigned int dev_run(unsigned int max)
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
static void fake_devmem(struct sacc_dev *dev, uint64_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert(p != MAP_FAILED);
	dev->version = SACC_VERSION;
	ck_assert_int_eq(sacc_devmem_attach(dev, p, size), 0);
	F.dm = p;
	F.dm_size = size;
}

static struct sacc_dev *fake_open_mode(uint32_t sq, uint32_t cq, uint32_t mode,
				       uint64_t devmem);

/* A sacc_dev with everything but VFIO: what sacc_open() would build. */
static struct sacc_dev *fake_open(uint32_t sq, uint32_t cq)
{
	return fake_open_mode(sq, cq, 0, 0);
}

/* The same with MODE @mode (SACC_MODE_*) and, if @devmem, that much
 * device memory (v0.4; an SQ there with SACC_MODE_SQ_DEV). */
static struct sacc_dev *fake_open_mode(uint32_t sq, uint32_t cq, uint32_t mode,
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

static void fake_close(struct sacc_dev *dev)
{
	sacc_queue_free(dev);
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
static void fake_irq(struct sacc_dev *dev)
{
	dev->irq_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ck_assert_int_ge(dev->irq_fd, 0);
	dev->irq_enabled = true;
}

static uint64_t ms_since(uint64_t t0)
{
	return (sacc_monotonic_ns() - t0) / 1000000;
}

/* Poll (the stand-in device runs between polls) until a result, an
 * error or @max_polls; returns the last sacc_poll() value. */
static int poll_until(struct sacc_dev *dev, struct sacc_result *r,
		      unsigned int max, long max_polls, bool run)
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
static void fake_reset(struct sacc_dev *dev)
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

static int reap_all(struct sacc_dev *dev, struct sacc_result *r, int want)
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

/* ---- tests ---- */

START_TEST(test_bdf_parse)
{
	char out[SACC_BDF_MAX];

	ck_assert_int_eq(sacc_bdf_parse("0000:00:03.0", out), 0);
	ck_assert_str_eq(out, "0000:00:03.0");
	ck_assert_int_eq(sacc_bdf_parse("00:1F.7", out), 0);
	ck_assert_str_eq(out, "0000:00:1f.7");
	ck_assert_int_eq(sacc_bdf_parse("abcd:ff:1f.7", out), 0);
	ck_assert_str_eq(out, "abcd:ff:1f.7");
	ck_assert_int_eq(sacc_bdf_parse("00:20.0", out), -EINVAL);
	ck_assert_int_eq(sacc_bdf_parse("00:03.8", out), -EINVAL);
	ck_assert_int_eq(sacc_bdf_parse("00:03", out), -EINVAL);
	ck_assert_int_eq(sacc_bdf_parse("12345:00:03.0", out), -EINVAL);
	ck_assert_int_eq(sacc_bdf_parse("0000:00:03.0x", out), -EINVAL);
	ck_assert_int_eq(sacc_bdf_parse("", out), -EINVAL);
	ck_assert_int_eq(sacc_bdf_parse("../../etc", out), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(NULL), "not a PCI address"));
}
END_TEST

/* The texts libsacc's messages and saccctl's output are built from. */
START_TEST(test_hw_names)
{
	unsigned int op;

	ck_assert_str_eq(sacc_opcode_str(SACC_OP_XFORM), "xform");
	ck_assert_str_eq(sacc_opcode_str(7), "unknown");
	ck_assert_int_eq(sacc_op_parse("memcpy", &op), 0);
	ck_assert_uint_eq(op, SACC_OP_MEMCPY);
	ck_assert_int_eq(sacc_op_parse("copy", &op), -EINVAL);
	ck_assert_str_eq(sacc_status_str(SACC_STS_DMA_FAULT), "DMA fault");
	ck_assert_str_eq(sacc_status_str(4), "unknown status");
	ck_assert_str_eq(sacc_err_code_str(SACC_ERR_NOT_READY),
			 "doorbell while not READY");
	ck_assert_str_eq(sacc_err_code_str(5), "unknown error code");
	ck_assert_str_eq(sacc_fault_access_str(SACC_FAULT_CQ_WRITE |
					       SACC_FAULT_IS_WRITE),
			 "completion write");
	ck_assert_str_eq(sacc_fault_access_str(200), "unknown access");
}
END_TEST

START_TEST(test_validation)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_buf *src, *dst, *bi;
	struct sacc_op op;

	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 5000, SACC_DMA_TO_DEVICE, "src", &src), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 5000, SACC_DMA_FROM_DEVICE, "dst", &dst), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 10, SACC_DMA_BIDIRECTIONAL, "bi", &bi), 0);
	ck_assert_int_eq(sacc_buf_alloc(dev, 0, SACC_DMA_TO_DEVICE, "z", &bi),
			 -EINVAL);
	ck_assert_ptr_null(bi);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 10, (enum sacc_dma_dir)7, "z", &bi), -EINVAL);
	/* page-granular, guard page between neighbours */
	ck_assert_uint_eq(sacc_buf_iova(src) & 4095, 0);
	ck_assert_uint_eq((uintptr_t)sacc_buf_va(dst) & 4095, 0);
	ck_assert(sacc_buf_iova(dst) >= sacc_buf_iova(src) + 8192 + 4096 ||
		  sacc_buf_iova(src) >= sacc_buf_iova(dst) + 8192 + 4096);

	op = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 100, .src = dst, .dst = dst};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "may not read"));
	op = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 100, .src = src, .dst = src};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "may not write"));
	op = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
			      .len = 5000,
			      .src = src,
			      .src_off = 1,
			      .dst = dst};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "past its end"));
	op = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
			      .len = 1,
			      .src = src,
			      .src_off = SIZE_MAX,
			      .dst = dst};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	op = (struct sacc_op){
	    .opcode = SACC_OP_XFORM, .len = 0, .src = src, .dst = dst};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	op = (struct sacc_op){.opcode = SACC_OP_XFORM,
			      .len = SACC_MAX_XFER + 1,
			      .src = src,
			      .dst = dst};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	op = (struct sacc_op){.opcode = 3, .len = 1, .src = src, .dst = dst};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	op = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 1, .src = src, .dst = dev->cq_buf};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	op = (struct sacc_op){.opcode = SACC_OP_NOP, .flags = 0x80};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	/* nothing reached the device */
	ck_assert_uint_eq(dev->stats.doorbells, 0);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	/* rings are libsacc's */
	ck_assert_int_eq(sacc_buf_free(dev->sq_buf), -EINVAL);
	ck_assert_int_eq(sacc_buf_free(src), 0);
	fake_close(dev);
}
END_TEST

START_TEST(test_batch_one_doorbell)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_buf *src, *dst;
	struct sacc_result r[16];
	struct sacc_op ops[10];
	uint8_t *s, *d;
	int i, n;

	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 1000, SACC_DMA_TO_DEVICE, "src", &src), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 1000, SACC_DMA_FROM_DEVICE, "dst", &dst), 0);
	s = sacc_buf_va(src);
	d = sacc_buf_va(dst);
	for (i = 0; i < 1000; i++)
		s[i] = (uint8_t)(i * 7);
	for (i = 0; i < 10; i++)
		ops[i] = (struct sacc_op){.opcode = (uint16_t)(i % 3),
					  .len = 100,
					  .src = src,
					  .src_off = (size_t)i * 100,
					  .dst = dst,
					  .dst_off = (size_t)i * 100,
					  .cookie = 100 + (uint64_t)i};
	/* 8-entry SQ: 7 fit, one doorbell with the new tail */
	n = sacc_submit(dev, ops, 10);
	ck_assert_int_eq(n, 7);
	ck_assert_uint_eq(dev->stats.doorbells, 1);
	ck_assert_uint_eq(dev->db[0], 7);
	ck_assert_int_eq(sacc_submit(dev, ops, 1), 0); /* full */
	ck_assert_uint_eq(dev->stats.doorbells, 1);
	ck_assert_uint_eq(sacc_sq_free(dev), 0);
	/* a buffer named by an outstanding op cannot be freed */
	ck_assert_int_eq(sacc_buf_free(src), -EBUSY);
	ck_assert_int_eq(reap_all(dev, r, 7), 7);
	ck_assert_uint_eq(dev->stats.cq_head_writes, 1);
	ck_assert_uint_eq(dev->regs[SACC_REG_CQ_HEAD / 4], 7);
	for (i = 0; i < 7; i++) {
		ck_assert_uint_eq(r[i].cookie, 100 + (uint64_t)i);
		ck_assert_uint_eq(r[i].status, SACC_STS_OK);
		ck_assert_uint_eq(r[i].opcode, i % 3);
		ck_assert_uint_eq(r[i].result_len, i % 3 ? 100 : 0);
		ck_assert(!r[i].raw);
	}
	ck_assert_uint_eq(d[150], s[150]);
	ck_assert_uint_eq(d[250], s[250] ^ SACC_XFORM_KEY);
	ck_assert_uint_eq(d[50], 0); /* the NOP wrote nothing */
	ck_assert_int_eq(sacc_buf_free(src), 0);
	fake_close(dev);
}
END_TEST

START_TEST(test_laps_small_cq)
{
	/* CQ smaller than the SQ: the device stalls on the full rule. */
	struct sacc_dev *dev = fake_open(16, 4);
	struct sacc_result r[64];
	struct sacc_op ops[15];
	struct sacc_stats st;
	int lap, i;

	for (i = 0; i < 15; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_NOP,
					  .cookie = (uint64_t)i};
	for (lap = 0; lap < 500; lap++) {
		int n = sacc_submit(dev, ops, (unsigned int)(1 + lap % 15));

		ck_assert_int_eq(n, 1 + lap % 15);
		ck_assert_int_eq(reap_all(dev, r, n), n);
		for (i = 0; i < n; i++)
			ck_assert_uint_eq(r[i].cookie, (uint64_t)i);
	}
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.submitted, st.completed);
	ck_assert_uint_eq(st.doorbells, 500);
	ck_assert_uint_eq(st.by_status[SACC_STS_OK], st.completed);
	ck_assert_uint_eq(st.device_errors, 0);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	fake_close(dev);
}
END_TEST

static void expect_untrusted(enum corruption c, const char *needle)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_buf *src, *dst;
	struct sacc_result r[8];
	struct sacc_op ops[3];
	struct sacc_stats st;
	int i;

	ck_assert_int_eq(sacc_buf_alloc(dev, 64, SACC_DMA_TO_DEVICE, "s", &src),
			 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 64, SACC_DMA_FROM_DEVICE, "d", &dst), 0);
	for (i = 0; i < 3; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
					  .len = 64,
					  .src = src,
					  .dst = dst};
	ck_assert_int_eq(sacc_submit(dev, ops, 3), 3);
	dev_run(1); /* one good completion first */
	F.corrupt = c;
	dev_run(2);
	/* the good one is delivered, then the bad one is an error */
	ck_assert_int_eq(sacc_poll(dev, r, 8), 1);
	ck_assert_int_eq(sacc_poll(dev, r, 8), -EIO);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), needle));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "sacc_reset"));
	/* sticky until reset */
	ck_assert_int_eq(sacc_poll(dev, r, 8), -EIO);
	ck_assert_int_eq(sacc_submit(dev, ops, 1), -EIO);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.device_errors, 1);
	ck_assert_uint_eq(st.completed, 1);
	ck_assert_int_eq(sacc_buf_free(src), -EBUSY);
	fake_reset(dev);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.abandoned, 2);
	ck_assert_int_eq(sacc_buf_free(src), 0);
	fake_close(dev);
}

START_TEST(test_untrusted_unknown_req_id)
{
	expect_untrusted(C_REQ_ID_UNKNOWN, "not outstanding");
}
END_TEST

START_TEST(test_untrusted_out_of_order)
{
	expect_untrusted(C_REQ_ID_NEXT, "out of ring order");
}
END_TEST

START_TEST(test_untrusted_result_len)
{
	expect_untrusted(C_RESULT_LEN_BIG, "larger than");
}
END_TEST

START_TEST(test_untrusted_short_ok)
{
	expect_untrusted(C_SHORT_OK, "status ok but result_len");
}
END_TEST

START_TEST(test_untrusted_status)
{
	expect_untrusted(C_BAD_STATUS, "unknown status");
}
END_TEST

START_TEST(test_completion_nothing_outstanding)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_cqe *cq = sacc_buf_va(dev->cq_buf);
	struct sacc_result r;

	ck_assert_int_eq(sacc_poll(dev, &r, 1), 0);
	cq[0].req_id = 1;
	cq[0].phase = 1;
	ck_assert_int_eq(sacc_poll(dev, &r, 1), -EIO);
	ck_assert_ptr_nonnull(
	    strstr(sacc_errmsg(dev), "nothing is outstanding"));
	fake_close(dev);
}
END_TEST

/*
 * Issue 9, 1: a well-formed completion forged into a CQ slot the driver
 * already consumed (by a DMA the device was told to do), naming a
 * queued 1 MiB XFORM the device never ran because the CQ was full.
 * The device keeps one CQ slot free, so CQ_SIZE valid entries before a
 * CQ_HEAD write cannot all be its own.
 */
START_TEST(test_forged_completion_in_kept_free_slot)
{
	struct sacc_dev *dev = fake_open(16, 4);
	struct sacc_buf *forger, *src, *dst;
	struct sacc_result r[16];
	struct sacc_cqe forged;
	struct sacc_desc d = {0};
	struct sacc_op ops[3];
	uint8_t *out;
	int id, k, got = 0;

	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "forger", &forger),
	    0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, SACC_MAX_XFER, SACC_DMA_TO_DEVICE, "s", &src),
	    0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, SACC_MAX_XFER, SACC_DMA_FROM_DEVICE, "d", &dst),
	    0);
	memset(sacc_buf_va(src), 0x55, SACC_MAX_XFER);
	/* The DMA: 16 bytes into CQ slot 3, which the driver expects the
	 * XFORM's completion in, with the right phase and req_id. */
	d.opcode = SACC_OP_MEMCPY;
	d.src = sacc_buf_iova(forger);
	d.dst = sacc_dev_cq_iova(dev) + 3 * sizeof(struct sacc_cqe);
	d.length = sizeof(struct sacc_cqe);
	id = sacc_submit_raw(dev, &d);
	ck_assert_int_gt(id, 0);
	forged = (struct sacc_cqe){.req_id = (uint32_t)id + 3,
				   .result_len = SACC_MAX_XFER,
				   .status = SACC_STS_OK,
				   .phase = 1};
	memcpy(sacc_buf_va(forger), &forged, sizeof(forged));
	ops[0] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = 1};
	ops[1] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = 2};
	ops[2] = (struct sacc_op){.opcode = SACC_OP_XFORM,
				  .len = SACC_MAX_XFER,
				  .src = src,
				  .dst = dst,
				  .cookie = 99};
	ck_assert_int_eq(sacc_submit(dev, ops, 3), 3);
	/* memcpy (forges slot 3), posts slots 0-2, then stalls: CQ full */
	ck_assert_int_eq(dev_run(100), 3);

	for (int i = 0; i < 10; i++) {
		k = sacc_poll(dev, r, 16);
		if (k < 0)
			break;
		for (int j = 0; j < k; j++)
			ck_assert_msg(r[j].cookie != 99,
				      "the forged XFORM completion was "
				      "accepted (status %u, result_len %u)",
				      r[j].status, r[j].result_len);
		got += k;
	}
	ck_assert_int_eq(got, 3); /* the device's own three */
	ck_assert_int_eq(k, -EIO);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "slot 3"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "forged"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "sacc_reset"));
	ck_assert_uint_eq(dev->stats.device_errors, 1);
	ck_assert_int_eq(sacc_submit(dev, ops, 1), -EIO);
	out = sacc_buf_va(dst);
	ck_assert_uint_eq(out[0],
			  0); /* never written: the device never ran it */
	fake_close(dev);
}
END_TEST

/*
 * The same forgery, reaped one completion at a time: by then the slot
 * is one the device may write, so the entry is taken, and the device,
 * one completion behind the driver's CQ_HEAD, sees a full CQ and stalls.
 * A stall with work outstanding is probed: CQ_HEAD is moved back one
 * slot, and a device that then posts into the slot already consumed
 * was behind, so the entry taken from it was not its own.
 */
START_TEST(test_forged_completion_stall_probe)
{
	struct sacc_dev *dev = fake_open(16, 4);
	struct sacc_buf *forger;
	struct sacc_result r[4];
	struct sacc_cqe forged;
	struct sacc_desc d = {0};
	struct sacc_op ops[4];
	uint64_t t0;
	int id, k = 0, got = 0;

	dev->stall_probe_ms = 20;
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "forger", &forger),
	    0);
	d.opcode = SACC_OP_MEMCPY;
	d.src = sacc_buf_iova(forger);
	d.dst = sacc_dev_cq_iova(dev) + 3 * sizeof(struct sacc_cqe);
	d.length = sizeof(struct sacc_cqe);
	id = sacc_submit_raw(dev, &d);
	forged = (struct sacc_cqe){
	    .req_id = (uint32_t)id + 3, .status = SACC_STS_OK, .phase = 1};
	memcpy(sacc_buf_va(forger), &forged, sizeof(forged));
	for (int i = 0; i < 4; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_NOP,
					  .cookie = 1 + (uint64_t)i};
	ck_assert_int_eq(sacc_submit(dev, ops, 4), 4);
	ck_assert_int_eq(dev_run(100), 3);
	/* one at a time: the forged entry (cookie 3) is taken */
	for (int i = 0; i < 4; i++)
		got += sacc_poll(dev, r, 1);
	ck_assert_int_eq(got, 4);
	ck_assert_uint_eq(r[0].cookie, 3);
	/* the device is stuck one behind; the driver must not wait on it
	 * forever */
	t0 = sacc_monotonic_ns();
	while (ms_since(t0) < 3000) {
		dev_run(100);
		k = sacc_poll(dev, r, 4);
		ck_assert_int_le(k, 0);
		if (k < 0)
			break;
	}
	ck_assert_int_eq(k, -EIO);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "forged"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "sacc_reset"));
	fake_close(dev);
}
END_TEST

/* A device that is merely slow while the probe runs: no false alarm,
 * and the queue works on for many laps. */
START_TEST(test_stall_probe_slow_device)
{
	struct sacc_dev *dev = fake_open(16, 4);
	struct sacc_result r[16];
	struct sacc_op ops[15];
	uint64_t t0;
	int got = 0, k;

	dev->stall_probe_ms = 20;
	for (int i = 0; i < 15; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_NOP,
					  .cookie = (uint64_t)i};
	ck_assert_int_eq(sacc_submit(dev, ops, 4), 4);
	/* the device does nothing for a while: the probe arms */
	t0 = sacc_monotonic_ns();
	while (!dev->probe_armed_at && ms_since(t0) < 2000)
		ck_assert_int_eq(sacc_poll(dev, r, 16), 0);
	ck_assert_uint_ne(dev->probe_armed_at, 0);
	ck_assert_uint_eq(dev->regs[SACC_REG_CQ_HEAD / 4], 3); /* moved back */
	/* then it posts what the moved-back CQ_HEAD lets it */
	while (got < 4) {
		dev_run(100);
		k = sacc_poll(dev, r + got, 16);
		ck_assert_msg(k >= 0, "%s", sacc_errmsg(dev));
		got += k;
	}
	for (int i = 0; i < 4; i++)
		ck_assert_uint_eq(r[i].cookie, (uint64_t)i);
	for (int lap = 0; lap < 50; lap++) {
		ck_assert_int_eq(sacc_submit(dev, ops, 15), 15);
		ck_assert_int_eq(reap_all(dev, r, 15), 15);
	}
	ck_assert_uint_eq(dev->stats.device_errors, 0);
	fake_close(dev);
}
END_TEST

/*
 * Issue 9, 2: a NOP's completion overwritten with 16 zero bytes before
 * it is reaped, the device's next completion in the following slot.
 */
START_TEST(test_erased_completion)
{
	struct sacc_op ops[2] = {{.opcode = SACC_OP_NOP, .cookie = 1},
				 {.opcode = SACC_OP_NOP, .cookie = 2}};
	struct sacc_result r[2];
	struct sacc_dev *dev;
	struct sacc_cqe *cq;
	int k;

	/* sacc_poll */
	dev = fake_open(8, 8);
	cq = sacc_buf_va(dev->cq_buf);
	ck_assert_int_eq(sacc_submit(dev, ops, 2), 2);
	ck_assert_int_eq(dev_run(8), 2);
	memset(&cq[0], 0, sizeof(cq[0]));
	k = poll_until(dev, r, 2, 3 * SACC_HEALTH_EVERY, false);
	ck_assert_int_eq(k, -EIO);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "lost"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "sacc_reset"));
	ck_assert_uint_eq(dev->stats.device_errors, 1);
	fake_close(dev);

	/* sacc_wait: a device error, not a timeout */
	dev = fake_open(8, 8);
	fake_irq(dev);
	cq = sacc_buf_va(dev->cq_buf);
	ck_assert_int_eq(sacc_submit(dev, ops, 2), 2);
	ck_assert_int_eq(dev_run(8), 2);
	memset(&cq[0], 0, sizeof(cq[0]));
	ck_assert_int_eq(sacc_wait(dev, 1000), -EIO);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "lost"));
	fake_close(dev);
}
END_TEST

static void *reset_later(void *arg)
{
	struct sacc_dev *dev = arg;
	struct timespec ts = {0, 200 * 1000 * 1000};

	nanosleep(&ts, NULL);
	/* What an FLR leaves: every register at its power-on value. */
	dev->regs[SACC_REG_CTRL / 4] = 0;
	dev->regs[SACC_REG_STATUS / 4] = 0;
	return NULL;
}

/* Issue 9, 3: sacc_wait(dev, -1) when the device is reset under it. */
START_TEST(test_wait_forever_device_reset)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_op op = {.opcode = SACC_OP_NOP, .flags = SACC_OPF_IRQ};
	pthread_t th;
	uint64_t t0;

	fake_irq(dev);
	ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	ck_assert_int_eq(pthread_create(&th, NULL, reset_later, dev), 0);
	t0 = sacc_monotonic_ns();
	ck_assert_int_eq(sacc_wait(dev, -1), -EIO);
	ck_assert_uint_lt(ms_since(t0), 3000);
	pthread_join(th, NULL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "reset"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "sacc_reset()"));
	ck_assert_int_eq(sacc_wait(dev, -1), -EIO); /* sticky */
	fake_close(dev);
}
END_TEST

/* A device that takes work and never completes it: bounded, too. */
START_TEST(test_hung_device_bounded)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_op op = {.opcode = SACC_OP_NOP, .flags = SACC_OPF_IRQ};
	struct sacc_result r;
	uint64_t t0;
	int k;

	dev->hang_ms = 300;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	t0 = sacc_monotonic_ns();
	do
		k = sacc_poll(dev, &r, 1);
	while (k == 0 && ms_since(t0) < 5000);
	ck_assert_int_eq(k, -EIO);
	ck_assert_uint_ge(ms_since(t0), 300);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "no completion"));
	fake_close(dev);

	dev = fake_open(8, 8);
	fake_irq(dev);
	dev->hang_ms = 300;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	t0 = sacc_monotonic_ns();
	ck_assert_int_eq(sacc_wait(dev, -1), -EIO);
	ck_assert_uint_lt(ms_since(t0), 3000);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "no completion"));
	fake_close(dev);
}
END_TEST

/*
 * Issue 9, 4: the kernel's device request (unbind) arrives on its
 * eventfd; libsacc lets go of the device at its next slow-path look.
 */
START_TEST(test_device_request)
{
	struct sacc_op op = {.opcode = SACC_OP_NOP, .flags = SACC_OPF_IRQ};
	struct sacc_result r;
	struct sacc_dev *dev;
	struct sacc_buf *b;
	uint64_t one = 1;
	uint32_t v;
	int k;

	/* noticed by sacc_poll, even on an idle device */
	dev = fake_open(8, 8);
	dev->req_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ck_assert_int_ge(dev->req_fd, 0);
	ck_assert_int_eq(sacc_buf_alloc(dev, 64, SACC_DMA_TO_DEVICE, "b", &b),
			 0);
	ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	ck_assert_int_eq(write(dev->req_fd, &one, sizeof(one)), sizeof(one));
	k = poll_until(dev, &r, 1, 3 * SACC_HEALTH_EVERY, false);
	ck_assert_int_eq(k, -ENODEV);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "kernel asked for"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "reopen"));
	/* it let go: no BAR mapping, no eventfds, nothing outstanding */
	ck_assert(dev->regs == NULL);
	ck_assert(dev->db == NULL);
	ck_assert_int_eq(dev->req_fd, -1);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -ENODEV);
	ck_assert_int_eq(sacc_poll(dev, &r, 1), -ENODEV);
	ck_assert_int_eq(sacc_wait(dev, 0), -ENODEV);
	ck_assert_int_eq(sacc_check(dev), -ENODEV);
	ck_assert_int_eq(sacc_reset(dev), -ENODEV);
	ck_assert_int_eq(sacc_reg_read(dev, SACC_REG_STATUS, &v), -ENODEV);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "kernel asked for"));
	ck_assert_int_eq(sacc_buf_alloc(dev, 64, SACC_DMA_TO_DEVICE, "c", &b),
			 -ENODEV);
	/* buffers stay usable memory and can be freed */
	ck_assert_int_eq(sacc_buf_free(dev->bufs), 0);
	fake_close(dev);

	/* noticed by sacc_wait(-1) at once */
	dev = fake_open(8, 8);
	fake_irq(dev);
	dev->req_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ck_assert_int_eq(write(dev->req_fd, &one, sizeof(one)), sizeof(one));
	ck_assert_int_eq(sacc_wait(dev, -1), -ENODEV);
	fake_close(dev);
}
END_TEST

START_TEST(test_submit_raw)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_buf *dst;
	struct sacc_result r[2];
	struct sacc_desc d = {0};
	int id;

	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 64, SACC_DMA_FROM_DEVICE, "d", &dst), 0);
	/* unmapped source, any req_id: the driver assigns its own */
	d.src = 0xdead0000;
	d.dst = sacc_buf_iova(dst);
	d.length = 64;
	d.opcode = SACC_OP_MEMCPY;
	d.req_id = 0;
	id = sacc_submit_raw(dev, &d);
	ck_assert_int_gt(id, 0);
	d.opcode = 77;
	ck_assert_int_eq(sacc_submit_raw(dev, &d), id + 1);
	ck_assert_int_eq(reap_all(dev, r, 2), 2);
	ck_assert(r[0].raw && r[1].raw);
	ck_assert_uint_eq(r[0].req_id, (uint32_t)id);
	ck_assert_uint_eq(r[0].status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(r[1].status, SACC_STS_BAD_OPCODE);
	ck_assert_uint_eq(dev->stats.by_status[SACC_STS_DMA_FAULT], 1);
	fake_close(dev);
}
END_TEST

/*
 * Any bytes in a run of SQ slots (v0.4: the SQ in device memory), one
 * doorbell: the driver stamps only the req_ids of the commands, tracks
 * an inline command's payload slots as the caller says the device walks
 * them, and a device that walks them otherwise is caught.
 */
START_TEST(test_submit_raw_slots)
{
	struct sacc_dev *dev =
	    fake_open_mode(16, 16, SACC_MODE_V3 | SACC_MODE_SQ_DEV, 16 * 4096);
	const uint32_t walk[4] = {1, 3, 1, 1}, wrong[6] = {1, 1, 1, 1, 1, 1};
	const uint32_t all[1] = {16};
	struct sacc_desc g[6], *sq = (struct sacc_desc *)F.dm;
	uint32_t ids[4];
	struct sacc_result r[4];

	for (size_t i = 0; i < sizeof(g); i++)
		((uint8_t *)g)[i] = (uint8_t)(i * 131 + 7);
	g[0].opcode = 0x9999; /* unknown */
	g[1].opcode = SACC_OP_WRITE_INLINE;
	g[1].length = 40; /* payload: slots 2 and 3 */
	g[1].flags = SACC_DESC_F_DST_DEV;
	g[1].dst = 1ull << 40; /* past device memory */
	g[4].opcode = SACC_OP_NOP;
	g[5].opcode = SACC_OP_WRITE_INLINE;
	g[5].length = 5000; /* bad, and nothing after it */
	ck_assert_int_eq(sacc_submit_raw_slots(dev, g, 6, walk, 3, ids),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "5 of the 6"));
	ck_assert_int_eq(sacc_submit_raw_slots(dev, g, 5, walk, 4, ids),
			 -EINVAL);
	ck_assert_int_eq(sacc_submit_raw_slots(dev, g, 16, wrong, 1, ids),
			 -EINVAL);
	ck_assert_int_eq(sacc_submit_raw_slots(dev, g, 6, walk, 4, ids), 4);
	ck_assert_uint_eq(ids[1], ids[0] + 1);
	ck_assert_uint_eq(ids[3], ids[0] + 3);
	/* the commands' req_ids are the driver's, every other byte is g's */
	for (int i = 0, k = 0; i < 6; i++) {
		struct sacc_desc want = g[i];

		if (i == 0 || i == 1 || i == 4 || i == 5)
			want.req_id = ids[k++];
		ck_assert_mem_eq(&sq[i], &want, sizeof(want));
	}
	ck_assert_int_eq(reap_all(dev, r, 4), 4);
	ck_assert(r[0].raw && r[3].raw);
	ck_assert_uint_eq(r[0].status, SACC_STS_BAD_OPCODE);
	ck_assert_uint_eq(r[1].status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(r[2].status, SACC_STS_OK);
	ck_assert_uint_eq(r[3].status, SACC_STS_BAD_LENGTH);
	ck_assert_uint_eq(r[3].req_id, ids[3]);

	/* slots 2 and 3 said to be commands: the device skips them */
	ck_assert_int_eq(sacc_submit_raw_slots(dev, g, 6, wrong, 6, NULL), 6);
	ck_assert_int_eq(reap_all(dev, r, 4), -EIO);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "out of ring order"));
	fake_reset(dev);
	ck_assert_int_eq(sacc_submit_raw_slots(dev, sq, 16, all, 1, NULL),
			 -EAGAIN);
	fake_close(dev);
}
END_TEST

/* ---- API events (events.c) ---- */

/* Read every pending event of @dev into @ev (at most @max). */
static unsigned int ev_drain(struct sacc_dev *dev, struct sacc_event *ev,
			     unsigned int max)
{
	unsigned int n = 0, k;

	while (n < max && (k = sacc_events_read(dev, ev + n, max - n)) > 0)
		n += k;
	return n;
}

static void nop_round_trip(struct sacc_dev *dev)
{
	struct sacc_op nop = {.opcode = SACC_OP_NOP};
	struct sacc_result r;

	ck_assert_int_eq(sacc_submit(dev, &nop, 1), 1);
	ck_assert_int_eq(reap_all(dev, &r, 1), 1);
}

/* Off by default; on: one submit per op, one doorbell per batch, one
 * reap per completion, in order, with the caller's pid and tid. */
START_TEST(test_events_record)
{
	struct sacc_dev *dev = fake_open(16, 16);
	struct sacc_buf *src, *dst;
	struct sacc_event ev[64];
	struct sacc_result r[8];
	struct sacc_op ops[3];
	struct sacc_chain *chain;
	struct sacc_desc d = {0};
	uint32_t id0;
	unsigned int n, i;

	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "src", &src), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "dst", &dst), 0);
	/* off: nothing recorded, nothing to read */
	nop_round_trip(dev);
	ck_assert_uint_eq(sacc_events_capacity(dev), 0);
	ck_assert_uint_eq(sacc_events_read(dev, ev, 64), 0);
	ck_assert_ptr_null(dev->ev);

	ck_assert_int_eq(sacc_events_enable(dev, 60), 0);
	ck_assert_uint_eq(sacc_events_capacity(dev), 64);
	ops[0] = (struct sacc_op){.opcode = SACC_OP_NOP};
	ops[1] = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 100, .src = src, .dst = dst};
	ops[2] = (struct sacc_op){
	    .opcode = SACC_OP_XFORM, .len = 4096, .src = src, .dst = dst};
	id0 = dev->next_req_id;
	ck_assert_int_eq(sacc_submit(dev, ops, 3), 3);
	ck_assert_uint_eq(sacc_events_pending(dev), 4);
	ck_assert_int_eq(reap_all(dev, r, 3), 3);
	n = ev_drain(dev, ev, 64);
	ck_assert_uint_eq(n, 7);
	for (i = 0; i < 3; i++) {
		ck_assert_uint_eq(ev[i].type, SACC_EV_SUBMIT);
		ck_assert_uint_eq(ev[i].req_id, id0 + i);
		ck_assert_uint_eq(ev[i].opcode, ops[i].opcode);
		ck_assert_uint_eq(ev[i].length, i ? ops[i].len : 0);
		ck_assert_uint_eq(ev[i].t_ns, ev[0].t_ns);
		ck_assert_uint_eq(ev[i].pid, (uint32_t)getpid());
		ck_assert_uint_eq(ev[i].tid, (uint32_t)gettid());
		ck_assert_uint_eq(ev[i].chan, 0);
	}
	ck_assert_uint_eq(ev[3].type, SACC_EV_DOORBELL);
	ck_assert_uint_eq(ev[3].count, 3);
	ck_assert_uint_eq(ev[3].tail, dev->db[0]);
	ck_assert_uint_eq(ev[3].t_ns, ev[0].t_ns); /* one read a batch */
	for (i = 4; i < 7; i++) {
		ck_assert_uint_eq(ev[i].type, SACC_EV_REAP);
		ck_assert_uint_eq(ev[i].req_id, id0 + i - 4);
		ck_assert_uint_eq(ev[i].req_id, r[i - 4].req_id);
		ck_assert_uint_eq(ev[i].opcode, ops[i - 4].opcode);
		ck_assert_uint_eq(ev[i].status, SACC_STS_OK);
		ck_assert_uint_ge(ev[i].t_ns, ev[3].t_ns);
	}
	ck_assert_uint_eq(sacc_events_pending(dev), 0);

	/* raw submits and chains are recorded too */
	d.opcode = SACC_OP_NOP;
	ck_assert_int_gt(sacc_submit_raw(dev, &d), 0);
	ck_assert_int_eq(sacc_chain_create(dev, ops, 2, &chain), 0);
	ck_assert_int_eq(sacc_chain_launch(chain), 2);
	ck_assert_int_eq(reap_all(dev, r, 3), 3);
	n = ev_drain(dev, ev, 64);
	ck_assert_uint_eq(n, 2 + 3 + 3);
	ck_assert_uint_eq(ev[0].type, SACC_EV_SUBMIT);
	ck_assert_uint_eq(ev[1].type, SACC_EV_DOORBELL);
	ck_assert_uint_eq(ev[1].count, 1);
	ck_assert_uint_eq(ev[2].type, SACC_EV_SUBMIT);
	ck_assert_uint_eq(ev[3].type, SACC_EV_SUBMIT);
	ck_assert_uint_eq(ev[3].req_id, ev[2].req_id + 1);
	ck_assert_uint_eq(ev[4].type, SACC_EV_DOORBELL);
	ck_assert_uint_eq(ev[4].count, 2);
	for (i = 5; i < 8; i++)
		ck_assert_uint_eq(ev[i].type, SACC_EV_REAP);
	ck_assert_uint_eq(ev[5].req_id, ev[0].req_id);
	sacc_chain_free(chain);
	ck_assert_uint_eq(sacc_events_drops(dev), 0);

	/* the clock sync needs MODE.V3, which the stand-in is not */
	{
		struct sacc_clock_sample cs;

		ck_assert_int_eq(sacc_clock_sync(dev, 100, &cs), -ENOTSUP);
		ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "MODE.V3"));
	}
	/* off again: freed, nothing recorded */
	ck_assert_int_eq(sacc_events_enable(dev, 0), 0);
	ck_assert_int_eq(sacc_events_pause(dev, false), -ENOENT);
	nop_round_trip(dev);
	ck_assert_uint_eq(sacc_events_read(dev, ev, 64), 0);
	ck_assert_int_eq(sacc_events_enable(dev, SACC_EVENTS_MAX + 1),
			 -EINVAL);
	ck_assert_int_eq(sacc_events_enable(dev, 8), 0);
	fake_close(dev); /* frees the ring (ASan would say) */
}
END_TEST

/* A small ring wraps many times in order; full, it keeps the oldest
 * events, counts every one it could not take, and goes on once read. */
START_TEST(test_events_wrap_drops)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_event ev[16];
	uint32_t last = 0;
	unsigned int n;

	ck_assert_int_eq(sacc_events_enable(dev, 3), 0);
	ck_assert_uint_eq(sacc_events_capacity(dev), 4);
	for (int round = 0; round < 50; round++) {
		nop_round_trip(dev);
		n = ev_drain(dev, ev, 16);
		ck_assert_uint_eq(n, 3);
		ck_assert_uint_eq(ev[0].type, SACC_EV_SUBMIT);
		ck_assert_uint_eq(ev[1].type, SACC_EV_DOORBELL);
		ck_assert_uint_eq(ev[2].type, SACC_EV_REAP);
		ck_assert_uint_eq(ev[2].req_id, ev[0].req_id);
		ck_assert_uint_gt(ev[0].req_id, last);
		ck_assert_uint_le(ev[0].t_ns, ev[1].t_ns);
		ck_assert_uint_le(ev[1].t_ns, ev[2].t_ns);
		last = ev[0].req_id;
	}
	ck_assert_uint_eq(sacc_events_drops(dev), 0);
	/* two round trips, nobody reading: 6 events into 4 slots */
	nop_round_trip(dev);
	nop_round_trip(dev);
	ck_assert_uint_eq(sacc_events_pending(dev), 4);
	ck_assert_uint_eq(sacc_events_drops(dev), 2);
	n = ev_drain(dev, ev, 16);
	ck_assert_uint_eq(n, 4); /* the oldest four, intact */
	ck_assert_uint_eq(ev[0].type, SACC_EV_SUBMIT);
	ck_assert_uint_eq(ev[0].req_id, last + 1);
	ck_assert_uint_eq(ev[2].type, SACC_EV_REAP);
	ck_assert_uint_eq(ev[3].type, SACC_EV_SUBMIT);
	ck_assert_uint_eq(ev[3].req_id, last + 2);
	/* room again: recording goes on, the count stays */
	nop_round_trip(dev);
	ck_assert_uint_eq(ev_drain(dev, ev, 16), 3);
	ck_assert_uint_eq(ev[0].req_id, last + 3);
	ck_assert_uint_eq(sacc_events_drops(dev), 2);
	/* paused: nothing recorded, nothing lost; resumed: recording */
	ck_assert_int_eq(sacc_events_pause(dev, true), 0);
	nop_round_trip(dev);
	ck_assert_uint_eq(sacc_events_pending(dev), 0);
	ck_assert_uint_eq(sacc_events_capacity(dev), 4);
	ck_assert_uint_eq(sacc_events_drops(dev), 2);
	ck_assert_int_eq(sacc_events_pause(dev, false), 0);
	nop_round_trip(dev);
	ck_assert_uint_eq(ev_drain(dev, ev, 16), 3);
	ck_assert_uint_eq(ev[0].req_id, last + 5);
	/* a new ring starts empty and uncounted */
	ck_assert_int_eq(sacc_events_enable(dev, 16), 0);
	ck_assert_uint_eq(sacc_events_drops(dev), 0);
	ck_assert_uint_eq(sacc_events_pending(dev), 0);
	fake_close(dev);
}
END_TEST

struct ev_producer {
	struct sacc_dev *dev;
	int rounds;
	volatile int done;
};

static void *ev_produce(void *arg)
{
	struct ev_producer *p = arg;
	struct sacc_op nop = {.opcode = SACC_OP_NOP};
	struct sacc_result r[4];
	int got;

	for (int i = 0; i < p->rounds; i++) {
		if (sacc_submit(p->dev, &nop, 1) != 1)
			break;
		got = 0;
		while (got < 1) {
			dev_run(1u << 20);
			got += sacc_poll(p->dev, r, 4);
		}
	}
	__atomic_store_n(&p->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The handle's thread records while another thread reads: every event
 * is read exactly once or counted as dropped, in order. */
START_TEST(test_events_concurrent_reader)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct ev_producer p = {.dev = dev, .rounds = 20000};
	struct sacc_event ev[64];
	uint64_t got = 0, last_t = 0;
	uint32_t last_submit = 0;
	pthread_t th;
	unsigned int n;
	int done;

	ck_assert_int_eq(sacc_events_enable(dev, 64), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, ev_produce, &p), 0);
	do {
		done = __atomic_load_n(&p.done, __ATOMIC_ACQUIRE);
		while ((n = sacc_events_read(dev, ev, 64)) > 0) {
			for (unsigned int i = 0; i < n; i++) {
				ck_assert_uint_ge(ev[i].t_ns, last_t);
				last_t = ev[i].t_ns;
				ck_assert(ev[i].type >= SACC_EV_SUBMIT &&
					  ev[i].type <= SACC_EV_REAP);
				if (ev[i].type != SACC_EV_SUBMIT)
					continue;
				ck_assert_uint_gt(ev[i].req_id, last_submit);
				last_submit = ev[i].req_id;
			}
			got += n;
		}
	} while (!done);
	pthread_join(th, NULL);
	got += ev_drain(dev, ev, 64);
	ck_assert_uint_eq(got + sacc_events_drops(dev), 3ull * 20000);
	fake_close(dev);
}
END_TEST

/* Every line of @path parsed, in order; returns how many. */
static int read_journal(const char *path, struct sacc_journal_event *ev,
			int max)
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

START_TEST(test_journal)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_journal_event ev[32];
	struct sacc_buf *src, *dst;
	struct sacc_journal *j;
	struct sacc_result r[3];
	struct sacc_desc d = {0};
	char dir[] = "/tmp/sacc-journal-XXXXXX", path[64];
	const char *why = "unset";
	uint64_t src_iova;
	int id1, id2, id3, n;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/j.jsonl", dir);
	ck_assert_ptr_null(sacc_dev_journal(dev, &why));
	ck_assert_int_eq(sacc_journal_open_path(&j, path, dev->bdf, NULL), 0);
	sacc_dev_journal_attach(dev, j);
	ck_assert_str_eq(sacc_dev_journal(dev, &why), path);
	ck_assert_ptr_null(why);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 100, SACC_DMA_TO_DEVICE, "src", &src), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 8192, SACC_DMA_FROM_DEVICE, "dst", &dst), 0);
	src_iova = sacc_buf_iova(src);

	/* 1: the record is its own (FAULT_REQ_ID matches) */
	d.opcode = SACC_OP_MEMCPY;
	d.src = sacc_buf_iova(src);
	d.dst = 0x40000000;
	d.length = 64;
	id1 = sacc_submit_raw(dev, &d);
	/* 2: overruns dst into its guard page; 3: unmapped src */
	d.dst = sacc_buf_iova(dst) + 8000;
	d.length = 300;
	id2 = sacc_submit_raw(dev, &d);
	d.src = 0x50000010;
	d.opcode = SACC_OP_XFORM;
	id3 = sacc_submit_raw(dev, &d);
	ck_assert_int_eq(dev_run(8), 3);
	/* the device recorded id1 ... and a later one overwrote it */
	set_fault_regs(dev, 0x40000000,
		       SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE,
		       (uint32_t)id1, 1);
	ck_assert_int_eq(sacc_poll(dev, r, 1), 1);
	set_fault_regs(dev, 0x1234, SACC_FAULT_SRC_READ, 999, 3);
	ck_assert_int_eq(sacc_poll(dev, r + 1, 2), 2);
	ck_assert_uint_eq(r[2].status, SACC_STS_DMA_FAULT);

	/* a ring fault stops the device: one fatal event */
	dev->regs[SACC_REG_STATUS / 4] = SACC_STATUS_ERROR;
	dev->regs[SACC_REG_ERR_CODE / 4] = SACC_ERR_DMA;
	set_fault_regs(dev, sacc_buf_iova(dev->sq_buf), SACC_FAULT_DESC_FETCH,
		       0, 4);
	ck_assert_int_eq(sacc_check(dev), -EIO);
	ck_assert_int_eq(sacc_check(dev), -EIO);
	ck_assert_int_eq(sacc_buf_free(src), 0);

	n = read_journal(path, ev, 32);
	ck_assert_int_eq(n, 9);
	ck_assert_int_eq(ev[0].ev, SACC_JEV_RANGES);
	ck_assert_uint_eq(ev[0].nr_ranges, 1);
	ck_assert_uint_eq(ev[0].ranges[0].end, (1ull << 39) - 1);
	ck_assert_str_eq(ev[0].bdf, "0000:00:03.0");
	ck_assert_int_eq(ev[1].ev, SACC_JEV_RESET);
	ck_assert_int_eq(ev[2].ev, SACC_JEV_MAP);
	ck_assert_str_eq(ev[2].name, "src");
	ck_assert_uint_eq(ev[2].iova, src_iova);
	ck_assert_uint_eq(ev[2].perm, SACC_JOURNAL_PERM_READ);
	ck_assert_int_eq(ev[3].ev, SACC_JEV_MAP);
	ck_assert_uint_eq(ev[3].len, 8192);
	ck_assert_uint_eq(ev[3].perm, SACC_JOURNAL_PERM_WRITE);
	/* the device's own record */
	ck_assert_int_eq(ev[4].ev, SACC_JEV_FAULT);
	ck_assert_uint_eq(ev[4].req_id, (uint32_t)id1);
	ck_assert_uint_eq(ev[4].addr, 0x40000000);
	ck_assert_uint_eq(ev[4].access, SACC_FAULT_DST_WRITE);
	ck_assert(ev[4].write && !ev[4].fatal);
	ck_assert_uint_eq(ev[4].opcode, SACC_OP_MEMCPY);
	ck_assert_uint_eq(ev[4].status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(ev[4].fault_count, 1);
	/* rebuilt from the descriptor: the guard page after dst */
	ck_assert_uint_eq(ev[5].req_id, (uint32_t)id2);
	ck_assert_uint_eq(ev[5].access, SACC_FAULT_DST_WRITE);
	ck_assert_uint_eq(ev[5].addr, ev[3].iova + 8192);
	ck_assert_uint_eq(ev[5].fault_count, 3);
	/* rebuilt: the source faults first, at its exact address */
	ck_assert_uint_eq(ev[6].req_id, (uint32_t)id3);
	ck_assert_uint_eq(ev[6].access, SACC_FAULT_SRC_READ);
	ck_assert(!ev[6].write);
	ck_assert_uint_eq(ev[6].addr, 0x50000010);
	ck_assert_uint_eq(ev[6].opcode, SACC_OP_XFORM);
	/* fatal, once */
	ck_assert_int_eq(ev[7].ev, SACC_JEV_FAULT);
	ck_assert(ev[7].fatal);
	ck_assert_uint_eq(ev[7].access, SACC_FAULT_DESC_FETCH);
	ck_assert_uint_eq(ev[7].fault_count, 4);
	ck_assert_int_eq(ev[8].ev, SACC_JEV_UNMAP);
	ck_assert_str_eq(ev[8].name, "src");
	ck_assert_uint_eq(ev[8].iova, ev[2].iova);

	sacc_dev_journal_close(dev);
	fake_close(dev);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* Past its size cap the journal rotates, and the new file starts with
 * the "rotated" line, the ranges and every live mapping again. */
START_TEST(test_journal_rotation)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_dma_registry *reg = sacc_dma_ctx_registry(dev->dma);
	struct sacc_journal_event ev[64];
	char dir[] = "/tmp/sacc-journal-XXXXXX", path[64], old[72];
	struct sacc_buf *src, *dst;
	struct sacc_journal *j;
	const char *why = "unset";
	size_t live;
	int n, maps = 0, resets = 0;
	bool saw_src = false, saw_dst = false;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/j.jsonl", dir);
	snprintf(old, sizeof(old), "%s.1", path);
	ck_assert_int_eq(sacc_journal_open_path(&j, path, dev->bdf, NULL), 0);
	sacc_journal_set_max(j, 4096);
	sacc_dev_journal_attach(dev, j);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 100, SACC_DMA_TO_DEVICE, "src", &src), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 8192, SACC_DMA_FROM_DEVICE, "dst", &dst), 0);
	live = sacc_dma_registry_count(reg);
	ck_assert_uint_ge(live, 4); /* sq, cq, src, dst */
	while (access(old, F_OK) && resets++ < 1000)
		sacc_dev_journal_reset(dev);
	ck_assert_int_eq(access(old, F_OK), 0);
	ck_assert_str_eq(sacc_dev_journal(dev, &why), path);
	ck_assert_ptr_null(why);

	n = read_journal(path, ev, 64);
	ck_assert_int_ge(n, 2 + (int)live);
	ck_assert_int_eq(ev[0].ev, SACC_JEV_ROTATED);
	ck_assert_uint_eq(ev[0].rotations, 1);
	ck_assert_uint_eq(ev[0].rotated_faults, 0);
	ck_assert_int_eq(ev[1].ev, SACC_JEV_RANGES);
	ck_assert_uint_gt(ev[1].nr_ranges, 0);
	for (int i = 2; i < n && ev[i].ev == SACC_JEV_MAP; i++) {
		maps++;
		saw_src |= !strcmp(ev[i].name, "src") &&
			   ev[i].iova == sacc_buf_iova(src) &&
			   ev[i].perm == SACC_JOURNAL_PERM_READ;
		saw_dst |= !strcmp(ev[i].name, "dst") &&
			   ev[i].iova == sacc_buf_iova(dst) &&
			   ev[i].perm == SACC_JOURNAL_PERM_WRITE;
	}
	ck_assert_int_eq(maps, (int)live);
	ck_assert(saw_src && saw_dst);

	sacc_dev_journal_close(dev);
	fake_close(dev);
	unlink(path);
	unlink(old);
	rmdir(dir);
}
END_TEST

/* A journal path that is a FIFO: opening the device's journal returns
 * at once, the device goes on without one, and says why. */
START_TEST(test_journal_fifo)
{
	struct sacc_dev *dev = fake_open(8, 8);
	char dir[] = "/tmp/sacc-journal-XXXXXX", path[64];
	const char *why = NULL;
	uint64_t t0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/%s.jsonl", dir, dev->bdf);
	ck_assert_int_eq(mkfifo(path, 0644), 0);
	setenv(SACC_JOURNAL_DIR_ENV, dir, 1);
	t0 = sacc_monotonic_ns();
	sacc_dev_journal_open(dev);
	ck_assert_uint_lt(sacc_monotonic_ns() - t0, 2000000000ull);
	ck_assert_ptr_null(sacc_dev_journal(dev, &why));
	ck_assert_ptr_nonnull(why);
	ck_assert_ptr_nonnull(strstr(why, "no fault journal"));
	ck_assert_ptr_nonnull(strstr(why, "is a FIFO, not a regular file"));
	ck_assert_ptr_nonnull(strstr(why, path));
	unsetenv(SACC_JOURNAL_DIR_ENV);
	sacc_dev_journal_close(dev);
	fake_close(dev);
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(test_not_initialised)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_op op = {.opcode = SACC_OP_NOP};
	struct sacc_result r;

	dev->flags = SACC_OPEN_NO_INIT;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -ENOTCONN);
	ck_assert_int_eq(sacc_poll(dev, &r, 1), -ENOTCONN);
	ck_assert_int_eq(sacc_wait(dev, 0), -ENOTCONN);
	dev->flags = 0;
	ck_assert_int_eq(sacc_reg_read(dev, 2, (uint32_t *)&op.len), -EINVAL);
	ck_assert_int_eq(sacc_reg_write(dev, SACC_BAR0_SIZE, 0), -EINVAL);
	fake_close(dev);
}
END_TEST

/* ---- v0.4 device memory ---- */

/* The allocator alone: first fit, page granularity, exhaustion, merges
 * on free in every arrangement, refusals of what was not allocated. */
START_TEST(test_devmem_pool)
{
	struct sacc_devmem_pool *p;
	uint64_t a, b, c, d, used, big;
	uint32_t allocs, ext;

	ck_assert_int_eq(sacc_devmem_pool_create(0, &p), -EINVAL);
	ck_assert_int_eq(sacc_devmem_pool_create(4097, &p), -EINVAL);
	ck_assert_int_eq(sacc_devmem_pool_create(16 * 4096, &p), 0);
	ck_assert_int_eq(sacc_devmem_pool_take(p, 0, &a), -EINVAL);
	ck_assert_int_eq(sacc_devmem_pool_take(p, 16 * 4096 + 1, &a), -ENOSPC);
	/* page granular, page aligned, first fit from 0 */
	ck_assert_int_eq(sacc_devmem_pool_take(p, 1, &a), 0);
	ck_assert_int_eq(sacc_devmem_pool_take(p, 4097, &b), 0);
	ck_assert_int_eq(sacc_devmem_pool_take(p, 4096, &c), 0);
	ck_assert_uint_eq(a, 0);
	ck_assert_uint_eq(b, 4096);
	ck_assert_uint_eq(c, 3 * 4096);
	sacc_devmem_pool_usage(p, &used, &big, &allocs, &ext);
	ck_assert_uint_eq(used, 4 * 4096);
	ck_assert_uint_eq(big, 12 * 4096);
	ck_assert_uint_eq(allocs, 3);
	ck_assert_uint_eq(ext, 1);
	/* exhaustion: 12 pages left, in one run */
	ck_assert_int_eq(sacc_devmem_pool_take(p, 13 * 4096, &d), -ENOSPC);
	ck_assert_int_eq(sacc_devmem_pool_take(p, 12 * 4096, &d), 0);
	ck_assert_uint_eq(d, 4 * 4096);
	ck_assert_int_eq(sacc_devmem_pool_take(p, 1, &d), -ENOSPC);
	ck_assert_int_eq(sacc_devmem_pool_give(p, d, 12 * 4096), 0);
	/* a hole at b (2 pages): first fit puts 1 page there, 3 after c */
	ck_assert_int_eq(sacc_devmem_pool_give(p, b, 4097), 0);
	sacc_devmem_pool_usage(p, NULL, &big, NULL, &ext);
	ck_assert_uint_eq(ext, 2);
	ck_assert_uint_eq(big, 12 * 4096);
	ck_assert_int_eq(sacc_devmem_pool_take(p, 3 * 4096, &d), 0);
	ck_assert_uint_eq(d, 4 * 4096);
	ck_assert_int_eq(sacc_devmem_pool_take(p, 100, &b), 0);
	ck_assert_uint_eq(b, 4096);
	/* refused: a double free, a free range, misaligned, past the end */
	ck_assert_int_eq(sacc_devmem_pool_give(p, 2 * 4096, 4096), -EINVAL);
	ck_assert_int_eq(sacc_devmem_pool_give(p, 100, 4096), -EINVAL);
	ck_assert_int_eq(sacc_devmem_pool_give(p, 15 * 4096, 2 * 4096),
			 -EINVAL);
	ck_assert_int_eq(sacc_devmem_pool_give(p, a, 4096), 0);
	ck_assert_int_eq(sacc_devmem_pool_give(p, a, 4096), -EINVAL);
	/* merges: with the next (b), with both (c between free runs),
	 * with the previous (d) */
	ck_assert_int_eq(sacc_devmem_pool_give(p, b, 100), 0);
	sacc_devmem_pool_usage(p, NULL, NULL, NULL, &ext);
	ck_assert_uint_eq(ext, 2); /* [0, 3 pages) and after d */
	ck_assert_int_eq(sacc_devmem_pool_give(p, c, 4096), 0);
	sacc_devmem_pool_usage(p, &used, NULL, &allocs, &ext);
	ck_assert_uint_eq(ext, 2);
	ck_assert_uint_eq(allocs, 1);
	ck_assert_uint_eq(used, 3 * 4096);
	ck_assert_int_eq(sacc_devmem_pool_give(p, d, 3 * 4096), 0);
	sacc_devmem_pool_usage(p, &used, &big, &allocs, &ext);
	ck_assert_uint_eq(used, 0);
	ck_assert_uint_eq(big, 16 * 4096);
	ck_assert_uint_eq(allocs, 0);
	ck_assert_uint_eq(ext, 1);
	ck_assert_int_eq(sacc_devmem_pool_give(p, 0, 4096), -EINVAL);
	sacc_devmem_pool_destroy(p);
}
END_TEST

/* Many allocations and frees in a scrambled order against a page map:
 * no overlap, every page accounted for, all merged back at the end
 * (and the extent array never needs memory to give back). */
START_TEST(test_devmem_pool_churn)
{
	enum { PAGES = 256, N = 64 };
	struct sacc_devmem_pool *p;
	uint64_t off[N], len[N], used, big;
	uint8_t owner[PAGES];
	uint32_t allocs, ext, x = 12345;
	int live = 0;

	memset(owner, 0xff, sizeof(owner));
	memset(len, 0, sizeof(len));
	ck_assert_int_eq(sacc_devmem_pool_create(PAGES * 4096, &p), 0);
	for (int round = 0; round < 4000; round++) {
		int k;

		x = x * 1103515245 + 12345;
		k = (int)((x >> 8) % N);
		if (len[k]) {
			ck_assert_int_eq(
			    sacc_devmem_pool_give(p, off[k], len[k]), 0);
			for (uint64_t q = 0; q < (len[k] + 4095) / 4096; q++)
				owner[off[k] / 4096 + q] = 0xff;
			len[k] = 0;
			live--;
			continue;
		}
		len[k] = 1 + (x >> 12) % (6 * 4096);
		if (sacc_devmem_pool_take(p, len[k], &off[k])) {
			len[k] = 0;
			continue;
		}
		ck_assert_uint_eq(off[k] % 4096, 0);
		for (uint64_t q = 0; q < (len[k] + 4095) / 4096; q++) {
			ck_assert_uint_eq(owner[off[k] / 4096 + q], 0xff);
			owner[off[k] / 4096 + q] = (uint8_t)k;
		}
		live++;
	}
	used = 0;
	for (int q = 0; q < PAGES; q++)
		used += owner[q] != 0xff ? 4096 : 0;
	sacc_devmem_pool_usage(p, &big, NULL, &allocs, &ext);
	ck_assert_uint_eq(big, used);
	ck_assert_uint_eq(allocs, (uint32_t)live);
	ck_assert_uint_le(ext, allocs + 1);
	for (int k = 0; k < N; k++)
		if (len[k])
			ck_assert_int_eq(
			    sacc_devmem_pool_give(p, off[k], len[k]), 0);
	sacc_devmem_pool_usage(p, &used, &big, &allocs, &ext);
	ck_assert_uint_eq(used, 0);
	ck_assert_uint_eq(big, PAGES * 4096);
	ck_assert_uint_eq(ext, 1);
	sacc_devmem_pool_destroy(p);
}
END_TEST

/* sacc_devmem_alloc(): device buffers, their accessors, the messages,
 * and a channel handle allocating from its device's memory. */
START_TEST(test_devmem_alloc)
{
	struct sacc_dev *dev = fake_open(8, 8), *ch;
	struct sacc_buf *a, *b, *c, *h;
	struct sacc_devmem_info in;
	uint8_t *va;

	/* a v0.3 device: no device memory, and why */
	sacc_err_set(&dev->devmem_why, ENOTSUP,
		     "the device has VERSION 3; device memory needs a v0.4 "
		     "device (VERSION 4 or later)");
	ck_assert_int_eq(sacc_devmem_alloc(dev, 4096, "x", &a), -ENOTSUP);
	ck_assert_ptr_null(a);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "no device memory"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "VERSION 3"));
	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	ck_assert(!in.mapped);
	ck_assert_ptr_nonnull(strstr(in.why, "v0.4"));

	fake_devmem(dev, 16 * 4096);
	memset(F.dm, 0xee, 16 * 4096); /* what an earlier user left */
	ck_assert_int_eq(sacc_devmem_alloc(dev, 0, "z", &a), -EINVAL);
	ck_assert_int_eq(sacc_devmem_alloc(dev, 17 * 4096, "z", &a), -EINVAL);
	ck_assert_int_eq(sacc_devmem_alloc(dev, 100, "a", &a), 0);
	ck_assert_int_eq(sacc_devmem_alloc(dev, 8192, "b", &b), 0);
	ck_assert(sacc_buf_is_dev(a) && sacc_buf_is_dev(b));
	ck_assert_uint_eq(sacc_buf_devaddr(a), 0);
	ck_assert_uint_eq(sacc_buf_devaddr(b), 4096);
	ck_assert_ptr_eq(sacc_buf_va(b), F.dm + 4096);
	ck_assert_uint_eq(sacc_buf_len(a), 100);
	ck_assert_uint_eq(sacc_buf_iova(a), 0);
	ck_assert_int_eq(sacc_buf_dir(a), SACC_DMA_BIDIRECTIONAL);
	ck_assert_str_eq(sacc_buf_name(a), "a");
	va = sacc_buf_va(a);
	ck_assert_uint_eq(va[0], 0); /* zeroed, whole pages */
	ck_assert_uint_eq(va[4095], 0);
	ck_assert_uint_eq(F.dm[3 * 4096], 0xee); /* nothing past b */
	/* a host buffer is not device memory */
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 10, SACC_DMA_TO_DEVICE, "host", &h), 0);
	ck_assert(!sacc_buf_is_dev(h));
	ck_assert_uint_eq(sacc_buf_devaddr(h), UINT64_MAX);

	/* full: what is in use and free, the largest run */
	ck_assert_int_eq(sacc_devmem_alloc(dev, 14 * 4096, "big", &c), -ENOSPC);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "out of device memory"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "'big'"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "12 KiB of 64 KiB"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "52 KiB free"));
	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	ck_assert(in.mapped);
	ck_assert_ptr_null(in.why);
	ck_assert_uint_eq(in.size, 16 * 4096);
	ck_assert_uint_eq(in.used, 3 * 4096);
	ck_assert_uint_eq(in.largest_free, 13 * 4096);
	ck_assert_uint_eq(in.buffers, 2);

	/* a channel's handle: the device's memory, the channel's buffer */
	ch = calloc(1, sizeof(*ch));
	ck_assert_ptr_nonnull(ch);
	memcpy(ch->bdf, dev->bdf, sizeof(ch->bdf));
	ch->root = dev;
	ch->chan = 3;
	ch->version = dev->version;
	ck_assert_int_eq(sacc_devmem_alloc(ch, 5000, "c", &c), 0);
	ck_assert_str_eq(sacc_buf_name(c), "ch3:c");
	ck_assert_uint_eq(sacc_buf_devaddr(c), 3 * 4096);
	ck_assert_int_eq(sacc_devmem_info(ch, &in), 0);
	ck_assert_uint_eq(in.used, 5 * 4096);
	ck_assert_ptr_eq(ch->bufs, c);

	/* busy buffers stay; freed ones merge back */
	a->inflight = 1;
	ck_assert_int_eq(sacc_buf_free(a), -EBUSY);
	a->inflight = 0;
	ck_assert_int_eq(sacc_buf_free(b), 0);
	ck_assert_int_eq(sacc_buf_free(a), 0);
	ck_assert_int_eq(sacc_devmem_alloc(dev, 3 * 4096, "again", &a), 0);
	ck_assert_uint_eq(sacc_buf_devaddr(a), 0);
	sacc_buf_free_all(ch); /* what closing the channel does */
	free(ch);
	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	ck_assert_uint_eq(in.used, 3 * 4096);
	ck_assert_uint_eq(in.largest_free, 13 * 4096);
	fake_close(dev);
}
END_TEST

/* The descriptor sacc_submit() wrote into SQ slot @slot. */
static struct sacc_desc sq_desc(struct sacc_dev *dev, uint32_t slot)
{
	return ((struct sacc_desc *)sacc_buf_va(dev->sq_buf))[slot];
}

/* Every direction of MEMCPY and XFORM, FILL into either memory: the
 * flags and addresses in the descriptors, then the bytes. */
START_TEST(test_devmem_submit)
{
	struct sacc_dev *dev = fake_open_mode(16, 16, SACC_MODE_V3, 16 * 4096);
	struct sacc_buf *hs, *hd, *ds, *dd;
	struct sacc_result r[8];
	struct sacc_desc d;
	struct sacc_op ops[6];
	uint8_t *hsv, *hdv, *dsv, *ddv;
	int i;

	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "hs", &hs), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "hd", &hd), 0);
	ck_assert_int_eq(sacc_devmem_alloc(dev, 4096, "ds", &ds), 0);
	ck_assert_int_eq(sacc_devmem_alloc(dev, 8192, "dd", &dd), 0);
	hsv = sacc_buf_va(hs);
	hdv = sacc_buf_va(hd);
	dsv = sacc_buf_va(ds);
	ddv = sacc_buf_va(dd);
	for (i = 0; i < 4096; i++) {
		hsv[i] = (uint8_t)(i * 3);
		dsv[i] = (uint8_t)(i * 5 + 1);
	}
	/* H2D, D2H, D2D, H2H (xform), FILL to device, FILL to host */
	ops[0] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
				  .len = 256,
				  .src = hs,
				  .src_off = 16,
				  .dst = dd,
				  .dst_off = 100,
				  .cookie = 0};
	ops[1] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
				  .len = 300,
				  .src = ds,
				  .src_off = 7,
				  .dst = hd,
				  .cookie = 1};
	ops[2] = (struct sacc_op){.opcode = SACC_OP_XFORM,
				  .len = 512,
				  .src = ds,
				  .dst = dd,
				  .dst_off = 4096,
				  .cookie = 2};
	ops[3] = (struct sacc_op){.opcode = SACC_OP_XFORM,
				  .len = 64,
				  .src = hs,
				  .dst = hd,
				  .dst_off = 1024,
				  .cookie = 3};
	ops[4] = (struct sacc_op){.opcode = SACC_OP_FILL,
				  .len = 21,
				  .dst = dd,
				  .dst_off = 5000,
				  .pattern = 0x0807060504030201ull,
				  .cookie = 4};
	ops[5] = (struct sacc_op){.opcode = SACC_OP_FILL,
				  .len = 10,
				  .dst = hd,
				  .dst_off = 2000,
				  .pattern = 0x1122334455667788ull,
				  .flags = SACC_OPF_IRQ,
				  .cookie = 5};
	ck_assert_int_eq(sacc_submit(dev, ops, 6), 6);
	d = sq_desc(dev, 0);
	ck_assert_uint_eq(d.flags, SACC_DESC_F_DST_DEV);
	ck_assert_uint_eq(d.src, sacc_buf_iova(hs) + 16);
	ck_assert_uint_eq(d.dst, sacc_buf_devaddr(dd) + 100);
	ck_assert_uint_eq(d.length, 256);
	d = sq_desc(dev, 1);
	ck_assert_uint_eq(d.flags, SACC_DESC_F_SRC_DEV);
	ck_assert_uint_eq(d.src, sacc_buf_devaddr(ds) + 7);
	ck_assert_uint_eq(d.dst, sacc_buf_iova(hd));
	d = sq_desc(dev, 2);
	ck_assert_uint_eq(d.flags, SACC_DESC_F_SRC_DEV | SACC_DESC_F_DST_DEV);
	ck_assert_uint_eq(d.dst, sacc_buf_devaddr(dd) + 4096);
	d = sq_desc(dev, 3);
	ck_assert_uint_eq(d.flags, 0);
	d = sq_desc(dev, 4);
	ck_assert_uint_eq(d.opcode, SACC_OP_FILL);
	ck_assert_uint_eq(d.flags, SACC_DESC_F_DST_DEV);
	ck_assert_uint_eq(d.src, 0x0807060504030201ull);
	ck_assert_uint_eq(d.dst, sacc_buf_devaddr(dd) + 5000);
	ck_assert_uint_eq(d.length, 21);
	d = sq_desc(dev, 5);
	ck_assert_uint_eq(d.flags, SACC_DESC_F_IRQ);
	ck_assert_uint_eq(d.src, 0x1122334455667788ull);
	ck_assert_uint_eq(d.dst, sacc_buf_iova(hd) + 2000);
	/* device buffers are pinned while named, as host ones are */
	ck_assert_int_eq(sacc_buf_free(dd), -EBUSY);
	ck_assert_int_eq(reap_all(dev, r, 6), 6);
	for (i = 0; i < 6; i++) {
		ck_assert_uint_eq(r[i].status, SACC_STS_OK);
		ck_assert_uint_eq(r[i].result_len, r[i].len);
	}
	ck_assert_mem_eq(ddv + 100, hsv + 16, 256);
	ck_assert_mem_eq(hdv, dsv + 7, 300);
	for (i = 0; i < 512; i++)
		ck_assert_uint_eq(ddv[4096 + i], dsv[i] ^ SACC_XFORM_KEY);
	for (i = 0; i < 64; i++)
		ck_assert_uint_eq(hdv[1024 + i], hsv[i] ^ SACC_XFORM_KEY);
	for (i = 0; i < 21; i++)
		ck_assert_uint_eq(ddv[5000 + i], 1 + i % 8);
	ck_assert_uint_eq(ddv[5021], 0);
	ck_assert_uint_eq(hdv[2000], 0x88);
	ck_assert_uint_eq(hdv[2007], 0x11);
	ck_assert_uint_eq(hdv[2008], 0x88);
	ck_assert_uint_eq(hdv[2009], 0x77);
	ck_assert_uint_eq(hdv[2010], 0);
	/* sacc_write() and timestamps into device memory: DST_DEV */
	ck_assert_int_eq(
	    sacc_write(dev, dd, 64, "hello", 5, SACC_WRITE_INLINE, 0, 9), 1);
	d = sq_desc(dev, 6);
	ck_assert_uint_eq(d.opcode, SACC_OP_WRITE_INLINE);
	ck_assert_uint_eq(d.flags, SACC_DESC_F_DST_DEV);
	ck_assert_uint_eq(d.dst, sacc_buf_devaddr(dd) + 64);
	ops[0] = (struct sacc_op){.opcode = SACC_OP_TIMESTAMP, .dst = dd};
	ck_assert_int_eq(sacc_submit(dev, ops, 1), 1);
	d = sq_desc(dev, 8);
	ck_assert_uint_eq(d.opcode, SACC_OP_TIMESTAMP);
	ck_assert_uint_eq(d.flags, SACC_DESC_F_DST_DEV);
	fake_close(dev);
}
END_TEST

/* What sacc_submit() refuses, all or nothing, with what to do. */
START_TEST(test_devmem_reject)
{
	struct sacc_dev *dev = fake_open_mode(8, 8, 0, 16 * 4096);
	struct sacc_buf *hs, *dd;
	struct sacc_op ok = {.opcode = SACC_OP_NOP}, op[2];

	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "hs", &hs), 0);
	ck_assert_int_eq(sacc_devmem_alloc(dev, 4096, "dd", &dd), 0);
	op[0] = ok;
	/* a v0.2 channel (no MODE.V3): no device memory, no FILL */
	op[1] = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 64, .src = hs, .dst = dd};
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "op 1 (memcpy)"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "dst 'dd'"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "SACC_OPEN_V3"));
	op[1] = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 64, .src = dd, .dst = dd};
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "src 'dd'"));
	op[1] = (struct sacc_op){.opcode = SACC_OP_FILL, .len = 64, .dst = dd};
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "MODE.V3"));
	/* MODE.V3 on a v0.3 device: it needs v0.4 */
	dev->mode = SACC_MODE_V3;
	dev->version = SACC_VERSION_V03;
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "v0.4 device"));
	op[1] = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 64, .src = hs, .dst = dd};
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "VERSION 3"));
	dev->version = SACC_VERSION;
	/* FILL: length, no src */
	op[1] = (struct sacc_op){.opcode = SACC_OP_FILL, .len = 0, .dst = dd};
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	op[1].len = SACC_MAX_XFER + 1;
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	op[1] = (struct sacc_op){
	    .opcode = SACC_OP_FILL, .len = 8, .src = hs, .dst = dd};
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "src must be NULL"));
	op[1] = (struct sacc_op){.opcode = SACC_OP_FILL, .len = 8};
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	/* bounds as for host buffers */
	op[1] = (struct sacc_op){
	    .opcode = SACC_OP_FILL, .len = 100, .dst = dd, .dst_off = 4000};
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "past its end"));
	op[1] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
				 .len = 4096,
				 .src = dd,
				 .src_off = 1,
				 .dst = dd};
	ck_assert_int_eq(sacc_submit(dev, op, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "src 'dd'"));
	/* nothing reached the device, nothing is pinned */
	ck_assert_uint_eq(dev->stats.doorbells, 0);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	ck_assert_int_eq(sacc_buf_free(dd), 0);
	/* open flags: SQ_DEV makes rings, NO_INIT has none */
	{
		struct sacc_open_opts o = {.flags = SACC_OPEN_SQ_DEV |
						    SACC_OPEN_NO_INIT};
		struct sacc_dev *x;

		ck_assert_int_eq(sacc_open("00:03.0", &o, &x), -EINVAL);
		ck_assert_ptr_nonnull(strstr(sacc_errmsg(NULL), "drop one"));
		o.flags = 1u << 7;
		ck_assert_int_eq(sacc_open("00:03.0", &o, &x), -EINVAL);
	}
	fake_close(dev);
}
END_TEST

/* The SQ in device memory (MODE.SQ_DEV): libsacc writes descriptors and
 * inline payloads through the mapping, the device reads them there. */
START_TEST(test_devmem_sq)
{
	struct sacc_dev *dev =
	    fake_open_mode(8, 8, SACC_MODE_V3 | SACC_MODE_SQ_DEV, 16 * 4096);
	struct sacc_devmem_info in;
	struct sacc_result r[4];
	struct sacc_buf *dd;
	struct sacc_op op[3];

	ck_assert(sacc_buf_is_dev(dev->sq_buf));
	ck_assert_ptr_eq(sacc_dev_sq_va(dev), F.dm);
	ck_assert_uint_eq(sacc_dev_sq_iova(dev), 0);
	ck_assert_uint_eq(sacc_buf_addr(dev->sq_buf), 0); /* SQ_BASE */
	ck_assert(!sacc_buf_is_dev(dev->cq_buf));	  /* the CQ: host */
	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	ck_assert_uint_eq(in.used, 4096); /* the ring's page */
	ck_assert_uint_eq(in.buffers, 1);
	ck_assert_int_eq(sacc_devmem_alloc(dev, 4096, "dd", &dd), 0);
	op[0] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = 1};
	op[1] = (struct sacc_op){.opcode = SACC_OP_FILL,
				 .len = 16,
				 .dst = dd,
				 .pattern = 0xabababababababab,
				 .cookie = 2};
	op[2] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = 3};
	ck_assert_int_eq(sacc_submit(dev, op, 3), 3);
	ck_assert_uint_eq(((struct sacc_desc *)F.dm)[1].opcode, SACC_OP_FILL);
	ck_assert_int_eq(reap_all(dev, r, 3), 3);
	ck_assert_uint_eq(r[1].status, SACC_STS_OK);
	ck_assert_uint_eq(((uint8_t *)sacc_buf_va(dd))[15], 0xab);
	/* the ring is libsacc's */
	ck_assert_int_eq(sacc_buf_free(dev->sq_buf), -EINVAL);
	fake_close(dev);
}
END_TEST

/* A device memory range past DEVMEM_SIZE is a per-descriptor fault the
 * journal records as dev_read / dev_write at the device address, from
 * the device's record or, when that is a later descriptor's, rebuilt
 * from the descriptor against DEVMEM_SIZE (never the IOMMU). */
START_TEST(test_devmem_fault_journal)
{
	struct sacc_dev *dev = fake_open_mode(8, 8, SACC_MODE_V3, 16 * 4096);
	struct sacc_journal_event ev[16];
	char dir[] = "/tmp/sacc-journal-XXXXXX", path[64];
	struct sacc_journal *j;
	struct sacc_result r[4];
	struct sacc_desc d = {0};
	struct sacc_buf *hd;
	int id1, id2, id3, id4, n;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/j.jsonl", dir);
	ck_assert_int_eq(sacc_journal_open_path(&j, path, dev->bdf, NULL), 0);
	sacc_dev_journal_attach(dev, j);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "hd", &hd), 0);
	/* 1: D2H, src runs past the end (recorded by the device) */
	d.opcode = SACC_OP_MEMCPY;
	d.flags = SACC_DESC_F_SRC_DEV;
	d.src = 16 * 4096 - 8;
	d.dst = sacc_buf_iova(hd);
	d.length = 64;
	id1 = sacc_submit_raw(dev, &d);
	/* 2: FILL past the end; 3: H2D... wrapping past 2^64 (rebuilt) */
	d = (struct sacc_desc){.opcode = SACC_OP_FILL,
			       .flags = SACC_DESC_F_DST_DEV,
			       .src = 0x55,
			       .dst = 1ull << 40,
			       .length = 8};
	id2 = sacc_submit_raw(dev, &d);
	d = (struct sacc_desc){.opcode = SACC_OP_XFORM,
			       .flags =
				   SACC_DESC_F_SRC_DEV | SACC_DESC_F_DST_DEV,
			       .src = 0,
			       .dst = UINT64_MAX - 3,
			       .length = 8};
	id3 = sacc_submit_raw(dev, &d);
	/* 4: an unmapped host src, a device dst past the end: the device
	 * ranges are checked first, so dev_write (rebuilt) */
	d = (struct sacc_desc){.opcode = SACC_OP_MEMCPY,
			       .flags = SACC_DESC_F_DST_DEV,
			       .src = 0xdead0000,
			       .dst = 1ull << 40,
			       .length = 64};
	id4 = sacc_submit_raw(dev, &d);
	ck_assert_int_eq(dev_run(8), 4);
	set_fault_regs(dev, 16 * 4096 - 8, SACC_FAULT_DEV_READ, (uint32_t)id1,
		       1);
	ck_assert_int_eq(sacc_poll(dev, r, 1), 1);
	set_fault_regs(dev, 0x999, SACC_FAULT_SRC_READ, 999, 4);
	ck_assert_int_eq(sacc_poll(dev, r + 1, 3), 3);
	for (int i = 0; i < 4; i++)
		ck_assert_uint_eq(r[i].status, SACC_STS_DMA_FAULT);
	n = read_journal(path, ev, 16);
	ck_assert_int_eq(n, 7); /* ranges, reset, map hd, 4 faults */
	ck_assert_uint_eq(ev[3].req_id, (uint32_t)id1);
	ck_assert_uint_eq(ev[3].access, SACC_FAULT_DEV_READ);
	ck_assert_uint_eq(ev[3].addr, 16 * 4096 - 8);
	ck_assert(!ev[3].write);
	ck_assert_uint_eq(ev[4].req_id, (uint32_t)id2);
	ck_assert_uint_eq(ev[4].access, SACC_FAULT_DEV_WRITE);
	ck_assert(ev[4].write);
	ck_assert_uint_eq(ev[4].addr, 1ull << 40);
	ck_assert_uint_eq(ev[4].opcode, SACC_OP_FILL);
	ck_assert_uint_eq(ev[5].req_id, (uint32_t)id3);
	ck_assert_uint_eq(ev[5].access, SACC_FAULT_DEV_WRITE);
	ck_assert_uint_eq(ev[5].addr, UINT64_MAX - 3);
	ck_assert_uint_eq(ev[6].req_id, (uint32_t)id4);
	ck_assert_uint_eq(ev[6].access, SACC_FAULT_DEV_WRITE);
	ck_assert_uint_eq(ev[6].addr, 1ull << 40);
	ck_assert_str_eq(sacc_fault_access_name(ev[4].access), "dev_write");

	/* a fatal fault at a device address says so, not "IOVA" */
	dev->regs[SACC_REG_STATUS / 4] = SACC_STATUS_ERROR;
	dev->regs[SACC_REG_ERR_CODE / 4] = SACC_ERR_DMA;
	set_fault_regs(dev, 0x123, SACC_FAULT_DEV_WRITE | SACC_FAULT_IS_WRITE,
		       5, 4);
	ck_assert_int_eq(sacc_fatal_msg(dev, "test"), -EIO);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "device address 0x123"));
	ck_assert_ptr_null(strstr(sacc_errmsg(dev), "IOVA"));
	sacc_dev_journal_close(dev);
	fake_close(dev);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* ---- v0.4 graphs: one SEGMENT entry a launch ---- */

/* The segment of @g as the device would fetch it (host or device). */
static const struct sacc_desc *seg_of(const struct sacc_dev *dev,
				      const struct sacc_desc *entry)
{
	if (entry->flags & SACC_DESC_F_SRC_DEV)
		return (const struct sacc_desc *)(F.dm + entry->src);
	return xlate(entry->src, entry->length, false);
}

/* Do segments @a and @b of 9 slots (payload in 4 and 5) hold the same
 * commands, whatever their graphs' tags in the req_ids? */
static bool same_cmds(const struct sacc_desc *a, const struct sacc_desc *b)
{
	struct sacc_desc x[9], y[9];

	memcpy(x, a, sizeof(x));
	memcpy(y, b, sizeof(y));
	for (int i = 0; i < 9; i++)
		if (i != 4 && i != 5)
			x[i].req_id = y[i].req_id = 0;
	return !memcmp(x, y, sizeof(x));
}

/* Launch @g, run the device, reap its one result into @r. */
static void launch_reap(struct sacc_dev *dev, struct sacc_graph *g,
			uint64_t cookie, struct sacc_result *r)
{
	ck_assert_int_eq(sacc_graph_launch(dev, g, cookie), 1);
	ck_assert_int_eq(reap_all(dev, r, 1), 1);
	ck_assert_uint_eq(r->cookie, cookie);
	ck_assert_uint_eq(r->opcode, SACC_OP_SEGMENT);
}

/* Every kind of op encoded as sacc_submit() encodes it, inline payloads
 * in the slots after their WRITE_INLINE, one entry and one doorbell a
 * launch, in host and in device memory; launched again and again. */
START_TEST(test_graph_encode)
{
	struct sacc_dev *dev = fake_open_mode(16, 16, SACC_MODE_V3, 16 * 4096);
	struct sacc_buf *hs, *hd, *dd;
	struct sacc_graph *g, *gd;
	struct sacc_result r[4];
	const struct sacc_desc *seg;
	struct sacc_desc e, want;
	struct sacc_stats st;
	struct sacc_op ops[7];
	uint8_t payload[40], *hsv, *hdv, *ddv;
	uint64_t ts;
	int i;

	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "hs", &hs), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "hd", &hd), 0);
	ck_assert_int_eq(sacc_devmem_alloc(dev, 8192, "dd", &dd), 0);
	hsv = sacc_buf_va(hs);
	hdv = sacc_buf_va(hd);
	ddv = sacc_buf_va(dd);
	for (i = 0; i < 4096; i++)
		hsv[i] = (uint8_t)(i * 7 + 3);
	for (i = 0; i < 40; i++)
		payload[i] = (uint8_t)(0xc0 + i);
	ops[0] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = 77};
	ops[1] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
				  .len = 256,
				  .src = hs,
				  .src_off = 16,
				  .dst = dd,
				  .dst_off = 100};
	ops[2] = (struct sacc_op){.opcode = SACC_OP_XFORM,
				  .len = 256,
				  .src = dd,
				  .src_off = 100,
				  .dst = hd};
	ops[3] = (struct sacc_op){.opcode = SACC_OP_WRITE_INLINE,
				  .len = 40,
				  .dst = hd,
				  .dst_off = 1000,
				  .data = payload};
	ops[4] = (struct sacc_op){
	    .opcode = SACC_OP_TIMESTAMP, .dst = hd, .dst_off = 2048};
	ops[5] = (struct sacc_op){.opcode = SACC_OP_FILL,
				  .len = 21,
				  .dst = dd,
				  .dst_off = 5000,
				  .pattern = 0x0807060504030201ull};
	ops[6] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
				  .len = 21,
				  .src = dd,
				  .src_off = 5000,
				  .dst = dd,
				  .dst_off = 6000};
	ck_assert_int_eq(sacc_graph_create(dev, ops, 7, 0, &g), 0);
	ck_assert_uint_eq(sacc_graph_ops(g), 7);
	ck_assert_uint_eq(sacc_graph_bytes(g), 32 * (7 + 2));
	ck_assert_uint_eq(dev->stats.doorbells, 0); /* nothing ran yet */
	ck_assert_int_eq(sacc_graph_launch(dev, g, 42), 1);
	/* ONE entry: SEGMENT, the segment's IOVA and bytes, no IRQ */
	e = sq_desc(dev, 0);
	ck_assert_uint_eq(e.opcode, SACC_OP_SEGMENT);
	ck_assert_uint_eq(e.length, 32 * 9);
	ck_assert_uint_eq(e.flags, 0);
	ck_assert_uint_ne(e.req_id, 0);
	ck_assert_uint_eq(sacc_outstanding(dev), 1);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.doorbells, 1);
	ck_assert_uint_eq(st.submitted, 1);
	/* the commands: each as sacc_op_desc() makes it, payload after */
	seg = seg_of(dev, &e);
	ck_assert_ptr_nonnull(seg);
	for (i = 0; i < 7; i++) { /* req_id: bit 31, a tag, the index */
		const struct sacc_desc *cmd = &seg[i < 4 ? i : i + 2];

		sacc_op_desc(&ops[i], &want);
		ck_assert_uint_eq(cmd->req_id >> 31, 1);
		ck_assert_uint_eq(cmd->req_id & 0x7ff, i);
		ck_assert_uint_eq(cmd->req_id >> 11, seg[0].req_id >> 11);
		want.req_id = cmd->req_id;
		ck_assert_mem_eq(cmd, &want, sizeof(want));
	}
	ck_assert_uint_eq(seg[1].flags, SACC_DESC_F_DST_DEV);
	ck_assert_uint_eq(seg[1].src, sacc_buf_iova(hs) + 16);
	ck_assert_uint_eq(seg[1].dst, sacc_buf_devaddr(dd) + 100);
	ck_assert_uint_eq(seg[2].flags, SACC_DESC_F_SRC_DEV);
	ck_assert_uint_eq(seg[3].opcode, SACC_OP_WRITE_INLINE);
	ck_assert_mem_eq(&seg[4], payload, 32);
	ck_assert_mem_eq(&seg[5], payload + 32, 8);
	ck_assert_uint_eq(((const uint8_t *)&seg[5])[8], 0); /* padding */
	ck_assert_uint_eq(seg[6].opcode, SACC_OP_TIMESTAMP);
	ck_assert_uint_eq(seg[7].src, 0x0807060504030201ull);
	ck_assert_uint_eq(seg[8].flags,
			  SACC_DESC_F_SRC_DEV | SACC_DESC_F_DST_DEV);
	/* one result for the launch: every op ran */
	ck_assert_int_eq(reap_all(dev, r, 1), 1);
	ck_assert_uint_eq(r[0].cookie, 42);
	ck_assert_uint_eq(r[0].opcode, SACC_OP_SEGMENT);
	ck_assert_uint_eq(r[0].status, SACC_STS_OK);
	ck_assert_uint_eq(r[0].len, 7);
	ck_assert_uint_eq(r[0].result_len, 7);
	ck_assert(!r[0].raw);
	for (i = 0; i < 256; i++) {
		ck_assert_uint_eq(ddv[100 + i], hsv[16 + i]);
		ck_assert_uint_eq(hdv[i], hsv[16 + i] ^ SACC_XFORM_KEY);
	}
	ck_assert_mem_eq(hdv + 1000, payload, 40);
	memcpy(&ts, hdv + 2048, 8);
	ck_assert_uint_ne(ts, 0);
	for (i = 0; i < 21; i++)
		ck_assert_uint_eq(ddv[6000 + i], 1 + i % 8);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	/* relaunch: 100 times, then three in flight at once */
	for (i = 0; i < 100; i++) {
		launch_reap(dev, g, (uint64_t)i, r);
		ck_assert_uint_eq(r[0].status, SACC_STS_OK);
	}
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(sacc_graph_launch(dev, g, 500 + i), 1);
	ck_assert_int_eq(reap_all(dev, r, 3), 3);
	for (i = 0; i < 3; i++)
		ck_assert_uint_eq(r[i].cookie, 500 + i);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.doorbells, 104);
	ck_assert_uint_eq(st.submitted, 104);
	ck_assert_uint_eq(F.seg_runs, 104);

	/* the same in device memory, with an interrupt: SRC_DEV | IRQ */
	ck_assert_int_eq(sacc_graph_create(dev, ops, 7,
					   SACC_GRAPH_DEVMEM | SACC_GRAPH_IRQ,
					   &gd),
			 0);
	memset(hdv, 0, 4096);
	launch_reap(dev, gd, 9, r);
	e = sq_desc(dev, 104 % 16);
	ck_assert_uint_eq(e.flags, SACC_DESC_F_SRC_DEV | SACC_DESC_F_IRQ);
	ck_assert_uint_lt(e.src, 16 * 4096);
	ck_assert(same_cmds(seg_of(dev, &e), seg));
	ck_assert_uint_eq(r[0].status, SACC_STS_OK);
	ck_assert_uint_eq(r[0].result_len, 7);
	ck_assert_mem_eq(hdv + 1000, payload, 40);
	/* an FLR zeroes device memory: the next launch writes it again */
	memset(F.dm + e.src, 0, 32 * 9);
	sacc_devmem_scrubbed(dev);
	launch_reap(dev, gd, 10, r);
	ck_assert_uint_eq(r[0].status, SACC_STS_OK);
	ck_assert_uint_eq(r[0].result_len, 7);
	ck_assert(same_cmds((const struct sacc_desc *)(F.dm + e.src), seg));
	ck_assert_int_eq(sacc_graph_destroy(gd), 0);
	ck_assert_int_eq(sacc_graph_destroy(g), 0);
	ck_assert_int_eq(sacc_graph_destroy(NULL), 0);
	fake_close(dev);
}
END_TEST

/* What sacc_graph_create() refuses, with what to do; nothing is made,
 * nothing reaches the device. */
START_TEST(test_graph_limits)
{
	struct sacc_dev *dev = fake_open_mode(8, 8, SACC_MODE_V3, 16 * 4096);
	struct sacc_op *ops = calloc(2049, sizeof(*ops));
	struct sacc_buf *hs, *hd;
	struct sacc_graph *g = (struct sacc_graph *)1, *g2;
	struct sacc_result r[4];
	static uint8_t big[SACC_INLINE_MAX];

	ck_assert_ptr_nonnull(ops);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 8192, SACC_DMA_TO_DEVICE, "hs", &hs), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 8192, SACC_DMA_FROM_DEVICE, "hd", &hd), 0);
	for (int i = 0; i < 2049; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_NOP};
	/* too many ops; the most there may be */
	ck_assert_int_eq(sacc_graph_create(dev, ops, 2049, 0, &g), -E2BIG);
	ck_assert_ptr_null(g);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "at most 2048"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "split"));
	ck_assert_int_eq(sacc_graph_create(dev, ops, SACC_GRAPH_MAX_OPS, 0, &g),
			 0);
	ck_assert_uint_eq(sacc_graph_bytes(g), SACC_SEGMENT_MAX);
	launch_reap(dev, g, 1, r);
	ck_assert_uint_eq(r[0].status, SACC_STS_OK);
	ck_assert_uint_eq(r[0].result_len, 2048);
	ck_assert_int_eq(sacc_graph_destroy(g), 0);
	/* inline payloads count: 2047 slots + a 33-byte payload's 3 */
	ops[2047] = (struct sacc_op){.opcode = SACC_OP_WRITE_INLINE,
				     .len = 33,
				     .dst = hd,
				     .data = big};
	ck_assert_int_eq(sacc_graph_create(dev, ops, 2048, 0, &g), -E2BIG);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "ops 0..2047 take 2050"));
	/* a payload the SQ (8 entries) could never carry fits a segment */
	ops[0] = (struct sacc_op){.opcode = SACC_OP_WRITE_INLINE,
				  .len = SACC_INLINE_MAX,
				  .dst = hd,
				  .data = big};
	ck_assert_int_eq(sacc_graph_create(dev, ops, 1, 0, &g), 0);
	ck_assert_uint_eq(sacc_graph_bytes(g), 32 * 129);
	launch_reap(dev, g, 2, r);
	ck_assert_uint_eq(r[0].status, SACC_STS_OK);
	ck_assert_uint_eq(r[0].result_len, 1);
	ck_assert_int_eq(sacc_graph_destroy(g), 0);
	/* an op's IRQ flag, an invalid op (named), unknown flags */
	ops[0] = (struct sacc_op){.opcode = SACC_OP_NOP};
	ops[1] = (struct sacc_op){.opcode = SACC_OP_NOP, .flags = SACC_OPF_IRQ};
	ck_assert_int_eq(sacc_graph_create(dev, ops, 2, 0, &g), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "op 1 has SACC_OPF_IRQ"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "SACC_GRAPH_IRQ"));
	ops[1] = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 64, .src = hs, .dst = hs};
	ck_assert_int_eq(sacc_graph_create(dev, ops, 2, 0, &g), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "op 1"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "may not write"));
	ck_assert_int_eq(sacc_graph_create(dev, ops, 1, 1u << 5, &g), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "unknown flags"));
	ck_assert_int_eq(sacc_graph_create(dev, ops, 0, 0, &g), -EINVAL);
	ck_assert_int_eq(sacc_graph_create(dev, NULL, 1, 0, &g), -EINVAL);
	ck_assert_int_eq(sacc_graph_create(dev, ops, 1, 0, NULL), -EINVAL);
	ck_assert_int_eq(sacc_graph_create(NULL, ops, 1, 0, &g), -EINVAL);
	/* a handle without MODE.V3; a v0.3 device */
	dev->mode = 0;
	ck_assert_int_eq(sacc_graph_create(dev, ops, 1, 0, &g), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "MODE.V3"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "SACC_OPEN_V3"));
	dev->mode = SACC_MODE_V3;
	dev->version = SACC_VERSION_V03;
	ck_assert_int_eq(sacc_graph_create(dev, ops, 1, 0, &g), -ENOTSUP);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "VERSION 3"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "sacc_chain_create"));
	dev->version = SACC_VERSION;
	ck_assert_uint_eq(dev->stats.doorbells, 1 + 1);
	/* the SQ full: 0, launch again after a reap */
	ck_assert_int_eq(sacc_graph_create(dev, ops, 1, 0, &g), 0);
	for (int i = 0; i < 7; i++)
		ck_assert_int_eq(sacc_graph_launch(dev, g, i), 1);
	ck_assert_int_eq(sacc_graph_launch(dev, g, 7), 0);
	ck_assert_int_eq(reap_all(dev, r, 4), 4);
	ck_assert_int_eq(sacc_graph_launch(dev, g, 7), 1);
	ck_assert_int_eq(reap_all(dev, r, 4), 4);
	ck_assert_uint_eq(r[3].cookie, 7);
	/* launched on another handle, or a graph that is not one */
	{
		struct sacc_dev other = *dev;

		ck_assert_int_eq(sacc_graph_launch(&other, g, 0), -EINVAL);
		ck_assert_ptr_nonnull(
		    strstr(sacc_errmsg(&other), "another handle"));
	}
	ck_assert_int_eq(sacc_graph_launch(dev, NULL, 0), -EINVAL);
	ck_assert_int_eq(sacc_graph_destroy(g), 0);
	/* no device memory: SACC_GRAPH_DEVMEM says why */
	sacc_devmem_close(dev);
	F.dm = NULL;
	sacc_err_set(&dev->devmem_why, ENOTSUP, "DEVMEM_SIZE is 0: no BAR4");
	ck_assert_int_eq(sacc_graph_create(dev, ops, 1, SACC_GRAPH_DEVMEM, &g2),
			 -ENOTSUP);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "SACC_GRAPH_DEVMEM"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "DEVMEM_SIZE is 0"));
	ck_assert_ptr_null(g2);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	free(ops);
	fake_close(dev);
}
END_TEST

/* Buffers stay pinned while the graph lives; the graph while a launch
 * is outstanding (destroy, update: -EBUSY); resets abandon launches;
 * a handle's close lets go of its graphs. */
START_TEST(test_graph_lifetime)
{
	struct sacc_dev *dev = fake_open_mode(16, 16, SACC_MODE_V3, 16 * 4096);
	struct sacc_buf *hs, *hd, *h2;
	struct sacc_graph *g;
	struct sacc_result r[2];
	struct sacc_op ops[4];
	uint64_t iova0;

	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "hs", &hs), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "hd", &hd), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "h2", &h2), 0);
	ops[0] = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 64, .src = hs, .dst = hd};
	ops[1] = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 64, .src = hs, .dst = hd,
	    .dst_off = 64};
	ck_assert_int_eq(sacc_graph_create(dev, ops, 2, 0, &g), 0);
	ck_assert_int_eq(sacc_buf_free(hs), -EBUSY);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "graph"));
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "sacc_graph_destroy"));
	/* the segment is libsacc's */
	ck_assert_int_eq(sacc_graph_launch(dev, g, 1), 1);
	iova0 = sq_desc(dev, 0).src;
	ck_assert_int_eq(sacc_graph_destroy(g), -EBUSY);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "1 launch is"));
	ck_assert_int_eq(sacc_graph_update(g, ops, 1), -EBUSY);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "reap"));
	ck_assert_int_eq(reap_all(dev, r, 1), 1);
	ck_assert_uint_eq(r[0].result_len, 2);

	/* update in place: three FILLs into h2, hd no longer named */
	for (int k = 0; k < 3; k++)
		ops[k] = (struct sacc_op){.opcode = SACC_OP_FILL,
					  .len = 10,
					  .dst = h2,
					  .dst_off = 100 * (size_t)k,
					  .pattern = 0x1111111111111111ull *
						     (uint64_t)(k + 1)};
	ck_assert_int_eq(sacc_graph_update(g, ops, 3), 0);
	ck_assert_uint_eq(sacc_graph_ops(g), 3);
	ck_assert_int_eq(sacc_buf_free(hd), 0); /* unpinned */
	launch_reap(dev, g, 2, r);
	ck_assert_uint_eq(sq_desc(dev, 1).src, iova0); /* same segment */
	ck_assert_uint_eq(sq_desc(dev, 1).length, 96);
	ck_assert_uint_eq(r[0].status, SACC_STS_OK);
	ck_assert_uint_eq(r[0].result_len, 3);
	ck_assert_uint_eq(((uint8_t *)sacc_buf_va(h2))[209], 0x33);
	/* an invalid update changes nothing */
	ops[3] = (struct sacc_op){.opcode = 99};
	ck_assert_int_eq(sacc_graph_update(g, ops, 4), -EINVAL);
	ck_assert_uint_eq(sacc_graph_ops(g), 3);
	/* larger than its page: a new segment */
	{
		struct sacc_op *many = calloc(200, sizeof(*many));

		ck_assert_ptr_nonnull(many);
		ck_assert_int_eq(sacc_graph_update(g, many, 200), 0);
		free(many);
	}
	launch_reap(dev, g, 3, r);
	ck_assert_uint_ne(sq_desc(dev, 2).src, iova0);
	ck_assert_uint_eq(r[0].result_len, 200);
	ck_assert_int_eq(sacc_buf_free(h2), 0); /* NOPs name nothing */

	/* a reset abandons launches: the graph is free to go */
	ck_assert_int_eq(sacc_graph_launch(dev, g, 4), 1);
	ck_assert_int_eq(sacc_graph_launch(dev, g, 5), 1);
	fake_reset(dev);
	ck_assert_uint_eq(dev->stats.abandoned, 2);
	ck_assert_int_eq(sacc_graph_destroy(g), 0);

	/* the handle closes with a graph alive and a launch outstanding */
	ops[0] = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = 64, .src = hs, .dst = hs};
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "hd", &hd), 0);
	ops[0].dst = hd;
	ck_assert_int_eq(sacc_graph_create(dev, ops, 1, SACC_GRAPH_DEVMEM, &g),
			 0);
	ck_assert_int_eq(sacc_graph_launch(dev, g, 6), 1);
	fake_close(dev);
	ck_assert_int_eq(sacc_graph_update(g, ops, 1), -ENODEV);
	ck_assert_int_eq(sacc_graph_destroy(g), 0); /* only frees it */
}
END_TEST

/* A failing command: the entry's status and the command's index, and
 * sacc_graph_explain() says which op and why; a fetch fault; a raw
 * segment's bad opcode; a device that lies about a segment. */
START_TEST(test_graph_failures)
{
	struct sacc_dev *dev = fake_open_mode(16, 16, SACC_MODE_V3, 16 * 4096);
	struct sacc_buf *hs, *hd;
	struct sacc_graph *g, *raw;
	struct sacc_result r[2];
	struct sacc_op ops[5];
	struct sacc_desc cmds[3] = {{.opcode = SACC_OP_NOP},
				    {.opcode = SACC_OP_SEGMENT, .length = 32},
				    {.opcode = SACC_OP_NOP}};
	char msg[512];

	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "hs", &hs), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "hd", &hd), 0);
	for (int k = 0; k < 5; k++)
		ops[k] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
					  .len = 100,
					  .src = hs,
					  .dst = hd,
					  .dst_off = 100 * (size_t)k};
	ck_assert_int_eq(sacc_graph_create(dev, ops, 5, 0, &g), 0);
	/* op 2 faults: status 2, result_len 2 */
	F.seg_fail_cmd = 3;
	F.seg_status = SACC_STS_DMA_FAULT;
	launch_reap(dev, g, 1, r);
	ck_assert_uint_eq(r[0].status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(r[0].result_len, 2);
	ck_assert_uint_eq(r[0].len, 5);
	sacc_graph_explain(g, r, msg, sizeof(msg));
	ck_assert_ptr_nonnull(strstr(msg, "op 2 of the graph's 5"));
	ck_assert_ptr_nonnull(strstr(msg, "memcpy of 100 bytes from 'hs'+0 "
					  "to 'hd'+200"));
	ck_assert_ptr_nonnull(strstr(msg, "DMA fault"));
	ck_assert_ptr_nonnull(strstr(msg, "destination write at IOVA"));
	ck_assert_ptr_nonnull(strstr(msg, "inside buffer 'hd'"));
	ck_assert_int_eq(sacc_check(dev), 0); /* the channel goes on */
	F.seg_fail_cmd = 0;
	launch_reap(dev, g, 2, r);
	ck_assert_uint_eq(r[0].status, SACC_STS_OK);
	sacc_graph_explain(g, r, msg, sizeof(msg));
	ck_assert_str_eq(msg, "ok: the graph's 5 ops ran (0 ns on the engine)");
	/* the fetch fails: no op ran, and that is what it says */
	F.seg_fetch_fault = true;
	launch_reap(dev, g, 3, r);
	F.seg_fetch_fault = false;
	ck_assert_uint_eq(r[0].status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(r[0].result_len, 0);
	sacc_graph_explain(g, r, msg, sizeof(msg));
	ck_assert_ptr_nonnull(strstr(msg, "fetching its segment"));
	ck_assert_ptr_nonnull(strstr(msg, "segment fetch at IOVA"));
	/* op 0 faulted and the record is another's: it cannot say which */
	F.seg_fail_cmd = 1;
	ck_assert_int_eq(sacc_graph_launch(dev, g, 4), 1);
	dev_run(8);
	set_fault_regs(dev, 0x1000, SACC_FAULT_SRC_READ, 12345, 2);
	ck_assert_int_eq(reap_all(dev, r, 1), 1);
	F.seg_fail_cmd = 0;
	sacc_graph_explain(g, r, msg, sizeof(msg));
	ck_assert_ptr_nonnull(strstr(msg, "op 0 of"));
	ck_assert_ptr_nonnull(strstr(msg, "overwritten"));
	ck_assert_ptr_nonnull(strstr(msg, "cannot say which"));
	/* a raw segment: a SEGMENT inside is bad opcode at its index */
	ck_assert_int_eq(sacc_graph_create_raw(dev, cmds, 3, 0, &raw), 0);
	ck_assert_uint_eq(sacc_graph_ops(raw), 3);
	launch_reap(dev, raw, 5, r);
	ck_assert(r[0].raw);
	ck_assert_uint_eq(r[0].status, SACC_STS_BAD_OPCODE);
	ck_assert_uint_eq(r[0].result_len, 1);
	sacc_graph_explain(raw, r, msg, sizeof(msg));
	ck_assert_ptr_nonnull(strstr(msg, "op 1 of the graph's 3 (segment"));
	ck_assert_ptr_nonnull(strstr(msg, "bad opcode"));
	ck_assert_int_eq(sacc_graph_update(raw, ops, 1), -EINVAL);
	ck_assert_int_eq(sacc_graph_destroy(raw), 0);
	/* not a graph's result */
	r[1] = (struct sacc_result){.opcode = SACC_OP_MEMCPY};
	sacc_graph_explain(g, &r[1], msg, sizeof(msg));
	ck_assert_ptr_nonnull(strstr(msg, "not a graph"));

	/* a device that lies: ok with a count not the graph's */
	F.seg_lie = -1;
	ck_assert_int_eq(sacc_graph_launch(dev, g, 6), 1);
	ck_assert_int_eq(poll_until(dev, r, 1, 100, true), -EIO);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "5 commands completed "
						       "ok with result_len 4"));
	fake_reset(dev);
	/* a failing index past the last */
	F.seg_lie = 5;
	F.seg_fail_cmd = 2;
	ck_assert_int_eq(sacc_graph_launch(dev, g, 7), 1);
	ck_assert_int_eq(poll_until(dev, r, 1, 100, true), -EIO);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "past its last"));
	fake_reset(dev);
	/* bad opcode for a graph libsacc validated */
	F.seg_lie = 0;
	F.seg_status = SACC_STS_BAD_OPCODE;
	ck_assert_int_eq(sacc_graph_launch(dev, g, 8), 1);
	ck_assert_int_eq(poll_until(dev, r, 1, 100, true), -EIO);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(dev), "validated"));
	fake_reset(dev);
	F.seg_fail_cmd = 0;
	ck_assert_int_eq(sacc_graph_destroy(g), 0);
	fake_close(dev);
}
END_TEST

/* The journal's fault record of a graph's launch: the device's when it
 * is the launch's, else rebuilt from the segment and the failing
 * command (the fetch first). */
START_TEST(test_graph_journal)
{
	struct sacc_dev *dev = fake_open_mode(8, 8, SACC_MODE_V3, 16 * 4096);
	struct sacc_journal_event ev[16];
	char dir[] = "/tmp/sacc-journal-XXXXXX", path[64];
	struct sacc_journal *j;
	struct sacc_result r[2];
	struct sacc_desc cmds[2] = {
	    {.opcode = SACC_OP_NOP},
	    {.opcode = SACC_OP_MEMCPY,
	     .src = 0x7000000,
	     .length = 8,
	     .req_id = 0x4321}};
	struct sacc_buf *hd;
	struct sacc_graph *g;
	int n;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/j.jsonl", dir);
	ck_assert_int_eq(sacc_journal_open_path(&j, path, dev->bdf, NULL), 0);
	sacc_dev_journal_attach(dev, j);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "hd", &hd), 0);
	cmds[1].dst = sacc_buf_iova(hd);
	ck_assert_int_eq(sacc_graph_create_raw(dev, cmds, 2, 0, &g), 0);
	/* the device's own record: its command's source read */
	ck_assert_int_eq(sacc_graph_launch(dev, g, 1), 1);
	dev_run(8);
	set_fault_regs(dev, 0x7000000, SACC_FAULT_SRC_READ, 0x4321, 1);
	ck_assert_int_eq(reap_all(dev, r, 1), 1);
	ck_assert_uint_eq(r[0].status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(r[0].result_len, 1);
	/* overwritten: rebuilt from command 1 (unmapped src) */
	ck_assert_int_eq(sacc_graph_launch(dev, g, 2), 1);
	dev_run(8);
	set_fault_regs(dev, 0x1234, SACC_FAULT_DST_WRITE, 999, 2);
	ck_assert_int_eq(reap_all(dev, r, 1), 1);
	n = read_journal(path, ev, 16);
	/* ranges, reset, map hd, map the segment, 2 faults */
	ck_assert_int_eq(n, 6);
	ck_assert_str_eq(ev[3].name, "graph segment");
	for (int k = 4; k < 6; k++) {
		ck_assert_uint_eq(ev[k].opcode, SACC_OP_SEGMENT);
		ck_assert_uint_eq(ev[k].access, SACC_FAULT_SRC_READ);
		ck_assert_uint_eq(ev[k].addr, 0x7000000);
		ck_assert_uint_eq(ev[k].length, 8); /* command 1's */
	}
	ck_assert_int_eq(sacc_graph_destroy(g), 0);
	sacc_dev_journal_close(dev);
	fake_close(dev);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* A raw SEGMENT entry (sacc_submit_raw(), no graph): the journal finds
 * its failing command in the segment's buffer, so a command's fault is
 * recorded (or rebuilt) as that command's, never as a fetch fault; a
 * fetch fault is the entry's. */
START_TEST(test_raw_segment_journal)
{
	struct sacc_dev *dev = fake_open_mode(8, 8, SACC_MODE_V3, 16 * 4096);
	struct sacc_journal_event ev[16];
	char dir[] = "/tmp/sacc-journal-XXXXXX", path[64];
	struct sacc_buf *seg, *ro, *hd;
	struct sacc_desc *c, d = {.opcode = SACC_OP_SEGMENT, .length = 4 * 32};
	struct sacc_journal *j;
	struct sacc_result r[2];
	int n;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/j.jsonl", dir);
	ck_assert_int_eq(sacc_journal_open_path(&j, path, dev->bdf, NULL), 0);
	sacc_dev_journal_attach(dev, j);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "seg", &seg), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "ro", &ro), 0);
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "hd", &hd), 0);
	/* command 0 in slots 0-2 (40 bytes inline), command 1 in slot 3 */
	c = sacc_buf_va(seg);
	c[0] = (struct sacc_desc){.opcode = SACC_OP_WRITE_INLINE,
				  .dst = sacc_buf_iova(hd),
				  .length = 40};
	c[3] = (struct sacc_desc){.opcode = SACC_OP_MEMCPY,
				  .src = sacc_buf_iova(seg),
				  .dst = sacc_buf_iova(ro),
				  .length = 8,
				  .req_id = 0x4321};
	d.src = sacc_buf_iova(seg);
	F.seg_fail_cmd = 2;
	F.seg_status = SACC_STS_DMA_FAULT;
	/* the device's own record: command 1's, with its req_id */
	ck_assert_int_gt(sacc_submit_raw(dev, &d), 0);
	ck_assert_int_eq(reap_all(dev, r, 1), 1);
	ck_assert_uint_eq(r[0].status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(r[0].result_len, 1);
	/* overwritten: rebuilt from command 1 ('ro' is read-only) */
	ck_assert_int_gt(sacc_submit_raw(dev, &d), 0);
	dev_run(8);
	set_fault_regs(dev, 0x1234, SACC_FAULT_DST_WRITE, 999, 2);
	ck_assert_int_eq(reap_all(dev, r, 1), 1);
	ck_assert_uint_eq(r[0].result_len, 1);
	/* a fetch fault: the entry's record */
	F.seg_fail_cmd = 0;
	d.src = 0x7000000;
	ck_assert_int_gt(sacc_submit_raw(dev, &d), 0);
	ck_assert_int_eq(reap_all(dev, r, 1), 1);
	ck_assert_uint_eq(r[0].status, SACC_STS_DMA_FAULT);
	n = read_journal(path, ev, 16);
	/* ranges, reset, 3 maps, 3 faults */
	ck_assert_int_eq(n, 8);
	for (int k = 5; k < 7; k++) {
		ck_assert_uint_eq(ev[k].opcode, SACC_OP_SEGMENT);
		ck_assert_uint_eq(ev[k].access, SACC_FAULT_DST_WRITE);
		ck_assert_uint_eq(ev[k].addr, sacc_buf_iova(ro));
		ck_assert(ev[k].write);
		ck_assert_uint_eq(ev[k].length, 8); /* the command's */
	}
	ck_assert_uint_eq(ev[7].access, SACC_FAULT_SEGMENT_READ);
	ck_assert_uint_eq(ev[7].addr, 0x7000000);
	ck_assert(!ev[7].write);
	ck_assert_uint_eq(ev[7].length, 4 * 32); /* the segment's */
	sacc_dev_journal_close(dev);
	fake_close(dev);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* ---- sysfs against a fake tree ---- */

static char root[64];

static void wr(const char *rel, const char *s)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(s, f);
	fclose(f);
}

static void md(const char *rel)
{
	char p[256], *q;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (q = p + strlen(root) + 1; (q = strchr(q, '/')); q++) {
		*q = '\0';
		mkdir(p, 0755);
		*q = '/';
	}
	mkdir(p, 0755);
}

static void ln(const char *target, const char *rel)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	ck_assert_int_eq(symlink(target, p), 0);
}

static void add_dev(const char *bdf, const char *ven, const char *devid,
		    int group, const char *drv)
{
	char d[128], x[256], t[256];

	snprintf(d, sizeof(d), "devices/pci0000:00/%s", bdf);
	md(d);
	snprintf(x, sizeof(x), "%s/vendor", d);
	wr(x, ven);
	snprintf(x, sizeof(x), "%s/device", d);
	wr(x, devid);
	snprintf(x, sizeof(x), "%s/driver_override", d);
	wr(x, "(null)\n");
	snprintf(t, sizeof(t), "../../../devices/pci0000:00/%s", bdf);
	snprintf(x, sizeof(x), "bus/pci/devices/%s", bdf);
	ln(t, x);
	snprintf(x, sizeof(x), "kernel/iommu_groups/%d/devices", group);
	md(x);
	snprintf(t, sizeof(t), "../../../../devices/pci0000:00/%s", bdf);
	snprintf(x, sizeof(x), "kernel/iommu_groups/%d/devices/%s", group, bdf);
	ln(t, x);
	snprintf(t, sizeof(t), "../../../kernel/iommu_groups/%d", group);
	snprintf(x, sizeof(x), "%s/iommu_group", d);
	ln(t, x);
	if (drv) {
		snprintf(x, sizeof(x), "bus/pci/drivers/%s", drv);
		md(x);
		snprintf(t, sizeof(t), "../../../bus/pci/drivers/%s", drv);
		snprintf(x, sizeof(x), "%s/driver", d);
		ln(t, x);
	}
}

static int rm_one(const char *p, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(p);
}

START_TEST(test_sysfs)
{
	struct sacc_pci_dev devs[4];
	char why[256];

	snprintf(root, sizeof(root), "/tmp/sacc-sysfs.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	setenv("SACC_SYSFS_ROOT", root, 1);
	md("bus/pci/devices");
	add_dev("0000:00:03.0", "0x1b36", "0x1092", 7, "vfio-pci");
	add_dev("0000:00:03.1", "0x8086", "0x2922", 7, "ahci");
	add_dev("0000:00:04.0", "0x1b36", "0x1092", 8, NULL);

	ck_assert_int_eq(sacc_pci_list(devs, 4), 2);
	ck_assert_str_eq(devs[0].bdf, "0000:00:03.0");
	ck_assert_str_eq(devs[0].driver, "vfio-pci");
	ck_assert_int_eq(devs[0].iommu_group, 7);
	ck_assert_str_eq(devs[1].driver, "");
	ck_assert_int_eq(devs[1].iommu_group, 8);

	ck_assert_int_eq(sacc_group_viable(7, "0000:00:03.0", why, sizeof(why)),
			 0);
	ck_assert_str_eq(why, "0000:00:03.1 is bound to ahci; bind it to "
			      "vfio-pci or unbind it");
	ck_assert_int_eq(sacc_group_viable(8, "0000:00:04.0", why, sizeof(why)),
			 1);

	/* bind: refuses non-SACC devices, wants vfio-pci loaded */
	ck_assert_int_eq(sacc_pci_bind_vfio("0000:00:03.1"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(sacc_errmsg(NULL), "not a SACC device"));
	ck_assert_int_eq(sacc_pci_bind_vfio("0000:00:03.0"), 0); /* already */
	ck_assert_int_eq(sacc_pci_bind_vfio("0000:00:09.0"), -ENODEV);
	/* no vfio-pci driver directory: says what to do */
	{
		char p[256];

		snprintf(p, sizeof(p), "%s/bus/pci/drivers/vfio-pci", root);
		ck_assert_int_eq(rmdir(p), 0);
		ck_assert_int_eq(sacc_pci_bind_vfio("0000:00:04.0"), -ENOENT);
		ck_assert_ptr_nonnull(
		    strstr(sacc_errmsg(NULL), "modprobe vfio-pci"));
		ck_assert_int_eq(mkdir(p, 0755), 0);
	}
	/* unbind clears driver_override */
	ck_assert_int_eq(sacc_pci_unbind("0000:00:04.0"), 0);
	ck_assert_int_eq(sacc_pci_iommu_group("0000:00:04.0"), 8);
	ck_assert_int_eq(sacc_pci_iommu_group("0000:00:09.0"), -ENOENT);
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
END_TEST

/* ---- what libsacc learnt from dmadev (issue 22) ---- */

/* NOP ops with cookies 0..n-1 (no buffers). */
static void nops(struct sacc_op *ops, unsigned int n, uint64_t base)
{
	for (unsigned int i = 0; i < n; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_NOP,
					  .cookie = base + i};
}

/* sacc_enqueue(): descriptors written, no doorbell; sacc_doorbell()
 * rings once for all of them, and so does the next sacc_submit(). */
/*
 * An enqueued WRITE_INLINE takes its payload's SQ slots: sacc_unrung()
 * counts them as sacc_outstanding() does, so a reap loop on
 * `outstanding > unrung` ends when the device owes nothing.  Counting
 * operations there left an outside workload's reap waiting forever with
 * a 44-byte inline enqueued (1 + 2 slots against 1).
 */
START_TEST(test_enqueue_inline_unrung_slots)
{
	struct sacc_dev *dev = fake_open_mode(16, 16, SACC_MODE_V3, 0);
	struct sacc_result r[4];
	struct sacc_buf *dst;
	char payload[44];
	struct sacc_op ops[2] = {{.opcode = SACC_OP_NOP, .cookie = 1}};
	int spins = 0;

	memset(payload, 0x5a, sizeof(payload));
	ck_assert_int_eq(
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "dst", &dst), 0);
	ops[1] = (struct sacc_op){.opcode = SACC_OP_WRITE_INLINE,
				  .len = sizeof(payload),
				  .dst = dst,
				  .data = payload,
				  .cookie = 2};
	ck_assert_int_eq(sacc_submit(dev, ops, 1), 1); /* rung */
	ck_assert_int_eq(sacc_enqueue(dev, ops + 1, 1), 1);
	ck_assert_uint_eq(sacc_outstanding(dev),
			  1 + 1 + SACC_INLINE_SLOTS(sizeof(payload)));
	ck_assert_uint_eq(sacc_unrung(dev), 1 + SACC_INLINE_SLOTS(44));
	dev_run(100);
	while (sacc_outstanding(dev) > sacc_unrung(dev)) {
		ck_assert_int_ge(sacc_poll(dev, r, 4), 0);
		ck_assert_int_lt(++spins, 1000); /* the device owes nothing */
	}
	ck_assert_uint_eq(sacc_unrung(dev), 3);
	ck_assert_int_eq(sacc_doorbell(dev), 0);
	ck_assert_uint_eq(sacc_unrung(dev), 0);
	ck_assert_int_eq(reap_all(dev, r, 1), 1);
	ck_assert_uint_eq(r[0].cookie, 2);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	fake_close(dev);
}
END_TEST

START_TEST(test_enqueue_one_doorbell)
{
	struct sacc_dev *dev = fake_open(16, 16);
	struct sacc_result r[8];
	struct sacc_op ops[8];

	nops(ops, 8, 100);
	ck_assert_int_eq(sacc_enqueue(dev, ops, 3), 3);
	ck_assert_int_eq(sacc_enqueue(dev, ops + 3, 2), 2);
	ck_assert_uint_eq(sacc_unrung(dev), 5);
	ck_assert_uint_eq(dev->stats.doorbells, 0);
	ck_assert_uint_eq(dev->stats.submitted, 0);
	ck_assert_uint_eq(dev->db[0], 0);
	ck_assert_uint_eq(sacc_outstanding(dev), 5);
	ck_assert_uint_eq(sacc_sq_free(dev), 10);
	ck_assert_uint_eq(dev_run(100), 0); /* the device was told nothing */
	ck_assert_int_eq(sacc_poll(dev, r, 8), 0);
	ck_assert_int_eq(sacc_doorbell(dev), 0);
	ck_assert_uint_eq(dev->stats.doorbells, 1);
	ck_assert_uint_eq(dev->stats.submitted, 5);
	ck_assert_uint_eq(dev->db[0], 5);
	ck_assert_uint_eq(sacc_unrung(dev), 0);
	ck_assert_int_eq(sacc_doorbell(dev), 0); /* nothing: no doorbell */
	ck_assert_uint_eq(dev->stats.doorbells, 1);
	ck_assert_int_eq(reap_all(dev, r, 5), 5);
	for (int i = 0; i < 5; i++)
		ck_assert_uint_eq(r[i].cookie, 100 + (uint64_t)i);
	/* enqueued, then a submit: one doorbell covers both */
	ck_assert_int_eq(sacc_enqueue(dev, ops, 2), 2);
	ck_assert_int_eq(sacc_submit(dev, ops + 5, 1), 1);
	ck_assert_uint_eq(dev->stats.doorbells, 2);
	ck_assert_uint_eq(dev->db[0], 8);
	ck_assert_uint_eq(sacc_unrung(dev), 0);
	ck_assert_int_eq(reap_all(dev, r, 3), 3);
	ck_assert_uint_eq(r[0].cookie, 100);
	ck_assert_uint_eq(r[2].cookie, 105);
	ck_assert_int_eq(sacc_enqueue(dev, NULL, 1), -EINVAL);
	fake_close(dev);
}
END_TEST

/* A completion for an enqueued, unrung op is forged: the device was
 * never told about it. */
START_TEST(test_enqueue_forged_completion)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_cqe *cq = sacc_buf_va(dev->cq_buf);
	struct sacc_result r;
	struct sacc_op op;

	nops(&op, 1, 7);
	ck_assert_int_eq(sacc_enqueue(dev, &op, 1), 1);
	cq[0].req_id = dev->track[0].req_id;
	__atomic_store_n(&cq[0].phase, 1, __ATOMIC_RELEASE);
	ck_assert_int_eq(sacc_poll(dev, &r, 1), -EIO);
	ck_assert_ptr_nonnull(
	    strstr(sacc_errmsg(dev), "nothing is outstanding"));
	fake_close(dev);
}
END_TEST

/* An unrung op is never late: no stall, no hang report. */
START_TEST(test_enqueue_not_late)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_result r;
	struct sacc_op op;
	uint64_t t0;
	int k;

	nops(&op, 1, 7);
	dev->hang_ms = 100;
	dev->stall_probe_ms = 20;
	ck_assert_int_eq(sacc_enqueue(dev, &op, 1), 1);
	t0 = sacc_monotonic_ns();
	do
		k = sacc_poll(dev, &r, 1);
	while (k == 0 && ms_since(t0) < 400);
	ck_assert_int_eq(k, 0);
	ck_assert_int_eq(sacc_doorbell(dev), 0);
	ck_assert_int_eq(reap_all(dev, &r, 1), 1);
	ck_assert_uint_eq(r.cookie, 7);
	fake_close(dev);
}
END_TEST

/* sacc_reset() forgets unrung ops with the rest. */
START_TEST(test_enqueue_reset)
{
	struct sacc_dev *dev = fake_open(8, 8);
	struct sacc_op ops[2];

	nops(ops, 2, 0);
	ck_assert_int_eq(sacc_enqueue(dev, ops, 2), 2);
	fake_reset(dev);
	ck_assert_uint_eq(sacc_unrung(dev), 0);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	ck_assert_int_eq(sacc_doorbell(dev), 0);
	ck_assert_uint_eq(dev->stats.doorbells, 0);
	fake_close(dev);
}
END_TEST

START_TEST(test_dev_info)
{
	struct sacc_dev *dev = fake_open(16, 8);
	struct sacc_dev_info in;
	int fd = 0, req = 0;

	ck_assert_int_eq(sacc_dev_info(dev, &in), 0);
	ck_assert_uint_eq(in.sq_entries, 16);
	ck_assert_uint_eq(in.cq_entries, 8);
	ck_assert_uint_eq(in.max_xfer, SACC_MAX_XFER);
	ck_assert_uint_eq(in.caps & (SACC_CAP_V3 | SACC_CAP_FILL | SACC_CAP_IRQ),
			  0);
	ck_assert_uint_eq(in.ops, 1u << SACC_OP_NOP | 1u << SACC_OP_MEMCPY |
				      1u << SACC_OP_XFORM);
	ck_assert_uint_eq(in.inline_max, 0);
	ck_assert_int_eq(sacc_dev_eventfds(dev, &fd, &req), -ENOTSUP);
	ck_assert_int_eq(sacc_irq_take(dev), -ENOTSUP);
	ck_assert_int_eq(sacc_dev_info(dev, NULL), -EINVAL);
	fake_close(dev);

	dev = fake_open_mode(16, 16, SACC_MODE_V3, 1 << 20);
	fake_irq(dev);
	ck_assert_int_eq(sacc_dev_info(dev, &in), 0);
	ck_assert_uint_eq(in.version, SACC_VERSION);
	ck_assert_uint_eq(in.mode, SACC_MODE_V3);
	ck_assert_uint_eq(in.caps & (SACC_CAP_V3 | SACC_CAP_FILL |
				     SACC_CAP_DEVMEM | SACC_CAP_IRQ),
			  SACC_CAP_V3 | SACC_CAP_FILL | SACC_CAP_DEVMEM |
			      SACC_CAP_IRQ);
	ck_assert(in.ops & 1u << SACC_OP_FILL);
	ck_assert(in.ops & 1u << SACC_OP_WRITE_INLINE);
	ck_assert_uint_eq(in.inline_max, SACC_INLINE_MAX);
	ck_assert_uint_eq(in.devmem_size, 1 << 20);
	ck_assert_int_eq(sacc_dev_eventfds(dev, &fd, &req), 0);
	ck_assert_int_eq(fd, dev->irq_fd);
	ck_assert_int_eq(req, -1);
	fake_close(dev);
}
END_TEST

/* The eventfd in a program's own loop: readable after an interrupt,
 * sacc_irq_take() counts and acknowledges it as sacc_wait() would. */
START_TEST(test_irq_take)
{
	struct sacc_dev *dev = fake_open(8, 8);
	uint64_t one = 1;
	int fd;

	fake_irq(dev);
	ck_assert_int_eq(sacc_dev_eventfds(dev, &fd, NULL), 0);
	ck_assert_int_eq(sacc_irq_take(dev), 0); /* nothing yet */
	dev->regs[SACC_REG_IRQ_STATUS / 4] = SACC_IRQ_COMPLETION;
	ck_assert_int_eq(write(fd, &one, sizeof(one)), sizeof(one));
	ck_assert_int_eq(sacc_irq_take(dev), 1);
	ck_assert_uint_eq(dev->stats.interrupts, 1);
	ck_assert_uint_eq(dev->regs[SACC_REG_IRQ_ACK / 4], SACC_IRQ_COMPLETION);
	ck_assert_int_eq(sacc_irq_take(dev), 0);
	fake_close(dev);
}
END_TEST

static Suite *libsacc_suite(void)
{
	Suite *s = suite_create("libsacc");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_bdf_parse);
	tcase_add_test(tc, test_hw_names);
	tcase_add_test(tc, test_validation);
	tcase_add_test(tc, test_batch_one_doorbell);
	tcase_add_test(tc, test_laps_small_cq);
	tcase_add_test(tc, test_untrusted_unknown_req_id);
	tcase_add_test(tc, test_untrusted_out_of_order);
	tcase_add_test(tc, test_untrusted_result_len);
	tcase_add_test(tc, test_untrusted_short_ok);
	tcase_add_test(tc, test_untrusted_status);
	tcase_add_test(tc, test_completion_nothing_outstanding);
	tcase_add_test(tc, test_submit_raw);
	tcase_add_test(tc, test_submit_raw_slots);
	tcase_add_test(tc, test_events_record);
	tcase_add_test(tc, test_events_wrap_drops);
	tcase_add_test(tc, test_events_concurrent_reader);
	tcase_add_test(tc, test_journal);
	tcase_add_test(tc, test_journal_fifo);
	tcase_add_test(tc, test_journal_rotation);
	tcase_add_test(tc, test_not_initialised);
	tcase_add_test(tc, test_sysfs);
	suite_add_tcase(s, tc);

	/* Issue 9: nothing the device writes is trusted, nothing hangs.
	 * A short timeout: before the fixes some of these never returned. */
	tc = tcase_create("robust");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_forged_completion_in_kept_free_slot);
	tcase_add_test(tc, test_forged_completion_stall_probe);
	tcase_add_test(tc, test_stall_probe_slow_device);
	tcase_add_test(tc, test_erased_completion);
	tcase_add_test(tc, test_wait_forever_device_reset);
	tcase_add_test(tc, test_hung_device_bounded);
	tcase_add_test(tc, test_device_request);
	suite_add_tcase(s, tc);

	/* v0.4: device memory, FILL, the SQ in device memory */
	tc = tcase_create("devmem");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_devmem_pool);
	tcase_add_test(tc, test_devmem_pool_churn);
	tcase_add_test(tc, test_devmem_alloc);
	tcase_add_test(tc, test_devmem_submit);
	tcase_add_test(tc, test_devmem_reject);
	tcase_add_test(tc, test_devmem_sq);
	tcase_add_test(tc, test_devmem_fault_journal);
	suite_add_tcase(s, tc);

	/* v0.4: graphs, one SEGMENT entry a launch */
	tc = tcase_create("graphs");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_graph_encode);
	tcase_add_test(tc, test_graph_limits);
	tcase_add_test(tc, test_graph_lifetime);
	tcase_add_test(tc, test_graph_failures);
	tcase_add_test(tc, test_graph_journal);
	tcase_add_test(tc, test_raw_segment_journal);
	suite_add_tcase(s, tc);

	/* issue 22: submit without ringing, capabilities, the eventfd */
	tc = tcase_create("dmadev");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_enqueue_one_doorbell);
	tcase_add_test(tc, test_enqueue_inline_unrung_slots);
	tcase_add_test(tc, test_enqueue_forged_completion);
	tcase_add_test(tc, test_enqueue_not_late);
	tcase_add_test(tc, test_enqueue_reset);
	tcase_add_test(tc, test_dev_info);
	tcase_add_test(tc, test_irq_take);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(libsacc_suite());
	int failed;

	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

// SPDX-License-Identifier: MIT
/*
 * spec_vfio.c - the spec suite's raw-VFIO fixture (spec_vfio.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/pci_regs.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "spec_vfio.h"

struct vdev D;
void cfg_read(struct vdev *d, uint32_t off, void *buf, size_t len)
{
	ck_assert_int_eq(pread(d->device, buf, len, d->cfg_off + off),
			 (ssize_t)len);
}

void cfg_write(struct vdev *d, uint32_t off, const void *buf, size_t len)
{
	ck_assert_int_eq(pwrite(d->device, buf, len, d->cfg_off + off),
			 (ssize_t)len);
}

/* The whole of BAR @index mapped (NULL if the region is empty). */
static volatile uint8_t *bar_map(struct vdev *d, unsigned int index,
				 uint64_t *len)
{
	struct vfio_region_info ri = {.argsz = sizeof(ri), .index = index};
	void *p;

	ck_assert_int_eq(ioctl(d->device, VFIO_DEVICE_GET_REGION_INFO, &ri), 0);
	*len = ri.size;
	if (!ri.size)
		return NULL;
	ck_assert_msg(ri.flags & VFIO_REGION_INFO_FLAG_MMAP,
		      "BAR%u (0x%llx bytes) cannot be mmapped", index,
		      (unsigned long long)ri.size);
	p = mmap(NULL, ri.size, PROT_READ | PROT_WRITE, MAP_SHARED, d->device,
		 ri.offset);
	ck_assert_msg(p != MAP_FAILED, "mmap BAR%u: %s", index,
		      strerror(errno));
	return p;
}

void vd_open(struct vdev *d, unsigned int idx)
{
	struct vfio_group_status gs = {.argsz = sizeof(gs)};
	struct vfio_region_info ri = {.argsz = sizeof(ri)};
	char path[128], link[128];
	const char *bdf = guest_bdf(idx);
	uint16_t cmd;
	ssize_t n;
	void *p;

	memset(d, 0, sizeof(*d));
	d->irq_fd = -1;
	d->next_iova = IOVA_BUF;
	d->next_req = 0x100 * (idx + 1);
	ck_assert_msg(bdf, "no SACC device #%u bound to vfio-pci", idx);
	snprintf(d->bdf, sizeof(d->bdf), "%s", bdf);

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/iommu_group",
		 bdf);
	n = readlink(path, link, sizeof(link) - 1);
	ck_assert_msg(n > 0, "%s: %s", path, strerror(errno));
	link[n] = '\0';
	d->group_id = atoi(strrchr(link, '/') + 1);

	d->container = open("/dev/vfio/vfio", O_RDWR | O_CLOEXEC);
	ck_assert_msg(d->container >= 0, "/dev/vfio/vfio: %s", strerror(errno));
	ck_assert_int_eq(ioctl(d->container, VFIO_GET_API_VERSION),
			 VFIO_API_VERSION);
	ck_assert_int_eq(
	    ioctl(d->container, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU), 1);
	snprintf(path, sizeof(path), "/dev/vfio/%d", d->group_id);
	d->group = open(path, O_RDWR | O_CLOEXEC);
	ck_assert_msg(d->group >= 0, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(ioctl(d->group, VFIO_GROUP_GET_STATUS, &gs), 0);
	ck_assert_msg(gs.flags & VFIO_GROUP_FLAGS_VIABLE, "group %d not viable",
		      d->group_id);
	ck_assert_int_eq(
	    ioctl(d->group, VFIO_GROUP_SET_CONTAINER, &d->container), 0);
	ck_assert_int_eq(
	    ioctl(d->container, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU), 0);
	d->device = ioctl(d->group, VFIO_GROUP_GET_DEVICE_FD, d->bdf);
	ck_assert_msg(d->device >= 0, "GET_DEVICE_FD %s: %s", d->bdf,
		      strerror(errno));

	ri.index = VFIO_PCI_CONFIG_REGION_INDEX;
	ck_assert_int_eq(ioctl(d->device, VFIO_DEVICE_GET_REGION_INFO, &ri), 0);
	d->cfg_off = ri.offset;
	ri = (struct vfio_region_info){.argsz = sizeof(ri),
				       .index = VFIO_PCI_BAR0_REGION_INDEX};
	ck_assert_int_eq(ioctl(d->device, VFIO_DEVICE_GET_REGION_INFO, &ri), 0);
	ck_assert_uint_eq(ri.size, SACC_BAR0_SIZE);
	ck_assert(ri.flags & VFIO_REGION_INFO_FLAG_MMAP);
	p = mmap(NULL, SACC_BAR0_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 d->device, ri.offset);
	ck_assert_msg(p != MAP_FAILED, "mmap BAR0: %s", strerror(errno));
	d->bar0 = p;
	/* v0.3: the device page and channel blocks; v0.4: device memory
	 * (absent, size 0, when DEVMEM_SIZE is 0). */
	d->bar2 = bar_map(d, VFIO_PCI_BAR2_REGION_INDEX, &d->bar2_len);
	ck_assert_uint_eq(d->bar2_len, SACC_BAR2_SIZE);
	d->bar4 = bar_map(d, VFIO_PCI_BAR4_REGION_INDEX, &d->bar4_len);

	/* Spec 10.1: memory space and bus mastering. */
	cfg_read(d, PCI_COMMAND, &cmd, 2);
	cmd |= PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
	cfg_write(d, PCI_COMMAND, &cmd, 2);
	/* Spec 10.2: reset; check identity. */
	wr32(d, SACC_REG_CTRL, SACC_CTRL_RESET);
	ck_assert_uint_eq(rd32(d, SACC_REG_MAGIC), SACC_MAGIC);
	ck_assert_uint_eq(rd32(d, SACC_REG_VERSION), SACC_VERSION);
}

void vd_close(struct vdev *d)
{
	if (d->bar0) {
		wr32(d, SACC_REG_CTRL, SACC_CTRL_RESET); /* no more DMA */
		munmap((void *)d->bar0, SACC_BAR0_SIZE);
	}
	if (d->bar2)
		munmap((void *)d->bar2, d->bar2_len);
	if (d->bar4)
		munmap((void *)d->bar4, d->bar4_len);
	if (d->irq_fd >= 0)
		close(d->irq_fd);
	if (d->device > 0)
		close(d->device);
	if (d->group > 0)
		close(d->group);
	if (d->container > 0)
		close(d->container); /* drops every mapping */
	for (unsigned int i = 0; i < d->nbufs; i++)
		munmap(d->bufs[i].va, d->bufs[i].len);
	memset(d, 0, sizeof(*d));
}

int dma_map(struct vdev *d, void *va, uint64_t iova, size_t len, uint32_t perm)
{
	struct vfio_iommu_type1_dma_map m = {
	    .argsz = sizeof(m),
	    .flags = perm,
	    .vaddr = (uintptr_t)va,
	    .iova = iova,
	    .size = len,
	};

	return ioctl(d->container, VFIO_IOMMU_MAP_DMA, &m) ? -errno : 0;
}

void dma_unmap(struct vdev *d, uint64_t iova, size_t len)
{
	struct vfio_iommu_type1_dma_unmap u = {
	    .argsz = sizeof(u),
	    .iova = iova,
	    .size = len,
	};

	ck_assert_msg(!ioctl(d->container, VFIO_IOMMU_UNMAP_DMA, &u),
		      "UNMAP_DMA 0x%llx: %s", (unsigned long long)iova,
		      strerror(errno));
	ck_assert_uint_eq(u.size, len);
}

/* Zeroed pages at @iova; mapped with @perm (R|W), or not at all if 0. */
struct dbuf *buf_at(struct vdev *d, size_t len, uint64_t iova, uint32_t perm)
{
	struct dbuf *b;
	int ret;

	ck_assert_uint_lt(d->nbufs, MAX_BUFS);
	b = &d->bufs[d->nbufs];
	b->len = (len + PAGE - 1) & ~(size_t)(PAGE - 1);
	b->iova = iova;
	b->va = mmap(NULL, b->len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ck_assert(b->va != MAP_FAILED);
	d->nbufs++;
	if (perm) {
		ret = dma_map(d, b->va, iova, b->len, perm);
		ck_assert_msg(!ret, "MAP_DMA 0x%llx+0x%zx: %s",
			      (unsigned long long)iova, b->len, strerror(-ret));
	}
	return b;
}

/* A buffer at the next free IOVA, with an unmapped guard page after it. */
struct dbuf *buf_new(struct vdev *d, size_t len, uint32_t perm)
{
	struct dbuf *b = buf_at(d, len, d->next_iova, perm);

	d->next_iova += b->len + PAGE;
	return b;
}

/* MSI-X vector 0 on an eventfd. */
void irq_setup(struct vdev *d)
{
	char buf[sizeof(struct vfio_irq_set) + sizeof(int32_t)];
	struct vfio_irq_set *s = (void *)buf;

	d->irq_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ck_assert(d->irq_fd >= 0);
	s->argsz = sizeof(buf);
	s->flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
	s->index = VFIO_PCI_MSIX_IRQ_INDEX;
	s->start = 0;
	s->count = 1;
	memcpy(s->data, &d->irq_fd, sizeof(int32_t));
	ck_assert_msg(!ioctl(d->device, VFIO_DEVICE_SET_IRQS, s),
		      "SET_IRQS(MSI-X): %s", strerror(errno));
}

/* Interrupts that arrived within @ms (0 if none); consumes them. */
uint64_t irq_wait(struct vdev *d, int ms)
{
	struct pollfd p = {.fd = d->irq_fd, .events = POLLIN};
	uint64_t n = 0;

	if (poll(&p, 1, ms) == 1 && read(d->irq_fd, &n, 8) != 8)
		n = 0;
	return n;
}

/* ---- rings ---- */

volatile struct sacc_desc *sq_slot(struct vdev *d, uint32_t i)
{
	return (void *)(d->sq->va + d->sq_off + (size_t)i * 32);
}

volatile struct sacc_cqe *cq_slot(struct vdev *d, uint32_t i)
{
	return (void *)(d->cq->va + d->cq_off + (size_t)i * 16);
}

void rings_alloc(struct vdev *d, uint32_t sq_size, uint32_t cq_size,
		 uint32_t sq_perm, uint32_t cq_perm)
{
	d->sq = buf_at(d, (size_t)sq_size * 32 + d->sq_off, IOVA_SQ, sq_perm);
	d->cq = buf_at(d, (size_t)cq_size * 16 + d->cq_off, IOVA_CQ, cq_perm);
	d->sq_size = sq_size;
	d->cq_size = cq_size;
}

void rings_program(struct vdev *d)
{
	wr64(d, SACC_REG_SQ_BASE, d->sq->iova + d->sq_off);
	wr32(d, SACC_REG_SQ_SIZE, d->sq_size);
	wr64(d, SACC_REG_CQ_BASE, d->cq->iova + d->cq_off);
	wr32(d, SACC_REG_CQ_SIZE, d->cq_size);
}

/* Spec 10.3-10.5: zero the CQ, program, enable, check READY. */
void rings_start(struct vdev *d)
{
	memset(d->cq->va, 0, d->cq->len);
	d->sq_tail = d->cq_head = 0;
	d->phase = 1;
	rings_program(d);
	wr32(d, SACC_REG_CTRL, SACC_CTRL_ENABLE);
	ck_assert_msg(rd32(d, SACC_REG_STATUS) == SACC_STATUS_READY,
		      "enable: STATUS 0x%x ERR_CODE %u",
		      rd32(d, SACC_REG_STATUS), rd32(d, SACC_REG_ERR_CODE));
}

void rings_init(struct vdev *d, uint32_t sq_size, uint32_t cq_size)
{
	rings_alloc(d, sq_size, cq_size, R, W);
	rings_start(d);
}

/* Write one descriptor at the SQ tail (no doorbell); returns its req_id. */
uint32_t push(struct vdev *d, uint16_t op, uint64_t src, uint64_t dst,
	      uint32_t len, uint16_t flags)
{
	volatile struct sacc_desc *s = sq_slot(d, d->sq_tail);
	uint32_t id = ++d->next_req;

	s->src = src;
	s->dst = dst;
	s->length = len;
	s->opcode = op;
	s->flags = flags;
	s->req_id = id;
	s->reserved = 0;
	d->sq_tail = (d->sq_tail + 1) % d->sq_size;
	return id;
}

void ring(struct vdev *d)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	wr32(d, SACC_DOORBELL_OFFSET, d->sq_tail);
}

bool cqe_ready(struct vdev *d)
{
	volatile struct sacc_cqe *e = cq_slot(d, d->cq_head);

	return (__atomic_load_n(&e->phase, __ATOMIC_ACQUIRE) & 1) == d->phase;
}

/* Take the next completion (bounded poll); CQ_HEAD is not written. */
bool wait_cqe(struct vdev *d, struct sacc_cqe *out, int ms)
{
	double end = now_s() + ms / 1000.0;

	for (unsigned int spins = 0; !cqe_ready(d); spins++) {
		if (now_s() > end)
			return false;
		if (spins < 1000)
			sched_yield();
		else
			usleep(100); /* leave the host CPU to QEMU */
	}
	memcpy(out, (const void *)cq_slot(d, d->cq_head), sizeof(*out));
	if (++d->cq_head == d->cq_size) {
		d->cq_head = 0;
		d->phase ^= 1;
	}
	return true;
}

void cq_ack(struct vdev *d)
{
	wr32(d, SACC_REG_CQ_HEAD, d->cq_head);
}

struct sacc_cqe take(struct vdev *d, uint32_t req)
{
	struct sacc_cqe c;

	ck_assert_msg(wait_cqe(d, &c, CQE_TIMEOUT_MS),
		      "%s: no completion for req %u (STATUS 0x%x ERR_CODE %u)",
		      d->bdf, req, rd32(d, SACC_REG_STATUS),
		      rd32(d, SACC_REG_ERR_CODE));
	ck_assert_msg(c.req_id == req, "completion req_id %u, expected %u",
		      c.req_id, req);
	ck_assert_uint_eq(c.reserved, 0);
	return c;
}

/* One descriptor, one doorbell, its completion, CQ_HEAD. */
struct sacc_cqe run1(struct vdev *d, uint16_t op, uint64_t src, uint64_t dst,
		     uint32_t len, uint16_t flags)
{
	uint32_t id = push(d, op, src, dst, len, flags);
	struct sacc_cqe c;

	ring(d);
	c = take(d, id);
	cq_ack(d);
	return c;
}

/* No completion appears within QUIET_MS. */
void expect_no_cqe(struct vdev *d, const char *why)
{
	guest_sleep_ms(QUIET_MS);
	ck_assert_msg(!cqe_ready(d), "%s: unexpected completion (req %u)", why,
		      cq_slot(d, d->cq_head)->req_id);
}

/* ---- checks ---- */

void fill_rand(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = seed >> 16;
	}
}

/* Index of the first byte of p[0..n) that is not @v, or -1. */
long first_not(const uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return (long)i;
	return -1;
}

void expect_fault(struct vdev *d, uint64_t addr, uint32_t info, uint32_t req,
		  uint32_t count)
{
	uint64_t fa = rd64(d, SACC_REG_FAULT_ADDR);

	ck_assert_msg(fa == addr, "FAULT_ADDR 0x%llx, expected 0x%llx",
		      (unsigned long long)fa, (unsigned long long)addr);
	ck_assert_uint_eq(rd32(d, SACC_REG_FAULT_ADDR), (uint32_t)addr);
	ck_assert_uint_eq(rd32(d, SACC_REG_FAULT_ADDR + 4), addr >> 32);
	ck_assert_uint_eq(rd32(d, SACC_REG_FAULT_INFO), info);
	ck_assert_uint_eq(rd32(d, SACC_REG_FAULT_REQ_ID), req);
	ck_assert_uint_eq(rd32(d, SACC_REG_FAULT_COUNT), count);
}

/* A failing descriptor is not fatal: READY, no ERROR. */
void expect_ready(struct vdev *d)
{
	ck_assert_msg(rd32(d, SACC_REG_STATUS) == SACC_STATUS_READY,
		      "STATUS 0x%x, expected READY", rd32(d, SACC_REG_STATUS));
}

/* Every register at its power-on value (spec 9). */
void expect_power_on(struct vdev *d, const char *after)
{
	static const uint32_t zero[] = {
	    SACC_REG_CTRL,	     SACC_REG_STATUS,
	    SACC_REG_SQ_BASE,	     SACC_REG_SQ_BASE + 4,
	    SACC_REG_SQ_SIZE,	     SACC_REG_CQ_BASE,
	    SACC_REG_CQ_BASE + 4,    SACC_REG_CQ_SIZE,
	    SACC_REG_CQ_HEAD,	     SACC_REG_IRQ_STATUS,
	    SACC_REG_IRQ_ACK,	     SACC_REG_ERR_CODE,
	    SACC_REG_SCRATCH,	     SACC_REG_FAULT_ADDR,
	    SACC_REG_FAULT_ADDR + 4, SACC_REG_FAULT_INFO,
	    SACC_REG_FAULT_REQ_ID,   SACC_REG_FAULT_COUNT,
	};

	ck_assert_uint_eq(rd32(d, SACC_REG_MAGIC), SACC_MAGIC);
	ck_assert_uint_eq(rd32(d, SACC_REG_VERSION), SACC_VERSION);
	for (unsigned int i = 0; i < sizeof(zero) / sizeof(zero[0]); i++)
		ck_assert_msg(!rd32(d, zero[i]),
			      "after %s: register 0x%02x reads 0x%x, not 0",
			      after, zero[i], rd32(d, zero[i]));
	ck_assert_uint_eq(rd64(d, SACC_REG_SQ_BASE), 0);
	ck_assert_uint_eq(rd64(d, SACC_REG_CQ_BASE), 0);
	ck_assert_uint_eq(rd64(d, SACC_REG_FAULT_ADDR), 0);
}

/* ---- DMAR log lines (/dev/kmsg) ----
 *
 * The kernel rate-limits dmar_fault() output: one ratelimit state, burst
 * 10 per 5 s, and each fault costs three of it ("handling fault status
 * reg", the record, and the loop's final check of the next, empty,
 * record), so only 3 faults per 5 s are printed.  QEMU's intel-iommu has
 * one fault recording register, so back-to-back faults collapse too.
 * Every test that makes IOMMU faults books them here first (and waits
 * for the next window if needed); the account lives in shared memory so
 * it survives Check's forks.  SACC_SPEC_DEBUG=1 shows the bookings.  */

/* The kernel's window opens at its first message, which comes a little
 * after our booking: on a loaded host (ci/test runs two TCG guests side
 * by side) that lag passed 0.6 s once, so the slack is 1.5 s. */
#define DMAR_WINDOW 6.5 /* s: the kernel's 5 s plus slack */
#define DMAR_BURST  10
#define DMAR_COST   3 /* ratelimit tokens per fault */

static struct {
	double begin;
	int lines;
	bool opened; /* a new window was booked; its first line not seen */
} * dmar;

/* The DMAR account, shared by every forked test; once, in main(). */
int dmar_init(void)
{
	dmar = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (dmar == MAP_FAILED)
		return -errno;
	dmar->begin = -1e9; /* no window yet */
	return 0;
}

void dmar_budget(int faults)
{
	double t = now_s();

	if (t - dmar->begin > DMAR_WINDOW) {
		dmar->begin = t;
		dmar->lines = 0;
		dmar->opened = true;
	}
	if (dmar->lines + DMAR_COST * faults > DMAR_BURST) {
		guest_sleep_ms(
		    (unsigned int)((dmar->begin + DMAR_WINDOW - t) * 1000) + 1);
		dmar->begin = now_s();
		dmar->lines = 0;
		dmar->opened = true;
	}
	dmar->lines += DMAR_COST * faults;
	if (getenv("SACC_SPEC_DEBUG"))
		fprintf(stderr, "dmar_budget: t %.3f begin %.3f lines %d\n",
			now_s(), dmar->begin, dmar->lines);
}

/* After an unknown number of faults: assume the window is used up. */
void dmar_exhausted(void)
{
	dmar->begin = now_s();
	dmar->lines = DMAR_BURST;
}

/* The guest kernel logged a DMAR fault for @d at @addr's page. */
void dmar_expect(struct vdev *d, uint64_t mark, uint64_t addr, bool write)
{
	char needle[96], line[512] = "";
	double end = now_s() + 5;
	int n;

	/* "DMAR: [DMA Write NO_PASID] Request device [01:00.0] fault addr
	 *  0x40000000 [fault reason 0x05] PTE Write access is not set" */
	snprintf(needle, sizeof(needle),
		 "Request device [%s] fault addr 0x%llx", d->bdf + 5,
		 (unsigned long long)(addr & ~0xfffull));
	while ((n = guest_kmsg_grep(mark, needle, line, sizeof(line))) == 0 &&
	       now_s() < end)
		guest_sleep_ms(20);
	ck_assert_msg(n > 0, "no DMAR line \"%s\" in /dev/kmsg", needle);
	/* The kernel's window opened at the first line of it, which we see
	 * only now: start ours here, never earlier than the kernel's. */
	if (dmar->opened) {
		dmar->begin = now_s();
		dmar->opened = false;
	}
	ck_assert_msg(strstr(line, write ? "DMA Write" : "DMA Read"),
		      "DMAR line has the wrong direction: %s", line);
}

/* ====================================================================
 * Fixture
 * ==================================================================== */

void setup(void)
{
	vd_open(&D, 0);
}

void teardown(void)
{
	vd_close(&D);
}

/* ====================================================================
 * Channel queues (v0.3 blocks in BAR2; v0.4 rings in device memory)
 * ==================================================================== */

void q_init(struct vq *q, struct vdev *d, unsigned int ch, bool page0)
{
	memset(q, 0, sizeof(*q));
	q->d = d;
	q->ch = ch;
	q->page0 = page0;
	ck_assert(!page0 || ch == 0);
	ck_assert_msg(ch < b2_rd32(d, SACC_DEV_CHANNELS),
		      "channel %u: the device has %u", ch,
		      b2_rd32(d, SACC_DEV_CHANNELS));
	q->regs = page0 ? d->bar0 : d->bar2 + SACC_CHAN_BLOCK(ch);
	q->next_req = 0x10000 * (ch + 1);
}

void q_alloc(struct vq *q, uint32_t sq_size, uint32_t cq_size)
{
	ck_assert_uint_le((uint64_t)sq_size * 32, IOVA_Q_STRIDE);
	ck_assert_uint_le((uint64_t)cq_size * 16, IOVA_Q_STRIDE);
	q->sq_buf = buf_at(q->d, (size_t)sq_size * 32, IOVA_QSQ(q->ch), R);
	q->cq = buf_at(q->d, (size_t)cq_size * 16, IOVA_QCQ(q->ch), W);
	q->put_buf = buf_at(q->d, PAGE, IOVA_QPUT(q->ch), R);
	q->sq_size = sq_size;
	q->cq_size = cq_size;
	q_config(q, 0, 0, 0);
}

void q_config(struct vq *q, uint32_t mode, uint64_t sq_dev, uint64_t put_dev)
{
	q->mode = mode;
	if (mode & SACC_MODE_SQ_DEV) {
		ck_assert_msg(q->d->bar4, "MODE.SQ_DEV needs device memory");
		q->sq_base = sq_dev;
		q->put_addr = put_dev;
		/* Only dereferenced when in range (q_push, q_ring). */
		q->sq_va = q->d->bar4 + sq_dev;
		q->put_va = (volatile uint32_t *)(q->d->bar4 + put_dev);
	} else {
		q->sq_base = q->sq_buf->iova;
		q->sq_va = q->sq_buf->va;
		q->put_addr = q->put_buf->iova;
		q->put_va = (volatile uint32_t *)q->put_buf->va;
	}
}

void q_program(struct vq *q)
{
	if (!q->page0) {
		q_wr32(q, SACC_REG_MODE, q->mode);
		q_wr64(q, SACC_REG_PUT_ADDR, q->put_addr);
	}
	q_wr64(q, SACC_REG_SQ_BASE, q->sq_base);
	q_wr32(q, SACC_REG_SQ_SIZE, q->sq_size);
	q_wr64(q, SACC_REG_CQ_BASE, q->cq->iova);
	q_wr32(q, SACC_REG_CQ_SIZE, q->cq_size);
}

void q_start(struct vq *q)
{
	memset(q->cq->va, 0, q->cq->len);
	q->sq_tail = q->cq_head = 0;
	q->phase = 1;
	q_program(q);
	q_wr32(q, SACC_REG_CTRL, SACC_CTRL_ENABLE);
	ck_assert_msg(q_rd32(q, SACC_REG_STATUS) == SACC_STATUS_READY,
		      "channel %u enable (MODE 0x%x): STATUS 0x%x ERR_CODE %u",
		      q->ch, q->mode, q_rd32(q, SACC_REG_STATUS),
		      q_rd32(q, SACC_REG_ERR_CODE));
}

void q_reset(struct vq *q)
{
	q_wr32(q, SACC_REG_CTRL, SACC_CTRL_RESET);
}

static volatile struct sacc_desc *q_slot(struct vq *q, uint32_t i)
{
	return (volatile struct sacc_desc *)(q->sq_va + (size_t)i * 32);
}

uint32_t q_push(struct vq *q, uint16_t op, uint64_t src, uint64_t dst,
		uint32_t len, uint16_t flags)
{
	volatile struct sacc_desc *s = q_slot(q, q->sq_tail);
	uint32_t id = ++q->next_req;

	s->src = src;
	s->dst = dst;
	s->length = len;
	s->opcode = op;
	s->flags = flags;
	s->req_id = id;
	s->reserved = 0;
	q->sq_tail = (q->sq_tail + 1) % q->sq_size;
	return id;
}

uint32_t q_push_inline(struct vq *q, uint64_t dst, const void *data,
		       uint32_t len, uint16_t flags)
{
	uint32_t id = q_push(q, SACC_OP_WRITE_INLINE, 0, dst, len, flags);
	const uint8_t *p = data;

	/* Spec 15: payload byte i is byte i % 32 of slot (h + 1 + i / 32). */
	for (uint32_t i = 0; i < SACC_INLINE_SLOTS(len); i++) {
		volatile uint8_t *slot =
		    (volatile uint8_t *)q_slot(q, q->sq_tail);

		for (uint32_t k = 0; k < 32; k++)
			slot[k] = i * 32 + k < len ? p[i * 32 + k] : 0;
		q->sq_tail = (q->sq_tail + 1) % q->sq_size;
	}
	return id;
}

void q_ring(struct vq *q)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (q->mode & SACC_MODE_TOKEN) {
		*q->put_va = q->sq_tail;
		__atomic_thread_fence(__ATOMIC_RELEASE);
		wr32(q->d, SACC_DOORBELL_TOKEN, q->ch);
	} else {
		wr32(q->d, SACC_DOORBELL(q->ch), q->sq_tail);
	}
}

static volatile struct sacc_cqe *q_cqe(struct vq *q, uint32_t i)
{
	return (volatile struct sacc_cqe *)(q->cq->va + (size_t)i * 16);
}

bool q_cqe_ready(struct vq *q)
{
	volatile struct sacc_cqe *e = q_cqe(q, q->cq_head);

	return (__atomic_load_n(&e->phase, __ATOMIC_ACQUIRE) & 1) == q->phase;
}

bool q_wait_cqe(struct vq *q, struct sacc_cqe *out, int ms)
{
	double end = now_s() + ms / 1000.0;

	for (unsigned int spins = 0; !q_cqe_ready(q); spins++) {
		if (now_s() > end)
			return false;
		if (spins < 1000)
			sched_yield();
		else
			usleep(100);
	}
	memcpy(out, (const void *)q_cqe(q, q->cq_head), sizeof(*out));
	if (++q->cq_head == q->cq_size) {
		q->cq_head = 0;
		q->phase ^= 1;
	}
	return true;
}

void q_ack(struct vq *q)
{
	q_wr32(q, SACC_REG_CQ_HEAD, q->cq_head);
}

struct sacc_cqe q_take(struct vq *q, uint32_t req)
{
	struct sacc_cqe c;

	ck_assert_msg(q_wait_cqe(q, &c, CQE_TIMEOUT_MS),
		      "channel %u: no completion for req 0x%x (STATUS 0x%x "
		      "ERR_CODE %u FAULT_INFO 0x%x)",
		      q->ch, req, q_rd32(q, SACC_REG_STATUS),
		      q_rd32(q, SACC_REG_ERR_CODE),
		      q_rd32(q, SACC_REG_FAULT_INFO));
	ck_assert_msg(c.req_id == req,
		      "channel %u: completion req_id 0x%x, expected 0x%x",
		      q->ch, c.req_id, req);
	/* Word 8 is the engine time on a MODE.V3 channel, else 0. */
	if (!(q->mode & SACC_MODE_V3))
		ck_assert_uint_eq(c.reserved, 0);
	return c;
}

struct sacc_cqe q_run1(struct vq *q, uint16_t op, uint64_t src, uint64_t dst,
		       uint32_t len, uint16_t flags)
{
	uint32_t id = q_push(q, op, src, dst, len, flags);
	struct sacc_cqe c;

	q_ring(q);
	c = q_take(q, id);
	q_ack(q);
	return c;
}

void q_expect_fault(struct vq *q, uint64_t addr, uint32_t info, uint32_t req,
		    uint32_t count)
{
	uint64_t fa = q_rd64(q, SACC_REG_FAULT_ADDR);

	ck_assert_msg(fa == addr,
		      "channel %u: FAULT_ADDR 0x%llx, expected 0x%llx", q->ch,
		      (unsigned long long)fa, (unsigned long long)addr);
	ck_assert_uint_eq(q_rd32(q, SACC_REG_FAULT_ADDR), (uint32_t)addr);
	ck_assert_uint_eq(q_rd32(q, SACC_REG_FAULT_ADDR + 4), addr >> 32);
	ck_assert_msg(q_rd32(q, SACC_REG_FAULT_INFO) == info,
		      "channel %u: FAULT_INFO 0x%x, expected 0x%x", q->ch,
		      q_rd32(q, SACC_REG_FAULT_INFO), info);
	ck_assert_uint_eq(q_rd32(q, SACC_REG_FAULT_REQ_ID), req);
	ck_assert_msg(q_rd32(q, SACC_REG_FAULT_COUNT) == count,
		      "channel %u: FAULT_COUNT %u, expected %u", q->ch,
		      q_rd32(q, SACC_REG_FAULT_COUNT), count);
}

void q_expect_ready(struct vq *q)
{
	ck_assert_msg(q_rd32(q, SACC_REG_STATUS) == SACC_STATUS_READY,
		      "channel %u: STATUS 0x%x, expected READY", q->ch,
		      q_rd32(q, SACC_REG_STATUS));
}

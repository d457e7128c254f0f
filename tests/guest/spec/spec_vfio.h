/* SPDX-License-Identifier: MIT */
/*
 * spec_vfio.h - the spec suite's raw-VFIO fixture: container, group,
 * VFIO_IOMMU_MAP_DMA at IOVAs the test chooses, BAR mmaps, MSI-X on an
 * eventfd, VFIO_DEVICE_RESET, rings driven register by register, and the
 * kernel's DMAR log.  Deliberately independent of libsacc: it drives the
 * device the way an outside reviewer's program would, from docs/spec.md.
 */
#ifndef SACC_SPEC_VFIO_H
#define SACC_SPEC_VFIO_H

#include <check.h>
#include <linux/vfio.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "guest_util.h"
#include "sacc_hw.h"

#define PAGE	       4096u
#define MiB	       (1u << 20)
#define CQE_TIMEOUT_MS 10000 /* TCG; a 1 MiB copy is a few ms */
#define QUIET_MS       300   /* "nothing more happens" observation time */

/* IOVA layout, per container (each device has its own IOVA space). */
#define IOVA_SQ	      0x00100000ull /* up to 2 MiB (65536 entries) */
#define IOVA_CQ	      0x00400000ull /* up to 1 MiB */
#define IOVA_Q_STRIDE 0x40000ull    /* a channel queue's ring, at most */
#define IOVA_QSQ(ch)  (0x00800000ull + (ch)*IOVA_Q_STRIDE) /* struct vq */
#define IOVA_QCQ(ch)  (0x00c00000ull + (ch)*IOVA_Q_STRIDE)
#define IOVA_QPUT(ch) (0x00e00000ull + (ch)*PAGE)
#define IOVA_BUF      0x01000000ull /* buffers, with an unmapped guard page each */
#define IOVA_HOLE     0x40000000ull /* never mapped */
#define IOVA_SPECIAL  0x60000000ull /* hand-placed mappings */

#define R VFIO_DMA_MAP_FLAG_READ  /* the device may read */
#define W VFIO_DMA_MAP_FLAG_WRITE /* the device may write */

#define CANARY 0xc5

/* ====================================================================
 * Raw VFIO fixture
 * ==================================================================== */

struct dbuf {
	uint8_t *va;
	size_t len; /* whole pages */
	uint64_t iova;
};

#define MAX_BUFS 48

struct vdev {
	char bdf[SACC_BDF_MAX];
	int group_id;
	int container, group, device;
	uint64_t cfg_off;
	volatile uint8_t *bar0;
	volatile uint8_t *bar2;	     /* v0.3: device page, channel blocks */
	volatile uint8_t *bar4;	     /* v0.4: device memory; NULL if none */
	uint64_t bar2_len, bar4_len; /* the VFIO regions' sizes */
	int irq_fd;		     /* MSI-X vector 0, -1 until irq_setup() */
	struct dbuf bufs[MAX_BUFS];
	unsigned int nbufs;
	uint64_t next_iova;
	/* rings, as the driver side sees them */
	struct dbuf *sq, *cq;
	uint32_t sq_off, cq_off; /* base = buf iova + off */
	uint32_t sq_size, cq_size;
	uint32_t sq_tail, cq_head;
	uint16_t phase;
	uint32_t next_req;
};

extern struct vdev D; /* device 0, opened by the fixture */

static inline double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static inline uint32_t rd32(struct vdev *d, uint32_t off)
{
	return *(volatile uint32_t *)(d->bar0 + off);
}

static inline void wr32(struct vdev *d, uint32_t off, uint32_t v)
{
	*(volatile uint32_t *)(d->bar0 + off) = v;
}

static inline uint64_t rd64(struct vdev *d, uint32_t off)
{
	return *(volatile uint64_t *)(d->bar0 + off);
}

static inline void wr64(struct vdev *d, uint32_t off, uint64_t v)
{
	*(volatile uint64_t *)(d->bar0 + off) = v;
}

void cfg_read(struct vdev *d, uint32_t off, void *buf, size_t len);
void cfg_write(struct vdev *d, uint32_t off, const void *buf, size_t len);
void vd_open(struct vdev *d, unsigned int idx);
void vd_close(struct vdev *d);
int dma_map(struct vdev *d, void *va, uint64_t iova, size_t len, uint32_t perm);
void dma_unmap(struct vdev *d, uint64_t iova, size_t len);
struct dbuf *buf_at(struct vdev *d, size_t len, uint64_t iova, uint32_t perm);
struct dbuf *buf_new(struct vdev *d, size_t len, uint32_t perm);
void irq_setup(struct vdev *d);
uint64_t irq_wait(struct vdev *d, int ms);
volatile struct sacc_desc *sq_slot(struct vdev *d, uint32_t i);
volatile struct sacc_cqe *cq_slot(struct vdev *d, uint32_t i);
void rings_alloc(struct vdev *d, uint32_t sq_size, uint32_t cq_size,
		 uint32_t sq_perm, uint32_t cq_perm);
void rings_program(struct vdev *d);
void rings_start(struct vdev *d);
void rings_init(struct vdev *d, uint32_t sq_size, uint32_t cq_size);
uint32_t push(struct vdev *d, uint16_t op, uint64_t src, uint64_t dst,
	      uint32_t len, uint16_t flags);
void ring(struct vdev *d);
bool cqe_ready(struct vdev *d);
bool wait_cqe(struct vdev *d, struct sacc_cqe *out, int ms);
void cq_ack(struct vdev *d);
struct sacc_cqe take(struct vdev *d, uint32_t req);
struct sacc_cqe run1(struct vdev *d, uint16_t op, uint64_t src, uint64_t dst,
		     uint32_t len, uint16_t flags);
void expect_no_cqe(struct vdev *d, const char *why);
void fill_rand(uint8_t *p, size_t n, uint32_t seed);
long first_not(const uint8_t *p, size_t n, uint8_t v);
void expect_fault(struct vdev *d, uint64_t addr, uint32_t info, uint32_t req,
		  uint32_t count);
void expect_ready(struct vdev *d);
void expect_power_on(struct vdev *d, const char *after);
void dmar_budget(int faults);
void dmar_exhausted(void);
void dmar_expect(struct vdev *d, uint64_t mark, uint64_t addr, bool write);

/* ---- BAR2 (v0.3): the device page and the channel blocks ---- */

static inline uint32_t b2_rd32(struct vdev *d, uint32_t off)
{
	return *(volatile uint32_t *)(d->bar2 + off);
}

static inline void b2_wr32(struct vdev *d, uint32_t off, uint32_t v)
{
	*(volatile uint32_t *)(d->bar2 + off) = v;
}

static inline uint64_t b2_rd64(struct vdev *d, uint32_t off)
{
	return *(volatile uint64_t *)(d->bar2 + off);
}

static inline void b2_wr64(struct vdev *d, uint32_t off, uint64_t v)
{
	*(volatile uint64_t *)(d->bar2 + off) = v;
}

/*
 * A channel's queue pair driven through its registers: channel k's
 * block in BAR2, or (page0, channel 0 only) BAR0 page 0, which has no
 * MODE or PUT_ADDR.  Host rings at IOVA_QSQ/QCQ(k); with MODE.SQ_DEV
 * the SQ and the PUT word are device addresses, written through BAR4.
 */
struct vq {
	struct vdev *d;
	unsigned int ch;
	bool page0;
	volatile uint8_t *regs;
	uint32_t mode;
	uint32_t sq_size, cq_size;
	uint64_t sq_base;	 /* IOVA, or device address (SQ_DEV) */
	uint64_t put_addr;	 /* likewise */
	volatile uint8_t *sq_va; /* the host buffer or BAR4 + sq_base */
	volatile uint32_t *put_va;
	struct dbuf *sq_buf, *cq, *put_buf; /* host side */
	uint32_t sq_tail, cq_head;
	uint16_t phase;
	uint32_t next_req;
};

static inline uint32_t q_rd32(struct vq *q, uint32_t off)
{
	return *(volatile uint32_t *)(q->regs + off);
}

static inline void q_wr32(struct vq *q, uint32_t off, uint32_t v)
{
	*(volatile uint32_t *)(q->regs + off) = v;
}

static inline uint64_t q_rd64(struct vq *q, uint32_t off)
{
	return *(volatile uint64_t *)(q->regs + off);
}

static inline void q_wr64(struct vq *q, uint32_t off, uint64_t v)
{
	*(volatile uint64_t *)(q->regs + off) = v;
}

void q_init(struct vq *q, struct vdev *d, unsigned int ch, bool page0);
/* Host SQ, CQ and PUT page, mapped once; q_config(q, 0, 0, 0). */
void q_alloc(struct vq *q, uint32_t sq_size, uint32_t cq_size);
/* MODE for the next q_start(); the SQ and PUT word in device memory
 * at @sq_dev and @put_dev with MODE.SQ_DEV, else in the host buffers. */
void q_config(struct vq *q, uint32_t mode, uint64_t sq_dev, uint64_t put_dev);
void q_program(struct vq *q); /* MODE, PUT_ADDR and the rings; no enable */
void q_start(struct vq *q);   /* zero the CQ, program, enable, READY */
void q_reset(struct vq *q);   /* CTRL.RESET in the block: this channel */
uint32_t q_push(struct vq *q, uint16_t op, uint64_t src, uint64_t dst,
		uint32_t len, uint16_t flags);
/* WRITE_INLINE: the descriptor and its payload slots (wrapping). */
uint32_t q_push_inline(struct vq *q, uint64_t dst, const void *data,
		       uint32_t len, uint16_t flags);
void q_ring(struct vq *q); /* tail doorbell, or PUT word + token */
bool q_cqe_ready(struct vq *q);
bool q_wait_cqe(struct vq *q, struct sacc_cqe *out, int ms);
void q_ack(struct vq *q);
struct sacc_cqe q_take(struct vq *q, uint32_t req);
struct sacc_cqe q_run1(struct vq *q, uint16_t op, uint64_t src, uint64_t dst,
		       uint32_t len, uint16_t flags);
void q_expect_fault(struct vq *q, uint64_t addr, uint32_t info, uint32_t req,
		    uint32_t count);
void q_expect_ready(struct vq *q);

/* The DMAR account (0, or -errno); once, before the tests fork. */
int dmar_init(void);

/* Check fixture: D is device 0, opened and reset. */
void setup(void);
void teardown(void);

/* Every byte of p[0..n) still CANARY. */
#define ck_untouched(p, n, what)                                               \
	do {                                                                   \
		long _i = first_not((p), (n), CANARY);                         \
		ck_assert_msg(_i < 0, "%s: byte %ld changed to 0x%02x", what,  \
			      _i, _i < 0 ? 0 : (p)[_i]);                       \
	} while (0)

#endif /* SACC_SPEC_VFIO_H */

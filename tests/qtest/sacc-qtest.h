/* SPDX-License-Identifier: MIT */
/*
 * What the SACC device's qtests (tests/qtest/sacc-*-test.c) share: a
 * device booted on q35 without an IOMMU, its registers, and its channels
 * with their rings in guest memory.
 *
 * The device works asynchronously (its engine thread, or a bottom half
 * with x-engine-thread=off), so every wait for a completion polls guest
 * memory through qtest commands (each lets the main loop run) with a
 * deadline; no wait is unbounded.
 */
#ifndef SACC_QTEST_H
#define SACC_QTEST_H

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/pci-pc.h"
#include "hw/pci/pci_regs.h"
#include "hw/misc/sacc_hw.h"

#define SACC_DEVFN QPCI_DEVFN(4, 0)
#define RAM_SIZE   (256 * 1024 * 1024ull)
/* Nothing is mapped here: a DMA target that always faults. */
#define UNMAPPED 0x4000000000ull
#define WAIT_US  (10 * G_USEC_PER_SEC)
#define DEVMEM_SIZE ((uint64_t)SACC_DEVMEM_DEFAULT)

typedef struct Sacc Sacc;

/*
 * One channel and its rings.  Channel 0 is reached two ways: Sacc.ch0 is
 * it through BAR0 page 0 (where MODE and PUT_ADDR do not exist); any
 * other Chan, one with id 0 included, is a channel through its BAR2
 * block.  chan_page0() tells them apart by address, so a copy of
 * Sacc.ch0 would be block 0.
 */
typedef struct {
    Sacc *t;
    uint32_t id;
    uint32_t mode;
    uint64_t sq, cq, put;
    uint32_t sq_n, cq_n;
    uint32_t sq_tail, cq_head;
    uint16_t phase;
    uint64_t dev_pa; /* MODE.SQ_DEV: BAR4's address; sq, put are offsets */
} Chan;

struct Sacc {
    QOSState *qs;
    QTestState *qts;
    QPCIDevice *dev;
    QPCIBar bar0;
    QPCIBar bar2;
    QPCIBar bar4; /* device memory, once sacc_map_devmem() */
    Chan ch0; /* channel 0 through BAR0 page 0 */
};

/* The device's life */
void sacc_start_props(Sacc *t, const char *props);
void sacc_start(Sacc *t);
void sacc_stop(Sacc *t);
void sacc_flr(Sacc *t, uint8_t exp);
void sacc_remap(Sacc *t);
void check_power_on(Sacc *t);

/* Registers: BAR0 page 0, BAR2's device page, a channel's either */
uint32_t rd(Sacc *t, uint64_t off);
void wr(Sacc *t, uint64_t off, uint32_t val);
uint32_t drd(Sacc *t, uint32_t off);
uint64_t dev_clock(Sacc *t);
uint32_t crd(Chan *c, uint32_t off);
uint64_t crd64(Chan *c, uint32_t off);
void cwr(Chan *c, uint32_t off, uint32_t val);
void cwr64(Chan *c, uint32_t off, uint64_t val);

/* Channels and their rings */
void chan_init(Sacc *t, Chan *c, uint32_t id, uint32_t mode,
               uint32_t sq_n, uint32_t cq_n);
void ring_enable(Chan *c, uint64_t sq, uint32_t sq_n, uint64_t cq,
                 uint32_t cq_n);
void chan_enable(Chan *c);
void chan_setup(Sacc *t, Chan *c, uint32_t id, uint32_t mode,
                uint32_t sq_n, uint32_t cq_n);
void chan_submit(Chan *c, uint16_t op, uint64_t src, uint64_t dst,
                 uint32_t len, uint16_t flags, uint32_t req_id);
void chan_submit_many(Chan *c, const struct sacc_desc *d, uint32_t n);
void chan_inline(Chan *c, uint64_t dst, uint32_t len,
                 const uint8_t *data, uint32_t slots, uint32_t req_id);
void chan_ring(Chan *c);
bool chan_wait_cqe(Chan *c, struct sacc_cqe *cqe, gint64 timeout_us);
bool chan_wait_cqes(Chan *c, struct sacc_cqe *cqe, uint32_t n,
                    gint64 timeout_us);
struct sacc_cqe chan_expect(Chan *c, uint32_t req_id, uint16_t status,
                            uint32_t result_len);
void chan_ack(Chan *c);
void chan_wait_reg(Chan *c, uint32_t off, uint32_t want);
void chan_expect_fault(Chan *c, uint64_t addr, uint32_t info,
                       uint32_t req_id, uint32_t count);
uint32_t cq_valid(const struct sacc_cqe *cq, uint32_t n);

/* Copies held by x-copy-delay-us */
uint32_t copies_held(QTestState *qts, const char *id);
void wait_copies_held(QTestState *qts, const char *id, uint32_t n);

/* Device memory (BAR4) and host memory */
void sacc_map_devmem(Sacc *t);
void host_expect(Sacc *t, uint64_t addr, uint8_t byte, size_t len);

/* Deterministic data */
uint64_t rnd(uint64_t *s);

#endif

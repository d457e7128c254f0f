/* SPDX-License-Identifier: MIT */
/*
 * fake_dev.h - what libsacc's unit tests share: the in-process stand-in
 * for the device (fake_dev.c) and the helpers around it, and each
 * file's test cases (added to the suite by main.c, in its order).
 *
 * The stand-in reads the doorbell and CQ_HEAD from plain memory pages
 * standing in for BAR0, translates IOVAs through the DMA registry and
 * posts CQEs; the DMA context uses iommu/'s backend seam instead of the
 * ioctls.  It can be told to lie (F.corrupt, F.seg_*).
 */
#ifndef SACC_TEST_FAKE_DEV_H
#define SACC_TEST_FAKE_DEV_H

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sacc_track.h"	   /* and sacc_priv.h: libsacc's insides */
#include "sacc_faultlog.h" /* the journal's reader, to check what was written */
enum corruption {
	C_NONE,
	C_REQ_ID_UNKNOWN,
	C_REQ_ID_NEXT, /* an outstanding id, but out of ring order */
	C_RESULT_LEN_BIG,
	C_SHORT_OK,
	C_BAD_STATUS,
};

/* The stand-in's state: one device at a time. */
struct fake {
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
};
extern struct fake F;

/* Device memory of the stand-in at IOVA or device address @a. */
void *xlate(uint64_t iova, uint32_t len, bool write);
void set_fault_regs(struct sacc_dev *dev, uint64_t addr, uint32_t info,
		    uint32_t req_id, uint32_t count);
/* Process up to @max descriptors; honours the CQ full rule. */
unsigned int dev_run(unsigned int max);
/* A v0.4 device's memory for @dev (before sacc_queue_alloc()). */
void fake_devmem(struct sacc_dev *dev, uint64_t size);
/* A sacc_dev with everything but VFIO: what sacc_open() would build;
 * with MODE @mode and, if @devmem, that much device memory. */
struct sacc_dev *fake_open(uint32_t sq, uint32_t cq);
struct sacc_dev *fake_open_mode(uint32_t sq, uint32_t cq, uint32_t mode,
				uint64_t devmem);
void fake_close(struct sacc_dev *dev);
/* MSI-X vector 0 on an eventfd, as sacc_irq_enable() would set up. */
void fake_irq(struct sacc_dev *dev);
uint64_t ms_since(uint64_t t0);
/* Poll (the stand-in running between polls if @run) until a result, an
 * error or @max_polls; returns the last sacc_poll() value. */
int poll_until(struct sacc_dev *dev, struct sacc_result *r, unsigned int max,
	       long max_polls, bool run);
/* What sacc_reset() does to the rings, minus the hardware. */
void fake_reset(struct sacc_dev *dev);
/* Run the stand-in and reap until @want results (or an error). */
int reap_all(struct sacc_dev *dev, struct sacc_result *r, int want);
/* Every line of the journal @path parsed, in order; returns how many. */
int read_journal(const char *path, struct sacc_journal_event *ev, int max);
/* The descriptor sacc_submit() wrote into SQ slot @slot. */
struct sacc_desc sq_desc(struct sacc_dev *dev, uint32_t slot);
/* Launch @g, run the device, reap its one result into @r. */
void launch_reap(struct sacc_dev *dev, struct sacc_graph *g, uint64_t cookie,
		 struct sacc_result *r);

/* Each file's test cases, in the order main.c runs them. */
void name_tests(Suite *s);
void submit_tests(Suite *s);
void untrusted_tests(Suite *s);
void hang_tests(Suite *s);
void event_tests(Suite *s);
void journal_tests(Suite *s);
void sysfs_tests(Suite *s);
void devmem_tests(Suite *s);
void devmem_submit_tests(Suite *s);
void graph_tests(Suite *s);
void graph_failure_tests(Suite *s);
void enqueue_tests(Suite *s);

#endif /* SACC_TEST_FAKE_DEV_H */

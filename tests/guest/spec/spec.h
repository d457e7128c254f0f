/* SPDX-License-Identifier: MIT */
/*
 * spec.h - what the files of sacc-guest-spec share: the raw-VFIO
 * fixture (spec_vfio.h), a TCase maker, the checks more than one file
 * uses, and each file's test cases (added to the suite by main.c, in
 * its order).
 */
#ifndef SACC_SPEC_H
#define SACC_SPEC_H

#include <errno.h>
#include <linux/pci_regs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "spec_vfio.h"

/* A TCase of @s named @name: the suite's timeout, D opened and reset. */
TCase *spec_tc(Suite *s, const char *name);

/* After a fatal error and CTRL.RESET, the device works again
 * (ring_faults.c). */
void expect_recovers(struct vdev *d, struct dbuf *src);

/* Copies queued, then stopped right after the doorbell (reset.c): after
 * the stop returns, neither dst nor the CQ may change any more. */
enum stop { STOP_RESET, STOP_FLR, STOP_DISABLE };
void reset_in_flight(struct vdev *d, enum stop how);

/* Each file's test cases, in the order main.c runs them. */
void identity_tests(Suite *s);
void register_tests(Suite *s);
void enable_tests(Suite *s);
void op_tests(Suite *s);
void ring_tests(Suite *s);
void dma_fault_tests(Suite *s);
void ring_fault_tests(Suite *s);
void msix_tests(Suite *s);
void reset_tests(Suite *s);
void two_device_tests(Suite *s);
void devmem_tests(Suite *s);
void devmem_range_tests(Suite *s);
void devmem_compat_tests(Suite *s);
void devmem_sq_tests(Suite *s);
void devmem_reset_tests(Suite *s);
void segment_tests(Suite *s);
void segment_error_tests(Suite *s);
void garbage_tests(Suite *s);

#endif /* SACC_SPEC_H */

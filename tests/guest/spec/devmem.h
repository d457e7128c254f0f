/* SPDX-License-Identifier: MIT */
/*
 * devmem.h - the fixture of the device memory and segment probes
 * (docs/spec.md sections 18-21, devmem*.c and segment*.c): the channel
 * under test, its queue Q and DEVMEM_SIZE S (devmem_util.c).
 *
 * Written from the spec alone, not from the model: where the spec leaves
 * a question open, the probe prints what the device did ("open
 * question") and asserts nothing about it.
 *
 * The channel under test is channel 1, through its block in BAR2 with
 * MODE.V3 (v0.3's way to ask for the new behaviour), so channel 0's
 * v0.2 page also shows it changed nothing.  Only the cases tagged dmar
 * (devmem-faults, segment-faults: ci/test's boot 2) look at the
 * kernel's DMAR log; they book their faults with dmar_budget().
 */
#ifndef SACC_SPEC_DEVMEM_H
#define SACC_SPEC_DEVMEM_H

#include "spec.h"

#define CH 1 /* the channel under test, through its BAR2 block */

/* Device addresses the probes use (device memory is at least 16 MiB). */
#define DM_A   0x00100000ull	/* a source area */
#define DM_B   0x00400000ull	/* a destination area */

extern struct vq Q; /* channel CH */
extern uint64_t S;  /* DEVMEM_SIZE */

/* Device address @a as the CPU sees it, through BAR4. */
uint8_t *dm(uint64_t a);
/* dst[0..len) == src[0..len) ^ key, or the first difference reported. */
void expect_bytes(const uint8_t *dst, const uint8_t *src, size_t len,
		  uint8_t key, const char *what);
/* Spec 19: byte i of a FILL is byte i mod 8 of the little-endian pattern. */
uint8_t pat_byte(uint64_t pat, size_t i);
/* Check fixture: setup(), then channel CH's queue, device memory of
 * 16 MiB or more required. */
void devmem_setup(void);
/* A TCase of @s named @name with that fixture. */
TCase *devmem_tc(Suite *s, const char *name);

#endif /* SACC_SPEC_DEVMEM_H */

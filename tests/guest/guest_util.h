/* SPDX-License-Identifier: MIT */
/*
 * guest_util.h - helpers shared by the in-guest Check suites.
 */
#ifndef SACC_GUEST_UTIL_H
#define SACC_GUEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "libsacc.h"
#include "sacc_base.h" /* sacc_monotonic_ns() */

/* Generous per-test timeout: TCG is slow, and a hang must still end. */
#define GUEST_TEST_TIMEOUT 600

/* BDF of the @idx-th SACC device bound to vfio-pci; NULL if none. */
const char *guest_bdf(unsigned int idx);

/* Number of SACC devices bound to vfio-pci. */
unsigned int guest_nr_devices(void);

/*
 * Kernel log cursor: guest_kmsg_mark() returns the current end of
 * /dev/kmsg; guest_kmsg_grep() counts lines after @mark containing
 * @needle (and copies the last one into @last, if non-NULL).
 */
uint64_t guest_kmsg_mark(void);
int guest_kmsg_grep(uint64_t mark, const char *needle, char *last,
		    size_t len);

/*
 * Check-asserting helpers: the BDF of SACC device #@idx, that device
 * opened with @o (NULL: defaults), a DMA buffer; each fails the test
 * with libsacc's message instead of returning an error.
 */
const char *guest_bdf_at(unsigned int idx);
struct sacc_dev *guest_open(unsigned int idx, const struct sacc_open_opts *o);
struct sacc_buf *guest_buf(struct sacc_dev *dev, size_t len,
			   enum sacc_dma_dir dir, const char *name);

/*
 * Wait (polling /proc/PID/syscall, at most @timeout_ms) until process
 * @pid is blocked in system call @nr: a handshake the test observes,
 * where a sleep would only hope.  False on timeout or if @pid is gone.
 */
bool guest_wait_in_syscall(pid_t pid, long nr, unsigned int timeout_ms);

/* Sleep @ms milliseconds (EINTR resumes). */
void guest_sleep_ms(unsigned int ms);

/* Open fds of this process (for leak checks). */
int guest_count_fds(void);

/* Poll @dev until @n results are in @out or ~@timeout_ms passed. */
int guest_reap(struct sacc_dev *dev, struct sacc_result *out, unsigned int n,
	       int timeout_ms);

#endif /* SACC_GUEST_UTIL_H */

// SPDX-License-Identifier: MIT
/*
 * fuzz_faultlog.c - a whole input file through the fault log: lines
 * told apart (journal, kmsg, QEMU trace), read from a file descriptor
 * by the source reader (sacc_faultlog_add_file()), joined, attributed
 * and printed as JSON and as the table.
 */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "sacc_faultlog.h"

static FILE *devnull;

static void print_all(struct sacc_faultlog *fl)
{
	struct sacc_faultlog_account a;
	struct sacc_faultlog_summary sum;
	char buf[1024];

	FUZZ_ASSERT(sacc_faultlog_print_json(fl, devnull) != -EIO);
	FUZZ_ASSERT(sacc_faultlog_print_table(fl, devnull) != -EIO);
	for (size_t i = 0; i < sacc_faultlog_count(fl); i++)
		FUZZ_ASSERT(sacc_fault_format_row(sacc_faultlog_get(fl, i), buf,
						  sizeof(buf)) > 0);
	sacc_faultlog_summary(fl, &sum);
	for (size_t i = 0; i < sum.nr_devices; i++) {
		FUZZ_ASSERT(sacc_faultlog_account(fl, sum.devices[i].bdf, &a) ==
			    0);
		FUZZ_ASSERT(a.logged + a.not_logged == a.faults);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sacc_faultlog *fl;
	struct sacc_err err = {0};
	char path[64];
	int fd, r;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd < 0 || !devnull)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	fl = sacc_faultlog_new();
	if (!fl)
		abort();
	r = sacc_faultlog_add_file(fl, SACC_FAULTLOG_MIXED, path, &err);
	FUZZ_ASSERT(r >= 0 || r == -ENOMEM);
	r = sacc_faultlog_join(fl, &err);
	FUZZ_ASSERT(r >= 0 || r == -ENOMEM);
	if (r >= 0) {
		FUZZ_ASSERT((size_t)r == sacc_faultlog_count(fl));
		print_all(fl);
	}
	sacc_faultlog_free(fl);
	close(fd);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * guest_util.c - helpers shared by the in-guest Check suites.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "guest_util.h"

static struct sacc_pci_dev devs[16];
static int nr_devs = -1;

static void scan(void)
{
	struct sacc_pci_dev all[16];
	int n = sacc_pci_list(all, 16);

	nr_devs = 0;
	for (int i = 0; i < n && i < 16; i++)
		if (!strcmp(all[i].driver, "vfio-pci"))
			devs[nr_devs++] = all[i];
}

const char *guest_bdf(unsigned int idx)
{
	if (nr_devs < 0)
		scan();
	return (int)idx < nr_devs ? devs[idx].bdf : NULL;
}

unsigned int guest_nr_devices(void)
{
	if (nr_devs < 0)
		scan();
	return nr_devs;
}

/* /dev/kmsg records: "prio,seq,usec,flags;text".  Sequence numbers are
 * what we mark by. */
static int kmsg_walk(uint64_t after, const char *needle, char *last,
		     size_t len, uint64_t *max_seq)
{
	char rec[2048];
	int fd, hits = 0;
	ssize_t n;

	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	for (;;) {
		unsigned long long seq;

		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue; /* overwritten records: skip ahead */
		if (n <= 0)
			break;
		rec[n] = '\0';
		if (sscanf(rec, "%*u,%llu,", &seq) != 1)
			continue;
		if (max_seq && seq > *max_seq)
			*max_seq = seq;
		if (seq <= after || !needle)
			continue;
		char *text = strchr(rec, ';');

		if (text && strstr(text + 1, needle)) {
			hits++;
			if (last && len) {
				snprintf(last, len, "%s", text + 1);
				last[strcspn(last, "\n")] = '\0';
			}
		}
	}
	close(fd);
	return hits;
}

uint64_t guest_kmsg_mark(void)
{
	uint64_t seq = 0;

	kmsg_walk(0, NULL, NULL, 0, &seq);
	return seq;
}

int guest_kmsg_grep(uint64_t mark, const char *needle, char *last, size_t len)
{
	return kmsg_walk(mark, needle, last, len, NULL);
}

int guest_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the DIR's own fd */
}

int guest_reap(struct sacc_dev *dev, struct sacc_result *out, unsigned int n,
	       int timeout_ms)
{
	uint64_t t0 = sacc_monotonic_ns();
	unsigned int got = 0;

	while (got < n) {
		int r = sacc_poll(dev, out + got, n - got);

		if (r < 0)
			return r;
		got += r;
		if (r)
			continue;
		if (sacc_monotonic_ns() - t0 > (uint64_t)timeout_ms * 1000000)
			break;
	}
	return got;
}

void guest_sleep_ms(unsigned int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

bool guest_wait_in_syscall(pid_t pid, long nr, unsigned int timeout_ms)
{
	uint64_t end = sacc_monotonic_ns() + (uint64_t)timeout_ms * 1000000;
	char path[64], buf[64];
	long now;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	do {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return false;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			/* "running", or "NR ARGS... SP PC" while blocked */
			if (sscanf(buf, "%ld", &now) == 1 && now == nr)
				return true;
		}
		guest_sleep_ms(1);
	} while (sacc_monotonic_ns() < end);
	return false;
}

const char *guest_bdf_at(unsigned int idx)
{
	const char *bdf = guest_bdf(idx);

	ck_assert_msg(bdf, "need SACC device #%u bound to vfio-pci (have %u)",
		      idx, guest_nr_devices());
	return bdf;
}

struct sacc_dev *guest_open(unsigned int idx, const struct sacc_open_opts *o)
{
	struct sacc_dev *dev = NULL;
	const char *bdf = guest_bdf_at(idx);
	int ret = sacc_open(bdf, o, &dev);

	ck_assert_msg(ret == 0, "sacc_open(%s): %d: %s", bdf, ret,
		      sacc_errmsg(NULL));
	ck_assert_ptr_nonnull(dev);
	return dev;
}

struct sacc_buf *guest_buf(struct sacc_dev *dev, size_t len,
			   enum sacc_dma_dir dir, const char *name)
{
	struct sacc_buf *b = NULL;
	int ret = sacc_buf_alloc(dev, len, dir, name, &b);

	ck_assert_msg(ret == 0, "sacc_buf_alloc(%s, %zu): %d: %s", name, len,
		      ret, sacc_errmsg(dev));
	ck_assert_ptr_nonnull(b);
	return b;
}

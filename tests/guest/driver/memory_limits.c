// SPDX-License-Identifier: MIT
/*
 * memory_limits.c - memory the system will not give: RLIMIT_MEMLOCK too
 * low (in a child without CAP_IPC_LOCK), more than MemAvailable, VFIO's
 * dma_entry_limit; each refused with what to do, nothing left pinned
 */
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "driver.h"

/* ---- memlock too low: in a child without CAP_IPC_LOCK ---- */

/* MemAvailable of the guest in bytes. */
static uint64_t mem_available(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/meminfo", "re");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	ck_assert_uint_gt(kb, 0);
	return (uint64_t)kb * 1024;
}

/*
 * A buffer the machine cannot spare fails with -ENOMEM and says what to
 * do, before a page is touched: pinning it would wake the OOM killer.
 */
START_TEST(out_of_memory_refused)
{
	struct sacc_buf *b = (struct sacc_buf *)1;
	struct sacc_dev *dev;
	long lck0;
	uint64_t ask;
	int ret;

	BEGIN();
	dev = guest_open(0, NULL);
	lck0 = vmlck_kb();
	/* all but 16 MiB of what is available: inside the reserve */
	ask = mem_available() - 16 * MiB;
	ret = sacc_buf_alloc(dev, ask, SACC_DMA_FROM_DEVICE, "too big", &b);
	ck_assert_msg(ret == -ENOMEM, "sacc_buf_alloc(%" PRIu64 "): %d: %s",
		      ask, ret, sacc_errmsg(dev));
	ck_assert_ptr_null(b);
	assert_msg_has(sacc_errmsg(dev), "MemAvailable");
	assert_msg_has(sacc_errmsg(dev), "OOM killer");
	assert_msg_has(sacc_errmsg(dev), "'too big'");
	ck_assert_int_eq(vmlck_kb(), lck0);
	/* the device is fine, and modest buffers still work */
	b = guest_buf(dev, 64 * MiB, SACC_DMA_FROM_DEVICE, "fits");
	ck_assert_int_eq(sacc_buf_free(b), 0);
	sacc_close(dev);
}
END_TEST

static int drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	unsigned int i = CAP_TO_INDEX(CAP_IPC_LOCK);

	if (syscall(SYS_capget, &h, d))
		return -errno;
	d[i].effective &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	d[i].permitted &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	d[i].inheritable &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	if (syscall(SYS_capset, &h, d))
		return -errno;
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d))
		return -errno;
	return d[i].effective & CAP_TO_MASK(CAP_IPC_LOCK) ? -EPERM : 0;
}

static int memlock_child(char *msg, size_t len)
{
	struct rlimit rl = {64 * KiB, 64 * KiB};
	const char *bdf = guest_bdf(0);
	struct sacc_buf *big = NULL, *src, *dst;
	struct sacc_iova_range ranges[16];
	struct sacc_dma_stats ds;
	struct sacc_err err = {0};
	struct sacc_dev *dev = NULL;
	struct sacc_op op;
	struct sacc_result r;
	int fds0 = guest_count_fds();
	const char *m;
	uint64_t hi;
	void *mem;
	int ret, nr;

	CHILD_CHECK(bdf, "no SACC device");
	ret = drop_ipc_lock();
	CHILD_CHECK(ret == 0, "cannot drop CAP_IPC_LOCK: %d", ret);
	CHILD_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0, "setrlimit: %s",
		    strerror(errno));

	/* The rings (12 KiB) fit in 64 KiB; a 1 MiB buffer does not. */
	ret = sacc_open(bdf, NULL, &dev);
	CHILD_CHECK(ret == 0, "sacc_open under 64 KiB memlock: %d: %s", ret,
		    sacc_errmsg(NULL));
	sacc_dma_ctx_stats(sacc_dev_dma(dev), &ds);
	CHILD_CHECK(!ds.limits.memlock_exempt, "libsacc thinks CAP_IPC_LOCK "
					       "is held");
	CHILD_CHECK(ds.limits.memlock_limit == 64 * KiB, "limit %" PRIu64,
		    ds.limits.memlock_limit);
	ret = sacc_buf_alloc(dev, MiB, SACC_DMA_FROM_DEVICE, "big", &big);
	m = sacc_errmsg(dev);
	CHILD_CHECK(ret == -ENOMEM, "1 MiB under 64 KiB memlock: %d (%s)", ret,
		    m);
	CHILD_CHECK(big == NULL, "buffer returned on failure");
	CHILD_CHECK(contains(m, "RLIMIT_MEMLOCK") && contains(m, "64 KiB") &&
			contains(m, "ulimit -l") && contains(m, "'big'") &&
			contains(m, bdf),
		    "unclear memlock message: \"%s\"", m);
	sacc_dma_ctx_stats(sacc_dev_dma(dev), &ds);
	CHILD_CHECK(ds.pinned_bytes == 12 * KiB, "pinned %" PRIu64,
		    ds.pinned_bytes);
	CHILD_CHECK((uint64_t)vmlck_kb() * 1024 == ds.pinned_bytes,
		    "VmLck %ld kB, libsacc says %" PRIu64, vmlck_kb(),
		    ds.pinned_bytes);

	/* The kernel enforces the same limit (libsacc's check is not
	 * stricter than reality): a raw 1 MiB map at a free high IOVA. */
	nr = sacc_dev_iova_ranges(dev, ranges, 16, NULL);
	CHILD_CHECK(nr >= 1 && nr <= 16, "%d IOVA ranges", nr);
	hi = ((ranges[nr - 1].end + 1) & ~(uint64_t)(MiB - 1)) - 4 * MiB;
	mem = mmap(NULL, MiB, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHILD_CHECK(mem != MAP_FAILED, "mmap");
	memset(mem, 1, MiB);
	ret = sacc_vfio_map_dma(sacc_dev_container_fd(dev),
				(uint64_t)(uintptr_t)mem, hi, MiB,
				VFIO_DMA_MAP_FLAG_READ, &err);
	if (ret == 0)
		sacc_vfio_unmap_dma(sacc_dev_container_fd(dev), hi, MiB, NULL);
	CHILD_CHECK(ret == -ENOMEM, "kernel accepted pinning 1 MiB over a 64 "
				    "KiB RLIMIT_MEMLOCK: %d",
		    ret);
	munmap(mem, MiB);

	/* What fits still works. */
	src = NULL;
	dst = NULL;
	ret = sacc_buf_alloc(dev, 16 * KiB, SACC_DMA_TO_DEVICE, "s", &src);
	CHILD_CHECK(ret == 0, "16 KiB src: %s", sacc_errmsg(dev));
	ret = sacc_buf_alloc(dev, 16 * KiB, SACC_DMA_FROM_DEVICE, "d", &dst);
	CHILD_CHECK(ret == 0, "16 KiB dst: %s", sacc_errmsg(dev));
	fill_random(va(src), 16 * KiB);
	op = (struct sacc_op){.opcode = SACC_OP_MEMCPY, .len = 16 * KiB,
			      .src = src, .dst = dst};
	CHILD_CHECK(sacc_submit(dev, &op, 1) == 1, "%s", sacc_errmsg(dev));
	ret = guest_reap(dev, &r, 1, REAP_TIMEOUT_MS);
	CHILD_CHECK(ret == 1 && r.status == SACC_STS_OK, "reap %d: %s", ret,
		    sacc_errmsg(dev));
	CHILD_CHECK(!memcmp(va(src), va(dst), 16 * KiB), "data mismatch");
	sacc_close(dev);
	CHILD_CHECK(vmlck_kb() == 0, "VmLck %ld kB after close", vmlck_kb());

	/* Too low even for the rings: sacc_open fails cleanly. */
	rl.rlim_cur = rl.rlim_max = 4 * KiB;
	CHILD_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0, "setrlimit 4K");
	dev = (struct sacc_dev *)1;
	ret = sacc_open(bdf, NULL, &dev);
	m = sacc_errmsg(NULL);
	CHILD_CHECK(ret == -ENOMEM, "sacc_open under 4 KiB memlock: %d (%s)",
		    ret, m);
	CHILD_CHECK(dev == NULL, "device returned on failure");
	CHILD_CHECK(contains(m, "RLIMIT_MEMLOCK") && contains(m, "4 KiB") &&
			contains(m, "ulimit -l") && contains(m, bdf),
		    "unclear memlock message: \"%s\"", m);
	CHILD_CHECK(guest_count_fds() == fds0, "%d fds, %d before",
		    guest_count_fds(), fds0);
	CHILD_CHECK(vmlck_kb() == 0, "VmLck %ld kB", vmlck_kb());
	snprintf(msg, len, "ok");
	return 0;
}

START_TEST(memlock_too_low)
{
	BEGIN();
	guest_bdf_at(0);
	run_in_child(memlock_child);
	/* The parent kept CAP_IPC_LOCK and its limit. */
	ck_assert_int_eq(vmlck_kb(), 0);
}
END_TEST

/* ---- VFIO dma_entry_limit (own TCase: the teardown restores it) ---- */

#define DMA_ENTRY_LIMIT \
	"/sys/module/vfio_iommu_type1/parameters/dma_entry_limit"

static char dma_limit_saved[32];

static int write_str(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, v, strlen(v));
	close(fd);
	return n == (ssize_t)strlen(v) ? 0 : -EIO;
}

static void save_dma_limit(void)
{
	FILE *f = fopen(DMA_ENTRY_LIMIT, "re");

	dma_limit_saved[0] = '\0';
	if (f) {
		if (!fgets(dma_limit_saved, sizeof(dma_limit_saved), f))
			dma_limit_saved[0] = '\0';
		fclose(f);
	}
}

static void restore_dma_limit(void)
{
	if (dma_limit_saved[0] && write_str(DMA_ENTRY_LIMIT, dma_limit_saved))
		fprintf(stderr, "could not restore %s to %s\n", DMA_ENTRY_LIMIT,
			dma_limit_saved);
}

START_TEST(dma_entry_limit)
{
	struct sacc_buf *b[8] = {0}, *extra = NULL;
	struct sacc_dev *dev;
	int n = 0, ret;

	BEGIN();
	ck_assert_msg(dma_limit_saved[0], "cannot read %s", DMA_ENTRY_LIMIT);
	/* 8 mappings per container: the rings take 2, 6 buffers fit. */
	ck_assert_int_eq(write_str(DMA_ENTRY_LIMIT, "8"), 0);
	dev = guest_open(0, NULL);
	for (n = 0; n < 8; n++) {
		ret = sacc_buf_alloc(dev, 4096, SACC_DMA_BIDIRECTIONAL, "lim",
				     &b[n]);
		if (ret)
			break;
	}
	ck_assert_msg(n == 6, "%d buffers fit under dma_entry_limit 8 (rings "
			      "take 2): %s",
		      n, sacc_errmsg(dev));
	ck_assert_int_eq(ret, -ENOSPC);
	assert_msg_has(sacc_errmsg(dev), "dma_entry_limit");
	assert_msg_has(sacc_errmsg(dev), DMA_ENTRY_LIMIT);
	assert_msg_has(sacc_errmsg(dev), "'lim'");
	/* Freeing one makes room for one. */
	ck_assert_int_eq(sacc_buf_free(b[0]), 0);
	ck_assert_int_eq(sacc_buf_alloc(dev, 4096, SACC_DMA_BIDIRECTIONAL,
					"again", &extra),
			 0);
	one_verified_op(dev, SACC_OP_MEMCPY, extra, b[1], 4096);
	sacc_close(dev);
	restore_dma_limit();
}
END_TEST

void memory_limit_tests(Suite *s)
{
	TCase *tc = driver_tcase(s, "memory limits");

	tcase_add_test(tc, memlock_too_low);
	tcase_add_test(tc, out_of_memory_refused);

	tc = driver_tcase(s, "dma entry limit");
	tcase_add_unchecked_fixture(tc, save_dma_limit, restore_dma_limit);
	tcase_add_test(tc, dma_entry_limit);
}

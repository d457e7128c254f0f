// SPDX-License-Identifier: MIT
/*
 * limits.c - permissions, the helpers that format sizes and explain errors,
 * the limits of the process (RLIMIT_MEMLOCK, dma_entry_limit) and the
 * memory the system can give (fail, not wake the OOM killer)
 */
#include <sys/resource.h>

#include "iommu_test.h"
START_TEST(test_permissions)
{
	ck_assert_uint_eq(sacc_dma_dir_flags(SACC_DMA_TO_DEVICE),
			  VFIO_DMA_MAP_FLAG_READ);
	ck_assert_uint_eq(sacc_dma_dir_flags(SACC_DMA_FROM_DEVICE),
			  VFIO_DMA_MAP_FLAG_WRITE);
	ck_assert_uint_eq(sacc_dma_dir_flags(SACC_DMA_BIDIRECTIONAL),
			  VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE);
	ck_assert_uint_eq(sacc_dma_dir_flags((enum sacc_dma_dir)0), 0);
	ck_assert_uint_eq(sacc_dma_dir_flags((enum sacc_dma_dir)4), 0);
	/* the SQ is only read by the device, the CQ only written */
	ck_assert_uint_eq(sacc_dma_dir_flags(SACC_DMA_DIR_SQ),
			  VFIO_DMA_MAP_FLAG_READ);
	ck_assert_uint_eq(sacc_dma_dir_flags(SACC_DMA_DIR_CQ),
			  VFIO_DMA_MAP_FLAG_WRITE);
	ck_assert_str_eq(sacc_dma_dir_name(SACC_DMA_TO_DEVICE), "to_device");
	ck_assert_str_eq(sacc_dma_dir_name(SACC_DMA_FROM_DEVICE),
			 "from_device");
	ck_assert_str_eq(sacc_dma_dir_name((enum sacc_dma_dir)9), "invalid");
}
END_TEST

START_TEST(test_format_helpers)
{
	char b[32];

	ck_assert_str_eq(sacc_fmt_bytes(512, b, sizeof(b)), "512 B");
	ck_assert_str_eq(sacc_fmt_bytes(64 * KiB, b, sizeof(b)), "64 KiB");
	ck_assert_str_eq(sacc_fmt_bytes(2 * MiB, b, sizeof(b)), "2 MiB");
	ck_assert_str_eq(sacc_fmt_bytes(19 * MiB / 10, b, sizeof(b)),
			 "1.9 MiB");
	ck_assert_str_eq(sacc_fmt_bytes(3ull << 30, b, sizeof(b)), "3 GiB");
	ck_assert_str_eq(sacc_fmt_ns(850, b, sizeof(b)), "850 ns");
	ck_assert_str_eq(sacc_fmt_ns(12300, b, sizeof(b)), "12.3 us");
	ck_assert_str_eq(sacc_fmt_ns(3100000, b, sizeof(b)), "3.1 ms");
	ck_assert_str_eq(sacc_fmt_ns(2500000000ull, b, sizeof(b)), "2.50 s");
}
END_TEST

START_TEST(test_limits_memlock_text)
{
	struct sacc_dma_limits lim = {.memlock_limit = 64 * KiB};
	struct sacc_err err = {0};

	ck_assert_int_eq(
	    sacc_dma_check_limits(&lim, 56 * KiB, 3, 8 * KiB, &err), 0);
	ck_assert_int_eq(
	    sacc_dma_check_limits(&lim, 60 * KiB, 3, 8 * KiB, &err), -ENOMEM);
	ck_assert_int_eq(err.code, -ENOMEM);
	ck_assert_str_eq(
	    err.msg,
	    "pinning 8 KiB more would exceed RLIMIT_MEMLOCK (64 KiB, 60 KiB in "
	    "use): raise it with `ulimit -l` or limits.conf");
	/* the example from the brief */
	ck_assert_int_eq(
	    sacc_dma_check_limits(&lim, 19 * MiB / 10, 0, 2 * MiB, &err),
	    -ENOMEM);
	ck_assert_ptr_nonnull(
	    strstr(err.msg, "pinning 2 MiB more would exceed RLIMIT_MEMLOCK "
			    "(64 KiB, 1.9 MiB in use)"));
	/* overflow of pinned + add must not wrap into "fits" */
	ck_assert_int_eq(
	    sacc_dma_check_limits(&lim, 4 * KiB, 0, UINT64_MAX, NULL), -ENOMEM);
	/* CAP_IPC_LOCK and unlimited: allowed */
	lim.memlock_exempt = true;
	ck_assert_int_eq(
	    sacc_dma_check_limits(&lim, 60 * KiB, 3, 8 * MiB, NULL), 0);
	lim.memlock_exempt = false;
	lim.memlock_limit = UINT64_MAX;
	ck_assert_int_eq(
	    sacc_dma_check_limits(&lim, 60 * KiB, 3, 8 * MiB, NULL), 0);
}
END_TEST

START_TEST(test_limits_dma_entry_text)
{
	struct sacc_dma_limits lim = {.memlock_limit = UINT64_MAX,
				      .dma_avail_known = true,
				      .dma_avail = 2};
	struct sacc_err err = {0};

	ck_assert_int_eq(sacc_dma_check_limits(&lim, 0, 1, PG, &err), 0);
	ck_assert_int_eq(sacc_dma_check_limits(&lim, 0, 2, PG, &err), -ENOSPC);
	ck_assert_str_eq(
	    err.msg, "VFIO dma_entry_limit reached (2 mappings): raise "
		     "/sys/module/vfio_iommu_type1/parameters/dma_entry_limit");
	lim.dma_avail_known = false;
	ck_assert_int_eq(sacc_dma_check_limits(&lim, 0, 100000, PG, &err), 0);
}
END_TEST

START_TEST(test_explain_map_errno)
{
	struct sacc_dma_limits lim = {.memlock_limit = 64 * KiB};
	struct sacc_err err = {0};

	ck_assert_int_eq(sacc_dma_explain_map_errno(ENOMEM, &lim, 32 * KiB, 1,
						    64 * KiB, &err),
			 -ENOMEM);
	ck_assert_ptr_nonnull(
	    strstr(err.msg, "RLIMIT_MEMLOCK (64 KiB, 32 KiB in use)"));
	ck_assert_ptr_nonnull(strstr(err.msg, "ulimit -l"));
	ck_assert_int_eq(
	    sacc_dma_explain_map_errno(-ENOSPC, &lim, 0, 65535, PG, &err),
	    -ENOSPC);
	ck_assert_ptr_nonnull(
	    strstr(err.msg, "dma_entry_limit reached (65535 mappings)"));
	ck_assert_ptr_nonnull(
	    strstr(err.msg,
		   "/sys/module/vfio_iommu_type1/parameters/dma_entry_limit"));
	ck_assert_int_eq(
	    sacc_dma_explain_map_errno(EFAULT, &lim, 0, 0, PG, &err), -EFAULT);
	ck_assert_ptr_nonnull(strstr(err.msg, "VFIO_IOMMU_MAP_DMA"));
	lim.memlock_exempt = true;
	ck_assert_int_eq(
	    sacc_dma_explain_map_errno(ENOMEM, &lim, 0, 0, PG, &err), -ENOMEM);
	ck_assert_ptr_nonnull(strstr(err.msg, "CAP_IPC_LOCK"));
}
END_TEST

START_TEST(test_read_limits)
{
	struct sacc_dma_limits lim;
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_MEMLOCK, &rl), 0);
	ck_assert_int_eq(sacc_dma_read_limits(&lim, NULL), 0);
	if (rl.rlim_cur == RLIM_INFINITY)
		ck_assert_uint_eq(lim.memlock_limit, UINT64_MAX);
	else
		ck_assert_uint_eq(lim.memlock_limit, rl.rlim_cur);
	ck_assert(!lim.dma_avail_known);
}
END_TEST

START_TEST(test_mem_check)
{
	struct sacc_err err = {0};

	ck_assert_uint_eq(sacc_mem_reserve(512 * MiB), 64 * MiB);
	ck_assert_uint_eq(sacc_mem_reserve(24ull << 30), 768 * MiB);
	ck_assert_int_eq(
	    sacc_dma_check_memory(300 * MiB, 512 * MiB, 236 * MiB, &err), 0);
	ck_assert_int_eq(
	    sacc_dma_check_memory(300 * MiB, 512 * MiB, 237 * MiB, &err),
	    -ENOMEM);
	ck_assert_str_eq(err.msg,
			 "pinning 237 MiB would leave 63 MiB of MemAvailable "
			 "(300 MiB now), less than the 64 MiB libsacc keeps "
			 "free: pinned memory cannot be reclaimed, and the "
			 "OOM killer would end this process; free buffers, "
			 "use smaller ones, or give the machine more memory");
	/* more than there is at all */
	ck_assert_int_eq(
	    sacc_dma_check_memory(100 * MiB, 512 * MiB, 256 * MiB, &err),
	    -ENOMEM);
	ck_assert_ptr_nonnull(strstr(err.msg, "leave 0 B of MemAvailable"));
}
END_TEST

static void write_meminfo(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(test_meminfo_read)
{
	char path[] = "/tmp/sacc-meminfo-XXXXXX";
	uint64_t avail = 0, total = 0;
	struct sacc_err err = {0};
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	write_meminfo(path, "MemTotal:         500000 kB\n"
			    "MemFree:          100000 kB\n"
			    "MemAvailable:     300000 kB\n"
			    "Buffers:             100 kB\n");
	ck_assert_int_eq(sacc_meminfo_read(path, &avail, &total, &err), 0);
	ck_assert_uint_eq(total, 500000ull * 1024);
	ck_assert_uint_eq(avail, 300000ull * 1024);
	write_meminfo(path, "MemTotal:         500000 kB\n");
	ck_assert_int_eq(sacc_meminfo_read(path, &avail, &total, &err),
			 -EINVAL);
	unlink(path);
	ck_assert_int_eq(sacc_meminfo_read(path, &avail, &total, &err),
			 -ENOENT);
	/* the real one */
	ck_assert_int_eq(
	    sacc_meminfo_read("/proc/meminfo", &avail, &total, &err), 0);
	ck_assert(avail > 0 && avail <= total);
}
END_TEST

/* A buffer that would eat the reserve is refused before any page is
 * touched or pinned. */
START_TEST(test_ctx_memory_refused)
{
	char path[] = "/tmp/sacc-meminfo-XXXXXX";
	struct fake_vfio f = {0};
	struct sacc_dma_ctx *ctx = mkctx(&f, UINT64_MAX, 0);
	struct sacc_err err = {0};
	struct sacc_dma_buf b;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	/* 512 MiB machine (reserve 64 MiB), 80 MiB available */
	write_meminfo(path, "MemTotal: 524288 kB\nMemAvailable: 81920 kB\n");
	sacc_dma_ctx_set_meminfo(ctx, path);
	ck_assert_int_eq(sacc_dma_buf_alloc(ctx, 32 * MiB, SACC_DMA_TO_DEVICE,
					    "big", &b, &err),
			 -ENOMEM);
	ck_assert_ptr_nonnull(
	    strstr(err.msg, "DMA buffer 'big': pinning 32 MiB"));
	ck_assert_ptr_nonnull(strstr(err.msg, "OOM killer"));
	ck_assert_int_eq(f.maps, 0);
	ck_assert_int_eq(sacc_dma_buf_alloc(ctx, 8 * MiB, SACC_DMA_TO_DEVICE,
					    "ok", &b, &err),
			 0);
	ck_assert_int_eq(sacc_dma_buf_free(ctx, &b, &err), 0);
	/* unreadable: no check (nothing to go by) */
	unlink(path);
	ck_assert_int_eq(sacc_dma_buf_alloc(ctx, 32 * MiB, SACC_DMA_TO_DEVICE,
					    "big", &b, &err),
			 0);
	ck_assert_int_eq(sacc_dma_buf_free(ctx, &b, &err), 0);
	sacc_dma_ctx_close(ctx);
}
END_TEST

void limit_tests(Suite *s)
{
	TCase *tc = tcase_create("perm_limits");

	tcase_add_test(tc, test_permissions);
	tcase_add_test(tc, test_format_helpers);
	tcase_add_test(tc, test_limits_memlock_text);
	tcase_add_test(tc, test_limits_dma_entry_text);
	tcase_add_test(tc, test_explain_map_errno);
	tcase_add_test(tc, test_read_limits);
	tcase_add_test(tc, test_mem_check);
	tcase_add_test(tc, test_meminfo_read);
	tcase_add_test(tc, test_ctx_memory_refused);
	suite_add_tcase(s, tc);
}

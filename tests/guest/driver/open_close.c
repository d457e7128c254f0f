// SPDX-License-Identifier: MIT
/*
 * open_close.c - opening and closing a device again and again: nothing left
 * behind (fds, pinned memory, buffer memory, IOMMU faults)
 */
#include "driver.h"

/*
 * Each cycle varies ring size (i % 3), doorbell (i % 2) and what is left
 * open at close (i % 4): 24 cycles run every combination twice, check
 * pin accounting three times and leave 2 MiB of buffers open at close
 * five times, so one leaked buffer set (> 4 MiB over the run) fails.
 * (Each open costs vfio-pci's FLR, about 100 ms.)
 */
#define OPEN_CLOSE_CYCLES 24

START_TEST(open_close_cycles)
{
	int fds0 = guest_count_fds();
	long lck0 = vmlck_kb();
	long size0 = -1;
	uint64_t mark = guest_kmsg_mark();
	char last[512] = "";
	int faults;

	BEGIN();
	ck_assert_int_ge(fds0, 0);
	ck_assert_int_eq(lck0, 0);
	for (int i = 0; i < OPEN_CLOSE_CYCLES; i++) {
		struct sacc_open_opts o = {
		    .sq_entries = i % 3 ? 32 : 0,
		    .doorbell = i % 2 ? SACC_DOORBELL_SYSCALL
				      : SACC_DOORBELL_MMAP,
		};
		struct sacc_dev *dev = guest_open(0, &o);
		struct sacc_buf *src, *dst;
		struct sacc_op op;
		int ret;

		ck_assert_uint_eq(sacc_dev_sq_entries(dev),
				  o.sq_entries ? o.sq_entries
					       : SACC_DEFAULT_ENTRIES);
		ck_assert_int_eq(sacc_dev_doorbell(dev), o.doorbell);
		src = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "oc src");
		dst = guest_buf(dev, 3000, SACC_DMA_FROM_DEVICE, "oc dst");
		if (i % 10 == 0) {
			/* The kernel's pin accounting matches libsacc's. */
			long kb = vmlck_kb();

			ck_assert_int_gt(guest_count_fds(), fds0);
			ck_assert_int_gt(kb, 0);
			ck_assert_uint_eq((uint64_t)kb * 1024,
					  process_pinned(dev));
		}
		switch (i % 4) {
		case 0:
			/* Close with 1 MiB copies in flight and buffers
			 * still allocated: close must stop the device before
			 * it unmaps anything (else: IOMMU faults below). */
			src = guest_buf(dev, MiB, SACC_DMA_TO_DEVICE, "big s");
			dst = guest_buf(dev, MiB, SACC_DMA_FROM_DEVICE, "big d");
			op = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
					      .len = MiB, .src = src,
					      .dst = dst};
			for (int k = 0; k < 4; k++) {
				ret = sacc_submit(dev, &op, 1);
				ck_assert_msg(ret == 1, "%s", sacc_errmsg(dev));
			}
			break;
		case 1:
			one_verified_op(dev, SACC_OP_MEMCPY, src, dst, 3000);
			ck_assert_int_eq(sacc_buf_free(src), 0);
			ck_assert_int_eq(sacc_buf_free(dst), 0);
			break;
		case 2:
			one_verified_op(dev, SACC_OP_XFORM, src, dst, 1);
			break;
		default:
			break; /* open, allocate, close */
		}
		sacc_close(dev);
		if (i == 0) /* after the first cycle: malloc arenas exist */
			size0 = vmsize_kb();
		ck_assert_msg(guest_count_fds() == fds0,
			      "iteration %d: %d fds open, %d before", i,
			      guest_count_fds(), fds0);
		ck_assert_msg(vmlck_kb() == lck0,
			      "iteration %d: VmLck %ld kB after close, %ld "
			      "before",
			      i, vmlck_kb(), lck0);
	}
	/* No buffer memory left behind either (iterations 4, 8, ... each
	 * had 2 MiB of buffers open at close): less than one buffer. */
	fprintf(stderr, "open_close_cycles: VmSize grew by %ld kB\n",
		vmsize_kb() - size0);
	ck_assert_msg(vmsize_kb() - size0 < 1024,
		      "VmSize grew by %ld kB over %d open/close cycles",
		      vmsize_kb() - size0, OPEN_CLOSE_CYCLES - 1);
	/* No DMA ever hit an unmapped IOVA (the guest's DMAR driver logs
	 * every fault it is told about: "... fault addr 0x..."). */
	faults = guest_kmsg_grep(mark, "fault addr", last, sizeof(last));
	ck_assert_msg(faults == 0, "%d IOMMU faults while opening and closing, "
				   "last: %s",
		      faults, last);
}
END_TEST

void open_close_tests(Suite *s)
{
	TCase *tc = driver_tcase(s, "open and close");

	tcase_add_test(tc, open_close_cycles);
}

// SPDX-License-Identifier: MIT
/*
 * first-job.c - a first job, the way a newcomer writes one from
 * docs/spec.md section 5: fill in a descriptor, hand it to the device.
 * It has the bug of seed 002's story: the descriptor's length is never
 * set.  docs/debugging.md finds it from QEMU's monitor; --fixed sets it.
 *
 *   SACC_PAUSE_BEFORE_DOORBELL=30 sacc-first-job 0000:01:00.0 [--fixed]
 *
 * Built in the tree (it uses libsacc_unsafe.h's raw descriptor submit,
 * as a driver that builds its own descriptors would), and in the guest
 * as /opt/sacc/bin/sacc-first-job.
 */
#include <err.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "libsacc_unsafe.h"

int main(int argc, char **argv)
{
	const int fixed = argc == 3 && !strcmp(argv[2], "--fixed");
	struct sacc_buf *src, *dst;
	struct sacc_dev *dev;
	struct sacc_result r;
	struct sacc_desc d;
	int i, n = 0;

	if (argc < 2 || argc > 3 || (argc == 3 && !fixed))
		errx(2, "usage: sacc-first-job BDF [--fixed]");
	if (sacc_open(argv[1], NULL, &dev) < 0)
		errx(1, "%s", sacc_errmsg(NULL));
	if (sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "src", &src) < 0 ||
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "dst", &dst) < 0)
		errx(1, "%s", sacc_errmsg(dev));
	strcpy(sacc_buf_va(src), "request ID 1: hello from the device");

	memset(&d, 0, sizeof(d));
	d.opcode = SACC_OP_MEMCPY;
	d.src = sacc_buf_iova(src);
	d.dst = sacc_buf_iova(dst);
	if (fixed)
		d.length = 4096; /* the line the first version forgot */
	printf("descriptor: MEMCPY src 0x%llx dst 0x%llx length %u\n",
	       (unsigned long long)d.src, (unsigned long long)d.dst, d.length);
	fflush(stdout);
	if (sacc_submit_raw(dev, &d) < 0)
		errx(1, "%s", sacc_errmsg(dev));
	for (i = 0; i < 50000 && !(n = sacc_poll(dev, &r, 1)); i++)
		usleep(100); /* bounded: about 5 s */
	if (n != 1)
		errx(1, "no completion: %s", sacc_errmsg(dev));
	printf("completion: status %u (%s), result_len %u; dst reads \"%.40s\"\n",
	       r.status, sacc_status_str(r.status), r.result_len,
	       (char *)sacc_buf_va(dst));
	sacc_close(dev);
	return r.status == SACC_STS_OK ? 0 : 1;
}

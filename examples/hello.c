// SPDX-License-Identifier: MIT
/* hello.c - one MEMCPY through libsacc.  Against an installed libsacc:
 * cc hello.c $(pkg-config --static --cflags --libs libsacc) -static */
#include <err.h>
#include <libsacc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sacc_dev *dev;
	struct sacc_buf *src, *dst;
	struct sacc_result r;
	int i, n = 0;

	if (argc != 2)
		errx(2, "usage: hello BDF (e.g. 0000:01:00.0)");
	if (sacc_open(argv[1], NULL, &dev) < 0)
		errx(1, "%s", sacc_errmsg(NULL));
	if (sacc_buf_alloc(dev, 4096, SACC_DMA_TO_DEVICE, "src", &src) < 0 ||
	    sacc_buf_alloc(dev, 4096, SACC_DMA_FROM_DEVICE, "dst", &dst) < 0)
		errx(1, "%s", sacc_errmsg(dev));
	strcpy(sacc_buf_va(src), "hello from the device");
	struct sacc_op op = {
	    .opcode = SACC_OP_MEMCPY, .len = 4096, .src = src, .dst = dst};
	if (sacc_submit(dev, &op, 1) == 1) /* poll, bounded: about 5 s */
		for (i = 0; i < 50000 && !(n = sacc_poll(dev, &r, 1)); i++)
			usleep(100);
	if (n != 1 || r.status != SACC_STS_OK)
		errx(1, "memcpy: %s",
		     n == 1 ? sacc_status_str(r.status) : sacc_errmsg(dev));
	printf("memcpy ok: %s\n", (char *)sacc_buf_va(dst));
	sacc_close(dev); /* frees src and dst too */
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * wait.c - waiting by interrupt: the channel's MSI-X vector signals an
 * eventfd, sacc_wait() sleeps on it in poll(2) (with the device request
 * eventfd beside it) in bounded slices, counting and acknowledging the
 * interrupts it takes.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "sacc_mmio.h"
#include "sacc_priv.h"

/*
 * Consume what the MSI-X eventfd has counted (non-blocking): count the
 * interrupts, acknowledge IRQ_STATUS, report a fatal one.  Returns 1 if
 * there was something, 0 if not, -EIO if the device stopped.
 */
static int take_irq(struct sacc_dev *dev)
{
	uint64_t cnt = 0;
	uint32_t irq;
	bool gone;
	int ret;

	if (read(dev->irq_fd, &cnt, sizeof(cnt)) != sizeof(cnt) || !cnt)
		return 0;
	dev->stats.interrupts += cnt;
	irq = sacc_rd(dev, SACC_REG_IRQ_STATUS);
	gone = sacc_reg_check(dev, irq) < 0; /* sacc_check() tells more */
	if (irq && !gone)
		sacc_wr(dev, SACC_REG_IRQ_ACK, irq);
	if (irq & SACC_IRQ_FATAL || gone) {
		ret = sacc_check(dev);
		if (ret)
			return ret;
		return sacc_mark_broken(dev, EIO,
					"%s: fatal interrupt (IRQ_STATUS 0x%x) "
					"but STATUS says ready; call "
					"sacc_reset()",
					dev->bdf, irq);
	}
	return 1;
}

int sacc_irq_take(struct sacc_dev *dev)
{
	int ret = sacc_queue_ready(dev, "sacc_irq_take");

	if (ret)
		return ret;
	if (!dev->irq_enabled || dev->irq_fd < 0)
		return sacc_seterr(dev, ENOTSUP,
				   "%s: interrupts are not set up", dev->bdf);
	return take_irq(dev);
}

int sacc_wait(struct sacc_dev *dev, int timeout_ms)
{
	uint64_t deadline = 0, now;
	struct pollfd pfd[2];
	int ret, slice, nfds;

	ret = sacc_queue_ready(dev, "sacc_wait");
	if (ret)
		return ret;
	if (!dev->irq_enabled || dev->irq_fd < 0)
		return sacc_seterr(dev, ENOTSUP,
				   "%s: interrupts are not set up", dev->bdf);
	/* Interrupts that came in since the last call: count and ack. */
	ret = take_irq(dev);
	if (ret < 0)
		return ret;
	if (sacc_cq_peek(&dev->cq, NULL))
		return 1;
	if (timeout_ms >= 0)
		deadline = sacc_monotonic_ns() + (uint64_t)timeout_ms * 1000000;
	/*
	 * Never one unbounded sleep: the device may be reset, hang, lose a
	 * completion or be taken back by the kernel without raising its
	 * interrupt.  Sleep in slices of SACC_WAIT_SLICE_MS and look at it
	 * (sacc_health()) between them: a wait costs one STATUS read per slice.
	 */
	for (;;) {
		slice = SACC_WAIT_SLICE_MS;
		if (timeout_ms >= 0) {
			now = sacc_monotonic_ns();
			if (now >= deadline)
				slice = 0;
			else if (deadline - now < (uint64_t)slice * 1000000)
				slice =
				    (int)((deadline - now + 999999) / 1000000);
		}
		nfds = 0;
		pfd[nfds++] =
		    (struct pollfd){.fd = dev->irq_fd, .events = POLLIN};
		if (dev->req_fd >= 0)
			pfd[nfds++] = (struct pollfd){.fd = dev->req_fd,
						      .events = POLLIN};
		ret = poll(pfd, (nfds_t)nfds, slice);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return sacc_seterr(dev, errno, "%s: poll(eventfd): %s",
					   dev->bdf, strerror(errno));
		}
		if (nfds > 1 && pfd[1].revents) {
			ret = sacc_req_check(dev);
			if (ret)
				return ret;
		}
		if (pfd[0].revents) {
			ret = take_irq(dev);
			if (ret < 0)
				return ret;
		}
		if (sacc_cq_peek(&dev->cq, NULL))
			return 1;
		/* A slice passed, or a stale wakeup: is it still alive? */
		ret = sacc_health(dev, true);
		if (ret)
			return ret;
		if (timeout_ms >= 0 && sacc_monotonic_ns() >= deadline)
			return 0;
	}
}

// SPDX-License-Identifier: MIT
/*
 * regs.c - BAR0 register access: through the two mmapped pages when
 * there are, else pread()/pwrite() on the VFIO device fd; the 64-bit
 * registers as two halves; the checked public accessors; the one reader
 * of the fault record; and the one test for a device that stopped
 * answering.
 */
#include <endian.h>
#include <errno.h>
#include <unistd.h>

#include "sacc_mmio.h"
#include "sacc_priv.h"

uint32_t sacc_rd(struct sacc_dev *dev, uint32_t off)
{
	uint32_t v;

	if (off < SACC_PAGE_SIZE && dev->regs)
		return sacc_mmio_read32(dev->regs, off);
	if (off >= SACC_PAGE_SIZE && dev->db)
		return sacc_mmio_read32(dev->db, off - SACC_PAGE_SIZE);
	if (pread(dev->device_fd, &v, 4, (off_t)(dev->bar0.offset + off)) != 4)
		return UINT32_MAX; /* what a dead device answers, too */
	return le32toh(v);
}

void sacc_wr(struct sacc_dev *dev, uint32_t off, uint32_t val)
{
	if (off < SACC_PAGE_SIZE && dev->regs) {
		sacc_mmio_write32(dev->regs, off, val);
		return;
	}
	if (off >= SACC_PAGE_SIZE && dev->db) {
		sacc_mmio_write32(dev->db, off - SACC_PAGE_SIZE, val);
		return;
	}
	val = htole32(val);
	if (pwrite(dev->device_fd, &val, 4, (off_t)(dev->bar0.offset + off)) !=
	    4) {
		/* Nothing sane to do; the caller's next read will show it. */
	}
}

uint64_t sacc_rd64(struct sacc_dev *dev, uint32_t off)
{
	uint64_t lo = sacc_rd(dev, off);

	return lo | (uint64_t)sacc_rd(dev, off + 4) << 32;
}

void sacc_wr64(struct sacc_dev *dev, uint32_t off, uint64_t val)
{
	sacc_wr(dev, off, (uint32_t)val);
	sacc_wr(dev, off + 4, (uint32_t)(val >> 32));
}

int sacc_reg_check(struct sacc_dev *dev, uint32_t val)
{
	if (val != UINT32_MAX)
		return 0;
	return sacc_seterr(dev, EIO,
			   "%s: registers read all-ones: the device does not "
			   "answer (memory space disabled, or it was removed)",
			   dev->bdf);
}

void sacc_fault_regs_read(struct sacc_dev *dev, struct sacc_fault_regs *f)
{
	f->status = sacc_rd(dev, SACC_REG_STATUS);
	f->err_code = sacc_rd(dev, SACC_REG_ERR_CODE);
	f->addr = sacc_rd64(dev, SACC_REG_FAULT_ADDR);
	f->info = sacc_rd(dev, SACC_REG_FAULT_INFO);
	f->req_id = sacc_rd(dev, SACC_REG_FAULT_REQ_ID);
	f->count = sacc_rd(dev, SACC_REG_FAULT_COUNT);
}

/* ---- sacc_reg_read() / sacc_reg_write() ---- */

static int check_reg_off(struct sacc_dev *dev, uint32_t off)
{
	if (dev && dev->gone)
		return sacc_gone_err(dev);
	if (!dev || (dev->device_fd < 0 && !dev->regs))
		return sacc_seterr(dev, EBADF, "device is not open");
	if (off % 4 || off >= SACC_BAR0_SIZE)
		return sacc_seterr(dev, EINVAL,
				   "register offset 0x%x: must be 4-byte "
				   "aligned and below 0x%x",
				   off, SACC_BAR0_SIZE);
	return 0;
}

int sacc_reg_read(struct sacc_dev *dev, uint32_t off, uint32_t *val)
{
	int ret = check_reg_off(dev, off);

	if (ret)
		return ret;
	*val = sacc_rd(dev, off);
	return 0;
}

int sacc_reg_write(struct sacc_dev *dev, uint32_t off, uint32_t val)
{
	int ret = check_reg_off(dev, off);

	if (ret)
		return ret;
	sacc_wr(dev, off, val);
	return 0;
}

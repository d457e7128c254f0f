// SPDX-License-Identifier: GPL-2.0
/*
 * sacc_watch_sample.c - the polling observer (`saccctl trace --poll`,
 * SACC_WATCH_IOC_SAMPLE): what a sampler of the channels' ring state
 * can see, in process context with nothing stopped, for comparison with
 * the watchpoint.
 */
#include "sacc_watch_int.h"

static DEFINE_MUTEX(sample_mutex); /* sample_buf */
static u8 *sample_buf;
#define SW_SAMPLE_MAX                                                          \
	(SACC_WATCH_SAMPLE_CHANS * (sizeof(struct sacc_watch_sample_chan) +    \
				    SACC_WATCH_SAMPLE_SLOTS *                  \
					    sizeof(struct sacc_desc)))

/* One channel's ring state, as a poller sees it; returns its bytes. */
static u32 sw_sample_chan(const struct sw_dev *d, struct iommu_domain *dom,
			  u32 ch, u32 max_slots, u8 *out)
{
	struct sacc_watch_sample_chan *c = (void *)out;
	void __iomem *cr = sw_chan_regs(d, ch);
	__le32 w;

	memset(c, 0, sizeof(*c));
	c->chan = ch;
	if (!cr)
		return sizeof(*c);
	c->ctrl = readl(cr + SACC_REG_CTRL);
	c->mode = d->bar2 ? readl(cr + SACC_REG_MODE) : 0;
	c->sq_size = readl(cr + SACC_REG_SQ_SIZE);
	c->sq_base = readl(cr + SACC_REG_SQ_BASE) |
		     (u64)readl(cr + SACC_REG_SQ_BASE + 4) << 32;
	if (c->mode & SACC_MODE_TOKEN) {
		u64 put = readl(cr + SACC_REG_PUT_ADDR) |
			  (u64)readl(cr + SACC_REG_PUT_ADDR + 4) << 32;

		c->put = sw_read_ring(d, dom, c->mode, put, &w, sizeof(w)) ?
				 0xffffffff :
				 le32_to_cpu(w);
	}
	if (!(c->ctrl & SACC_CTRL_ENABLE) || c->sq_size > SACC_RING_MAX_ENTRIES)
		return sizeof(*c);
	c->nslots = min(c->sq_size, max_slots);
	if (c->mode & SACC_MODE_SQ_DEV ?
		    sw_read_dev(d, c->sq_base, c + 1,
				c->nslots * sizeof(struct sacc_desc)) :
		    sw_read_iova_range(dom, c->sq_base, c + 1,
				       c->nslots * sizeof(struct sacc_desc)))
		c->nslots = 0;
	return sizeof(*c) + c->nslots * sizeof(struct sacc_desc);
}

long sw_sample(struct sacc_watch_sample_req __user *ureq)
{
	struct sacc_watch_sample_req r;
	struct iommu_domain *dom;
	struct sw_dev *d = NULL;
	u32 i, n = 0;
	long ret = 0;

	if (copy_from_user(&r, ureq, sizeof(r)))
		return -EFAULT;
	if (!r.nchan || r.nchan > SACC_WATCH_SAMPLE_CHANS ||
	    r.max_slots > SACC_WATCH_SAMPLE_SLOTS ||
	    r.first_chan >= SACC_CHANNELS_MAX)
		return -EINVAL;
	mutex_lock(&sw_lock); /* sw_devs; a device's BARs stay mapped */
	for (i = 0; i < SW_MAX_DEVS; i++)
		if (sw_devs[i].pdev && sw_devs[i].bdf == r.bdf)
			d = &sw_devs[i];
	dom = d ? iommu_get_domain_for_dev(&d->pdev->dev) : NULL;
	if (!d || !dom) {
		mutex_unlock(&sw_lock);
		return -ENODEV;
	}
	mutex_lock(&sample_mutex);
	r.t_ns = ktime_get_ns();
	for (i = 0; i < r.nchan && r.first_chan + i < d->channels; i++)
		n += sw_sample_chan(d, dom, r.first_chan + i, r.max_slots,
				    sample_buf + n);
	mutex_unlock(&sw_lock);
	r.len = min_t(u64, n, r.buf_len);
	if (copy_to_user(u64_to_user_ptr(r.buf), sample_buf, r.len) ||
	    copy_to_user(ureq, &r, sizeof(r)))
		ret = -EFAULT;
	mutex_unlock(&sample_mutex);
	return ret;
}

int sw_sample_alloc(void)
{
	sample_buf = vmalloc(SW_SAMPLE_MAX);
	return sample_buf ? 0 : -ENOMEM;
}

void sw_sample_free(void)
{
	vfree(sample_buf);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * sacc_watch_ring.c - the record ring of sacc_watch.ko and its reader:
 * whole records (include/sacc_watch.h) pushed from the trap with
 * interrupts off, read through /dev/sacc_watch by one reader at a time.
 * A full ring drops and counts; the reader gets a drops record in order.
 */
#include "sacc_watch_int.h"

static DEFINE_RAW_SPINLOCK(ring_lock);
static DEFINE_MUTEX(read_mutex); /* read_bounce, one read() at a time */
static DECLARE_WAIT_QUEUE_HEAD(ring_wq);
static u8 *ring;
static u32 ring_size;
static u64 ring_head, ring_tail, ring_seq, ring_pending_drops;
static u8 *read_bounce; /* one reader at a time (sw_open) */
static atomic_t sw_reader = ATOMIC_INIT(0);

static void ring_copy_in(u64 pos, const void *src, u32 len)
{
	u32 off = pos % ring_size, first = min(len, ring_size - off);

	memcpy(ring + off, src, first);
	memcpy(ring, (const u8 *)src + first, len - first);
}

static void ring_copy_out(u64 pos, void *dst, u32 len)
{
	u32 off = pos % ring_size, first = min(len, ring_size - off);

	memcpy(dst, ring + off, first);
	memcpy((u8 *)dst + first, ring, len - first);
}

static void drops_rec(struct sacc_watch_rec *d, u64 count, u64 seq)
{
	memset(d, 0, sizeof(*d));
	d->size = sizeof(*d);
	d->type = SACC_WATCH_REC_DROPS;
	d->seq = seq;
	d->t_ns = ktime_get_ns();
	d->chan = 0xffff;
	d->value64 = count;
}

static void ring_count(const struct sacc_watch_rec *rec)
{
	if (rec->type == SACC_WATCH_REC_DOORBELL) {
		atomic64_inc(&st_records);
		atomic64_add(rec->ndesc, &st_descs);
		if (rec->torn)
			atomic64_inc(&st_torn);
	} else if (rec->type == SACC_WATCH_REC_SEGMENT) {
		atomic64_inc(&st_segs);
		atomic64_add(rec->ndesc, &st_seg_cmds);
		if (rec->torn)
			atomic64_inc(&st_seg_torn);
	}
}

/*
 * Push @nrec whole records, @len bytes from @recs (a doorbell record and
 * its segment records), with consecutive seq numbers: all or none.  From
 * the trap (interrupts off) and from process context.
 */
void ring_push_group(void *recs, u32 len, u32 nrec)
{
	struct sacc_watch_rec d, *r;
	u32 need = len, off;
	unsigned long flags;

	raw_spin_lock_irqsave(&ring_lock, flags);
	if (ring_pending_drops)
		need += sizeof(d);
	if (ring_size - (ring_head - ring_tail) < need) {
		ring_seq += nrec; /* the gap in seq shows the loss too */
		ring_pending_drops += nrec;
		atomic64_add(nrec, &st_drops);
		raw_spin_unlock_irqrestore(&ring_lock, flags);
		return;
	}
	if (ring_pending_drops) {
		drops_rec(&d, ring_pending_drops, ring_seq++);
		ring_copy_in(ring_head, &d, sizeof(d));
		ring_head += sizeof(d);
		ring_pending_drops = 0;
	}
	for (off = 0; off < len; off += r->size) {
		r = recs + off;
		r->seq = ring_seq++;
	}
	ring_copy_in(ring_head, recs, len);
	ring_head += len;
	raw_spin_unlock_irqrestore(&ring_lock, flags);
	for (off = 0; off < len; off += r->size) {
		r = recs + off;
		ring_count(r);
	}
	wake_up_interruptible(&ring_wq);
}

static void ring_push(struct sacc_watch_rec *rec)
{
	ring_push_group(rec, rec->size, 1);
}

static bool ring_readable(void)
{
	return READ_ONCE(ring_head) != READ_ONCE(ring_tail) ||
	       READ_ONCE(ring_pending_drops);
}

/* An armed/disarmed record of the current process, in process context. */
void sw_push_event(u16 type, const struct sw_proc *p, u32 value)
{
	struct sacc_watch_rec r = {
		.size = sizeof(r),
		.type = type,
		.t_ns = ktime_get_ns(),
		.pid = task_tgid_nr(current),
		.tid = task_pid_nr(current),
		.bdf = p->dev->bdf,
		.chan = 0xffff,
		.value = value,
		.value64 = p->db,
	};

	ring_push(&r);
}

u32 sw_ring_bytes(void)
{
	return ring_size;
}

int sw_ring_alloc(u32 bytes)
{
	ring_size = bytes;
	ring = vmalloc(ring_size);
	read_bounce = vmalloc(SACC_WATCH_READ_MIN);
	return ring && read_bounce ? 0 : -ENOMEM;
}

void sw_ring_free(void)
{
	vfree(read_bounce);
	vfree(ring);
}

/* ---- /dev/sacc_watch ---------------------------------------------------- */

int sw_open(struct inode *inode, struct file *f)
{
	if (!(f->f_mode & FMODE_READ))
		return -EINVAL;
	f->private_data = NULL; /* becomes the reader at its first read */
	return stream_open(inode, f);
}

int sw_release(struct inode *inode, struct file *f)
{
	if (f->private_data)
		atomic_set(&sw_reader, 0);
	return 0;
}

static ssize_t sw_read_locked(struct file *f, char __user *buf, size_t cap)
{
	struct sacc_watch_rec h;
	size_t n = 0;
	int ret;

	for (;;) {
		raw_spin_lock_irq(&ring_lock);
		if (ring_head != ring_tail || ring_pending_drops)
			break;
		raw_spin_unlock_irq(&ring_lock);
		if (f->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(ring_wq, ring_readable());
		if (ret)
			return ret;
	}
	while (ring_head != ring_tail) {
		ring_copy_out(ring_tail, &h, sizeof(h));
		if (n + h.size > cap)
			break;
		ring_copy_out(ring_tail, read_bounce + n, h.size);
		ring_tail += h.size;
		n += h.size;
	}
	/* Drops after the last record, with nothing new to carry them. */
	if (ring_head == ring_tail && ring_pending_drops &&
	    n + sizeof(h) <= cap) {
		drops_rec((struct sacc_watch_rec *)(read_bounce + n),
			  ring_pending_drops, ring_seq++);
		ring_pending_drops = 0;
		n += sizeof(h);
	}
	raw_spin_unlock_irq(&ring_lock);
	if (copy_to_user(buf, read_bounce, n))
		return -EFAULT;
	return n;
}

ssize_t sw_read(struct file *f, char __user *buf, size_t len, loff_t *ppos)
{
	size_t cap = min_t(size_t, len, SACC_WATCH_READ_MIN);
	ssize_t ret;

	if (len < SACC_WATCH_READ_MIN)
		return -EINVAL;
	/* Reading consumes records: one reader at a time (an open for the
	 * stats ioctl alone does not count). */
	if (!f->private_data) {
		if (atomic_cmpxchg(&sw_reader, 0, 1))
			return -EBUSY;
		f->private_data = f;
	}
	/* read_bounce is shared: two threads reading one file (or a fork
	 * child sharing it) must not interleave in it. */
	if (mutex_lock_interruptible(&read_mutex))
		return -ERESTARTSYS;
	ret = sw_read_locked(f, buf, cap);
	mutex_unlock(&read_mutex);
	return ret;
}

__poll_t sw_poll(struct file *f, struct poll_table_struct *pt)
{
	poll_wait(f, &ring_wq, pt);
	return ring_readable() ? EPOLLIN | EPOLLRDNORM : 0;
}

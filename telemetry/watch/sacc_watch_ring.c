// SPDX-License-Identifier: GPL-2.0
/*
 * sacc_watch_ring.c - the record ring of sacc_watch.ko and its reader:
 * whole records (include/sacc_watch.h) pushed from the trap with
 * interrupts off, read through /dev/sacc_watch by one reader at a time.
 * A full ring drops and counts; the reader gets a drops record in order.
 */
#include "sacc_watch_int.h"

static DEFINE_RAW_SPINLOCK(ring_lock);
static DEFINE_MUTEX(read_mutex); /* one read() at a time */
static DECLARE_WAIT_QUEUE_HEAD(ring_wq);
static u8 *ring;
static u32 ring_size;
static u64 ring_head, ring_tail, ring_seq, ring_pending_drops;
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
	} else if (rec->type == SACC_WATCH_REC_UNTRACED) {
		atomic64_inc(&st_untraced);
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

void sw_ring_push(struct sacc_watch_rec *rec)
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

	sw_ring_push(&r);
}

u32 sw_ring_bytes(void)
{
	return ring_size;
}

int sw_ring_alloc(u32 bytes)
{
	ring_size = bytes;
	ring = vmalloc(ring_size);
	return ring ? 0 : -ENOMEM;
}

void sw_ring_free(void)
{
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

/* @len bytes of the ring from @pos to user space (two pieces if it
 * wraps). */
static int ring_copy_to_user(char __user *buf, u64 pos, size_t len)
{
	u32 off = pos % ring_size, first = min_t(size_t, len, ring_size - off);

	if (copy_to_user(buf, ring + off, first) ||
	    copy_to_user(buf + first, ring, len - first))
		return -EFAULT;
	return 0;
}

/*
 * One pass: the whole records there are (up to @cap bytes), or a drops
 * record for losses after the last one.  0 if a push came in between
 * (the caller looks again), -EAGAIN if there is nothing.
 */
static ssize_t sw_read_pass(char __user *buf, size_t cap)
{
	struct sacc_watch_rec h;
	u64 tail, head, pos;
	size_t n = 0;

	raw_spin_lock_irq(&ring_lock);
	if (ring_head == ring_tail && !ring_pending_drops) {
		raw_spin_unlock_irq(&ring_lock);
		return -EAGAIN;
	}
	tail = ring_tail;
	head = ring_head;
	raw_spin_unlock_irq(&ring_lock);
	/*
	 * Copied without the lock: a push writes only past ring_head, into
	 * room counted from ring_tail, which moves below after the copy.
	 * A trap on another CPU never waits for a reader's copy (a record
	 * can now be 2.5 MiB).
	 */
	for (pos = tail; pos != head; pos += h.size) {
		ring_copy_out(pos, &h, sizeof(h));
		if (n + h.size > cap)
			break;
		n += h.size;
	}
	if (n && ring_copy_to_user(buf, tail, n))
		return -EFAULT;
	raw_spin_lock_irq(&ring_lock);
	ring_tail = tail + n;
	/* Drops after the last record, with nothing new to carry them. */
	if (ring_head == ring_tail && ring_pending_drops &&
	    n + sizeof(h) <= cap) {
		drops_rec(&h, ring_pending_drops, ring_seq++);
		ring_pending_drops = 0;
		raw_spin_unlock_irq(&ring_lock);
		if (copy_to_user(buf + n, &h, sizeof(h)))
			return -EFAULT;
		return n + sizeof(h);
	}
	raw_spin_unlock_irq(&ring_lock);
	return n;
}

static ssize_t sw_read_locked(struct file *f, char __user *buf, size_t cap)
{
	ssize_t n;
	int ret;

	for (;;) {
		n = sw_read_pass(buf, cap);
		if (n != -EAGAIN && n != 0)
			return n;
		if (n == 0)
			continue;
		if (f->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(ring_wq, ring_readable());
		if (ret)
			return ret;
	}
}

ssize_t sw_read(struct file *f, char __user *buf, size_t len, loff_t *ppos)
{
	ssize_t ret;

	/* A record is read whole or not at all: the buffer must take the
	 * largest (ABI 3: 2.5 MiB). */
	if (len < SACC_WATCH_READ_MIN)
		return -EINVAL;
	/* Reading consumes records: one reader at a time (an open for the
	 * stats ioctl alone does not count). */
	if (!f->private_data) {
		if (atomic_cmpxchg(&sw_reader, 0, 1))
			return -EBUSY;
		f->private_data = f;
	}
	/* Two threads reading one file (or a fork child sharing it) must
	 * not take the same records. */
	if (mutex_lock_interruptible(&read_mutex))
		return -ERESTARTSYS;
	ret = sw_read_locked(f, buf, min_t(size_t, len, ring_size));
	mutex_unlock(&read_mutex);
	return ret;
}

__poll_t sw_poll(struct file *f, struct poll_table_struct *pt)
{
	poll_wait(f, &ring_wq, pt);
	return ring_readable() ? EPOLLIN | EPOLLRDNORM : 0;
}

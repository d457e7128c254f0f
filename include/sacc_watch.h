/* SPDX-License-Identifier: MIT */
/*
 * sacc_watch.h - the record ABI of the doorbell watchpoint tracer
 * (telemetry/watch/, sacc_watch.ko), shared by the module and by
 * `saccctl trace`.
 *
 * read(2) on SACC_WATCH_DEV returns whole records, never part of one:
 * each starts with a 64-byte header (struct sacc_watch_rec, or struct
 * sacc_watch_seg for a segment record: the same size, type, seq, pid,
 * chan and count fields at the same offsets), whose size counts the
 * struct sacc_watch_desc entries that follow it:
 * size == 64 + ndesc * sizeof(struct sacc_watch_desc) for every type.
 * A buffer of at least SACC_WATCH_READ_MIN bytes always takes the next
 * record.
 *
 * ABI 2 (v0.4 pushbuffer segments, docs/spec.md section 21): a doorbell
 * record whose descriptors include SEGMENT entries (opcode 6 on a
 * MODE.V3 channel) is followed, at once and in the same order, by one
 * SEGMENT record per such entry (.nseg of them): the segment captured
 * whole at the trap, as the device will fetch it (host memory through
 * the process's IOMMU domain, device memory through BAR4), cut into its
 * commands the device's way (a WRITE_INLINE's payload slots are not
 * commands).  A doorbell record and its segment records are pushed
 * together and have consecutive seq numbers: none of them is written
 * unless all fit, and a full ring drops and counts them all.  A segment
 * that cannot be captured whole is a torn segment record (no commands,
 * .torn says why), never a guess.  MODE.SQ_DEV channels' SQ slots and
 * PUT word are read through BAR4 too.
 *
 * ABI 3: a doorbell record holds every descriptor its doorbell
 * published, however many (at most the SQ's size - 1:
 * SACC_WATCH_MAX_DESCS), so SACC_WATCH_READ_MIN grew to take the
 * largest; ABI 2 modules cut a record at max_descs (torn, "truncated").
 * A doorbell the module sees but cannot capture (the syscall doorbell:
 * pwrite() on the VFIO device's BAR0 region) is an UNTRACED record, so a
 * reader can tell it from a doorbell the tracer missed.  The stats grew
 * (untraced, the handler's own time).
 */
#ifndef SACC_WATCH_H
#define SACC_WATCH_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SACC_WATCH_DEV		"/dev/sacc_watch"
#define SACC_WATCH_ABI		3u

/* struct sacc_watch_rec.type */
#define SACC_WATCH_REC_DOORBELL	1u	/* one trapped doorbell write */
#define SACC_WATCH_REC_DROPS	2u	/* records lost: count in .value64 */
/* A process's doorbell page is watched from now on (its old tails are
 * 0): .value64 its user address, .value the watches set on the mapping
 * thread (bit i = SACC_WATCH_W_*). */
#define SACC_WATCH_REC_ARMED	3u
/* No longer watched: the page was unmapped (.value64: its address). */
#define SACC_WATCH_REC_DISARMED	4u
/* One SEGMENT entry's segment (struct sacc_watch_seg), after its
 * doorbell record (ABI 2). */
#define SACC_WATCH_REC_SEGMENT	5u
/*
 * A doorbell seen but not captured (ABI 3): .kind and .chan (0xffff if
 * unknown) as in a doorbell record, .value the 32-bit value written
 * (0xffffffff if it could not be read: no tail or channel is that
 * large), .value64 why (SACC_WATCH_UNTRACED_*), no descriptors.  The
 * descriptors it published are not in any record.
 */
#define SACC_WATCH_REC_UNTRACED	6u

/* .value64 of an UNTRACED record */
#define SACC_WATCH_UNTRACED_SYSCALL	1u	/* pwrite() on the VFIO device (no store to trap) */

/* .value bits of an ARMED record: the doorbell words watched */
#define SACC_WATCH_W_TAIL01	(1u << 0)	/* tail doorbells of channels 0, 1 */
#define SACC_WATCH_W_TOKEN	(1u << 1)	/* the token doorbell */
#define SACC_WATCH_W_TAIL23	(1u << 2)
#define SACC_WATCH_W_TAIL45	(1u << 3)

/* .kind of a doorbell record */
#define SACC_WATCH_KIND_TAIL	0u	/* BAR0 0x1000 + 4*ch: value = new tail */
#define SACC_WATCH_KIND_TOKEN	1u	/* BAR0 0x1400: value = channel, new = PUT */

/*
 * .torn: why the record does not hold the whole submission (0 = it
 * does).  A torn record is still delivered, so it is counted, never
 * guessed around.
 */
#define SACC_WATCH_TORN_NONE		0u
#define SACC_WATCH_TORN_UNDECODED	1u	/* the trapping store was not a decodable 32-bit mov */
#define SACC_WATCH_TORN_NO_CHANNEL	2u	/* value/offset names no channel of the device */
#define SACC_WATCH_TORN_SQ_UNREADABLE	3u	/* an SQ slot or the PUT word has no IOMMU mapping */
#define SACC_WATCH_TORN_RANGE		4u	/* old/new tail not below SQ_SIZE */
#define SACC_WATCH_TORN_TRUNCATED	5u	/* ABI 2 modules only: more descriptors than
						 * max_descs (ABI 3 records hold them all) */
#define SACC_WATCH_TORN_NO_DEVICE	6u	/* BAR not mapped, no IOMMU domain */
/* .torn of a segment record (ABI 2): the segment was not captured, the
 * record has no commands. */
#define SACC_WATCH_TORN_SEG_UNREADABLE	7u	/* a page of a host segment has no IOMMU mapping
						 * (the device's fetch faults: access 8) */
#define SACC_WATCH_TORN_SEG_RANGE	8u	/* a device-memory segment outside BAR4 / DEVMEM_SIZE,
						 * or BAR4 not mapped */
#define SACC_WATCH_TORN_SEG_LENGTH	9u	/* length not a multiple of 32 in 32..SACC_SEGMENT_MAX
						 * (the device refuses it: status 3) */
#define SACC_WATCH_TORN_SEG_BUDGET	10u	/* the doorbell's segments outgrew seg_kib */

/* .where of a segment record */
#define SACC_WATCH_SEG_HOST	0u	/* .addr is an IOVA */
#define SACC_WATCH_SEG_DEV	1u	/* .addr is a device address (the entry's SRC_DEV) */

/* The doorbell record, 64 bytes, then .ndesc struct sacc_watch_desc. */
struct sacc_watch_rec {
	__u32 size;	/* bytes, this header and the descriptors */
	__u16 type;	/* SACC_WATCH_REC_* */
	__u8 kind;	/* SACC_WATCH_KIND_* */
	__u8 torn;	/* SACC_WATCH_TORN_* */
	__u64 seq;	/* 0, 1, 2, ... over all records (drops leave gaps) */
	__u64 t_ns;	/* ktime_get_ns() at the trap: CLOCK_MONOTONIC */
	__u32 pid;	/* thread group id of the writer */
	__u32 tid;	/* the writing thread */
	__u32 bdf;	/* PCI domain << 16 | bus << 8 | devfn */
	__u16 chan;	/* channel (0xffff if unknown) */
	__u16 nseg;	/* SEGMENT records that follow this one (ABI 2) */
	__u32 old_tail;	/* SQ tail before this doorbell (the tracer's shadow) */
	__u32 new_tail;	/* the tail it publishes (token: the PUT word) */
	__u32 ndesc;	/* descriptors in this record */
	__u32 value;	/* the 32-bit value stored to the doorbell */
	__u64 value64;	/* drops: records lost since the last one;
			 * armed/disarmed: the doorbell page's user address */
};

/* One descriptor as the device will read it, from SQ slot .index. */
struct sacc_watch_desc {
	__u32 index;		/* SQ slot */
	__u32 inline_len;	/* WRITE_INLINE on a MODE.V3 channel: payload bytes
				 * in the slots after it; else 0 */
	__u8 raw[32];		/* struct sacc_desc, little endian, as in the SQ */
};

/*
 * A segment record (ABI 2): the 64-byte header, then .ncmd struct
 * sacc_watch_desc, one per command in segment order: .index is the
 * command's slot in the segment (byte offset / 32), .inline_len a
 * WRITE_INLINE's payload bytes (in the slots after it; the device fails
 * the command if they run past the segment's end), .raw the 32 bytes.
 * A nested SEGMENT command is recorded as any other (the device fails
 * it); every command of the segment is recorded, including those after
 * one the device will fail (it will not run them).
 */
struct sacc_watch_seg {
	__u32 size;	/* bytes, this header and the commands */
	__u16 type;	/* SACC_WATCH_REC_SEGMENT */
	__u8 where;	/* SACC_WATCH_SEG_* */
	__u8 torn;	/* SACC_WATCH_TORN_NONE or SACC_WATCH_TORN_SEG_* */
	__u64 seq;	/* the doorbell record's seq + 1, + 2, ... */
	__u64 t_ns;	/* the doorbell record's trap time */
	__u32 pid;
	__u32 tid;
	__u32 bdf;
	__u16 chan;
	__u16 flags;	/* the entry's flags (bit 1: SRC_DEV) */
	__u32 sq_index;	/* the entry's SQ slot (its descriptor in the doorbell record) */
	__u32 req_id;	/* the entry's req_id (sacc_segment_cmd's "entry") */
	__u32 ncmd;	/* commands that follow */
	__u32 length;	/* the segment's bytes (the entry's length) */
	__u64 addr;	/* the segment: an IOVA, or a device address */
};

/* Commands in a segment at most: SACC_SEGMENT_MAX / 32 (sacc_hw.h; the
 * module asserts it). */
#define SACC_WATCH_SEG_MAX_CMDS	2048u

/* Counters since the module was loaded (SACC_WATCH_IOC_STATS). */
struct sacc_watch_stats {
	__u64 records;		/* doorbell records written to the ring */
	__u64 drops;		/* records lost because the ring was full */
	__u64 torn;		/* records with .torn != 0 */
	__u64 descs;		/* descriptors recorded */
	__u64 armed;		/* processes whose doorbell page was watched */
	__u64 arm_failed;	/* mappings seen but not watched (see dmesg) */
	__u64 kernel_hits;	/* traps from kernel mode (ignored) */
	__u64 kprobe_missed;	/* mmap calls the kretprobe missed */
	__u64 bare_traps;	/* traps with trap_only=1 (cost measurement) */
	__u64 stale_traps;	/* traps where the doorbell page was no longer
				 * mapped (unmapped, address reused): ignored,
				 * that process's watch removed */
	__u32 abi;		/* SACC_WATCH_ABI */
	__u32 ring_bytes;	/* size of the ring */
	__u32 max_descs;	/* descriptors per record at most (ABI 3:
				 * SACC_WATCH_MAX_DESCS, every one a doorbell
				 * can publish) */
	__u32 watching;		/* processes watched now */
	/* ABI 2 */
	__u64 segments;		/* segment records written to the ring */
	__u64 seg_cmds;		/* commands in them */
	__u64 seg_torn;		/* segment records with .torn != 0 */
	__u32 seg_kib;		/* segment bytes captured per doorbell at most */
	__u32 reserved;
	/* ABI 3 */
	__u64 untraced;		/* UNTRACED records (syscall doorbells) */
	__u64 work_ns;		/* the handler's own time over the doorbell
				 * records: from the trap's clock read to its
				 * records in the ring (not the #DB itself) */
	__u64 work_max_ns;	/* the longest of them */
	__u64 max_ndesc;	/* the most descriptors one record held */
	__u64 memory_bytes;	/* what the module allocated for records: the
				 * ring, one record group per CPU, the
				 * segment buffers */
	__u64 reserved2[3];
};

#define SACC_WATCH_IOC_STATS	_IOR('S', 0x57, struct sacc_watch_stats)

/*
 * The polling observer (ABI 2, `saccctl trace --poll HZ`): what a
 * sampler of the channels' ring state can see, for comparison with the
 * watchpoint.  No register holds a tail-doorbell channel's SQ tail (the
 * doorbells read 0): a poller sees the ring registers, a token
 * channel's PUT word and the SQ memory.  SACC_WATCH_IOC_SAMPLE reads,
 * for channels first_chan .. first_chan + nchan - 1 of device @bdf (one
 * that a watched process mapped), CTRL, MODE, SQ_BASE, SQ_SIZE, the
 * PUT word and up to max_slots SQ slots (through the IOMMU domain, or
 * BAR4 with MODE.SQ_DEV), into @buf: per channel a struct
 * sacc_watch_sample_chan, then .nslots 32-byte slots.  In process
 * context, with nothing stopped: a slot being written reads as it is.
 * -ENODEV for a device no watched process mapped.
 */
struct sacc_watch_sample_req {
	__u32 bdf;
	__u32 first_chan;
	__u32 nchan;		/* at most SACC_WATCH_SAMPLE_CHANS */
	__u32 max_slots;	/* at most SACC_WATCH_SAMPLE_SLOTS */
	__u64 buf;		/* user address */
	__u64 buf_len;
	__u64 t_ns;		/* out: CLOCK_MONOTONIC when sampled */
	__u64 len;		/* out: bytes written to buf */
};

struct sacc_watch_sample_chan {
	__u32 chan;
	__u32 ctrl;	/* CTRL (bit 0 ENABLE) */
	__u32 mode;	/* MODE (0 before v0.3) */
	__u32 sq_size;
	__u64 sq_base;
	__u32 put;	/* MODE.TOKEN: the PUT word (0xffffffff unreadable); else 0 */
	__u32 nslots;	/* SQ slots that follow: min(sq_size, max_slots), 0 unreadable */
};

#define SACC_WATCH_SAMPLE_CHANS	8u
#define SACC_WATCH_SAMPLE_SLOTS	1024u
#define SACC_WATCH_IOC_SAMPLE	_IOWR('S', 0x58, struct sacc_watch_sample_req)

/* Descriptors in a doorbell record at most (ABI 3): all a doorbell can
 * publish, SACC_RING_MAX_ENTRIES - 1 (sacc_hw.h; the module asserts it). */
#define SACC_WATCH_MAX_DESCS	65535u
/* read(2) takes a buffer of at least this: the largest record, 2.5 MiB. */
#define SACC_WATCH_READ_MIN                                                    \
	(sizeof(struct sacc_watch_rec) +                                       \
	 SACC_WATCH_MAX_DESCS * sizeof(struct sacc_watch_desc))

_Static_assert(sizeof(struct sacc_watch_rec) == 64, "record header is 64 bytes");
_Static_assert(sizeof(struct sacc_watch_desc) == 40, "record descriptor is 40 bytes");
_Static_assert(sizeof(struct sacc_watch_seg) == 64, "segment header is 64 bytes");
_Static_assert(__builtin_offsetof(struct sacc_watch_seg, size) ==
		       __builtin_offsetof(struct sacc_watch_rec, size) &&
	       __builtin_offsetof(struct sacc_watch_seg, type) ==
		       __builtin_offsetof(struct sacc_watch_rec, type) &&
	       __builtin_offsetof(struct sacc_watch_seg, seq) ==
		       __builtin_offsetof(struct sacc_watch_rec, seq) &&
	       __builtin_offsetof(struct sacc_watch_seg, pid) ==
		       __builtin_offsetof(struct sacc_watch_rec, pid) &&
	       __builtin_offsetof(struct sacc_watch_seg, chan) ==
		       __builtin_offsetof(struct sacc_watch_rec, chan) &&
	       __builtin_offsetof(struct sacc_watch_seg, ncmd) ==
		       __builtin_offsetof(struct sacc_watch_rec, ndesc),
	       "a segment header frames like a doorbell record");
_Static_assert(sizeof(struct sacc_watch_seg) +
		       SACC_WATCH_SEG_MAX_CMDS * sizeof(struct sacc_watch_desc) <=
		       SACC_WATCH_READ_MIN,
	       "a whole segment record fits a read");
_Static_assert(sizeof(struct sacc_watch_stats) == 192, "stats are 192 bytes");
_Static_assert(sizeof(struct sacc_watch_sample_req) == 48 &&
		       sizeof(struct sacc_watch_sample_chan) == 32,
	       "sample layout");
_Static_assert(sizeof(struct sacc_watch_rec) % 8 == 0 &&
	       sizeof(struct sacc_watch_desc) % 8 == 0,
	       "records keep 8-byte alignment in the ring");

#endif /* SACC_WATCH_H */

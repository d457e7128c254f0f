// SPDX-License-Identifier: MIT
/*
 * trace.c - saccctl trace: the doorbell writes the watchpoint tracer
 * (sacc_watch.ko, telemetry/watch/) trapped, decoded: time, pid, channel,
 * old and new tail, every new descriptor, and the segment of every new
 * SEGMENT entry cut into its commands.  Records come from
 * /dev/sacc_watch in the binary form of include/sacc_watch.h; reading
 * consumes them (one reader at a time).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sacc_hw.h"
#include "sacc_watch.h"
#include "saccctl.h"

#define EXIT_LOST 3 /* the tracer dropped records: the trace has gaps */

void usage_trace(FILE *f)
{
	fputs(
	    "usage: saccctl trace [--pid P] [--json] [--follow] [--count N]\n"
	    "       saccctl trace --raw [--follow] > FILE\n"
	    "       saccctl trace --stats [--json]\n"
	    "       saccctl trace --input FILE [--pid P] [--json]\n"
	    "       saccctl trace --poll HZ --device BDF [--seconds S] "
	    "[--channels N]\n\n"
	    "Print the SACC doorbell writes the watchpoint tracer trapped: "
	    "time,\n"
	    "pid/tid, device, channel, old and new SQ tail (token doorbell: "
	    "the\n"
	    "PUT word) and every new descriptor, as the device will read it;\n"
	    "after a doorbell with SEGMENT entries, each entry's segment, "
	    "captured\n"
	    "whole at the trap and cut into its commands; a doorbell rung "
	    "with\n"
	    "pwrite() (the syscall doorbell) as untraced: seen, not "
	    "captured.\n"
	    "Needs the tracer module: insmod /lib/modules/sacc/sacc_watch.ko\n"
	    "(the SACC guest has it there). Every process that maps a SACC\n"
	    "doorbell page after the module is loaded is traced; records wait "
	    "in\n"
	    "the module's ring until read, and reading consumes them.\n\n"
	    "  --pid P       only records of process P\n"
	    "  --json        JSON Lines: {\"type\":\"doorbell\",...} per "
	    "write,\n"
	    "                {\"type\":\"segment\",...,\"cmds\":[...]} after "
	    "it per\n"
	    "                SEGMENT entry,\n"
	    "                {\"type\":\"drops\",\"count\":N} where records "
	    "were lost,\n"
	    "                {\"type\":\"untraced\",...} per syscall "
	    "doorbell,\n"
	    "                {\"type\":\"armed\"|\"disarmed\",...} when a "
	    "process's\n"
	    "                doorbell page starts / stops being watched\n"
	    "  --follow      keep reading until SIGINT/SIGTERM, then drain "
	    "what the\n"
	    "                module still holds from before the signal and "
	    "exit\n"
	    "                (a second signal stops the drain); default: drain "
	    "the\n"
	    "                records there are now, then exit\n"
	    "  --count N     stop after N doorbell records (a read empties the\n"
	    "                module's ring: records after the Nth are gone)\n"
	    "  --raw         the records as the module gives them (binary, "
	    "include/\n"
	    "                sacc_watch.h) on stdout, not decoded: a reader as "
	    "fast as\n"
	    "                a copy, which a busy tracer fills its ring faster "
	    "than\n"
	    "                printing empties it; decode them later with "
	    "--input\n"
	    "  --stats       the module's counters instead of records\n"
	    "  --input FILE  decode records saved from /dev/sacc_watch "
	    "(e.g. with\n"
	    "                cat) instead of reading the device\n"
	    "  --poll HZ     the polling observer instead (for comparison "
	    "with the\n"
	    "                watchpoint): sample what a poller can see of the "
	    "ring\n"
	    "                state of --device BDF's channels 0..N-1 "
	    "(--channels,\n"
	    "                default 8): registers, a token channel's PUT "
	    "word, the\n"
	    "                SQ slots, HZ times a second for --seconds S "
	    "(default:\n"
	    "                until SIGINT); JSON lines for each slot and PUT "
	    "word\n"
	    "                that changed, then a summary with the rate "
	    "achieved\n"
	    "  -h, --help\n\n"
	    "Exit status: 0 all records delivered, 1 failure (tracer not "
	    "loaded,\n"
	    "another reader, I/O), 2 bad arguments, 3 the tracer lost records "
	    "(the\n"
	    "output shows where and how many).\n",
	    f);
}

struct trace_cfg {
	uint64_t pid, count, poll_hz, nchan;
	bool has_pid, json, follow, stats, raw;
	const char *input, *device;
	double seconds;
};

struct trace_sum {
	uint64_t records, descs, torn, lost, untraced;
	uint64_t segs, cmds, seg_torn;
	uint64_t last_t_ns; /* of the last record read */
	bool shown;	    /* the last doorbell record was printed: so are
			     * the segment records after it */
};

/* Signals received (SIGINT/SIGTERM), the first one and when it came. */
static volatile sig_atomic_t trace_stop, trace_sig;
static volatile uint64_t trace_stop_ns;

static void on_signal(int sig)
{
	if (!trace_stop) {
		trace_sig = sig;
		/* clock_gettime() is async-signal-safe */
		trace_stop_ns = now_ns();
	}
	trace_stop++;
}

static const char *torn_name(unsigned int t)
{
	static const char *const n[] = {
	    [SACC_WATCH_TORN_NONE] = "none",
	    [SACC_WATCH_TORN_UNDECODED] = "undecoded-store",
	    [SACC_WATCH_TORN_NO_CHANNEL] = "no-channel",
	    [SACC_WATCH_TORN_SQ_UNREADABLE] = "sq-unreadable",
	    [SACC_WATCH_TORN_RANGE] = "tail-out-of-range",
	    [SACC_WATCH_TORN_TRUNCATED] = "truncated",
	    [SACC_WATCH_TORN_NO_DEVICE] = "no-device",
	    [SACC_WATCH_TORN_SEG_UNREADABLE] = "segment-unreadable",
	    [SACC_WATCH_TORN_SEG_RANGE] = "segment-out-of-range",
	    [SACC_WATCH_TORN_SEG_LENGTH] = "segment-length",
	    [SACC_WATCH_TORN_SEG_BUDGET] = "segment-budget",
	};

	return t < sizeof(n) / sizeof(n[0]) && n[t] ? n[t] : "unknown";
}

/* One record's JSON line, buffered: a drain of thousands of records
 * writes in large pieces, not one system call each (--follow flushes
 * before it waits). */
static int jrecord(struct json_object *o)
{
	return jfprint(stdout, o, JSON_COMPACT);
}

static const char *untraced_name(uint64_t why)
{
	return why == SACC_WATCH_UNTRACED_SYSCALL ? "syscall" : "unknown";
}

static void fmt_bdf(uint32_t bdf, char out[SACC_BDF_MAX])
{
	snprintf(out, SACC_BDF_MAX, "%04x:%02x:%02x.%x", bdf >> 16,
		 (bdf >> 8) & 0xff, (bdf >> 3) & 0x1f, bdf & 7);
}

static void desc_of(const struct sacc_watch_desc *w, struct sacc_desc *d)
{
	memcpy(d, w->raw, sizeof(*d));
	d->src = le64toh(d->src);
	d->dst = le64toh(d->dst);
	d->length = le32toh(d->length);
	d->opcode = le16toh(d->opcode);
	d->flags = le16toh(d->flags);
	d->req_id = le32toh(d->req_id);
	d->reserved = le32toh(d->reserved);
}

/* The doorbell words an ARMED record's mask names, bit by bit. */
static const char *const watch_names[] = {"ch0-1", "token", "ch2-3", "ch4-5"};

static void watched(uint32_t mask, char *out, size_t len)
{
	size_t i, n = 0;

	out[0] = 0;
	for (i = 0; i < 4; i++)
		if (mask & (1u << i))
			n += (size_t)snprintf(out + n, len - n, "%s%s",
					      n ? " " : "", watch_names[i]);
}

static int print_event_json(const struct sacc_watch_rec *r)
{
	struct json_object *o = jobj(), *a;
	char bdf[SACC_BDF_MAX];
	unsigned int i;

	fmt_bdf(r->bdf, bdf);
	jset_str(o, "type",
		 r->type == SACC_WATCH_REC_ARMED ? "armed" : "disarmed");
	jset_u64(o, "seq", r->seq);
	jset_u64(o, "t_ns", r->t_ns);
	jset_u64(o, "pid", r->pid);
	jset_u64(o, "tid", r->tid);
	jset_str(o, "bdf", bdf);
	jset_hex(o, "addr", r->value64);
	if (r->type == SACC_WATCH_REC_ARMED) {
		a = jarr();
		for (i = 0; i < 4; i++)
			if (r->value & (1u << i))
				jpush(a,
				      json_object_new_string(watch_names[i]));
		jset(o, "watched", a);
	} else {
		jset_str(o, "why", "unmapped");
	}
	return jrecord(o);
}

/* The fields a doorbell and an untraced record share, in their order. */
static void jset_db_head(struct json_object *o, const char *type,
			 const struct sacc_watch_rec *r)
{
	char bdf[SACC_BDF_MAX];

	fmt_bdf(r->bdf, bdf);
	jset_str(o, "type", type);
	jset_u64(o, "seq", r->seq);
	jset_u64(o, "t_ns", r->t_ns);
	jset_u64(o, "pid", r->pid);
	jset_u64(o, "tid", r->tid);
	jset_str(o, "bdf", bdf);
	if (r->chan == 0xffff)
		jset_null(o, "chan");
	else
		jset_u64(o, "chan", r->chan);
	jset_str(o, "kind",
		 r->kind == SACC_WATCH_KIND_TOKEN ? "token" : "tail");
}

/* A doorbell the module saw but could not capture (ABI 3). */
static int print_untraced_json(const struct sacc_watch_rec *r)
{
	struct json_object *o = jobj();

	jset_db_head(o, "untraced", r);
	if (r->value == 0xffffffff)
		jset_null(o, "value");
	else
		jset_u64(o, "value", r->value);
	jset_str(o, "why", untraced_name(r->value64));
	return jrecord(o);
}

/*
 * A record's descriptors (or a segment's commands) as one JSON array
 * value, written by json-c's serializer hook straight into its output
 * buffer.  A doorbell record may hold 65,535 of them: as one json-c
 * object each (ten members) that cost about 4 us a descriptor on the
 * host and 120 us in the TCG guest, 8 s for one record, far slower than
 * the tracer fills its ring; written here it is about 20 times faster.
 * The text is what the objects gave: the same keys in the same order.
 */
struct desc_array {
	const struct sacc_watch_desc *w;
	uint32_t n;
	bool cmds; /* a segment's: "cmd" (the ordinal) and "slot" */
};

static int desc_array_json(struct json_object *jso, struct printbuf *pb,
			   int level, int flags)
{
	const struct desc_array *a = json_object_get_userdata(jso);
	char buf[320];
	uint32_t i;
	int n;

	(void)level;
	(void)flags;
	printbuf_strappend(pb, "[");
	for (i = 0; i < a->n; i++) {
		const struct sacc_watch_desc *w = &a->w[i];
		struct sacc_desc d;

		desc_of(w, &d);
		if (a->cmds)
			n = snprintf(buf, sizeof(buf),
				     "%s{\"cmd\":%u,\"slot\":%u", i ? "," : "",
				     i, w->index);
		else
			n = snprintf(buf, sizeof(buf), "%s{\"index\":%u",
				     i ? "," : "", w->index);
		n += snprintf(
		    buf + n, sizeof(buf) - n,
		    ",\"opcode\":%u,\"flags\":%u,\"length\":%u,"
		    "\"src\":\"0x%llx\",\"dst\":\"0x%llx\",\"req_id\":%u,"
		    "\"reserved\":%u,\"inline_len\":%u}",
		    d.opcode, d.flags, d.length, (unsigned long long)d.src,
		    (unsigned long long)d.dst, d.req_id, d.reserved,
		    w->inline_len);
		if ((size_t)n >= sizeof(buf) ||
		    printbuf_memappend(pb, buf, n) < 0)
			return -1;
	}
	printbuf_strappend(pb, "]");
	return 0;
}

/* @a (which must outlive the printing) as a member @key of @o. */
static void jset_descs(struct json_object *o, const char *key,
		       struct desc_array *a)
{
	struct json_object *v = jobj();

	if (v)
		json_object_set_serializer(v, desc_array_json, a, NULL);
	jset(o, key, v);
}

static int print_seg_json(const struct sacc_watch_seg *g)
{
	struct desc_array a = {(const void *)(g + 1), g->ncmd, true};
	struct json_object *o = jobj();
	char bdf[SACC_BDF_MAX];

	fmt_bdf(g->bdf, bdf);
	jset_str(o, "type", "segment");
	jset_u64(o, "seq", g->seq);
	jset_u64(o, "t_ns", g->t_ns);
	jset_u64(o, "pid", g->pid);
	jset_u64(o, "tid", g->tid);
	jset_str(o, "bdf", bdf);
	jset_u64(o, "chan", g->chan);
	jset_u64(o, "sq_index", g->sq_index);
	jset_u64(o, "entry_req_id", g->req_id);
	jset_str(o, "where", g->where == SACC_WATCH_SEG_DEV ? "dev" : "host");
	jset_hex(o, "addr", g->addr);
	jset_u64(o, "length", g->length);
	jset_u64(o, "flags", g->flags);
	jset_descs(o, "cmds", &a);
	jset_bool(o, "torn", g->torn != SACC_WATCH_TORN_NONE);
	if (g->torn)
		jset_str(o, "torn_why", torn_name(g->torn));
	return jrecord(o);
}

static int print_json(const struct sacc_watch_rec *r)
{
	struct desc_array a = {(const void *)(r + 1), r->ndesc, false};
	struct json_object *o = jobj();

	if (r->type == SACC_WATCH_REC_ARMED ||
	    r->type == SACC_WATCH_REC_DISARMED) {
		json_object_put(o);
		return print_event_json(r);
	}
	if (r->type == SACC_WATCH_REC_DROPS) {
		jset_str(o, "type", "drops");
		jset_u64(o, "count", r->value64);
		jset_u64(o, "seq", r->seq);
		jset_u64(o, "t_ns", r->t_ns);
		return jrecord(o);
	}
	if (r->type == SACC_WATCH_REC_SEGMENT) {
		json_object_put(o);
		return print_seg_json((const void *)r);
	}
	if (r->type == SACC_WATCH_REC_UNTRACED) {
		json_object_put(o);
		return print_untraced_json(r);
	}
	jset_db_head(o, "doorbell", r);
	jset_u64(o, "old", r->old_tail);
	jset_u64(o, "new", r->new_tail);
	jset_u64(o, "value", r->value);
	jset_descs(o, "descs", &a);
	jset_u64(o, "nseg", r->nseg);
	jset_bool(o, "torn", r->torn != SACC_WATCH_TORN_NONE);
	if (r->torn)
		jset_str(o, "torn_why", torn_name(r->torn));
	return jrecord(o);
}

static void print_desc_text(const struct sacc_watch_desc *w, const char *pre,
			    const char *idx)
{
	struct sacc_desc d;

	desc_of(w, &d);
	printf("%s%s[%u] op %u flags 0x%x len %u src 0x%llx dst 0x%llx "
	       "req_id %u%s",
	       pre, idx, w->index, d.opcode, d.flags, d.length,
	       (unsigned long long)d.src, (unsigned long long)d.dst, d.req_id,
	       d.reserved ? "" : "\n");
	if (d.reserved)
		printf(" reserved 0x%x\n", d.reserved);
	if (w->inline_len)
		printf("%s  inline payload %u bytes\n", pre, w->inline_len);
}

static int print_seg_text(const struct sacc_watch_seg *g)
{
	const struct sacc_watch_desc *w = (const void *)(g + 1);
	uint32_t i;

	printf("#%-8llu   segment of sq[%u] (req_id %u): %s 0x%llx, %u bytes, "
	       "%u command%s%s%s\n",
	       (unsigned long long)g->seq, g->sq_index, g->req_id,
	       g->where == SACC_WATCH_SEG_DEV ? "device memory" : "IOVA",
	       (unsigned long long)g->addr, g->length, g->ncmd,
	       g->ncmd == 1 ? "" : "s", g->torn ? "  TORN: " : "",
	       g->torn ? torn_name(g->torn) : "");
	for (i = 0; i < g->ncmd; i++, w++)
		print_desc_text(w, "      ", "slot");
	return ferror(stdout) ? fail("writing the trace: %s", strerror(errno))
			      : EXIT_OK;
}

static int print_text(const struct sacc_watch_rec *r)
{
	const struct sacc_watch_desc *w = (const void *)(r + 1);
	char bdf[SACC_BDF_MAX];
	uint32_t i;

	if (r->type == SACC_WATCH_REC_SEGMENT)
		return print_seg_text((const void *)r);
	if (r->type == SACC_WATCH_REC_ARMED ||
	    r->type == SACC_WATCH_REC_DISARMED) {
		char w[64];

		fmt_bdf(r->bdf, bdf);
		watched(r->value, w, sizeof(w));
		printf("#%-8llu %llu.%09llu pid %u tid %u %s %s doorbell page "
		       "0x%llx%s%s%s\n",
		       (unsigned long long)r->seq,
		       (unsigned long long)(r->t_ns / 1000000000ull),
		       (unsigned long long)(r->t_ns % 1000000000ull), r->pid,
		       r->tid, bdf,
		       r->type == SACC_WATCH_REC_ARMED
			   ? "watching"
			   : "unmapped, stopped watching",
		       (unsigned long long)r->value64,
		       r->type == SACC_WATCH_REC_ARMED ? " (" : "",
		       r->type == SACC_WATCH_REC_ARMED ? w : "",
		       r->type == SACC_WATCH_REC_ARMED ? ")" : "");
		return EXIT_OK;
	}
	if (r->type == SACC_WATCH_REC_UNTRACED) {
		fmt_bdf(r->bdf, bdf);
		printf("#%-8llu %llu.%09llu pid %u tid %u %s ch %d %s value "
		       "%lld  UNTRACED: %s doorbell (not captured)\n",
		       (unsigned long long)r->seq,
		       (unsigned long long)(r->t_ns / 1000000000ull),
		       (unsigned long long)(r->t_ns % 1000000000ull), r->pid,
		       r->tid, bdf, r->chan == 0xffff ? -1 : (int)r->chan,
		       r->kind == SACC_WATCH_KIND_TOKEN ? "token" : "tail",
		       r->value == 0xffffffff ? -1ll : (long long)r->value,
		       untraced_name(r->value64));
		return EXIT_OK;
	}
	if (r->type == SACC_WATCH_REC_DROPS) {
		printf("#%-8llu LOST %llu records (the ring was full; read "
		       "faster or load the module with a larger ring_kib)\n",
		       (unsigned long long)r->seq,
		       (unsigned long long)r->value64);
		return EXIT_OK;
	}
	fmt_bdf(r->bdf, bdf);
	printf("#%-8llu %llu.%09llu pid %u tid %u %s ch %d %s %u -> %u, %u "
	       "desc%s%s%s\n",
	       (unsigned long long)r->seq,
	       (unsigned long long)(r->t_ns / 1000000000ull),
	       (unsigned long long)(r->t_ns % 1000000000ull), r->pid, r->tid,
	       bdf, r->chan == 0xffff ? -1 : (int)r->chan,
	       r->kind == SACC_WATCH_KIND_TOKEN ? "token" : "tail", r->old_tail,
	       r->new_tail, r->ndesc, r->ndesc == 1 ? "" : "s",
	       r->torn ? "  TORN: " : "", r->torn ? torn_name(r->torn) : "");
	for (i = 0; i < r->ndesc; i++, w++)
		print_desc_text(w, "    ", "sq");
	return ferror(stdout) ? fail("writing the trace: %s", strerror(errno))
			      : EXIT_OK;
}

/* Decode @len bytes of whole records; 0, or 1 for a malformed stream. */
static int emit(const uint8_t *buf, size_t len, const struct trace_cfg *c,
		struct trace_sum *s)
{
	size_t off = 0;

	while (off < len) {
		const struct sacc_watch_rec *r = (const void *)(buf + off);

		if (len - off < sizeof(*r) || r->size < sizeof(*r) ||
		    r->size > len - off ||
		    r->size != sizeof(*r) + (uint64_t)r->ndesc *
						sizeof(struct sacc_watch_desc))
			return fail("malformed tracer record at byte %zu "
				    "(a module of another ABI than %u?)",
				    off, SACC_WATCH_ABI);
		off += r->size;
		s->last_t_ns = r->t_ns;
		if (r->type == SACC_WATCH_REC_DROPS) {
			s->lost += r->value64;
		} else if (r->type == SACC_WATCH_REC_SEGMENT) {
			/* Shown with the doorbell record it follows. */
			if (!s->shown)
				continue;
			s->segs++;
			s->cmds += r->ndesc;
			s->seg_torn += r->torn != SACC_WATCH_TORN_NONE;
		} else if ((r->type != SACC_WATCH_REC_DOORBELL &&
			    r->type != SACC_WATCH_REC_ARMED &&
			    r->type != SACC_WATCH_REC_DISARMED &&
			    r->type != SACC_WATCH_REC_UNTRACED) ||
			   (c->has_pid && r->pid != c->pid)) {
			s->shown = false;
			continue; /* a newer module's record type: skipped */
		} else if (c->count && s->records == c->count) {
			s->shown = false;
			continue;
		} else if (r->type == SACC_WATCH_REC_UNTRACED) {
			s->untraced++;
			s->shown = false;
		} else if (r->type == SACC_WATCH_REC_DOORBELL) {
			s->records++;
			s->descs += r->ndesc;
			s->torn += r->torn != SACC_WATCH_TORN_NONE;
			s->shown = true;
		}
		if (!c->raw && (c->json ? print_json : print_text)(r))
			return EXIT_FAIL;
	}
	/* --raw: every record (no --pid or --count), as read */
	if (c->raw && fwrite(buf, 1, len, stdout) != len)
		return fail("writing the trace: %s", strerror(errno));
	return EXIT_OK;
}

static int trace_stats(int fd, bool json)
{
	struct sacc_watch_stats s;

	if (ioctl(fd, SACC_WATCH_IOC_STATS, &s))
		return fail("%s: stats: %s%s", SACC_WATCH_DEV, strerror(errno),
			    errno == ENOTTY ? " (a module of another ABI than "
					      "this saccctl's? reload it)"
					    : "");
	if (json) {
		struct json_object *o = jobj();

		jset_str(o, "type", "watch_stats");
		jset_u64(o, "records", s.records);
		jset_u64(o, "drops", s.drops);
		jset_u64(o, "torn", s.torn);
		jset_u64(o, "descs", s.descs);
		jset_u64(o, "armed", s.armed);
		jset_u64(o, "arm_failed", s.arm_failed);
		jset_u64(o, "kernel_hits", s.kernel_hits);
		jset_u64(o, "kprobe_missed", s.kprobe_missed);
		jset_u64(o, "bare_traps", s.bare_traps);
		jset_u64(o, "stale_traps", s.stale_traps);
		jset_u64(o, "watching", s.watching);
		jset_u64(o, "ring_bytes", s.ring_bytes);
		jset_u64(o, "max_descs", s.max_descs);
		jset_u64(o, "segments", s.segments);
		jset_u64(o, "seg_cmds", s.seg_cmds);
		jset_u64(o, "seg_torn", s.seg_torn);
		jset_u64(o, "seg_kib", s.seg_kib);
		jset_u64(o, "untraced", s.untraced);
		jset_u64(o, "work_ns", s.work_ns);
		jset_u64(o, "work_max_ns", s.work_max_ns);
		jset_u64(o, "max_ndesc", s.max_ndesc);
		jset_u64(o, "memory_bytes", s.memory_bytes);
		jset_u64(o, "abi", s.abi);
		return jprint(o, JSON_COMPACT);
	}
	printf(
	    "doorbell records  %llu\n"
	    "descriptors       %llu\n"
	    "torn records      %llu\n"
	    "lost (drops)      %llu\n"
	    "processes armed   %llu (watching now %u, not armed %llu)\n"
	    "kernel-mode traps %llu (ignored)\n"
	    "mmap probes missed %llu\n"
	    "bare traps        %llu (trap_only=1: counted, not recorded)\n"
	    "stale traps       %llu (doorbell page unmapped; watch removed)\n"
	    "segment records   %llu (%llu commands, %llu torn)\n"
	    "untraced          %llu (syscall doorbells: seen, not captured)\n"
	    "largest record    %llu descriptors (a record holds up to %u)\n"
	    "handler's work    %.1f us a record on average, %.1f us at most "
	    "(the trap itself not counted)\n"
	    "ring              %u KiB, %u KiB of segments a doorbell; "
	    "%llu KiB allocated for records\n",
	    (unsigned long long)s.records, (unsigned long long)s.descs,
	    (unsigned long long)s.torn, (unsigned long long)s.drops,
	    (unsigned long long)s.armed, s.watching,
	    (unsigned long long)s.arm_failed, (unsigned long long)s.kernel_hits,
	    (unsigned long long)s.kprobe_missed,
	    (unsigned long long)s.bare_traps, (unsigned long long)s.stale_traps,
	    (unsigned long long)s.segments, (unsigned long long)s.seg_cmds,
	    (unsigned long long)s.seg_torn, (unsigned long long)s.untraced,
	    (unsigned long long)s.max_ndesc, s.max_descs,
	    s.records ? (double)s.work_ns / (double)s.records / 1e3 : 0.0,
	    (double)s.work_max_ns / 1e3, s.ring_bytes / 1024, s.seg_kib,
	    (unsigned long long)(s.memory_bytes / 1024));
	return EXIT_OK;
}

static int open_tracer(const struct trace_cfg *c)
{
	int fd = open(SACC_WATCH_DEV,
		      O_RDONLY | O_CLOEXEC | (c->follow ? 0 : O_NONBLOCK));

	if (fd >= 0)
		return fd;
	if (errno == ENOENT)
		fail("%s does not exist: the tracer module is not loaded; "
		     "load it with 'insmod /lib/modules/sacc/sacc_watch.ko' "
		     "(processes that map a doorbell page after that are "
		     "traced)",
		     SACC_WATCH_DEV);
	else
		fail("%s: %s", SACC_WATCH_DEV, strerror(errno));
	return -1;
}

static int read_input(const struct trace_cfg *c, uint8_t *buf, size_t cap,
		      struct trace_sum *s)
{
	FILE *f = fopen(c->input, "rb");
	size_t have = 0, n, off;
	int ret = EXIT_OK;

	if (!f)
		return fail("--input %s: %s", c->input, strerror(errno));
	while (ret == EXIT_OK && (n = fread(buf + have, 1, cap - have, f))) {
		have += n;
		/* Emit the whole records there are, keep the partial one. */
		for (off = 0; have - off >= sizeof(struct sacc_watch_rec);) {
			const struct sacc_watch_rec *r =
			    (const void *)(buf + off);

			if (r->size < sizeof(*r) || r->size > cap)
				return fclose(f), fail("--input %s: malformed "
						       "record at byte %zu",
						       c->input, off);
			if (r->size > have - off)
				break;
			ret = emit(buf + off, r->size, c, s);
			off += r->size;
			if (ret)
				break;
		}
		memmove(buf, buf + off, have - off);
		have -= off;
	}
	if (ret == EXIT_OK && have)
		ret = fail("--input %s: ends inside a record", c->input);
	fclose(f);
	return ret;
}

/*
 * --follow was stopped by a signal.  A reader is often behind the traced
 * processes (a trap takes tens of microseconds under TCG, printing a
 * record as long), so the module may still hold thousands of records
 * trapped before the signal: read them, without waiting, until the ring
 * is empty or a record trapped after the signal shows the backlog is out
 * (the traced process may still be running, and would keep the ring
 * from ever emptying).  A second signal stops the drain.
 */
static int drain_after_signal(const struct trace_cfg *c, int fd, uint8_t *buf,
			      size_t cap, struct trace_sum *s)
{
	uint64_t before = s->records;
	int fl = fcntl(fd, F_GETFL), ret = EXIT_OK;
	bool cut = false;
	ssize_t n;

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return fail("%s: %s", SACC_WATCH_DEV, strerror(errno));
	while (!(c->count && s->records >= c->count)) {
		if (trace_stop > 1) {
			cut = true;
			break;
		}
		n = read(fd, buf, cap);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break; /* the ring is empty */
		if (n < 0) {
			ret = fail("reading %s: %s", SACC_WATCH_DEV,
				   strerror(errno));
			break;
		}
		ret = emit(buf, (size_t)n, c, s);
		if (ret || s->last_t_ns > trace_stop_ns)
			break;
	}
	fflush(stdout);
	fprintf(stderr,
		"saccctl trace: %s: drained %llu doorbell records the module "
		"still held%s\n",
		trace_sig == SIGTERM ? "SIGTERM" : "SIGINT",
		(unsigned long long)(s->records - before),
		cut ? " (a second signal stopped the drain: the module may "
		      "hold more)"
		    : "");
	return ret;
}

static int read_device(const struct trace_cfg *c, int fd, uint8_t *buf,
		       size_t cap, struct trace_sum *s)
{
	struct sigaction sa = {.sa_handler = on_signal};
	ssize_t n;
	int ret;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL); /* no SA_RESTART: poll returns */
	sigaction(SIGTERM, &sa, NULL);
	while (!trace_stop && !(c->count && s->records >= c->count)) {
		if (c->follow) {
			struct pollfd p = {.fd = fd, .events = POLLIN};

			fflush(stdout);
			if (poll(&p, 1, 250) <= 0)
				continue; /* timeout, EINTR: check the flag */
		}
		n = read(fd, buf, cap);
		if (n < 0 && (errno == EINTR || (c->follow && errno == EAGAIN)))
			continue;
		if (n < 0 && errno == EAGAIN)
			break; /* drained */
		if (n < 0 && errno == EBUSY)
			return fail("%s: another 'saccctl trace' is reading "
				    "(records go to one reader); stop it first",
				    SACC_WATCH_DEV);
		if (n < 0)
			return fail("reading %s: %s", SACC_WATCH_DEV,
				    strerror(errno));
		ret = emit(buf, (size_t)n, c, s);
		if (ret)
			return ret;
	}
	if (c->follow && trace_stop)
		return drain_after_signal(c, fd, buf, cap, s);
	return EXIT_OK;
}

/* The options of saccctl trace into @c: -1 to go on, else an exit status. */
static int trace_opts(int argc, char **argv, struct trace_cfg *cfg)
{
	static const struct option lo[] = {
	    {"pid", required_argument, NULL, 'p'},
	    {"json", no_argument, NULL, 'j'},
	    {"follow", no_argument, NULL, 'f'},
	    {"count", required_argument, NULL, 'n'},
	    {"stats", no_argument, NULL, 's'},
	    {"input", required_argument, NULL, 'i'},
	    {"raw", no_argument, NULL, 'r'},
	    {"poll", required_argument, NULL, 'P'},
	    {"device", required_argument, NULL, 'd'},
	    {"seconds", required_argument, NULL, 'S'},
	    {"channels", required_argument, NULL, 'c'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct trace_cfg c = {0};
	int ch;

	while ((ch = cmd_getopt(argc, argv, "h", lo, usage_trace)) != -1) {
		switch (ch) {
		case 'p':
			if (!parse_u64(optarg, &c.pid) || c.pid > INT32_MAX)
				return usage_error(usage_trace, "trace",
						   "--pid '%s' is not a pid",
						   optarg);
			c.has_pid = true;
			break;
		case 'n':
			if (!parse_u64(optarg, &c.count) || !c.count)
				return usage_error(usage_trace, "trace",
						   "--count must be a number "
						   ">= 1, not '%s'",
						   optarg);
			break;
		case 'j':
			c.json = true;
			break;
		case 'f':
			c.follow = true;
			break;
		case 's':
			c.stats = true;
			break;
		case 'i':
			c.input = optarg;
			break;
		case 'r':
			c.raw = true;
			break;
		case 'P':
			if (!parse_u64(optarg, &c.poll_hz) || !c.poll_hz ||
			    c.poll_hz > 1000000)
				return usage_error(usage_trace, "trace",
						   "--poll must be 1..1000000 "
						   "samples a second, not '%s'",
						   optarg);
			break;
		case 'd':
			c.device = optarg;
			break;
		case 'S': {
			char *e;

			c.seconds = strtod(optarg, &e);
			if (*e || !(c.seconds > 0))
				return usage_error(usage_trace, "trace",
						   "--seconds must be > 0, "
						   "not '%s'",
						   optarg);
			break;
		}
		case 'c':
			if (!parse_u64(optarg, &c.nchan) || !c.nchan ||
			    c.nchan > SACC_WATCH_SAMPLE_CHANS)
				return usage_error(usage_trace, "trace",
						   "--channels must be 1..%u, "
						   "not '%s'",
						   SACC_WATCH_SAMPLE_CHANS,
						   optarg);
			break;
		case 'h':
			usage_trace(stdout);
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return usage_error(usage_trace, "trace",
				   "unexpected argument '%s'", argv[optind]);
	if (c.input && (c.follow || c.stats))
		return usage_error(
		    usage_trace, "trace",
		    "--input takes neither --follow nor --stats");
	if (c.raw &&
	    (c.input || c.stats || c.json || c.has_pid || c.count || c.poll_hz))
		return usage_error(usage_trace, "trace",
				   "--raw writes every record as read: only "
				   "with --follow");
	if (!!c.poll_hz != !!c.device ||
	    (c.poll_hz && (c.input || c.follow || c.stats || c.count)) ||
	    (!c.poll_hz && (c.seconds > 0 || c.nchan)))
		return usage_error(usage_trace, "trace",
				   "--poll HZ needs --device BDF (and takes "
				   "--seconds and --channels, nothing else)");
	*cfg = c;
	return -1;
}

int cmd_trace(int argc, char **argv)
{
	struct trace_cfg c;
	struct trace_sum s = {0};
	size_t cap = SACC_WATCH_READ_MIN;
	uint8_t *buf;
	int fd = -1, ret;

	ret = trace_opts(argc, argv, &c);
	if (ret >= 0)
		return ret;
	if (!c.input) {
		fd = open_tracer(&c);
		if (fd < 0)
			return EXIT_FAIL;
	}
	if (c.stats) {
		ret = trace_stats(fd, c.json);
		close(fd);
		return ret;
	}
	if (c.poll_hz) {
		ret = trace_poll(fd, c.poll_hz, c.device, c.seconds,
				 c.nchan ? (unsigned int)c.nchan
					 : SACC_WATCH_SAMPLE_CHANS);
		close(fd);
		return ret;
	}
	buf = malloc(cap);
	if (!buf) {
		if (fd >= 0)
			close(fd);
		return fail("out of memory");
	}
	ret = c.input ? read_input(&c, buf, cap, &s)
		      : read_device(&c, fd, buf, cap, &s);
	free(buf);
	if (fd >= 0)
		close(fd);
	if (fflush(stdout) && !ret)
		ret = fail("writing the trace: %s", strerror(errno));
	fprintf(stderr,
		"saccctl trace: %llu doorbell records, %llu descriptors, %llu "
		"torn, %llu lost, %llu untraced; %llu segments, %llu commands, "
		"%llu torn\n",
		(unsigned long long)s.records, (unsigned long long)s.descs,
		(unsigned long long)s.torn, (unsigned long long)s.lost,
		(unsigned long long)s.untraced, (unsigned long long)s.segs,
		(unsigned long long)s.cmds, (unsigned long long)s.seg_torn);
	if (!ret && s.lost)
		ret = EXIT_LOST;
	return ret;
}

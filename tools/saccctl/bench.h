/* SPDX-License-Identifier: MIT */
/* bench.h - saccctl bench's configuration and its modes. */
#ifndef SACCCTL_BENCH_H
#define SACCCTL_BENCH_H

#include "saccctl.h"

/* No completion for this long with work outstanding: the bench fails */
#define STALL_NS (5ull * 1000000000ull)

#define BENCH_SWEEP_MAX	 32
#define BENCH_REPEAT_MAX 100
#define BENCH_LOAD_MAX	 8

/* --sq-write's, --graph's and --where's long options (past struct
 * op_args's, saccctl.h) */
enum { OPT_SQ_WRITE = 0x120, OPT_GRAPH, OPT_WHERE, OPT_DEVTIME };

/* --graph's N when none is given */
#define BENCH_GRAPH_DEFAULT "1,10,100,1000,2000"
/* --graph's launches per style and N when --repeat is not given */
#define BENCH_GRAPH_REPEAT 7

/* --load CH:OP:SIZE: channel CH kept busy while the bench measures
 * (bench_load.c) */
struct bench_load {
	unsigned int chan;
	uint16_t op;
	uint64_t size;
	/* while it runs */
	struct sacc_dev *h;
	struct sacc_buf *src, *dst;
	uint64_t ops, t0, last; /* last: its latest completion */
	double secs;
	char err[256];
};

/* --events FILE: libsacc's API events and clock-sync samples as JSON
 * Lines (bench_events.c; docs/telemetry.md).  Every call is a no-op
 * when f is NULL (no --events). */
struct bench_events {
	FILE *f;
	const char *path;
	uint32_t capacity;	/* ring per handle (--events-max) */
	struct sacc_event *buf; /* drain scratch */
	uint64_t written;	/* event lines */
	uint64_t syncs;		/* sync lines */
	uint64_t drops;		/* summed over the handles at the end */
};

struct bench_cfg {
	const char *bdf;
	struct op_args a;
	uint64_t qd;
	bool irq, json;
	double seconds;
	unsigned int channels; /* --channels: threads, one channel each */
	uint64_t chain;	       /* --chain N: 0 = off */
	uint64_t sweep[BENCH_SWEEP_MAX];
	unsigned int nsweep; /* --sweep sizes, 0 = off */
	bool breakdown;	     /* --breakdown (sizes in sweep[] if given) */
	bool devtime;	     /* --sweep --device-time: the paper's way */
	unsigned int repeat; /* --repeat N: runs (1 = one run) */
	bool db_store;	     /* --doorbell-store: time the bare store */
	bool reg_read;	     /* --reg-read: a register read per doorbell */
	struct bench_load load[BENCH_LOAD_MAX]; /* --load */
	unsigned int nload;
	struct bench_events ev;
	uint64_t sqw[BENCH_SWEEP_MAX]; /* --sq-write N,...: 0 = off */
	unsigned int nsqw;
	uint64_t graph[BENCH_SWEEP_MAX]; /* --graph N,...: 0 = off */
	unsigned int ngraph;
	bool graph_dev; /* --where dev: the segment in device memory */
};

/* The figures of one run: what --repeat gives the spread of. */
enum bench_fig {
	F_OPS_S,
	F_MIB_S,
	F_DB_OP,
	F_IRQ_OP,
	F_LAT_AVG,
	F_LAT_MIN,
	F_LAT_MAX,
	F_LAT_P50,
	F_LAT_P90,
	F_LAT_P99,
	F_LAT_P999,
	F_ENG_AVG,
	F_ENG_P50,
	F_ENG_P99,
	F_SECS,
	F_OPS,
	F_FAILED,
	F_DB_STORE,
	F_RS_P50, /* --reg-read: STATUS */
	F_RS_P99,
	F_RS_MAX,
	F_RC_P50, /* --reg-read: CLOCK */
	F_RC_P99,
	F_RC_MAX,
	NFIG
};

/* bench_report.c: the plain bench's output (@data: the op moves bytes;
 * @mc: the guest memcpy() reference, MiB/s) */
void bench_json_head(struct json_object *o, const struct bench_cfg *c,
		     bool data);
void bench_json_run(struct json_object *o, const double f[NFIG],
		    const struct bench_cfg *c, bool data, double mc);
void bench_print_run(const double f[NFIG], const struct bench_cfg *c,
		     bool data, double mc, const char *label);
int bench_print_repeat(double (*f)[NFIG], const struct bench_cfg *c,
		       bool data, double mc, const char *label);

/* bench_modes.c; each prints its report; 0 or 1 */
int bench_channels(struct bench_cfg *c, struct sacc_dev *root,
		   struct sacc_dev *h0);
int bench_chain(const struct bench_cfg *c, struct sacc_dev *h);
int bench_sweep(const struct bench_cfg *c, struct sacc_dev *h);
/* bench_devtime.c: --sweep --device-time, WRITE_INLINE against MEMCPY
 * timed by TIMESTAMPs inside one segment, beside their API time */
int bench_devtime(const struct bench_cfg *c, struct sacc_dev *h);

/* bench_sqwrite.c: --sq-write, the CPU's cost of writing descriptors
 * into the SQ (host memory or device memory, --ring); 0 or 1 */
int bench_sq_write(const struct bench_cfg *c, struct sacc_dev *h);

/* bench_graph.c: --graph, N ops launched per op, as a chain and as a
 * graph (one SEGMENT entry); 0 or 1 */
int bench_graph(const struct bench_cfg *c, struct sacc_dev *h);
/* --graph's optional list (optarg, or the next word of @argv if it is
 * digits and commas): 0 or usage_error()'s 2. */
int bench_graph_option(int argc, char **argv, struct bench_cfg *c);
/* The options --graph goes with, and --where without it: 0 or 2. */
int bench_graph_check(const struct bench_cfg *c, bool sweep, bool where);

/* "0000:00:03.0 memcpy 4 KiB" and, off the default, where the bytes go
 * ("H2D", "D2D", "to dev"): the bench's label. */
void bench_label(const struct bench_cfg *c, bool data, char *buf, size_t len);

/* bench_breakdown.c: API time against engine time per size; 0 or 1 */
int bench_breakdown(struct bench_cfg *c, struct sacc_dev *h);

/* bench_events.c: 0, or fail()'s 1 with the message printed. */
int bev_open(struct bench_events *e, const char *path, uint32_t capacity);
/* Turn recording on for handle @h. */
int bev_attach(struct bench_events *e, struct sacc_dev *h);
/* Write every event pending in @h's ring. */
int bev_drain(struct bench_events *e, struct sacc_dev *h);
/* A clock-sync sample on @h (nothing outstanding), its events drained. */
int bev_sync(struct bench_events *e, struct sacc_dev *h);
/* Drain @h, write its drops line, turn its recording off. */
int bev_finish(struct bench_events *e, struct sacc_dev *h);
/* bev_finish() each of @hs, close the file, a note on
 * stderr.  Safe to call when bev_open() was not. */
int bev_close(struct bench_events *e, struct sacc_dev *const *hs,
	      unsigned int n);

/* bench_load.c.  "CH:OP:SIZE" into @l: 0, or -1 if malformed. */
int bench_load_parse(const char *arg, struct bench_load *l);
/* Open each load's channel (not @busy_chan, the measured one) and fill
 * its ring: 0, or fail()'s 1 (bench_load_stop() cleans up). */
int bench_load_start(struct bench_load *l, unsigned int n,
		     struct sacc_dev *root, unsigned int busy_chan);
/* Reap and top up every load's ring (from the measuring loop, when its
 * own poll found nothing): 0, or fail()'s 1 if a load failed. */
int bench_load_service(struct bench_load *l, unsigned int n);
/* Close each (its ring abandoned). */
void bench_load_stop(struct bench_load *l, unsigned int n);
void bench_load_json(struct json_object *o, const struct bench_load *l,
		     unsigned int n);
void bench_load_print(const struct bench_load *l, unsigned int n);

/* min, median, max of @v[0..n) (sorted in place). */
void bench_spread(double *v, unsigned int n, double out[3]);

#endif /* SACCCTL_BENCH_H */

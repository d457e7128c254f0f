// SPDX-License-Identifier: MIT
/*
 * bench_report.c - how the plain bench reports: its figures' names and
 * units, one run as text (SPDK perf's layout) or JSON, and --repeat's
 * min / median / max of every figure.
 */
#include <string.h>

#include "bench.h"

static const struct figdesc {
	const char *group; /* JSON object it is in, NULL: top level */
	const char *key;
	const char *label; /* human output */
	double scale;	   /* human output: value * scale */
	const char *fmt;   /* JSON */
} figs[NFIG] = {
    [F_OPS_S] = {NULL, "ops_per_sec", "ops/s", 1, "%.1f"},
    [F_MIB_S] = {NULL, "mib_per_sec", "MiB/s", 1, "%.3f"},
    [F_DB_OP] = {NULL, "doorbells_per_op", "doorbells per op", 1, "%.4f"},
    [F_IRQ_OP] = {NULL, "interrupts_per_op", "interrupts per op", 1, "%.4f"},
    [F_LAT_AVG] = {"lat_ns", "avg", "latency avg (us)", 1e-3, "%.1f"},
    [F_LAT_MIN] = {"lat_ns", "min", "latency min (us)", 1e-3, "%.0f"},
    [F_LAT_MAX] = {"lat_ns", "max", "latency max (us)", 1e-3, "%.0f"},
    [F_LAT_P50] = {"lat_ns", "p50", "latency p50 (us)", 1e-3, "%.0f"},
    [F_LAT_P90] = {"lat_ns", "p90", "latency p90 (us)", 1e-3, "%.0f"},
    [F_LAT_P99] = {"lat_ns", "p99", "latency p99 (us)", 1e-3, "%.0f"},
    [F_LAT_P999] = {"lat_ns", "p999", "latency p99.9 (us)", 1e-3, "%.0f"},
    [F_ENG_AVG] = {"engine_ns", "avg", "engine avg (us)", 1e-3, "%.1f"},
    [F_ENG_P50] = {"engine_ns", "p50", "engine p50 (us)", 1e-3, "%.0f"},
    [F_ENG_P99] = {"engine_ns", "p99", "engine p99 (us)", 1e-3, "%.0f"},
    [F_SECS] = {NULL, "seconds", "seconds", 1, "%.3f"},
    [F_OPS] = {NULL, "ops", "operations", 1, "%.0f"},
    [F_FAILED] = {NULL, "failed", "failed", 1, "%.0f"},
    [F_DB_STORE] = {NULL, "doorbell_store_ns", "doorbell store (ns)", 1,
		    "%.1f"},
    [F_RS_P50] = {"reg_status_ns", "p50", "STATUS read p50 (us)", 1e-3, "%.0f"},
    [F_RS_P99] = {"reg_status_ns", "p99", "STATUS read p99 (us)", 1e-3, "%.0f"},
    [F_RS_MAX] = {"reg_status_ns", "max", "STATUS read max (us)", 1e-3, "%.0f"},
    [F_RC_P50] = {"reg_clock_ns", "p50", "CLOCK read p50 (us)", 1e-3, "%.0f"},
    [F_RC_P99] = {"reg_clock_ns", "p99", "CLOCK read p99 (us)", 1e-3, "%.0f"},
    [F_RC_MAX] = {"reg_clock_ns", "max", "CLOCK read max (us)", 1e-3, "%.0f"},
};

/* The figures only --reg-read makes */
static bool reg_fig(int k)
{
	return k >= F_RS_P50 && k <= F_RC_MAX;
}

/* The bench's settings, first in every --json object. */
void bench_json_head(struct json_object *o, const struct bench_cfg *c,
		     bool data)
{
	jset_str(o, "bdf", c->bdf);
	jset_str(o, "op", sacc_opcode_str(c->a.op));
	jset_u64(o, "size", data ? c->a.size : 0);
	jset_u64(o, "batch", c->a.batch);
	jset_u64(o, "queue_depth", c->qd);
	jset_str(o, "doorbell", doorbell_name(c->a.doorbell));
	jset_bool(o, "irq", c->irq);
	/* v0.4: where the bytes and the SQ are */
	jset_str(o, "src", mem_name(c->a.src_dev));
	jset_str(o, "dst", mem_name(c->a.dst_dev));
	jset_str(o, "ring", mem_name(c->a.ring_dev));
	if (c->a.op == SACC_OP_FILL)
		jset_hex(o, "pattern", c->a.pattern);
}

void bench_label(const struct bench_cfg *c, bool data, char *buf, size_t len)
{
	bool copy = c->a.op == SACC_OP_MEMCPY || c->a.op == SACC_OP_XFORM;
	char sz[32], dir[16] = "";

	if (copy && (c->a.src_dev || c->a.dst_dev))
		snprintf(dir, sizeof(dir), " %c2%c", c->a.src_dev ? 'D' : 'H',
			 c->a.dst_dev ? 'D' : 'H');
	else if (c->a.dst_dev)
		snprintf(dir, sizeof(dir), " to dev");
	snprintf(buf, len, "%s %s%s%s%s", c->bdf, sacc_opcode_str(c->a.op),
		 data ? " " : "",
		 data ? sacc_fmt_bytes(c->a.size, sz, sizeof(sz)) : "", dir);
}

/* One run as bench --json has always printed it (@o: bench_json_head()). */
void bench_json_run(struct json_object *o, const double f[NFIG],
		    const struct bench_cfg *c, bool data, double mc)
{
	struct json_object *lat = jobj(), *eng = jobj();

	jset_double(o, "seconds", f[F_SECS], "%.3f");
	jset_u64(o, "ops", (uint64_t)f[F_OPS]);
	jset_u64(o, "failed", (uint64_t)f[F_FAILED]);
	jset_double(o, "ops_per_sec", f[F_OPS_S], "%.1f");
	jset_double(o, "mib_per_sec", f[F_MIB_S], "%.3f");
	jset_double(o, "doorbells_per_op", f[F_DB_OP], "%.4f");
	jset_double(o, "interrupts_per_op", f[F_IRQ_OP], "%.4f");
	if (c->db_store)
		jset_double(o, "doorbell_store_ns", f[F_DB_STORE], "%.1f");
	jset_double(lat, "avg", f[F_LAT_AVG], "%.1f");
	jset_u64(lat, "min", (uint64_t)f[F_LAT_MIN]);
	jset_u64(lat, "max", (uint64_t)f[F_LAT_MAX]);
	jset_u64(lat, "p50", (uint64_t)f[F_LAT_P50]);
	jset_u64(lat, "p90", (uint64_t)f[F_LAT_P90]);
	jset_u64(lat, "p99", (uint64_t)f[F_LAT_P99]);
	jset_u64(lat, "p999", (uint64_t)f[F_LAT_P999]);
	jset(o, "lat_ns", lat);
	/* the device's own time per op (CQE engine time, MODE.V3) */
	jset_double(eng, "avg", f[F_ENG_AVG], "%.1f");
	jset_u64(eng, "p50", (uint64_t)f[F_ENG_P50]);
	jset_u64(eng, "p99", (uint64_t)f[F_ENG_P99]);
	jset(o, "engine_ns", eng);
	if (c->reg_read) {
		for (int k = F_RS_P50; k <= F_RC_MAX; k += 3) {
			struct json_object *g = jobj();

			jset_u64(g, "p50", (uint64_t)f[k]);
			jset_u64(g, "p99", (uint64_t)f[k + 1]);
			jset_u64(g, "max", (uint64_t)f[k + 2]);
			jset(o, figs[k].group, g);
		}
	}
	jset_u64(o, "memcpy_size", c->a.size);
	jset_double(o, "memcpy_mib_per_sec", mc, "%.1f");
	if (data)
		jset_double(o, "device_vs_memcpy", mc > 0 ? f[F_MIB_S] / mc : 0,
			    "%.6f");
	else
		jset_null(o, "device_vs_memcpy");
}

void bench_print_run(const double f[NFIG], const struct bench_cfg *c, bool data,
		     double mc, const char *label)
{
	char sz[32];

	printf("========================================================"
	       "================================\n");
	printf("%-31s   %11s %10s %32s\n", "", "", "", "Latency(us)");
	printf("%-31s : %11s %10s %10s %10s %10s\n", "Device Information",
	       "ops/s", "MiB/s", "Average", "min", "max");
	printf("%-31s : %11.2f %10.2f %10.2f %10.2f %10.2f\n", label,
	       f[F_OPS_S], f[F_MIB_S], f[F_LAT_AVG] / 1e3, f[F_LAT_MIN] / 1e3,
	       f[F_LAT_MAX] / 1e3);
	printf("========================================================"
	       "================================\n\n");
	printf("Summary latency data for %s:\n", label);
	printf("========================================================"
	       "=========================\n");
	printf("%15.5f%% : %12.3fus\n", 50.0, f[F_LAT_P50] / 1e3);
	printf("%15.5f%% : %12.3fus\n", 90.0, f[F_LAT_P90] / 1e3);
	printf("%15.5f%% : %12.3fus\n", 99.0, f[F_LAT_P99] / 1e3);
	printf("%15.5f%% : %12.3fus\n\n", 99.9, f[F_LAT_P999] / 1e3);
	printf("operations           %llu (%llu failed)\n",
	       (unsigned long long)f[F_OPS], (unsigned long long)f[F_FAILED]);
	printf("doorbells per op     %.3f\n", f[F_DB_OP]);
	if (f[F_DB_STORE] > 0)
		printf("doorbell store       %.0f ns (the tail re-rung, "
		       "nothing in flight)\n",
		       f[F_DB_STORE]);
	printf("interrupts per op    %.3f\n", f[F_IRQ_OP]);
	printf("engine time (device) %.3fus avg, %.3fus p50, %.3fus p99\n",
	       f[F_ENG_AVG] / 1e3, f[F_ENG_P50] / 1e3, f[F_ENG_P99] / 1e3);
	if (c->reg_read)
		printf("register read        STATUS %.3fus p50, %.3fus p99, "
		       "%.3fus max; CLOCK %.3fus p50, %.3fus p99, %.3fus max\n",
		       f[F_RS_P50] / 1e3, f[F_RS_P99] / 1e3, f[F_RS_MAX] / 1e3,
		       f[F_RC_P50] / 1e3, f[F_RC_P99] / 1e3, f[F_RC_MAX] / 1e3);

	printf("guest memcpy() %-6s %.1f MiB/s",
	       sacc_fmt_bytes(c->a.size, sz, sizeof(sz)), mc);
	if (data)
		printf("   (device: %.2f%% of memcpy)\n",
		       mc > 0 ? f[F_MIB_S] / mc * 100 : 0);
	else
		printf("   (reference only: nop moves no data)\n");
}

/* --repeat N: every figure's min / median / max over the runs. */
int bench_print_repeat(double (*f)[NFIG], const struct bench_cfg *c, bool data,
		       double mc, const char *label)
{
	double v[BENCH_REPEAT_MAX], s[3];
	unsigned int n = c->repeat;
	static const int shown[] = {
	    F_OPS_S,   F_MIB_S,	   F_LAT_AVG,  F_LAT_MIN, F_LAT_P50, F_LAT_P90,
	    F_LAT_P99, F_LAT_P999, F_LAT_MAX,  F_ENG_AVG, F_ENG_P50, F_ENG_P99,
	    F_DB_OP,   F_IRQ_OP,   F_DB_STORE, F_RS_P50,  F_RS_P99,  F_RS_MAX,
	    F_RC_P50,  F_RC_P99,   F_RC_MAX,   F_OPS};

	if (c->json) {
		/* the objects figures are grouped in, in this order */
		static const char *const groups[] = {
		    "lat_ns", "engine_ns", "reg_status_ns", "reg_clock_ns"};
		struct json_object *o = jobj(), *runs = jarr(), *grp[4];
		unsigned int ngroups = c->reg_read ? 4 : 2;

		for (unsigned int g = 0; g < 4; g++)
			grp[g] = g < ngroups ? jobj() : NULL;
		bench_json_head(o, c, data);
		jset_u64(o, "repeat", n);
		for (int k = 0; k < NFIG; k++) {
			struct json_object *m, *dst = o;

			if ((k == F_DB_STORE && !c->db_store) ||
			    (reg_fig(k) && !c->reg_read))
				continue;
			m = jobj();
			for (unsigned int r = 0; r < n; r++)
				v[r] = f[r][k];
			bench_spread(v, n, s);
			jset_double(m, "min", s[0], figs[k].fmt);
			jset_double(m, "median", s[1], figs[k].fmt);
			jset_double(m, "max", s[2], figs[k].fmt);
			for (unsigned int g = 0; figs[k].group && g < 4; g++)
				if (!strcmp(figs[k].group, groups[g]))
					dst = grp[g];
			jset(dst, figs[k].key, m);
		}
		for (unsigned int g = 0; g < ngroups; g++)
			jset(o, groups[g], grp[g]);
		jset_u64(o, "memcpy_size", c->a.size);
		jset_double(o, "memcpy_mib_per_sec", mc, "%.1f");
		for (unsigned int r = 0; r < n; r++) {
			struct json_object *e = jobj();

			bench_json_run(e, f[r], c, data, mc);
			jpush(runs, e);
		}
		jset(o, "runs", runs);
		if (c->nload)
			bench_load_json(o, c->load, c->nload);
		return jprint(o, JSON_SPACED);
	}
	printf("%d runs of %.1f s each: min / median / max over the runs\n\n",
	       n, c->seconds);
	printf("%-22s %14s %14s %14s\n", label, "min", "median", "max");
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		int k = shown[i];

		if ((k == F_DB_STORE && !c->db_store) ||
		    (reg_fig(k) && !c->reg_read))
			continue;
		for (unsigned int r = 0; r < n; r++)
			v[r] = f[r][k] * figs[k].scale;
		bench_spread(v, n, s);
		printf("%-22s %14.3f %14.3f %14.3f\n", figs[k].label, s[0],
		       s[1], s[2]);
	}
	printf("guest memcpy() %.1f MiB/s (one measurement)\n", mc);
	bench_load_print(c->load, c->nload);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * test_driver.c - in-guest Check suite for libsacc against the real SACC
 * device (QEMU model) behind QEMU's intel-iommu, through vfio-pci.
 *
 * Run by ci/test as `ci/vm --devices 2 -- /opt/sacc/tests/sacc-guest-driver`.
 * Every test runs in its own process (CK_FORK), opens what it needs and
 * checks behaviour, not just return codes: data is verified byte for
 * byte (with canaries around every destination), counters are compared
 * with what the test did, faults with the device's fault record and the
 * mapping registry, pinned memory with the kernel's VmLck.
 *
 * Reproduce a random run with SACC_TEST_SEED=<seed> (printed at start).
 */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <linux/vfio.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest_util.h"
#include "libsacc.h"
#include "libsacc_unsafe.h" /* raw submits, DMA context, doorbell page */

#define KiB 1024u
#define MiB (1024u * 1024u)

#define REAP_TIMEOUT_MS 60000 /* TCG is slow; a hang must still end */
#define CANARY		0xa5
#define MARGIN		64 /* canary bytes each side of a destination */

/* ------------------------------------------------------------------ */
/* small helpers                                                       */
/* ------------------------------------------------------------------ */

/* xorshift64*: reproducible from the seed printed by main(). */
static uint64_t seed = 0x5acc5eed2024ull;
static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

static void fill_random(void *p, size_t n)
{
	uint8_t *b = p;
	uint64_t v;

	while (n >= 8) {
		v = rnd();
		memcpy(b, &v, 8);
		b += 8;
		n -= 8;
	}
	v = rnd();
	memcpy(b, &v, n);
}

/* Log-uniform length in 1..max: a uniformly chosen octave, then
 * uniform inside it (the top octave is max itself). */
static uint32_t rand_len(uint32_t max)
{
	unsigned int top = 0, k;
	uint32_t lo, hi;

	while ((2u << top) <= max)
		top++;
	k = (unsigned int)(rnd() % (top + 1));
	lo = 1u << k;
	hi = k == 31 ? UINT32_MAX : (2u << k) - 1;
	if (hi > max)
		hi = max;
	return lo + (uint32_t)(rnd() % (hi - lo + 1));
}

static unsigned int octave(uint32_t len)
{
	unsigned int k = 0;

	while (len >>= 1)
		k++;
	return k;
}

/* A "Vm...: N kB" field of /proc/self/status in KiB, or -1. */
static long status_kb(const char *field)
{
	char line[256], fmt[64];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -1;
	snprintf(fmt, sizeof(fmt), "%s: %%ld kB", field);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* VmLck: what VFIO type1 charges for pinning. */
static long vmlck_kb(void)
{
	return status_kb("VmLck");
}

/* VmSize: leaked buffer memory shows here. */
static long vmsize_kb(void)
{
	return status_kb("VmSize");
}

static bool contains(const char *hay, const char *needle)
{
	return hay && needle && strstr(hay, needle);
}

#define assert_msg_has(msg, needle)                                            \
	ck_assert_msg(contains((msg), (needle)),                               \
		      "message lacks \"%s\": \"%s\"", (needle), (msg))

/* Per-test timing, printed when a test passes (teardown). */
static const char *cur_test = "?";
static uint64_t cur_t0;

#define BEGIN()                                                                \
	do {                                                                   \
		cur_test = __func__;                                           \
		cur_t0 = sacc_monotonic_ns();                                             \
		rng = seed ^ (uint64_t)__LINE__ * 0x9e3779b97f4a7c15ull;       \
		if (!rng)                                                      \
			rng = 1;                                               \
	} while (0)

static void tc_setup(void)
{
	cur_t0 = sacc_monotonic_ns();
}

static void tc_teardown(void)
{
	fprintf(stderr, "    %-32s %7.2f s\n", cur_test,
		(double)(sacc_monotonic_ns() - cur_t0) / 1e9);
}

/* ------------------------------------------------------------------ */
/* doorbell syscalls: count them (and fail them on demand)             */
/* ------------------------------------------------------------------ */

/*
 * libsacc's syscall doorbell is pwrite(device_fd, &tail, 4, BAR0 +
 * 0x1000) (VFIO region index 0, so file offset 0x1000).  The static link
 * lets this definition stand in for libc's, so the test sees every
 * doorbell that really entered the kernel, independently of libsacc's
 * own counters.  Everything is forwarded unchanged unless a failure is
 * injected.
 */
static unsigned long db_pwrites;
static int db_fail_errno;

static bool is_doorbell_write(size_t n, off_t off)
{
	return n == 4 && off == (off_t)SACC_DOORBELL_OFFSET;
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	if (is_doorbell_write(n, off)) {
		db_pwrites++;
		if (db_fail_errno) {
			errno = db_fail_errno;
			return -1;
		}
	}
	return syscall(SYS_pwrite64, fd, buf, n, off);
}

/* ------------------------------------------------------------------ */
/* device helpers                                                      */
/* ------------------------------------------------------------------ */

static uint8_t *va(const struct sacc_buf *b)
{
	return sacc_buf_va(b);
}

static uint32_t reg(struct sacc_dev *dev, uint32_t off)
{
	uint32_t v = 0;

	ck_assert_int_eq(sacc_reg_read(dev, off, &v), 0);
	return v;
}

static void reg_set(struct sacc_dev *dev, uint32_t off, uint32_t v)
{
	ck_assert_int_eq(sacc_reg_write(dev, off, v), 0);
}

/* The registry entry of a live mapping (rings included). */
static struct sacc_map_entry mapping_at(struct sacc_dev *dev, uint64_t iova)
{
	struct sacc_map_entry e;
	struct sacc_dma_ctx *ctx = sacc_dev_dma(dev);

	ck_assert_ptr_nonnull(ctx);
	ck_assert_msg(sacc_dma_registry_find(sacc_dma_ctx_registry(ctx), iova,
					     &e) == 0,
		      "no mapping starts at IOVA 0x%" PRIx64, iova);
	return e;
}

static uint64_t process_pinned(struct sacc_dev *dev)
{
	struct sacc_dma_stats st;

	sacc_dma_ctx_stats(sacc_dev_dma(dev), &st);
	return st.process_pinned_bytes;
}

/* Reap exactly @n results (bounded), or fail with libsacc's message. */
static void reap_n(struct sacc_dev *dev, struct sacc_result *out,
		   unsigned int n)
{
	int got = guest_reap(dev, out, n, REAP_TIMEOUT_MS);

	ck_assert_msg(got >= 0, "sacc_poll: %d: %s", got, sacc_errmsg(dev));
	if ((unsigned int)got != n)
		ck_abort_msg("only %d of %u completions within %d ms "
			     "(outstanding %u, STATUS 0x%x, ERR_CODE %u)",
			     got, n, REAP_TIMEOUT_MS, sacc_outstanding(dev),
			     reg(dev, SACC_REG_STATUS),
			     reg(dev, SACC_REG_ERR_CODE));
}

/* Index of the first byte where d != s ^ x, or SIZE_MAX. */
static size_t first_diff(const uint8_t *d, const uint8_t *s, size_t n,
			 uint8_t x)
{
	const uint64_t xx = 0x0101010101010101ull * x;
	size_t i = 0;

	if (!x)
		return memcmp(d, s, n) ? 0 : SIZE_MAX; /* rescanned below */
	for (; i + 8 <= n; i += 8) {
		uint64_t a, b;

		memcpy(&a, d + i, 8);
		memcpy(&b, s + i, 8);
		if (a != (b ^ xx))
			break;
	}
	for (; i < n; i++)
		if (d[i] != (uint8_t)(s[i] ^ x))
			return i;
	return SIZE_MAX;
}

static void check_copy(const char *what, uint16_t opcode, const uint8_t *dst,
		       const uint8_t *src, size_t len)
{
	uint8_t x = opcode == SACC_OP_XFORM ? SACC_XFORM_KEY : 0;
	size_t i = first_diff(dst, src, len, x);

	if (i == SIZE_MAX)
		return;
	if (!x) /* find the exact byte for the message */
		for (i = 0; i < len && dst[i] == src[i]; i++)
			;
	ck_abort_msg("%s: %s of %zu bytes: byte %zu is 0x%02x, want 0x%02x",
		     what, sacc_opcode_str(opcode), len, i, dst[i],
		     (uint8_t)(src[i] ^ x));
}

static void check_canary(const char *what, const uint8_t *p, size_t n)
{
	const uint64_t c8 = 0x0101010101010101ull * CANARY;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v;

		memcpy(&v, p + i, 8);
		if (v != c8)
			break;
	}
	for (; i < n; i++)
		if (p[i] != CANARY)
			ck_abort_msg("%s: canary byte %zu is 0x%02x: the device "
				     "wrote outside the destination",
				     what, i, p[i]);
}

/* One verified MEMCPY/XFORM of @len bytes from src to dst (offset 0). */
static void one_verified_op(struct sacc_dev *dev, uint16_t opcode,
			    struct sacc_buf *src, struct sacc_buf *dst,
			    uint32_t len)
{
	struct sacc_op op = {.opcode = opcode, .len = len, .src = src,
			     .dst = dst, .cookie = 0xc0ffee};
	struct sacc_result r;
	int ret;

	fill_random(va(src), len);
	memset(va(dst), CANARY, sacc_buf_len(dst));
	ret = sacc_submit(dev, &op, 1);
	ck_assert_msg(ret == 1, "sacc_submit: %d: %s", ret, sacc_errmsg(dev));
	reap_n(dev, &r, 1);
	ck_assert_uint_eq(r.cookie, 0xc0ffee);
	ck_assert_msg(r.status == SACC_STS_OK, "status %u (%s)", r.status,
		      sacc_status_str(r.status));
	ck_assert_uint_eq(r.result_len, len);
	check_copy("one op", opcode, va(dst), va(src), len);
	check_canary("one op tail", va(dst) + len, sacc_buf_len(dst) - len);
}

/* Run @fn in a forked child; its failure text comes back through a pipe. */
typedef int (*child_fn)(char *msg, size_t len);

static void run_in_child(child_fn fn)
{
	char msg[1024] = "";
	int p[2], status = 0;
	ssize_t n, got = 0;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char m[1024] = "";
		int rc;

		close(p[0]);
		rc = fn(m, sizeof(m));
		if (write(p[1], m, strlen(m)) < 0)
			rc = rc ? rc : 99;
		_exit(rc);
	}
	close(p[1]);
	while ((n = read(p[0], msg + got, sizeof(msg) - 1 - (size_t)got)) > 0)
		got += n;
	msg[got] = '\0';
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child failed (%s %d): %s",
		      WIFEXITED(status) ? "exit" : "signal",
		      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
		      msg);
}

#define CHILD_CHECK(cond, ...)                                                 \
	do {                                                                   \
		if (!(cond)) {                                                 \
			int o_ = snprintf(msg, len, "line %d: ", __LINE__);    \
			snprintf(msg + o_, len - (size_t)o_, __VA_ARGS__);     \
			return 1;                                              \
		}                                                              \
	} while (0)

/* ------------------------------------------------------------------ */
/* the op engine: random verified ops with a pipeline of slots          */
/* ------------------------------------------------------------------ */

#define ENG_SLOTS 16

struct eng {
	struct sacc_dev *dev;
	const char *tag;
	struct sacc_buf *src;
	size_t src_len;
	struct sacc_buf *dst[ENG_SLOTS];
	size_t dst_len;
	struct sacc_op op[ENG_SLOTS];
	bool busy[ENG_SLOTS];
	unsigned int nslots, nbusy;
	uint32_t max_len;
	uint16_t flags;	 /* SACC_OPF_* on every op */
	bool use_wait;	 /* reap with sacc_wait() first */
	uint64_t issued; /* ops handed to sacc_submit */
	uint64_t expect; /* next sequence number to complete */
	uint64_t submits, done, bytes;
	uint64_t by_op[3];
	uint64_t by_octave[32];
	unsigned int max_per_poll;
};

static void eng_init(struct eng *e, struct sacc_dev *dev, const char *tag,
		     unsigned int nslots, uint32_t max_len)
{
	char name[32];

	memset(e, 0, sizeof(*e));
	ck_assert_uint_le(nslots, ENG_SLOTS);
	e->dev = dev;
	e->tag = tag;
	e->nslots = nslots;
	e->max_len = max_len;
	e->src_len = 2 * (size_t)max_len < 4096 ? 4096 : 2 * (size_t)max_len;
	e->src = guest_buf(dev, e->src_len, SACC_DMA_TO_DEVICE, "eng src");
	fill_random(va(e->src), e->src_len);
	e->dst_len = max_len + 2 * MARGIN;
	for (unsigned int i = 0; i < nslots; i++) {
		snprintf(name, sizeof(name), "eng dst %u", i);
		e->dst[i] = guest_buf(dev, e->dst_len, SACC_DMA_FROM_DEVICE,
				      name);
	}
	e->max_per_poll = sacc_dev_cq_entries(dev) - 1;
	sacc_stats_clear(dev);
}

static void eng_prepare(struct eng *e, unsigned int slot)
{
	struct sacc_op *op = &e->op[slot];
	uint32_t len;
	uint16_t opc;
	size_t so, dof;
	uint8_t *d;
	const uint8_t *s;

	/* The edges first: 1 byte and max_len, both data opcodes. */
	switch (e->issued) {
	case 0: opc = SACC_OP_MEMCPY; len = 1; break;
	case 1: opc = SACC_OP_XFORM; len = e->max_len; break;
	case 2: opc = SACC_OP_MEMCPY; len = e->max_len; break;
	case 3: opc = SACC_OP_XFORM; len = 1; break;
	default:
		opc = (uint16_t)(rnd() % 3);
		len = rand_len(e->max_len);
	}
	memset(op, 0, sizeof(*op));
	op->opcode = opc;
	op->flags = e->flags;
	op->cookie = (e->issued << 8) | slot;
	e->by_op[opc]++;
	if (opc == SACC_OP_NOP)
		return;
	so = (size_t)(rnd() % (e->src_len - len + 1));
	dof = MARGIN + (size_t)(rnd() % (e->dst_len - 2 * MARGIN - len + 1));
	op->len = len;
	op->src = e->src;
	op->src_off = so;
	op->dst = e->dst[slot];
	op->dst_off = dof;
	e->by_octave[octave(len)]++;
	/* Canaries around the destination; inside it bytes that differ from
	 * the expected result everywhere, so a skipped write is caught. */
	s = va(e->src) + so;
	d = va(op->dst) + dof;
	memset(d - MARGIN, CANARY, MARGIN);
	memset(d + len, CANARY, MARGIN);
	if (opc == SACC_OP_XFORM) {
		memcpy(d, s, len);
	} else {
		for (uint32_t i = 0; i < len; i++)
			d[i] = (uint8_t)~s[i];
	}
}

/* Fill up to @max free slots and submit them as one batch. */
static void eng_submit(struct eng *e, uint64_t max)
{
	struct sacc_op ops[ENG_SLOTS];
	unsigned int n = 0;
	int ret;

	for (unsigned int s = 0; s < e->nslots && n < max; s++) {
		if (e->busy[s])
			continue;
		eng_prepare(e, s);
		e->busy[s] = true;
		e->issued++;
		ops[n++] = e->op[s];
	}
	if (!n)
		return;
	ret = sacc_submit(e->dev, ops, n);
	ck_assert_msg(ret == (int)n, "%s: sacc_submit(%u ops): %d: %s", e->tag,
		      n, ret, sacc_errmsg(e->dev));
	e->nbusy += n;
	e->submits++;
}

static void eng_check(struct eng *e, const struct sacc_result *r)
{
	unsigned int slot = (unsigned int)(r->cookie & 0xff);
	uint64_t seq = r->cookie >> 8;
	const struct sacc_op *op;
	char what[96];

	ck_assert_msg(slot < e->nslots && e->busy[slot],
		      "%s: completion with unknown cookie 0x%" PRIx64, e->tag,
		      r->cookie);
	ck_assert_msg(seq == e->expect,
		      "%s: completion of op #%" PRIu64 " while #%" PRIu64
		      " is the oldest: not in ring order",
		      e->tag, seq, e->expect);
	e->expect++;
	op = &e->op[slot];
	snprintf(what, sizeof(what), "%s op #%" PRIu64 " (%s, %u bytes)",
		 e->tag, seq, sacc_opcode_str(op->opcode), op->len);
	ck_assert_msg(r->status == SACC_STS_OK, "%s: status %u (%s)", what,
		      r->status, sacc_status_str(r->status));
	ck_assert_msg(!r->raw, "%s: marked raw", what);
	ck_assert_uint_eq(r->opcode, op->opcode);
	if (op->opcode == SACC_OP_NOP) {
		ck_assert_uint_eq(r->result_len, 0);
	} else {
		const uint8_t *d = va(op->dst) + op->dst_off;

		ck_assert_msg(r->len == op->len && r->result_len == op->len,
			      "%s: len %u result_len %u", what, r->len,
			      r->result_len);
		check_copy(what, op->opcode, d, va(op->src) + op->src_off,
			   op->len);
		check_canary(what, d - MARGIN, MARGIN);
		check_canary(what, d + op->len, MARGIN);
		e->bytes += op->len;
	}
	e->busy[slot] = false;
	e->nbusy--;
	e->done++;
}

static void eng_reap(struct eng *e)
{
	struct sacc_result res[ENG_SLOTS];
	uint64_t t0 = sacc_monotonic_ns();
	int r;

	if (!e->nbusy)
		return;
	if (e->use_wait) {
		r = sacc_wait(e->dev, REAP_TIMEOUT_MS);
		ck_assert_msg(r == 1, "%s: sacc_wait: %d: %s", e->tag, r,
			      r < 0 ? sacc_errmsg(e->dev) : "timed out");
		r = sacc_poll(e->dev, res, ENG_SLOTS);
		ck_assert_msg(r >= 1,
			      "%s: sacc_wait said a completion is ready, "
			      "sacc_poll returned %d: %s",
			      e->tag, r, sacc_errmsg(e->dev));
	} else {
		for (;;) {
			r = sacc_poll(e->dev, res, ENG_SLOTS);
			ck_assert_msg(r >= 0, "%s: sacc_poll: %d: %s", e->tag,
				      r, sacc_errmsg(e->dev));
			if (r)
				break;
			if (sacc_monotonic_ns() - t0 > REAP_TIMEOUT_MS * 1000000ull)
				ck_abort_msg("%s: no completion within %d ms "
					     "(outstanding %u, STATUS 0x%x)",
					     e->tag, REAP_TIMEOUT_MS,
					     sacc_outstanding(e->dev),
					     reg(e->dev, SACC_REG_STATUS));
		}
	}
	ck_assert_msg((unsigned int)r <= e->nbusy,
		      "%s: %d results for %u outstanding", e->tag, r, e->nbusy);
	/* The device never has more than CQ_SIZE - 1 completions posted. */
	ck_assert_msg((unsigned int)r <= e->max_per_poll,
		      "%s: %d completions in one poll from a %u-entry CQ", e->tag,
		      r, sacc_dev_cq_entries(e->dev));
	for (int i = 0; i < r; i++)
		eng_check(e, &res[i]);
}

static void eng_run(struct eng *e, uint64_t nops)
{
	uint64_t target = e->issued + nops;

	while (e->issued < target || e->nbusy) {
		if (e->issued < target)
			eng_submit(e, target - e->issued);
		eng_reap(e);
	}
}

/* Counters and device state after a clean run. */
static void eng_finish(struct eng *e)
{
	struct sacc_stats st;

	sacc_stats(e->dev, &st);
	ck_assert_uint_eq(sacc_outstanding(e->dev), 0);
	ck_assert_uint_eq(st.submitted, e->issued);
	ck_assert_uint_eq(st.completed, e->done);
	ck_assert_uint_eq(st.by_status[SACC_STS_OK], e->done);
	ck_assert_uint_eq(st.by_status[SACC_STS_DMA_FAULT], 0);
	ck_assert_uint_eq(st.device_errors, 0);
	/* One doorbell per sacc_submit() batch, never one per op. */
	ck_assert_uint_eq(st.doorbells, e->submits);
	ck_assert_uint_ge(st.cq_head_writes, 1);
	ck_assert_uint_le(st.cq_head_writes, st.completed);
	ck_assert_uint_eq(reg(e->dev, SACC_REG_STATUS), SACC_STATUS_READY);
	ck_assert_uint_eq(reg(e->dev, SACC_REG_ERR_CODE), SACC_ERR_NONE);
	ck_assert_uint_eq(reg(e->dev, SACC_REG_FAULT_COUNT), 0);
}

/* ------------------------------------------------------------------ */
/* open / close                                                        */
/* ------------------------------------------------------------------ */

/*
 * Each cycle varies ring size (i % 3), doorbell (i % 2) and what is left
 * open at close (i % 4): 24 cycles run every combination twice, check
 * pin accounting three times and leave 2 MiB of buffers open at close
 * five times, so one leaked buffer set (> 4 MiB over the run) fails.
 * (Each open costs vfio-pci's FLR, about 100 ms.)
 */
#define OPEN_CLOSE_CYCLES 24

START_TEST(open_close_cycles)
{
	int fds0 = guest_count_fds();
	long lck0 = vmlck_kb();
	long size0 = -1;
	uint64_t mark = guest_kmsg_mark();
	char last[512] = "";
	int faults;

	BEGIN();
	ck_assert_int_ge(fds0, 0);
	ck_assert_int_eq(lck0, 0);
	for (int i = 0; i < OPEN_CLOSE_CYCLES; i++) {
		struct sacc_open_opts o = {
		    .sq_entries = i % 3 ? 32 : 0,
		    .doorbell = i % 2 ? SACC_DOORBELL_SYSCALL
				      : SACC_DOORBELL_MMAP,
		};
		struct sacc_dev *dev = guest_open(0, &o);
		struct sacc_buf *src, *dst;
		struct sacc_op op;
		int ret;

		ck_assert_uint_eq(sacc_dev_sq_entries(dev),
				  o.sq_entries ? o.sq_entries
					       : SACC_DEFAULT_ENTRIES);
		ck_assert_int_eq(sacc_dev_doorbell(dev), o.doorbell);
		src = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "oc src");
		dst = guest_buf(dev, 3000, SACC_DMA_FROM_DEVICE, "oc dst");
		if (i % 10 == 0) {
			/* The kernel's pin accounting matches libsacc's. */
			long kb = vmlck_kb();

			ck_assert_int_gt(guest_count_fds(), fds0);
			ck_assert_int_gt(kb, 0);
			ck_assert_uint_eq((uint64_t)kb * 1024,
					  process_pinned(dev));
		}
		switch (i % 4) {
		case 0:
			/* Close with 1 MiB copies in flight and buffers
			 * still allocated: close must stop the device before
			 * it unmaps anything (else: IOMMU faults below). */
			src = guest_buf(dev, MiB, SACC_DMA_TO_DEVICE, "big s");
			dst = guest_buf(dev, MiB, SACC_DMA_FROM_DEVICE, "big d");
			op = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
					      .len = MiB, .src = src,
					      .dst = dst};
			for (int k = 0; k < 4; k++) {
				ret = sacc_submit(dev, &op, 1);
				ck_assert_msg(ret == 1, "%s", sacc_errmsg(dev));
			}
			break;
		case 1:
			one_verified_op(dev, SACC_OP_MEMCPY, src, dst, 3000);
			ck_assert_int_eq(sacc_buf_free(src), 0);
			ck_assert_int_eq(sacc_buf_free(dst), 0);
			break;
		case 2:
			one_verified_op(dev, SACC_OP_XFORM, src, dst, 1);
			break;
		default:
			break; /* open, allocate, close */
		}
		sacc_close(dev);
		if (i == 0) /* after the first cycle: malloc arenas exist */
			size0 = vmsize_kb();
		ck_assert_msg(guest_count_fds() == fds0,
			      "iteration %d: %d fds open, %d before", i,
			      guest_count_fds(), fds0);
		ck_assert_msg(vmlck_kb() == lck0,
			      "iteration %d: VmLck %ld kB after close, %ld "
			      "before",
			      i, vmlck_kb(), lck0);
	}
	/* No buffer memory left behind either (iterations 4, 8, ... each
	 * had 2 MiB of buffers open at close): less than one buffer. */
	fprintf(stderr, "open_close_cycles: VmSize grew by %ld kB\n",
		vmsize_kb() - size0);
	ck_assert_msg(vmsize_kb() - size0 < 1024,
		      "VmSize grew by %ld kB over %d open/close cycles",
		      vmsize_kb() - size0, OPEN_CLOSE_CYCLES - 1);
	/* No DMA ever hit an unmapped IOVA (the guest's DMAR driver logs
	 * every fault it is told about: "... fault addr 0x..."). */
	faults = guest_kmsg_grep(mark, "fault addr", last, sizeof(last));
	ck_assert_msg(faults == 0, "%d IOMMU faults while opening and closing, "
				   "last: %s",
		      faults, last);
}
END_TEST

/* ------------------------------------------------------------------ */
/* data path                                                           */
/* ------------------------------------------------------------------ */

/*
 * Sized to what it proves: every opcode and every size octave from 1 B
 * to 1 MiB many times over (about RANDOM_OPS / 32 ops an octave), each
 * result verified with canaries. 3,000 ops do that; 10,000 took three
 * times as long under TCG and found nothing more.
 */
#define RANDOM_OPS 3000

START_TEST(random_ops)
{
	struct sacc_dev *dev;
	struct eng e;
	uint64_t t0;
	double s;

	BEGIN();
	dev = guest_open(0, NULL);
	eng_init(&e, dev, "10k", ENG_SLOTS, SACC_MAX_XFER);
	t0 = sacc_monotonic_ns();
	eng_run(&e, RANDOM_OPS);
	s = (double)(sacc_monotonic_ns() - t0) / 1e9;
	eng_finish(&e);
	ck_assert_uint_eq(e.done, RANDOM_OPS);
	/* The mix is what the issue asks for: every opcode, every octave
	 * from 1 B to 1 MiB. */
	for (int k = 0; k < 3; k++)
		ck_assert_msg(e.by_op[k] > RANDOM_OPS / 4, "opcode %d: only %" PRIu64,
			      k, e.by_op[k]);
	for (unsigned int k = 0; k <= 20; k++)
		ck_assert_msg(e.by_octave[k] >= RANDOM_OPS / 100,
			      "sizes %u..%u: only %" PRIu64 " ops", 1u << k,
			      (2u << k) - 1, e.by_octave[k]);
	fprintf(stderr,
		"    random_ops: %" PRIu64 " ops (%" PRIu64 " nop, %" PRIu64
		" memcpy, %" PRIu64 " xform), %.1f MiB verified in %.1f s, "
		"%" PRIu64 " doorbells\n",
		e.done, e.by_op[0], e.by_op[1], e.by_op[2],
		(double)e.bytes / MiB, s, e.submits);
	sacc_close(dev);
}
END_TEST

START_TEST(ring_laps)
{
	static const struct {
		uint32_t sq, cq, ops, max_len;
	} cfg[] = {
	    {2, 2, 300, 512},	/* one op in flight at a time */
	    {4, 4, 2000, 512},	/* 500 laps of both rings */
	    {16, 2, 300, 4096}, /* CQ much smaller than SQ */
	    {8, 64, 400, 4096}, /* CQ larger than SQ */
	    {65536, 65536, 200, 4096}, /* the largest rings */
	    {65536, 2, 100, 64},
	};

	BEGIN();
	for (size_t i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
		struct sacc_open_opts o = {.sq_entries = cfg[i].sq,
					   .cq_entries = cfg[i].cq};
		struct sacc_dev *dev = guest_open(0, &o);
		unsigned int slots = cfg[i].sq - 1;
		char tag[32];
		struct eng e;

		ck_assert_uint_eq(sacc_dev_sq_entries(dev), cfg[i].sq);
		ck_assert_uint_eq(sacc_dev_cq_entries(dev), cfg[i].cq);
		snprintf(tag, sizeof(tag), "sq%u/cq%u", cfg[i].sq, cfg[i].cq);
		eng_init(&e, dev, tag, slots > ENG_SLOTS ? ENG_SLOTS : slots,
			 cfg[i].max_len);
		eng_run(&e, cfg[i].ops);
		eng_finish(&e);
		/* Each lap of the CQ flips the phase: at least this many. */
		ck_assert_uint_ge(e.done / cfg[i].cq, cfg[i].ops / cfg[i].cq);
		sacc_close(dev);
	}
}
END_TEST

START_TEST(cq_full)
{
	struct sacc_open_opts o = {.sq_entries = 64, .cq_entries = 4};
	struct sacc_op ops[64];
	struct sacc_result res[64];
	struct sacc_stats st;
	struct sacc_map_entry cqm;
	const struct sacc_cqe *cq;
	struct sacc_dev *dev;
	unsigned int got = 0, polls = 0, posted = 0;
	uint64_t t0;
	int ret;

	BEGIN();
	dev = guest_open(0, &o);
	cqm = mapping_at(dev, sacc_dev_cq_iova(dev));
	cq = (const struct sacc_cqe *)(uintptr_t)cqm.vaddr;
	for (unsigned int i = 0; i < 64; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = i};

	/* SQ: never more than SQ_SIZE - 1 in flight. */
	ret = sacc_submit(dev, ops, 64);
	ck_assert_msg(ret == 63, "sacc_submit(64) on a 64-entry SQ: %d: %s",
		      ret, sacc_errmsg(dev));
	ck_assert_uint_eq(sacc_sq_free(dev), 0);
	ck_assert_uint_eq(sacc_outstanding(dev), 63);
	ck_assert_int_eq(sacc_submit(dev, &ops[63], 1), 0); /* full: 0 */
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.doorbells, 1);
	ck_assert_uint_eq(st.submitted, 63);

	/* CQ: the device posts CQ_SIZE - 1 = 3 entries, then stalls. */
	t0 = sacc_monotonic_ns();
	do {
		posted = 0;
		for (unsigned int i = 0; i < 4; i++)
			posted += __atomic_load_n(&cq[i].phase,
						  __ATOMIC_ACQUIRE) & 1;
	} while (posted < 3 && sacc_monotonic_ns() - t0 < 10000000000ull);
	ck_assert_msg(posted == 3, "%u completions posted before the stall",
		      posted);
	guest_sleep_ms(300);
	for (unsigned int i = 0; i < 3; i++)
		ck_assert_uint_eq(cq[i].phase & 1, 1);
	ck_assert_msg((cq[3].phase & 1) == 0,
		      "the device filled the last CQ slot: full rule broken");
	ck_assert_uint_eq(reg(dev, SACC_REG_STATUS), SACC_STATUS_READY);

	/* Reaping frees slots; the device resumes; order is kept. */
	t0 = sacc_monotonic_ns();
	while (got < 63) {
		ret = sacc_poll(dev, res + got, 63 - got);
		ck_assert_msg(ret >= 0, "sacc_poll: %d: %s", ret,
			      sacc_errmsg(dev));
		ck_assert_msg(ret <= 3, "%d completions from a 4-entry CQ", ret);
		for (int i = 0; i < ret; i++) {
			ck_assert_uint_eq(res[got + i].cookie, got + i);
			ck_assert_uint_eq(res[got + i].status, SACC_STS_OK);
		}
		if (ret)
			polls++;
		got += (unsigned int)ret;
		ck_assert_msg(sacc_monotonic_ns() - t0 < REAP_TIMEOUT_MS * 1000000ull,
			      "stuck at %u of 63 completions", got);
	}
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.completed, 63);
	ck_assert_uint_eq(st.cq_head_writes, polls); /* once per batch */
	ck_assert_uint_ge(polls, 21);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	ck_assert_uint_eq(sacc_sq_free(dev), 63);
	ck_assert_uint_eq(reg(dev, SACC_REG_ERR_CODE), SACC_ERR_NONE);

	/* And the queue works normally afterwards. */
	ck_assert_int_eq(sacc_submit(dev, ops, 10), 10);
	reap_n(dev, res, 10);
	ck_assert_uint_eq(res[9].cookie, 9);
	sacc_close(dev);
}
END_TEST

START_TEST(batch_64_one_doorbell)
{
	struct sacc_dev *dev;
	struct sacc_buf *src, *dst;
	struct sacc_op ops[64];
	struct sacc_result res[68];
	struct sacc_stats st;
	const uint32_t chunk = 16 * KiB;
	int ret;

	BEGIN();
	dev = guest_open(0, NULL);
	src = guest_buf(dev, 64 * chunk, SACC_DMA_TO_DEVICE, "batch src");
	dst = guest_buf(dev, 64 * chunk, SACC_DMA_FROM_DEVICE, "batch dst");
	sacc_stats_clear(dev);
	for (int b = 0; b < 10; b++) {
		fill_random(va(src), 64 * chunk);
		memset(va(dst), CANARY, 64 * chunk);
		for (unsigned int i = 0; i < 64; i++) {
			uint16_t opc = (uint16_t)(rnd() % 3);

			ops[i] = (struct sacc_op){
			    .opcode = opc,
			    .len = opc ? 1 + (uint32_t)(rnd() % chunk) : 0,
			    .src = opc ? src : NULL,
			    .src_off = i * chunk,
			    .dst = opc ? dst : NULL,
			    .dst_off = i * chunk,
			    .cookie = (uint64_t)b * 64 + i};
		}
		ret = sacc_submit(dev, ops, 64);
		ck_assert_msg(ret == 64, "%d: %s", ret, sacc_errmsg(dev));
		sacc_stats(dev, &st);
		ck_assert_uint_eq(st.doorbells, (uint64_t)b + 1);
		ck_assert_uint_eq(st.submitted, (uint64_t)(b + 1) * 64);
		reap_n(dev, res, 64);
		for (unsigned int i = 0; i < 64; i++) {
			const struct sacc_op *op = &ops[i];

			ck_assert_uint_eq(res[i].cookie, op->cookie);
			ck_assert_uint_eq(res[i].status, SACC_STS_OK);
			ck_assert_uint_eq(res[i].result_len, op->len);
			if (op->opcode) {
				check_copy("batch", op->opcode,
					   va(dst) + op->dst_off,
					   va(src) + op->src_off, op->len);
				check_canary("batch",
					     va(dst) + op->dst_off + op->len,
					     chunk - op->len);
			} else {
				check_canary("batch nop", va(dst) + i * chunk,
					     chunk);
			}
		}
	}
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.doorbells, 10);
	ck_assert_uint_eq(st.completed, 640);

	/* All or nothing: one bad op in the batch, nothing submitted. */
	for (unsigned int i = 0; i < 64; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_MEMCPY, .len = 100,
					  .src = src, .dst = dst,
					  .dst_off = i * chunk};
	ops[37].len = 0;
	ret = sacc_submit(dev, ops, 64);
	ck_assert_int_eq(ret, -EINVAL);
	assert_msg_has(sacc_errmsg(dev), "op 37");
	ops[37].len = 100;
	ops[50].dst_off = 64 * chunk - 50; /* runs past the end */
	ck_assert_int_eq(sacc_submit(dev, ops, 64), -EINVAL);
	assert_msg_has(sacc_errmsg(dev), "op 50");
	assert_msg_has(sacc_errmsg(dev), "batch dst");
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.doorbells, 10);
	ck_assert_uint_eq(st.submitted, 640);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	sacc_close(dev);

	/* A 64-op batch on a 64-entry SQ: 63 go, one doorbell; the 64th
	 * waits for room. */
	{
		struct sacc_open_opts o = {.sq_entries = 64};

		dev = guest_open(0, &o);
		for (unsigned int i = 0; i < 64; i++)
			ops[i] = (struct sacc_op){.opcode = SACC_OP_NOP,
						  .cookie = i};
		ck_assert_int_eq(sacc_submit(dev, ops, 64), 63);
		sacc_stats(dev, &st);
		ck_assert_uint_eq(st.doorbells, 1);
		/* Reaping fewer than are ready keeps the rest, in order. */
		for (unsigned int k = 0; k < 63; k += 5)
			reap_n(dev, res + k, k + 5 <= 63 ? 5 : 63 - k);
		for (unsigned int k = 0; k < 63; k++)
			ck_assert_uint_eq(res[k].cookie, k);
		ck_assert_int_eq(sacc_submit(dev, &ops[63], 1), 1);
		reap_n(dev, res, 1);
		ck_assert_uint_eq(res[0].cookie, 63);
		sacc_stats(dev, &st);
		ck_assert_uint_eq(st.doorbells, 2);
		ck_assert_uint_eq(st.completed, 64);
		sacc_close(dev);
	}
}
END_TEST

/*
 * One flagged 1 MiB XFORM: sacc_wait() wakes, and the MSI-X really
 * reached the eventfd (if the completion beat sacc_wait() to it, the
 * interrupt is still pending: a second wait consumes it and times out).
 */
static void irq_roundtrip(struct sacc_dev *dev, struct sacc_buf *src,
			  struct sacc_buf *dst)
{
	struct sacc_op op = {.opcode = SACC_OP_XFORM, .len = MiB,
			     .flags = SACC_OPF_IRQ, .src = src, .dst = dst,
			     .cookie = 77};
	struct sacc_stats st0, st;
	struct sacc_result r;
	int ret;

	sacc_stats(dev, &st0);
	fill_random(va(src), MiB);
	memset(va(dst), CANARY, MiB);
	ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	ret = sacc_wait(dev, REAP_TIMEOUT_MS);
	ck_assert_msg(ret == 1, "sacc_wait: %d: %s", ret, sacc_errmsg(dev));
	ck_assert_int_eq(sacc_poll(dev, &r, 1), 1);
	ck_assert_uint_eq(r.cookie, 77);
	ck_assert_uint_eq(r.status, SACC_STS_OK);
	check_copy("irq xform", SACC_OP_XFORM, va(dst), va(src), MiB);
	ck_assert_int_eq(sacc_wait(dev, 300), 0);
	sacc_stats(dev, &st);
	ck_assert_msg(st.interrupts > st0.interrupts,
		      "no MSI-X reached the eventfd for a flagged op");
	/* acknowledged by sacc_wait */
	ck_assert_uint_eq(reg(dev, SACC_REG_IRQ_STATUS) & SACC_IRQ_COMPLETION,
			  0);
}

START_TEST(interrupt_mode)
{
	struct sacc_dev *dev;
	struct sacc_buf *src, *dst;
	struct sacc_op ops[64];
	struct sacc_result res[64];
	struct sacc_stats st;
	struct eng e;
	uint64_t t0, ms;
	int ret;

	BEGIN();
	dev = guest_open(0, NULL);

	/* Nothing outstanding: the timeout is honoured. */
	t0 = sacc_monotonic_ns();
	ck_assert_int_eq(sacc_wait(dev, 200), 0);
	ms = (sacc_monotonic_ns() - t0) / 1000000;
	/* Never early (the deadline is the contract); late by at most a
	 * guest stall under TCG with the other boot, the sanitizer build and
	 * the fuzzers beside it (a stall, not a second timeout). */
	fprintf(stderr, "interrupt_mode: sacc_wait(200) took %" PRIu64 " ms\n",
		ms);
	ck_assert_msg(ms >= 200 && ms < 1000, "sacc_wait(200) took %" PRIu64
					      " ms",
		      ms);

	/* Ops without SACC_OPF_IRQ raise no interrupt. */
	for (unsigned int i = 0; i < 50; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = i};
	ck_assert_int_eq(sacc_submit(dev, ops, 50), 50);
	reap_n(dev, res, 50);
	ck_assert_int_eq(sacc_wait(dev, 300), 0);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.interrupts, 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_IRQ_STATUS) & SACC_IRQ_COMPLETION,
			  0);

	/* One 1 MiB op with the flag; again after a reset (FLR resets
	 * the device's MSI-X state: libsacc must set it up again). */
	src = guest_buf(dev, MiB, SACC_DMA_TO_DEVICE, "irq src");
	dst = guest_buf(dev, MiB, SACC_DMA_FROM_DEVICE, "irq dst");
	irq_roundtrip(dev, src, dst);
	ck_assert_int_eq(sacc_reset(dev), 0);
	irq_roundtrip(dev, src, dst);
	ck_assert_int_eq(sacc_reset(dev), 0);
	irq_roundtrip(dev, src, dst);

	/* A batch with the flag on its last op only: exactly one MSI-X. */
	for (unsigned int i = 0; i < 64; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = i,
					  .flags = i == 63 ? SACC_OPF_IRQ : 0};
	sacc_stats(dev, &st);
	ck_assert_int_eq(sacc_submit(dev, ops, 64), 64);
	reap_n(dev, res, 64);
	ck_assert_uint_eq(res[63].cookie, 63);
	ck_assert_int_eq(sacc_wait(dev, 300), 0); /* consumes the eventfd */
	{
		struct sacc_stats st2;

		sacc_stats(dev, &st2);
		ck_assert_uint_eq(st2.interrupts - st.interrupts, 1);
	}
	ret = sacc_wait(dev, 0);
	ck_assert_int_eq(ret, 0);
	sacc_close(dev);

	/* Verified random ops reaped by interrupt only. */
	dev = guest_open(0, NULL);
	eng_init(&e, dev, "irq", 8, 256 * KiB);
	e.flags = SACC_OPF_IRQ;
	e.use_wait = true;
	eng_run(&e, 300);
	eng_finish(&e);
	sacc_stats(dev, &st);
	ck_assert_uint_ge(st.interrupts, 1);
	ck_assert_uint_le(st.interrupts, e.done);
	sacc_close(dev);
}
END_TEST

/*
 * Issue 22, what libsacc learnt from dmadev: sacc_enqueue() writes
 * descriptors the device is not told about (nothing moves, nothing
 * completes) until ONE sacc_doorbell(); the eventfd in a program's own
 * poll(2) loop (sacc_dev_eventfds(), sacc_irq_take()); sacc_dev_info().
 */
START_TEST(enqueue_doorbell_eventfd)
{
	struct sacc_dev *dev;
	struct sacc_buf *src, *dst;
	struct sacc_op ops[4];
	struct sacc_result res[4];
	struct sacc_stats st0, st;
	struct sacc_dev_info in;
	struct pollfd pfd;
	int fd = -1, req = -1, k;

	BEGIN();
	dev = guest_open(0, NULL);
	ck_assert_int_eq(sacc_dev_info(dev, &in), 0);
	ck_assert_uint_ge(in.version, SACC_VERSION);
	ck_assert_uint_ge(in.channels, 1);
	ck_assert(in.caps & SACC_CAP_IRQ);
	ck_assert(in.ops & 1u << SACC_OP_MEMCPY);
	ck_assert_uint_eq(in.max_xfer, SACC_MAX_XFER);
	src = guest_buf(dev, 64 * KiB, SACC_DMA_TO_DEVICE, "enq src");
	dst = guest_buf(dev, 64 * KiB, SACC_DMA_FROM_DEVICE, "enq dst");
	fill_random(va(src), 64 * KiB);
	memset(va(dst), CANARY, 64 * KiB);
	for (unsigned int i = 0; i < 4; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
					  .len = 16 * KiB, .src = src,
					  .src_off = i * 16 * KiB, .dst = dst,
					  .dst_off = i * 16 * KiB, .cookie = i,
					  .flags = i == 3 ? SACC_OPF_IRQ : 0};
	sacc_stats(dev, &st0);
	ck_assert_int_eq(sacc_enqueue(dev, ops, 2), 2);
	ck_assert_int_eq(sacc_enqueue(dev, ops + 2, 2), 2);
	ck_assert_uint_eq(sacc_unrung(dev), 4);
	usleep(100 * 1000); /* the device would have run them by now */
	ck_assert_int_eq(sacc_poll(dev, res, 4), 0);
	check_canary("unrung dst", va(dst), 64 * KiB);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.doorbells, st0.doorbells);
	ck_assert_int_eq(sacc_doorbell(dev), 0);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.doorbells, st0.doorbells + 1);
	ck_assert_uint_eq(st.submitted, st0.submitted + 4);
	/* the program's own loop: poll(2) on the eventfd */
	ck_assert_int_eq(sacc_dev_eventfds(dev, &fd, &req), 0);
	ck_assert_int_ge(fd, 0);
	pfd = (struct pollfd){.fd = fd, .events = POLLIN};
	k = poll(&pfd, 1, REAP_TIMEOUT_MS);
	ck_assert_msg(k == 1, "poll(eventfd): %d", k);
	ck_assert_int_eq(sacc_irq_take(dev), 1);
	ck_assert_uint_eq(reg(dev, SACC_REG_IRQ_STATUS) & SACC_IRQ_COMPLETION,
			  0);
	reap_n(dev, res, 4);
	for (unsigned int i = 0; i < 4; i++) {
		ck_assert_uint_eq(res[i].cookie, i);
		ck_assert_uint_eq(res[i].status, SACC_STS_OK);
	}
	check_copy("enqueued memcpy", SACC_OP_MEMCPY, va(dst), va(src),
		   64 * KiB);
	sacc_close(dev);
}
END_TEST

/*
 * BAR0 is mapped as two separate 4 KiB mappings of the VFIO device:
 * the register page and the doorbell page right after it (vfio-pci
 * rewrites the file offset to the BAR's physical page number, so the
 * doorbell's offset is the register page's + 0x1000).
 */
struct vma {
	unsigned long long start, end, off;
};

static void check_bar_pages(struct sacc_dev *dev)
{
	uintptr_t db = (uintptr_t)sacc_dev_doorbell_page(dev);
	struct vma v[64], dbv = {0};
	char line[512], path[256];
	int n = 0, regs = 0;
	FILE *f;

	ck_assert_msg(db && !(db & 4095), "doorbell page %p", (void *)db);
	f = fopen("/proc/self/maps", "re");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f) && n < 64) {
		path[0] = '\0';
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*u %255s", &v[n].start,
			   &v[n].end, &v[n].off, path) == 4 &&
		    strstr(path, "vfio-device"))
			n++;
	}
	fclose(f);
	for (int i = 0; i < n; i++)
		if (v[i].start == db)
			dbv = v[i];
	ck_assert_msg(dbv.start == db, "no VFIO device mapping at the doorbell "
				       "page %p",
		      (void *)db);
	ck_assert_uint_eq(dbv.end - dbv.start, 4096);
	for (int i = 0; i < n; i++)
		if (v[i].start != db && v[i].end - v[i].start == 4096 &&
		    v[i].off + 0x1000 == dbv.off)
			regs++;
	ck_assert_msg(regs == 1, "%d separate 4 KiB register page mappings",
		      regs);
}

START_TEST(doorbell_modes)
{
	static const enum sacc_doorbell modes[] = {SACC_DOORBELL_MMAP,
						   SACC_DOORBELL_SYSCALL};

	BEGIN();
	for (int m = 0; m < 2; m++) {
		struct sacc_open_opts o = {.doorbell = modes[m]};
		struct sacc_dev *dev = guest_open(0, &o);
		struct sacc_stats st;
		struct eng e;

		ck_assert_int_eq(sacc_dev_doorbell(dev), modes[m]);
		if (modes[m] == SACC_DOORBELL_MMAP)
			check_bar_pages(dev);
		eng_init(&e, dev, m ? "syscall" : "mmap", 8, 64 * KiB);
		db_pwrites = 0;
		eng_run(&e, 400);
		eng_finish(&e);
		sacc_stats(dev, &st);
		if (modes[m] == SACC_DOORBELL_MMAP)
			/* Kernel bypass: not a single doorbell syscall. */
			ck_assert_msg(db_pwrites == 0,
				      "mmap doorbell mode made %lu doorbell "
				      "pwrite()s",
				      db_pwrites);
		else
			/* One kernel transition per doorbell, one per batch. */
			ck_assert_msg(db_pwrites == st.doorbells &&
					  st.doorbells == e.submits,
				      "syscall mode: %lu pwrite()s, %" PRIu64
				      " doorbells, %" PRIu64 " batches",
				      db_pwrites, st.doorbells, e.submits);
		sacc_close(dev);
	}
}
END_TEST

/*
 * sacc_doorbell_repeat() (what `saccctl bench` times as a doorbell
 * store): the tail the device has, rung again, is valid and starts
 * nothing; the queue works on after it; a pwrite doorbell refuses it.
 */
START_TEST(doorbell_repeat)
{
	struct sacc_open_opts o = {.doorbell = SACC_DOORBELL_SYSCALL};
	struct sacc_op op = {.opcode = SACC_OP_NOP};
	struct sacc_result r[2];
	struct sacc_dev *dev;
	struct sacc_stats st;

	BEGIN();
	dev = guest_open(0, NULL);
	ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	ck_assert_int_eq(guest_reap(dev, r, 1, 5000), 1);
	ck_assert_int_eq(sacc_doorbell_repeat(dev, 1000), 0);
	guest_sleep_ms(20);
	ck_assert_int_eq(sacc_poll(dev, r, 2), 0); /* nothing new */
	ck_assert_int_eq(sacc_check(dev), 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_ERR_CODE), SACC_ERR_NONE);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.doorbells, 1); /* repeats are not submissions */
	ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	ck_assert_int_eq(guest_reap(dev, r, 1, 5000), 1);
	ck_assert_uint_eq(r[0].status, SACC_STS_OK);
	sacc_close(dev);

	dev = guest_open(0, &o);
	ck_assert_int_eq(sacc_doorbell_repeat(dev, 1), -ENOTSUP);
	assert_msg_has(sacc_errmsg(dev), "mmapped tail doorbell");
	sacc_close(dev);
}
END_TEST

START_TEST(doorbell_syscall_failure)
{
	struct sacc_open_opts o = {.doorbell = SACC_DOORBELL_SYSCALL};
	struct sacc_op op = {.opcode = SACC_OP_NOP};
	struct sacc_dev *dev;
	struct sacc_stats st;
	struct eng e;
	int ret;

	BEGIN();
	dev = guest_open(0, &o);
	db_fail_errno = EPERM;
	ret = sacc_submit(dev, &op, 1);
	db_fail_errno = 0;
	ck_assert_int_eq(ret, -EPERM);
	assert_msg_has(sacc_errmsg(dev), "doorbell pwrite failed");
	assert_msg_has(sacc_errmsg(dev), sacc_dev_bdf(dev));
	assert_msg_has(sacc_errmsg(dev), "sacc_reset");
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EIO);
	ck_assert_int_eq(sacc_reset(dev), 0);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.abandoned, 1);
	eng_init(&e, dev, "after doorbell failure", 4, 4096);
	eng_run(&e, 50);
	eng_finish(&e);
	sacc_close(dev);
}
END_TEST

START_TEST(two_devices)
{
	struct sacc_dev *a, *b;
	struct eng ea, eb;
	struct sacc_op op;
	struct sacc_stats st;
	struct sacc_dma_stats da, db;
	long kb;

	BEGIN();
	ck_assert_msg(guest_nr_devices() >= 2,
		      "needs 2 SACC devices (ci/vm --devices 2), have %u",
		      guest_nr_devices());
	a = guest_open(0, NULL);
	b = guest_open(1, NULL);
	ck_assert_str_ne(sacc_dev_bdf(a), sacc_dev_bdf(b));
	ck_assert_int_ne(sacc_dev_group(a), sacc_dev_group(b));
	ck_assert_int_ne(sacc_dev_container_fd(a), sacc_dev_container_fd(b));
	eng_init(&ea, a, "dev0", 8, 128 * KiB);
	eng_init(&eb, b, "dev1", 8, 128 * KiB);

	/* A buffer of one device cannot be used on the other. */
	op = (struct sacc_op){.opcode = SACC_OP_MEMCPY, .len = 10,
			      .src = ea.src, .dst = eb.dst[0]};
	ck_assert_int_eq(sacc_submit(b, &op, 1), -EINVAL);
	assert_msg_has(sacc_errmsg(b), "src is not a live buffer");
	op.src = eb.src;
	op.dst = ea.dst[0];
	ck_assert_int_eq(sacc_submit(b, &op, 1), -EINVAL);
	assert_msg_has(sacc_errmsg(b), "dst is not a live buffer");

	/* Pinned memory: per container, summed per process, = VmLck. */
	sacc_dma_ctx_stats(sacc_dev_dma(a), &da);
	sacc_dma_ctx_stats(sacc_dev_dma(b), &db);
	kb = vmlck_kb();
	ck_assert_uint_eq(da.process_pinned_bytes,
			  da.pinned_bytes + db.pinned_bytes);
	ck_assert_uint_eq((uint64_t)kb * 1024, da.process_pinned_bytes);

	/* Interleaved: both in flight at once. */
	while (ea.issued < 400 || eb.issued < 400 || ea.nbusy || eb.nbusy) {
		if (ea.issued < 400)
			eng_submit(&ea, 400 - ea.issued);
		if (eb.issued < 400)
			eng_submit(&eb, 400 - eb.issued);
		eng_reap(&ea);
		eng_reap(&eb);
	}
	eng_finish(&ea);
	eng_finish(&eb);
	sacc_stats(a, &st);
	ck_assert_uint_eq(st.completed, 400); /* counters are per device */

	/* Closing one leaves the other working. */
	sacc_close(a);
	ck_assert_uint_eq((uint64_t)vmlck_kb() * 1024, process_pinned(b));
	eng_run(&eb, 100);
	eng_finish(&eb);
	sacc_close(b);
	ck_assert_int_eq(vmlck_kb(), 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* least privilege, guard pages, IOVA allocation                        */
/* ------------------------------------------------------------------ */

/* Submit @d raw, reap it, expect a DMA fault; return FAULT_INFO. */
static uint32_t raw_expect_fault(struct sacc_dev *dev, struct sacc_desc d,
				 uint64_t want_addr, const char *what)
{
	struct sacc_result r;
	uint64_t fa;
	int id = sacc_submit_raw(dev, &d);

	ck_assert_msg(id > 0, "%s: sacc_submit_raw: %d: %s", what, id,
		      sacc_errmsg(dev));
	reap_n(dev, &r, 1);
	ck_assert(r.raw);
	ck_assert_uint_eq(r.req_id, (uint32_t)id);
	ck_assert_msg(r.status == SACC_STS_DMA_FAULT,
		      "%s: status %u (%s), want DMA fault", what, r.status,
		      sacc_status_str(r.status));
	ck_assert_uint_eq(r.result_len, 0);
	fa = reg(dev, SACC_REG_FAULT_ADDR) |
	     (uint64_t)reg(dev, SACC_REG_FAULT_ADDR + 4) << 32;
	ck_assert_msg(fa == want_addr,
		      "%s: FAULT_ADDR 0x%" PRIx64 ", want 0x%" PRIx64, what, fa,
		      want_addr);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_REQ_ID), (uint32_t)id);
	return reg(dev, SACC_REG_FAULT_INFO);
}

START_TEST(least_privilege)
{
	struct sacc_dev *dev;
	struct sacc_buf *ro, *wo, *rw, *tiny, *bufs[4];
	struct sacc_iova_range ranges[16];
	struct sacc_dma_ctx *ctx;
	struct sacc_iova_lookup lk;
	struct sacc_map_entry me;
	struct sacc_stats st;
	struct sacc_op op;
	uint8_t save[8192];
	uint64_t pg, rw_end;
	uint32_t info;
	int nr, ret;

	BEGIN();
	dev = guest_open(0, NULL);
	ctx = sacc_dev_dma(dev);
	ro = guest_buf(dev, 8192, SACC_DMA_TO_DEVICE, "ro");
	wo = guest_buf(dev, 8192, SACC_DMA_FROM_DEVICE, "wo");
	rw = guest_buf(dev, 8192, SACC_DMA_BIDIRECTIONAL, "rw");
	tiny = guest_buf(dev, 100, SACC_DMA_BIDIRECTIONAL, "tiny");
	fill_random(va(ro), 8192);
	sacc_stats_clear(dev);

	/* The library refuses what the mapping forbids. */
	op = (struct sacc_op){.opcode = SACC_OP_MEMCPY, .len = 4096,
			      .src = rw, .dst = ro};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	assert_msg_has(sacc_errmsg(dev), "'ro'");
	assert_msg_has(sacc_errmsg(dev), "may not write");
	op.src = wo;
	op.dst = rw;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	assert_msg_has(sacc_errmsg(dev), "'wo'");
	assert_msg_has(sacc_errmsg(dev), "may not read");
	/* ...and the other invalid ops. */
	op = (struct sacc_op){.opcode = SACC_OP_MEMCPY, .len = 0, .src = ro,
			      .dst = wo};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	op.len = SACC_MAX_XFER + 1;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	op.len = 4096;
	op.src_off = 4097;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	assert_msg_has(sacc_errmsg(dev), "runs past its end");
	op.src_off = 0;
	op.opcode = 7;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	assert_msg_has(sacc_errmsg(dev), "unknown opcode 7");
	op.opcode = SACC_OP_MEMCPY;
	op.flags = 0x8;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	op.flags = 0;
	op.dst = NULL;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.submitted, 0);
	ck_assert_uint_eq(st.doorbells, 0);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	/* What is allowed works, both ways through a bidirectional one. */
	one_verified_op(dev, SACC_OP_MEMCPY, ro, rw, 8192);
	one_verified_op(dev, SACC_OP_XFORM, rw, wo, 8192);
	one_verified_op(dev, SACC_OP_MEMCPY, tiny, rw, 100);

	/* Page granular, guard pages, allocated (not identity) IOVAs
	 * inside the usable ranges VFIO reports. */
	nr = sacc_dev_iova_ranges(dev, ranges, 16, &pg);
	ck_assert_int_ge(nr, 1);
	ck_assert_int_le(nr, 16);
	ck_assert_uint_eq(pg & 4096, 4096);
	bufs[0] = ro;
	bufs[1] = wo;
	bufs[2] = rw;
	bufs[3] = tiny;
	ck_assert_uint_eq(sacc_buf_len(tiny), 100);
	for (int i = 0; i < 4; i++) {
		uint64_t s = sacc_buf_iova(bufs[i]);
		uint64_t len = (sacc_buf_len(bufs[i]) + 4095) & ~4095ull;
		bool inside = false;

		ck_assert_uint_eq(s & 4095, 0);
		ck_assert_uint_eq((uintptr_t)va(bufs[i]) & 4095, 0);
		/* no page of memory shared with another buffer */
		for (int j = 0; j < 4; j++) {
			uintptr_t a = (uintptr_t)va(bufs[i]);
			uintptr_t b = (uintptr_t)va(bufs[j]);
			uint64_t lj = (sacc_buf_len(bufs[j]) + 4095) & ~4095ull;

			if (j != i)
				ck_assert_msg(b >= a + len || b + lj <= a,
					      "buffers %d and %d share memory",
					      i, j);
		}
		ck_assert_uint_ne(s, (uintptr_t)va(bufs[i]));
		ck_assert_uint_ne(s, 0);
		for (int r = 0; r < nr; r++)
			inside |= s >= ranges[r].start &&
				  s + len - 1 <= ranges[r].end;
		ck_assert_msg(inside, "IOVA 0x%" PRIx64 " outside the ranges",
			      s);
		for (int j = 0; j < 4; j++) {
			uint64_t t = sacc_buf_iova(bufs[j]);

			if (j == i)
				continue;
			/* at least one unmapped page between them */
			ck_assert_msg(t >= s + len + 4096 || t + 4096 < s,
				      "buffers %d and %d have no guard page", i,
				      j);
		}
		me = mapping_at(dev, s);
		ck_assert_uint_eq(me.len, len);
		ck_assert_uint_eq(me.perm,
				  i == 0 ? VFIO_DMA_MAP_FLAG_READ
				  : i == 1
				      ? VFIO_DMA_MAP_FLAG_WRITE
				      : VFIO_DMA_MAP_FLAG_READ |
					    VFIO_DMA_MAP_FLAG_WRITE);
	}
	/* The rings: SQ device-readable only, CQ device-writable only. */
	ck_assert_uint_eq(mapping_at(dev, sacc_dev_sq_iova(dev)).perm,
			  VFIO_DMA_MAP_FLAG_READ);
	ck_assert_uint_eq(mapping_at(dev, sacc_dev_cq_iova(dev)).perm,
			  VFIO_DMA_MAP_FLAG_WRITE);

	/* The IOMMU enforces it: raw descriptors that bypass libsacc's
	 * checks fault instead of touching memory. */
	sacc_stats_clear(dev);
	memcpy(save, va(ro), 8192);
	info = raw_expect_fault(dev,
				(struct sacc_desc){.src = sacc_buf_iova(rw),
						   .dst = sacc_buf_iova(ro),
						   .length = 4096,
						   .opcode = SACC_OP_MEMCPY},
				sacc_buf_iova(ro), "write to a to_device buffer");
	ck_assert_uint_eq(info, SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE);
	ck_assert_mem_eq(va(ro), save, 8192);
	ck_assert_int_eq(sacc_dma_lookup(ctx, sacc_buf_iova(ro), 0, &lk), 0);
	ck_assert_int_eq(lk.kind, SACC_IOVA_MAPPED);
	ck_assert_str_eq(lk.buf.name, "ro");

	/*
	 * A device read of a from_device (write-only) buffer is NOT checked
	 * here: the guest's Linux 6.1 intel-iommu driver sets bit 0 of
	 * every second-level PTE (DMA_FL_PTE_PRESENT == DMA_PTE_READ in
	 * __domain_mapping()), so VFIO_DMA_MAP_FLAG_WRITE alone still maps
	 * the page readable.  libsacc asks for write-only (checked above
	 * through the registry); the IOMMU cannot refuse the read.  What
	 * the IOMMU does refuse is a read of unmapped IOVA: the guard page
	 * in front of a buffer.  The device reads all of src before it
	 * writes dst, so dst stays untouched.
	 */
	memset(va(rw), CANARY, 8192);
	info = raw_expect_fault(dev,
				(struct sacc_desc){.src = sacc_buf_iova(wo) -
							  4096,
						   .dst = sacc_buf_iova(rw),
						   .length = 4096,
						   .opcode = SACC_OP_MEMCPY},
				sacc_buf_iova(wo) - 4096,
				"read of the guard page before 'wo'");
	ck_assert_uint_eq(info, SACC_FAULT_SRC_READ);
	check_canary("dst of a faulting source", va(rw), 8192);
	ck_assert_int_eq(sacc_dma_lookup(ctx, sacc_buf_iova(wo) - 4096, 0, &lk),
			 0);
	ck_assert_int_eq(lk.kind, SACC_IOVA_GUARD);

	/* Guard page right after a buffer. */
	rw_end = sacc_buf_iova(rw) + 8192;
	info = raw_expect_fault(dev,
				(struct sacc_desc){.src = sacc_buf_iova(ro),
						   .dst = rw_end,
						   .length = 16,
						   .opcode = SACC_OP_XFORM},
				rw_end, "write into the guard page");
	ck_assert_uint_eq(info, SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE);
	ck_assert_int_eq(sacc_dma_lookup(ctx, rw_end, 0, &lk), 0);
	ck_assert_int_eq(lk.kind, SACC_IOVA_GUARD);
	/* An overrun that starts inside: faults at the guard page, and
	 * nothing of the buffer before the op's start is touched. */
	memset(va(rw), CANARY, 8192);
	raw_expect_fault(dev,
			 (struct sacc_desc){.src = sacc_buf_iova(ro),
					    .dst = rw_end - 100,
					    .length = 200,
					    .opcode = SACC_OP_MEMCPY},
			 rw_end, "overrun into the guard page");
	check_canary("before an overrun", va(rw), 8192 - 100);

	/* Per-op faults are not fatal: the device carries on. */
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_COUNT), 4);
	ck_assert_uint_eq(reg(dev, SACC_REG_ERR_CODE), SACC_ERR_DMA);
	ck_assert_uint_eq(reg(dev, SACC_REG_STATUS), SACC_STATUS_READY);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.by_status[SACC_STS_DMA_FAULT], 4);
	ck_assert_uint_eq(st.device_errors, 0);
	one_verified_op(dev, SACC_OP_MEMCPY, ro, wo, 5000);

	/* A buffer named by an op in flight cannot be freed. */
	reg_set(dev, SACC_REG_CTRL, 0); /* stop the device: op stays */
	op = (struct sacc_op){.opcode = SACC_OP_MEMCPY, .len = 64, .src = ro,
			      .dst = wo};
	ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	ret = sacc_buf_free(ro);
	ck_assert_int_eq(ret, -EBUSY);
	assert_msg_has(sacc_errmsg(dev), "'ro'");
	ck_assert_int_eq(sacc_buf_free(wo), -EBUSY);
	ck_assert_int_eq(sacc_reset(dev), 0);
	ck_assert_int_eq(sacc_buf_free(ro), 0);
	ck_assert_int_eq(sacc_buf_free(wo), 0);
	ck_assert_int_eq(sacc_buf_free(NULL), 0);
	sacc_close(dev);
}
END_TEST

/* Submit @d raw and reap its result. */
static struct sacc_result raw_one(struct sacc_dev *dev, struct sacc_desc d)
{
	struct sacc_result r;
	int id = sacc_submit_raw(dev, &d);

	ck_assert_msg(id > 0, "sacc_submit_raw: %d: %s", id, sacc_errmsg(dev));
	reap_n(dev, &r, 1);
	ck_assert(r.raw);
	ck_assert_uint_eq(r.req_id, (uint32_t)id);
	ck_assert_uint_eq(r.opcode, d.opcode);
	return r;
}

START_TEST(per_op_errors)
{
	struct sacc_dev *dev;
	struct sacc_buf *src, *dst;
	struct sacc_result r;
	struct sacc_stats st;

	BEGIN();
	dev = guest_open(0, NULL);
	src = guest_buf(dev, 8192, SACC_DMA_TO_DEVICE, "e src");
	dst = guest_buf(dev, 8192, SACC_DMA_FROM_DEVICE, "e dst");
	fill_random(va(src), 8192);
	memset(va(dst), CANARY, 8192);
	sacc_stats_clear(dev);

	r = raw_one(dev, (struct sacc_desc){.src = sacc_buf_iova(src),
					    .dst = sacc_buf_iova(dst),
					    .length = 16, .opcode = 9});
	ck_assert_uint_eq(r.status, SACC_STS_BAD_OPCODE);
	ck_assert_uint_eq(r.result_len, 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_ERR_CODE), SACC_ERR_BAD_OPCODE);
	r = raw_one(dev, (struct sacc_desc){.src = sacc_buf_iova(src),
					    .dst = sacc_buf_iova(dst),
					    .length = 0,
					    .opcode = SACC_OP_MEMCPY});
	ck_assert_uint_eq(r.status, SACC_STS_BAD_LENGTH);
	ck_assert_uint_eq(reg(dev, SACC_REG_ERR_CODE), SACC_ERR_INVALID);
	r = raw_one(dev, (struct sacc_desc){.src = sacc_buf_iova(src),
					    .dst = sacc_buf_iova(dst),
					    .length = SACC_MAX_XFER + 1,
					    .opcode = SACC_OP_XFORM});
	ck_assert_uint_eq(r.status, SACC_STS_BAD_LENGTH);
	ck_assert_uint_eq(r.len, SACC_MAX_XFER + 1);
	check_canary("no DMA for a bad descriptor", va(dst), 8192);
	r = raw_one(dev, (struct sacc_desc){.length = 123,
					    .opcode = SACC_OP_NOP});
	ck_assert_uint_eq(r.status, SACC_STS_OK);
	ck_assert_uint_eq(r.result_len, 0);
	r = raw_one(dev, (struct sacc_desc){.src = sacc_buf_iova(src),
					    .dst = sacc_buf_iova(dst),
					    .length = 8192,
					    .opcode = SACC_OP_MEMCPY});
	ck_assert_uint_eq(r.status, SACC_STS_OK);
	ck_assert_uint_eq(r.result_len, 8192);
	ck_assert_mem_eq(va(dst), va(src), 8192);

	/* Counted by status; none of them is a device error; the device
	 * carries on without a reset. */
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.submitted, 5);
	ck_assert_uint_eq(st.completed, 5);
	ck_assert_uint_eq(st.doorbells, 5);
	ck_assert_uint_eq(st.by_status[SACC_STS_OK], 2);
	ck_assert_uint_eq(st.by_status[SACC_STS_BAD_OPCODE], 1);
	ck_assert_uint_eq(st.by_status[SACC_STS_DMA_FAULT], 0);
	ck_assert_uint_eq(st.by_status[SACC_STS_BAD_LENGTH], 2);
	ck_assert_uint_eq(st.device_errors, 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_STATUS), SACC_STATUS_READY);
	one_verified_op(dev, SACC_OP_XFORM, src, dst, 5000);
	sacc_close(dev);
}
END_TEST

/* ------------------------------------------------------------------ */
/* untrusted completions                                               */
/* ------------------------------------------------------------------ */

enum { REQ_FIRST, REQ_SECOND, REQ_BOGUS };

START_TEST(untrusted_completions)
{
	static const struct {
		const char *name;
		unsigned int nsubmit;
		int req;
		uint32_t result_len;
		uint16_t status;
		const char *needle;
	} cases[] = {
	    {"unknown req_id", 1, REQ_BOGUS, 4096, SACC_STS_OK,
	     "not outstanding at all"},
	    {"req_id out of ring order", 2, REQ_SECOND, 4096, SACC_STS_OK,
	     "out of ring order"},
	    {"result_len larger than requested", 1, REQ_FIRST, 4097,
	     SACC_STS_OK, "result_len 4097 is larger than the 4096 bytes"},
	    {"short result_len with status ok", 1, REQ_FIRST, 100,
	     SACC_STS_OK, "status ok but result_len 100 of 4096"},
	    {"unknown status", 1, REQ_FIRST, 0, 9, "unknown status 9"},
	    {"completion with nothing outstanding", 0, REQ_BOGUS, 0,
	     SACC_STS_OK, "while nothing is outstanding"},
	};
	struct sacc_dev *dev;
	struct sacc_buf *src, *dst;
	struct sacc_result res[4];
	struct sacc_stats st0, st;
	struct sacc_desc *sq;
	struct sacc_cqe *cq;
	struct sacc_op op;
	int ret;

	BEGIN();
	dev = guest_open(0, NULL);
	src = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "u src");
	dst = guest_buf(dev, 4096, SACC_DMA_FROM_DEVICE, "u dst");
	sq = (struct sacc_desc *)(uintptr_t)mapping_at(dev, sacc_dev_sq_iova(dev))
		 .vaddr;
	cq = (struct sacc_cqe *)(uintptr_t)mapping_at(dev, sacc_dev_cq_iova(dev))
		 .vaddr;
	op = (struct sacc_op){.opcode = SACC_OP_MEMCPY, .len = 4096,
			      .src = src, .dst = dst};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t id;

		/* Fresh rings (head 0, phase 1); then stop the device so
		 * that only the test writes the CQ. */
		ck_assert_int_eq(sacc_reset(dev), 0);
		reg_set(dev, SACC_REG_CTRL, 0);
		sacc_stats(dev, &st0);
		for (unsigned int k = 0; k < cases[i].nsubmit; k++) {
			op.cookie = k;
			ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
		}
		id = cases[i].req == REQ_FIRST	  ? sq[0].req_id
		     : cases[i].req == REQ_SECOND ? sq[1].req_id
						  : sq[0].req_id + 1000;
		cq[0].req_id = id;
		cq[0].result_len = cases[i].result_len;
		cq[0].reserved = 0;
		cq[0].status = cases[i].status;
		__atomic_store_n(&cq[0].phase, 1, __ATOMIC_RELEASE);

		memset(res, 0xee, sizeof(res));
		ret = sacc_poll(dev, res, 4);
		ck_assert_msg(ret == -EIO, "%s: sacc_poll returned %d (%s)",
			      cases[i].name, ret, sacc_errmsg(dev));
		assert_msg_has(sacc_errmsg(dev), "device error");
		assert_msg_has(sacc_errmsg(dev), cases[i].needle);
		assert_msg_has(sacc_errmsg(dev), sacc_dev_bdf(dev));
		ck_assert_uint_eq(res[0].cookie, 0xeeeeeeeeeeeeeeeeull);
		sacc_stats(dev, &st);
		ck_assert_uint_eq(st.device_errors, st0.device_errors + 1);
		ck_assert_uint_eq(st.completed, st0.completed);
		/* Untrusted until reset. */
		ck_assert_int_eq(sacc_poll(dev, res, 4), -EIO);
		ck_assert_int_eq(sacc_submit(dev, &op, 1), -EIO);
		ck_assert_int_eq(sacc_wait(dev, 0), -EIO);
	}

	/* An entry with the previous lap's phase is not a completion yet. */
	ck_assert_int_eq(sacc_reset(dev), 0);
	reg_set(dev, SACC_REG_CTRL, 0);
	sacc_stats(dev, &st0);
	op.cookie = 55;
	ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	cq[0] = (struct sacc_cqe){.req_id = sq[0].req_id, .result_len = 4096,
				  .status = SACC_STS_OK, .phase = 0};
	for (int k = 0; k < 100; k++)
		ck_assert_int_eq(sacc_poll(dev, res, 4), 0);
	__atomic_store_n(&cq[0].phase, 1, __ATOMIC_RELEASE);
	ck_assert_int_eq(sacc_poll(dev, res, 4), 1);
	ck_assert_uint_eq(res[0].cookie, 55);
	ck_assert_uint_eq(res[0].result_len, 4096);

	/* Good results before a bad entry are delivered first. */
	ck_assert_int_eq(sacc_reset(dev), 0);
	reg_set(dev, SACC_REG_CTRL, 0);
	sacc_stats(dev, &st0);
	for (unsigned int k = 0; k < 2; k++) {
		op.cookie = 100 + k;
		ck_assert_int_eq(sacc_submit(dev, &op, 1), 1);
	}
	cq[0] = (struct sacc_cqe){.req_id = sq[0].req_id, .result_len = 4096,
				  .status = SACC_STS_OK, .phase = 1};
	cq[1] = (struct sacc_cqe){.req_id = sq[1].req_id, .result_len = 8192,
				  .status = SACC_STS_OK};
	__atomic_store_n(&cq[1].phase, 1, __ATOMIC_RELEASE);
	ck_assert_int_eq(sacc_poll(dev, res, 4), 1);
	ck_assert_uint_eq(res[0].cookie, 100);
	ck_assert_int_eq(sacc_poll(dev, res, 4), -EIO);
	assert_msg_has(sacc_errmsg(dev), "larger than the 4096 bytes");
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.completed, st0.completed + 1);
	ck_assert_uint_eq(st.device_errors, st0.device_errors + 1);

	/* sacc_reset() is the way out: real ops work again. */
	ck_assert_int_eq(sacc_reset(dev), 0);
	sacc_stats(dev, &st);
	ck_assert_uint_ge(st.abandoned, 1);
	one_verified_op(dev, SACC_OP_XFORM, src, dst, 4096);
	sacc_close(dev);
}
END_TEST

/* ------------------------------------------------------------------ */
/* issue 9: the device is not trusted, nothing hangs                   */
/* ------------------------------------------------------------------ */

/* Wait (bounded) until @n CQ entries carry phase 1. */
static void wait_posted(const struct sacc_cqe *cq, unsigned int size,
			unsigned int n)
{
	unsigned int posted = 0;
	uint64_t t0 = sacc_monotonic_ns();

	do {
		posted = 0;
		for (unsigned int i = 0; i < size; i++)
			posted +=
			    __atomic_load_n(&cq[i].phase, __ATOMIC_ACQUIRE) & 1;
	} while (posted < n && sacc_monotonic_ns() - t0 < 10000000000ull);
	ck_assert_msg(posted == n, "%u completions posted, want %u", posted, n);
}

/*
 * A well-formed completion DMA-written by the device itself (a MEMCPY
 * it was told to do) into the CQ slot it keeps free, naming a queued
 * 1 MiB XFORM it has not run: the CQ is full, so it never will.
 */
START_TEST(forged_completion)
{
	struct sacc_open_opts o = {.sq_entries = 16, .cq_entries = 4};
	struct sacc_buf *forger, *src, *dst;
	struct sacc_result res[16];
	struct sacc_op ops[3];
	struct sacc_desc d = {0};
	struct sacc_cqe forged;
	const struct sacc_cqe *cq;
	struct sacc_dev *dev;
	int id, k = 0, got = 0;

	BEGIN();
	dev = guest_open(0, &o);
	cq = (const struct sacc_cqe *)(uintptr_t)mapping_at(
		 dev, sacc_dev_cq_iova(dev))
		 .vaddr;
	forger = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "forger");
	src = guest_buf(dev, MiB, SACC_DMA_TO_DEVICE, "f src");
	dst = guest_buf(dev, MiB, SACC_DMA_FROM_DEVICE, "f dst");
	fill_random(va(src), MiB);
	memset(va(dst), CANARY, MiB);
	/* req_ids are sequential: learn the next one, then start afresh
	 * (CQ head 0, phase 1) with the forgery in place before the
	 * doorbell that makes the device copy it. */
	ops[0] = (struct sacc_op){.opcode = SACC_OP_NOP};
	ck_assert_int_eq(sacc_submit(dev, ops, 1), 1);
	reap_n(dev, res, 1);
	id = (int)res[0].req_id + 1;
	ck_assert_int_eq(sacc_reset(dev), 0);
	forged = (struct sacc_cqe){.req_id = (uint32_t)id + 3,
				   .result_len = MiB,
				   .status = SACC_STS_OK,
				   .phase = 1};
	memcpy(va(forger), &forged, sizeof(forged));
	d.opcode = SACC_OP_MEMCPY;
	d.src = sacc_buf_iova(forger);
	d.dst = sacc_dev_cq_iova(dev) + 3 * sizeof(struct sacc_cqe);
	d.length = sizeof(struct sacc_cqe);
	ck_assert_int_eq(sacc_submit_raw(dev, &d), id);
	ops[0] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = 1};
	ops[1] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = 2};
	ops[2] = (struct sacc_op){.opcode = SACC_OP_XFORM,
				  .len = MiB,
				  .src = src,
				  .dst = dst,
				  .cookie = 99};
	ck_assert_int_eq(sacc_submit(dev, ops, 3), 3);
	wait_posted(cq, 4, 4); /* three completions and the forgery */
	guest_sleep_ms(100);
	/* The CQ is full: the device has not run the XFORM the forged
	 * entry claims is done. */
	check_canary("dst of the XFORM the device has not run", va(dst), MiB);
	for (int i = 0; i < 100; i++) {
		k = sacc_poll(dev, res, 16);
		if (k < 0)
			break;
		for (int j = 0; j < k; j++)
			ck_assert_msg(res[j].cookie != 99,
				      "the forged XFORM completion was "
				      "accepted (status %u, result_len %u)",
				      res[j].status, res[j].result_len);
		got += k;
	}
	ck_assert_int_eq(got, 3);
	ck_assert_msg(k == -EIO, "sacc_poll: %d (%s)", k, sacc_errmsg(dev));
	assert_msg_has(sacc_errmsg(dev), "forged");
	assert_msg_has(sacc_errmsg(dev), "slot 3");
	assert_msg_has(sacc_errmsg(dev), "sacc_reset()");
	ck_assert_int_eq(sacc_reset(dev), 0);
	one_verified_op(dev, SACC_OP_XFORM, src, dst, MiB);
	sacc_close(dev);
}
END_TEST

/* A NOP's completion overwritten with zeros before it is reaped; the
 * device's next one sits in the following slot. */
START_TEST(erased_completion)
{
	struct sacc_op ops[2] = {
	    {.opcode = SACC_OP_NOP, .flags = SACC_OPF_IRQ, .cookie = 1},
	    {.opcode = SACC_OP_NOP, .flags = SACC_OPF_IRQ, .cookie = 2}};
	struct sacc_result res[2];
	struct sacc_cqe *cq;
	struct sacc_dev *dev;
	uint64_t t0;
	int k = 0;

	BEGIN();
	for (int mode = 0; mode < 2; mode++) {
		dev = guest_open(0, NULL);
		cq = (struct sacc_cqe *)(uintptr_t)mapping_at(
			 dev, sacc_dev_cq_iova(dev))
			 .vaddr;
		ck_assert_int_eq(sacc_submit(dev, ops, 2), 2);
		wait_posted(cq, SACC_DEFAULT_ENTRIES, 2);
		memset(&cq[0], 0, sizeof(cq[0]));
		t0 = sacc_monotonic_ns();
		if (mode == 0) {
			for (int i = 0; i < 100000 && k == 0; i++)
				k = sacc_poll(dev, res, 2);
		} else {
			k = sacc_wait(dev, 1000);
		}
		ck_assert_msg(k == -EIO, "%s: %d (%s)",
			      mode ? "sacc_wait(1000)" : "sacc_poll", k,
			      sacc_errmsg(dev));
		ck_assert_uint_lt(sacc_monotonic_ns() - t0, 5000000000ull);
		assert_msg_has(sacc_errmsg(dev), "completion lost");
		assert_msg_has(sacc_errmsg(dev), "sacc_reset()");
		ck_assert_int_eq(sacc_reset(dev), 0);
		ck_assert_int_eq(sacc_submit(dev, ops, 2), 2);
		reap_n(dev, res, 2);
		sacc_close(dev);
		k = 0;
	}
}
END_TEST

/* Freed IOVA is quarantined: a device still holding it faults, for
 * many allocations after, instead of writing into a new buffer. */
START_TEST(use_after_unmap_quarantined)
{
	struct sacc_buf *src, *victim, *next[16];
	struct sacc_desc d = {0};
	struct sacc_dev *dev;
	uint64_t stale;

	BEGIN();
	dev = guest_open(0, NULL);
	src = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "q src");
	fill_random(va(src), 4096);
	victim = guest_buf(dev, 4096, SACC_DMA_FROM_DEVICE, "q victim");
	stale = sacc_buf_iova(victim);
	ck_assert_int_eq(sacc_buf_free(victim), 0);
	for (int i = 0; i < 16; i++) {
		next[i] = guest_buf(dev, 4096, SACC_DMA_FROM_DEVICE, "q next");
		ck_assert_uint_ne(sacc_buf_iova(next[i]), stale);
		memset(va(next[i]), CANARY, 4096);
	}
	d.opcode = SACC_OP_MEMCPY;
	d.src = sacc_buf_iova(src);
	d.dst = stale;
	d.length = 4096;
	raw_expect_fault(dev, d, stale, "write through a stale IOVA");
	for (int i = 0; i < 16; i++)
		check_canary("buffers allocated after the unmap", va(next[i]),
			     4096);
	sacc_close(dev);
}
END_TEST

/* ------------------------------------------------------------------ */
/* reset and recover                                                   */
/* ------------------------------------------------------------------ */

START_TEST(reset_inflight)
{
	struct sacc_dev *dev;
	struct sacc_buf *src, *dst;
	struct sacc_op ops[16];
	struct sacc_result r;
	struct sacc_stats st;
	int ret;

	BEGIN();
	dev = guest_open(0, NULL);
	src = guest_buf(dev, MiB, SACC_DMA_TO_DEVICE, "r src");
	dst = guest_buf(dev, 16 * MiB, SACC_DMA_FROM_DEVICE, "r dst");
	fill_random(va(src), MiB);
	sacc_stats_clear(dev);

	/* Idle reset, twice. */
	ck_assert_int_eq(sacc_reset(dev), 0);
	ck_assert_int_eq(sacc_reset(dev), 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_STATUS), SACC_STATUS_READY);

	for (unsigned int i = 0; i < 16; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_MEMCPY, .len = MiB,
					  .src = src, .dst = dst,
					  .dst_off = (size_t)i * MiB,
					  .cookie = i};
	ck_assert_int_eq(sacc_submit(dev, ops, 16), 16);
	ret = sacc_reset(dev);
	ck_assert_msg(ret == 0, "sacc_reset: %d: %s", ret, sacc_errmsg(dev));
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.abandoned, 16);
	ck_assert_uint_eq(st.resets, 3);
	ck_assert_uint_eq(st.completed, 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_STATUS), SACC_STATUS_READY);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_COUNT), 0);

	/* No DMA after the reset returned, and no stale completion. */
	memset(va(dst), CANARY, 16 * MiB);
	guest_sleep_ms(300);
	for (int i = 0; i < 20000; i++)
		ck_assert_int_eq(sacc_poll(dev, &r, 1), 0);
	check_canary("dst after reset", va(dst), 16 * MiB);

	/* Buffers of abandoned ops are free again; the device works. */
	ck_assert_int_eq(sacc_buf_free(dst), 0);
	dst = guest_buf(dev, MiB, SACC_DMA_FROM_DEVICE, "r dst2");
	one_verified_op(dev, SACC_OP_MEMCPY, src, dst, MiB);
	one_verified_op(dev, SACC_OP_XFORM, src, dst, 777);
	sacc_close(dev);
}
END_TEST

/* Write @val to a sysfs attribute of @bdf; 0 or -errno. */
static int sysfs_write(const char *bdf, const char *attr, const char *val)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", bdf, attr);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * The device is reset from outside (its sysfs reset file: an FLR by the
 * kernel) while 4000 interrupt-flagged ops are outstanding and the
 * process sleeps in sacc_wait(dev, -1): it must wake with a device
 * error, not sleep for ever.
 */
START_TEST(reset_from_outside)
{
	struct sacc_open_opts o = {.sq_entries = 4096};
	static struct sacc_op ops[4000];
	static struct sacc_result res[4096];
	struct sacc_buf *src, *dst;
	struct sacc_dev *dev;
	uint64_t t_reset = 0, t0;
	int r, status, rc;
	pid_t pid;

	BEGIN();
	dev = guest_open(0, &o);
	src = guest_buf(dev, MiB, SACC_DMA_TO_DEVICE, "x src");
	dst = guest_buf(dev, MiB, SACC_DMA_FROM_DEVICE, "x dst");
	for (unsigned int i = 0; i < 4000; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
					  .flags = SACC_OPF_IRQ,
					  .len = MiB,
					  .src = src,
					  .dst = dst,
					  .cookie = i};
	ck_assert_int_eq(sacc_submit(dev, ops, 4000), 4000);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	/* The child resets at once: with a 200 ms head start, the device
	 * finished all 4 GiB of copies first on a loaded host once. */
	if (pid == 0)
		_exit(sysfs_write(sacc_dev_bdf(dev), "reset", "1") ? 1 : 0);
	t0 = sacc_monotonic_ns();
	for (;;) {
		r = sacc_wait(dev, -1);
		if (r < 0)
			break;
		ck_assert_int_eq(r, 1);
		r = sacc_poll(dev, res, 4096);
		if (r < 0)
			break;
		ck_assert_msg(sacc_monotonic_ns() - t0 < 60000000000ull,
			      "still reaping after 60 s");
		if (!t_reset && waitpid(pid, &status, WNOHANG) == pid)
			t_reset = sacc_monotonic_ns();
	}
	if (!t_reset) {
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		t_reset = t0;
	}
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "writing 1 to %s's sysfs reset failed",
		      sacc_dev_bdf(dev));
	ck_assert_msg(r == -EIO, "sacc_wait/sacc_poll: %d (%s)", r,
		      sacc_errmsg(dev));
	ck_assert_msg(sacc_outstanding(dev) > 0,
		      "all 4000 ops were done before the reset: nothing shown");
	ck_assert_msg(sacc_monotonic_ns() - t_reset < 5000000000ull,
		      "the reset was noticed %.1f s after it",
		      (double)(sacc_monotonic_ns() - t_reset) / 1e9);
	assert_msg_has(sacc_errmsg(dev), "reset or disabled behind");
	assert_msg_has(sacc_errmsg(dev), "sacc_reset()");
	ck_assert_int_eq(sacc_wait(dev, -1), -EIO); /* sticky */
	rc = sacc_reset(dev);
	ck_assert_msg(rc == 0, "sacc_reset: %d: %s", rc, sacc_errmsg(dev));
	one_verified_op(dev, SACC_OP_MEMCPY, src, dst, 64 * KiB);
	sacc_close(dev);
}
END_TEST

/* Unmap the SQ ring behind libsacc's back (and put it back). */
static void sq_unmap(struct sacc_dev *dev, const struct sacc_map_entry *e)
{
	struct sacc_err err = {0};
	int ret = sacc_vfio_unmap_dma(sacc_dev_container_fd(dev), e->iova,
				      e->len, &err);

	ck_assert_msg(ret == 0, "unmap SQ: %d %s", ret, err.msg);
}

static void sq_remap(struct sacc_dev *dev, const struct sacc_map_entry *e)
{
	struct sacc_err err = {0};
	int ret = sacc_vfio_map_dma(sacc_dev_container_fd(dev), e->vaddr,
				    e->iova, e->len, e->perm, &err);

	ck_assert_msg(ret == 0, "remap SQ: %d %s", ret, err.msg);
}

START_TEST(reset_after_fatal_ring_fault)
{
	struct sacc_op nop = {.opcode = SACC_OP_NOP};
	struct sacc_buf *src, *dst;
	struct sacc_map_entry sqm;
	struct sacc_result r;
	struct sacc_stats st;
	struct sacc_dev *dev;
	char needle[64], last[512] = "";
	uint64_t mark, fa;
	int ret, hits, fds0 = guest_count_fds();

	BEGIN();
	dev = guest_open(0, NULL);
	src = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "f src");
	dst = guest_buf(dev, 4096, SACC_DMA_FROM_DEVICE, "f dst");
	one_verified_op(dev, SACC_OP_MEMCPY, src, dst, 4096);
	sqm = mapping_at(dev, sacc_dev_sq_iova(dev));
	sacc_stats_clear(dev);

	/* 1. Detected by the fatal interrupt (op without SACC_OPF_IRQ).
	 * The kernel's DMAR fault handler is rate limited (10 messages per
	 * 5 s, about 3 per fault): let any earlier test's window expire so
	 * that this fault is logged for certain.  A sleep, not a handshake:
	 * the window is the kernel's rule, and nothing shows it ending. */
	guest_sleep_ms(5100);
	mark = guest_kmsg_mark();
	sq_unmap(dev, &sqm);
	ck_assert_int_eq(sacc_submit(dev, &nop, 1), 1);
	ret = sacc_wait(dev, REAP_TIMEOUT_MS);
	ck_assert_msg(ret == -EIO, "sacc_wait after a ring fault: %d (%s)", ret,
		      sacc_errmsg(dev));
	assert_msg_has(sacc_errmsg(dev), sacc_dev_bdf(dev));
	assert_msg_has(sacc_errmsg(dev), "descriptor fetch");
	assert_msg_has(sacc_errmsg(dev), "'sq ring'");
	assert_msg_has(sacc_errmsg(dev), "sacc_reset()");
	/* The device's fault record agrees. */
	ck_assert_uint_eq(reg(dev, SACC_REG_STATUS) & SACC_STATUS_ERROR,
			  SACC_STATUS_ERROR);
	ck_assert_uint_eq(reg(dev, SACC_REG_STATUS) & SACC_STATUS_READY, 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_ERR_CODE), SACC_ERR_DMA);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_INFO), SACC_FAULT_DESC_FETCH);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_REQ_ID), 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_COUNT), 1);
	fa = reg(dev, SACC_REG_FAULT_ADDR) |
	     (uint64_t)reg(dev, SACC_REG_FAULT_ADDR + 4) << 32;
	ck_assert_msg(fa >= sqm.iova && fa < sqm.iova + sqm.len,
		      "FAULT_ADDR 0x%" PRIx64 " not in the SQ ring", fa);
	/* ...and so does the guest kernel's intel-iommu driver. */
	snprintf(needle, sizeof(needle), "fault addr 0x%" PRIx64,
		 fa & ~(uint64_t)0xfff);
	hits = guest_kmsg_grep(mark, needle, last, sizeof(last));
	ck_assert_msg(hits >= 1, "no DMAR fault \"%s\" in the kernel log",
		      needle);
	/* Untrusted until reset. */
	ck_assert_int_eq(sacc_submit(dev, &nop, 1), -EIO);
	ck_assert_int_eq(sacc_poll(dev, &r, 1), -EIO);
	ck_assert_int_eq(sacc_check(dev), -EIO);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.device_errors, 1);

	sq_remap(dev, &sqm);
	ret = sacc_reset(dev);
	ck_assert_msg(ret == 0, "sacc_reset: %d: %s", ret, sacc_errmsg(dev));
	ck_assert_int_eq(sacc_check(dev), 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_COUNT), 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_ERR_CODE), 0);
	one_verified_op(dev, SACC_OP_XFORM, src, dst, 4096);

	/* 2. Detected by polling alone (bounded: every few thousand empty
	 * polls libsacc reads STATUS). */
	sq_unmap(dev, &sqm);
	ck_assert_int_eq(sacc_submit(dev, &nop, 1), 1);
	ret = guest_reap(dev, &r, 1, REAP_TIMEOUT_MS);
	ck_assert_msg(ret == -EIO, "polling after a ring fault: %d (%s)", ret,
		      sacc_errmsg(dev));
	assert_msg_has(sacc_errmsg(dev), "descriptor fetch");
	sq_remap(dev, &sqm);
	ck_assert_int_eq(sacc_reset(dev), 0);
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.device_errors, 2);
	ck_assert_uint_eq(st.resets, 2);
	ck_assert_uint_eq(st.abandoned, 2);
	one_verified_op(dev, SACC_OP_MEMCPY, src, dst, 4096);

	/* 3. Closing a device that is still in the fatal state (no reset)
	 * leaves nothing behind either. */
	sq_unmap(dev, &sqm);
	ck_assert_int_eq(sacc_submit(dev, &nop, 1), 1);
	ck_assert_int_eq(sacc_wait(dev, REAP_TIMEOUT_MS), -EIO);
	sq_remap(dev, &sqm);
	sacc_close(dev);
	ck_assert_int_eq(guest_count_fds(), fds0);
	ck_assert_int_eq(vmlck_kb(), 0);
}
END_TEST

START_TEST(reset_after_enable_error)
{
	struct sacc_op nop = {.opcode = SACC_OP_NOP};
	struct sacc_dev *dev;
	struct eng e;

	BEGIN();
	dev = guest_open(0, NULL);
	/* The device stops by itself: a bad ring size at enable. */
	reg_set(dev, SACC_REG_CTRL, 0);
	reg_set(dev, SACC_REG_SQ_SIZE, 3);
	reg_set(dev, SACC_REG_CTRL, SACC_CTRL_ENABLE);
	ck_assert_uint_eq(reg(dev, SACC_REG_STATUS), SACC_STATUS_ERROR);
	ck_assert_int_eq(sacc_check(dev), -EIO);
	assert_msg_has(sacc_errmsg(dev), "ERR_CODE 3");
	assert_msg_has(sacc_errmsg(dev), "sacc_reset()");
	ck_assert_int_eq(sacc_submit(dev, &nop, 1), -EIO);
	ck_assert_int_eq(sacc_reset(dev), 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_SQ_SIZE), SACC_DEFAULT_ENTRIES);
	eng_init(&e, dev, "after enable error", 8, 64 * KiB);
	eng_run(&e, 100);
	eng_finish(&e);
	sacc_close(dev);
}
END_TEST

/* ------------------------------------------------------------------ */
/* error paths                                                         */
/* ------------------------------------------------------------------ */

START_TEST(bad_bdf)
{
	static const char *const bad[] = {
	    "",		     "0000:00:03",	 "00:03",
	    "0000:00:03.8",  "0000:00:20.0",	 "g000:00:03.0",
	    "0000:00:03.0 ", "0000:00:03.00",	 "00000:01:00.0",
	    "0000:001:00.0", "0000::00.0",	 "../../../etc",
	    "0000:01:00.0/", "1:2:3:4.5",	 "0x00:03.0",
	    "0000:01:00.0aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
	char shortform[SACC_BDF_MAX];
	struct sacc_open_opts o = {0};
	struct sacc_dev *dev = (struct sacc_dev *)1;
	int fds0 = guest_count_fds();
	int ret;

	BEGIN();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		dev = (struct sacc_dev *)1;
		ret = sacc_open(bad[i], NULL, &dev);
		ck_assert_msg(ret == -EINVAL, "sacc_open(\"%s\"): %d", bad[i],
			      ret);
		ck_assert_ptr_null(dev);
		if (*bad[i]) {
			char head[24];

			snprintf(head, sizeof(head), "'%.20s", bad[i]);
			assert_msg_has(sacc_errmsg(NULL), head);
			assert_msg_has(sacc_errmsg(NULL), "is not a PCI address");
		}
		assert_msg_has(sacc_errmsg(NULL), "DDDD:BB:DD.F");
	}
	ck_assert_int_eq(sacc_open(NULL, NULL, &dev), -EINVAL);
	ck_assert_int_eq(sacc_open(guest_bdf_at(0), NULL, NULL), -EINVAL);

	/* Well formed, but absent: normalised in the message. */
	ck_assert_int_eq(sacc_open("7f:00.0", NULL, &dev), -ENODEV);
	ck_assert_ptr_null(dev);
	assert_msg_has(sacc_errmsg(NULL), "no PCI device 0000:7f:00.0");
	ck_assert_int_eq(sacc_open("0000:00:1e.7", NULL, &dev), -ENODEV);
	assert_msg_has(sacc_errmsg(NULL), "0000:00:1e.7");
	/* Present, but not a SACC device (the q35 host bridge). */
	ck_assert_int_eq(sacc_open("0000:00:00.0", NULL, &dev), -ENODEV);
	assert_msg_has(sacc_errmsg(NULL), "0000:00:00.0 is not a SACC device");

	/* Short form and upper case of a real device work. */
	snprintf(shortform, sizeof(shortform), "%s", guest_bdf_at(0) + 5);
	for (char *p = shortform; *p; p++)
		if (*p >= 'a' && *p <= 'f')
			*p = (char)(*p - 'a' + 'A');
	dev = guest_open(0, NULL);
	sacc_close(dev);
	ck_assert_int_eq(sacc_open(shortform, NULL, &dev), 0);
	ck_assert_str_eq(sacc_dev_bdf(dev), guest_bdf_at(0));

	/* The same device twice: busy, with a message saying so. */
	{
		struct sacc_dev *again = (struct sacc_dev *)1;

		ret = sacc_open(guest_bdf_at(0), NULL, &again);
		ck_assert_int_eq(ret, -EBUSY);
		ck_assert_ptr_null(again);
		assert_msg_has(sacc_errmsg(NULL), "busy");
		assert_msg_has(sacc_errmsg(NULL), guest_bdf_at(0));
	}
	sacc_close(dev);

	/* Bad options. */
	o.sq_entries = 3;
	ck_assert_int_eq(sacc_open(guest_bdf_at(0), &o, &dev), -EINVAL);
	assert_msg_has(sacc_errmsg(NULL), "powers of two");
	o.sq_entries = 131072;
	ck_assert_int_eq(sacc_open(guest_bdf_at(0), &o, &dev), -EINVAL);
	o = (struct sacc_open_opts){.doorbell = (enum sacc_doorbell)7};
	ck_assert_int_eq(sacc_open(guest_bdf_at(0), &o, &dev), -EINVAL);
	assert_msg_has(sacc_errmsg(NULL), "doorbell");
	o = (struct sacc_open_opts){.flags = 0x80};
	ck_assert_int_eq(sacc_open(guest_bdf_at(0), &o, &dev), -EINVAL);
	assert_msg_has(sacc_errmsg(NULL), "flags");

	/* SACC_OPEN_NO_INIT: registers only, the data path says so. */
	o = (struct sacc_open_opts){.flags = SACC_OPEN_NO_INIT};
	dev = guest_open(0, &o);
	ck_assert_uint_eq(reg(dev, SACC_REG_MAGIC), SACC_MAGIC);
	{
		struct sacc_op nop = {.opcode = SACC_OP_NOP};
		struct sacc_result r;

		ck_assert_int_eq(sacc_submit(dev, &nop, 1), -ENOTCONN);
		assert_msg_has(sacc_errmsg(dev), "SACC_OPEN_NO_INIT");
		ck_assert_int_eq(sacc_poll(dev, &r, 1), -ENOTCONN);
	}
	ck_assert_int_eq(sacc_reg_read(dev, 0x2000, &(uint32_t){0}), -EINVAL);
	ck_assert_int_eq(sacc_reg_read(dev, 0x3, &(uint32_t){0}), -EINVAL);
	sacc_close(dev);

	/* Failures leave nothing behind. */
	ck_assert_int_eq(guest_count_fds(), fds0);
	ck_assert_int_eq(vmlck_kb(), 0);
}
END_TEST

/* ---- memlock too low: in a child without CAP_IPC_LOCK ---- */

/* MemAvailable of the guest in bytes. */
static uint64_t mem_available(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/meminfo", "re");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	ck_assert_uint_gt(kb, 0);
	return (uint64_t)kb * 1024;
}

/*
 * A buffer the machine cannot spare fails with -ENOMEM and says what to
 * do, before a page is touched: pinning it would wake the OOM killer.
 */
START_TEST(out_of_memory_refused)
{
	struct sacc_buf *b = (struct sacc_buf *)1;
	struct sacc_dev *dev;
	long lck0;
	uint64_t ask;
	int ret;

	BEGIN();
	dev = guest_open(0, NULL);
	lck0 = vmlck_kb();
	/* all but 16 MiB of what is available: inside the reserve */
	ask = mem_available() - 16 * MiB;
	ret = sacc_buf_alloc(dev, ask, SACC_DMA_FROM_DEVICE, "too big", &b);
	ck_assert_msg(ret == -ENOMEM, "sacc_buf_alloc(%" PRIu64 "): %d: %s",
		      ask, ret, sacc_errmsg(dev));
	ck_assert_ptr_null(b);
	assert_msg_has(sacc_errmsg(dev), "MemAvailable");
	assert_msg_has(sacc_errmsg(dev), "OOM killer");
	assert_msg_has(sacc_errmsg(dev), "'too big'");
	ck_assert_int_eq(vmlck_kb(), lck0);
	/* the device is fine, and modest buffers still work */
	b = guest_buf(dev, 64 * MiB, SACC_DMA_FROM_DEVICE, "fits");
	ck_assert_int_eq(sacc_buf_free(b), 0);
	sacc_close(dev);
}
END_TEST

static int drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	unsigned int i = CAP_TO_INDEX(CAP_IPC_LOCK);

	if (syscall(SYS_capget, &h, d))
		return -errno;
	d[i].effective &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	d[i].permitted &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	d[i].inheritable &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	if (syscall(SYS_capset, &h, d))
		return -errno;
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d))
		return -errno;
	return d[i].effective & CAP_TO_MASK(CAP_IPC_LOCK) ? -EPERM : 0;
}

static int memlock_child(char *msg, size_t len)
{
	struct rlimit rl = {64 * KiB, 64 * KiB};
	const char *bdf = guest_bdf(0);
	struct sacc_buf *big = NULL, *src, *dst;
	struct sacc_iova_range ranges[16];
	struct sacc_dma_stats ds;
	struct sacc_err err = {0};
	struct sacc_dev *dev = NULL;
	struct sacc_op op;
	struct sacc_result r;
	int fds0 = guest_count_fds();
	const char *m;
	uint64_t hi;
	void *mem;
	int ret, nr;

	CHILD_CHECK(bdf, "no SACC device");
	ret = drop_ipc_lock();
	CHILD_CHECK(ret == 0, "cannot drop CAP_IPC_LOCK: %d", ret);
	CHILD_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0, "setrlimit: %s",
		    strerror(errno));

	/* The rings (12 KiB) fit in 64 KiB; a 1 MiB buffer does not. */
	ret = sacc_open(bdf, NULL, &dev);
	CHILD_CHECK(ret == 0, "sacc_open under 64 KiB memlock: %d: %s", ret,
		    sacc_errmsg(NULL));
	sacc_dma_ctx_stats(sacc_dev_dma(dev), &ds);
	CHILD_CHECK(!ds.limits.memlock_exempt, "libsacc thinks CAP_IPC_LOCK "
					       "is held");
	CHILD_CHECK(ds.limits.memlock_limit == 64 * KiB, "limit %" PRIu64,
		    ds.limits.memlock_limit);
	ret = sacc_buf_alloc(dev, MiB, SACC_DMA_FROM_DEVICE, "big", &big);
	m = sacc_errmsg(dev);
	CHILD_CHECK(ret == -ENOMEM, "1 MiB under 64 KiB memlock: %d (%s)", ret,
		    m);
	CHILD_CHECK(big == NULL, "buffer returned on failure");
	CHILD_CHECK(contains(m, "RLIMIT_MEMLOCK") && contains(m, "64 KiB") &&
			contains(m, "ulimit -l") && contains(m, "'big'") &&
			contains(m, bdf),
		    "unclear memlock message: \"%s\"", m);
	sacc_dma_ctx_stats(sacc_dev_dma(dev), &ds);
	CHILD_CHECK(ds.pinned_bytes == 12 * KiB, "pinned %" PRIu64,
		    ds.pinned_bytes);
	CHILD_CHECK((uint64_t)vmlck_kb() * 1024 == ds.pinned_bytes,
		    "VmLck %ld kB, libsacc says %" PRIu64, vmlck_kb(),
		    ds.pinned_bytes);

	/* The kernel enforces the same limit (libsacc's check is not
	 * stricter than reality): a raw 1 MiB map at a free high IOVA. */
	nr = sacc_dev_iova_ranges(dev, ranges, 16, NULL);
	CHILD_CHECK(nr >= 1 && nr <= 16, "%d IOVA ranges", nr);
	hi = ((ranges[nr - 1].end + 1) & ~(uint64_t)(MiB - 1)) - 4 * MiB;
	mem = mmap(NULL, MiB, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHILD_CHECK(mem != MAP_FAILED, "mmap");
	memset(mem, 1, MiB);
	ret = sacc_vfio_map_dma(sacc_dev_container_fd(dev),
				(uint64_t)(uintptr_t)mem, hi, MiB,
				VFIO_DMA_MAP_FLAG_READ, &err);
	if (ret == 0)
		sacc_vfio_unmap_dma(sacc_dev_container_fd(dev), hi, MiB, NULL);
	CHILD_CHECK(ret == -ENOMEM, "kernel accepted pinning 1 MiB over a 64 "
				    "KiB RLIMIT_MEMLOCK: %d",
		    ret);
	munmap(mem, MiB);

	/* What fits still works. */
	src = NULL;
	dst = NULL;
	ret = sacc_buf_alloc(dev, 16 * KiB, SACC_DMA_TO_DEVICE, "s", &src);
	CHILD_CHECK(ret == 0, "16 KiB src: %s", sacc_errmsg(dev));
	ret = sacc_buf_alloc(dev, 16 * KiB, SACC_DMA_FROM_DEVICE, "d", &dst);
	CHILD_CHECK(ret == 0, "16 KiB dst: %s", sacc_errmsg(dev));
	fill_random(va(src), 16 * KiB);
	op = (struct sacc_op){.opcode = SACC_OP_MEMCPY, .len = 16 * KiB,
			      .src = src, .dst = dst};
	CHILD_CHECK(sacc_submit(dev, &op, 1) == 1, "%s", sacc_errmsg(dev));
	ret = guest_reap(dev, &r, 1, REAP_TIMEOUT_MS);
	CHILD_CHECK(ret == 1 && r.status == SACC_STS_OK, "reap %d: %s", ret,
		    sacc_errmsg(dev));
	CHILD_CHECK(!memcmp(va(src), va(dst), 16 * KiB), "data mismatch");
	sacc_close(dev);
	CHILD_CHECK(vmlck_kb() == 0, "VmLck %ld kB after close", vmlck_kb());

	/* Too low even for the rings: sacc_open fails cleanly. */
	rl.rlim_cur = rl.rlim_max = 4 * KiB;
	CHILD_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0, "setrlimit 4K");
	dev = (struct sacc_dev *)1;
	ret = sacc_open(bdf, NULL, &dev);
	m = sacc_errmsg(NULL);
	CHILD_CHECK(ret == -ENOMEM, "sacc_open under 4 KiB memlock: %d (%s)",
		    ret, m);
	CHILD_CHECK(dev == NULL, "device returned on failure");
	CHILD_CHECK(contains(m, "RLIMIT_MEMLOCK") && contains(m, "4 KiB") &&
			contains(m, "ulimit -l") && contains(m, bdf),
		    "unclear memlock message: \"%s\"", m);
	CHILD_CHECK(guest_count_fds() == fds0, "%d fds, %d before",
		    guest_count_fds(), fds0);
	CHILD_CHECK(vmlck_kb() == 0, "VmLck %ld kB", vmlck_kb());
	snprintf(msg, len, "ok");
	return 0;
}

START_TEST(memlock_too_low)
{
	BEGIN();
	guest_bdf_at(0);
	run_in_child(memlock_child);
	/* The parent kept CAP_IPC_LOCK and its limit. */
	ck_assert_int_eq(vmlck_kb(), 0);
}
END_TEST

/* ---- VFIO dma_entry_limit (own TCase: the teardown restores it) ---- */

#define DMA_ENTRY_LIMIT \
	"/sys/module/vfio_iommu_type1/parameters/dma_entry_limit"

static char dma_limit_saved[32];

static int write_str(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, v, strlen(v));
	close(fd);
	return n == (ssize_t)strlen(v) ? 0 : -EIO;
}

static void save_dma_limit(void)
{
	FILE *f = fopen(DMA_ENTRY_LIMIT, "re");

	dma_limit_saved[0] = '\0';
	if (f) {
		if (!fgets(dma_limit_saved, sizeof(dma_limit_saved), f))
			dma_limit_saved[0] = '\0';
		fclose(f);
	}
}

static void restore_dma_limit(void)
{
	if (dma_limit_saved[0] && write_str(DMA_ENTRY_LIMIT, dma_limit_saved))
		fprintf(stderr, "could not restore %s to %s\n", DMA_ENTRY_LIMIT,
			dma_limit_saved);
}

START_TEST(dma_entry_limit)
{
	struct sacc_buf *b[8] = {0}, *extra = NULL;
	struct sacc_dev *dev;
	int n = 0, ret;

	BEGIN();
	ck_assert_msg(dma_limit_saved[0], "cannot read %s", DMA_ENTRY_LIMIT);
	/* 8 mappings per container: the rings take 2, 6 buffers fit. */
	ck_assert_int_eq(write_str(DMA_ENTRY_LIMIT, "8"), 0);
	dev = guest_open(0, NULL);
	for (n = 0; n < 8; n++) {
		ret = sacc_buf_alloc(dev, 4096, SACC_DMA_BIDIRECTIONAL, "lim",
				     &b[n]);
		if (ret)
			break;
	}
	ck_assert_msg(n == 6, "%d buffers fit under dma_entry_limit 8 (rings "
			      "take 2): %s",
		      n, sacc_errmsg(dev));
	ck_assert_int_eq(ret, -ENOSPC);
	assert_msg_has(sacc_errmsg(dev), "dma_entry_limit");
	assert_msg_has(sacc_errmsg(dev), DMA_ENTRY_LIMIT);
	assert_msg_has(sacc_errmsg(dev), "'lim'");
	/* Freeing one makes room for one. */
	ck_assert_int_eq(sacc_buf_free(b[0]), 0);
	ck_assert_int_eq(sacc_buf_alloc(dev, 4096, SACC_DMA_BIDIRECTIONAL,
					"again", &extra),
			 0);
	one_verified_op(dev, SACC_OP_MEMCPY, extra, b[1], 4096);
	sacc_close(dev);
	restore_dma_limit();
}
END_TEST

/* ---- non-viable group: a fake sysfs tree ---- */

static char fake_root[64];

static void fake_dev(int group, const char *bdf, const char *driver)
{
	char path[512], target[256];

	snprintf(path, sizeof(path), "%s/kernel/iommu_groups/%d/devices/%s",
		 fake_root, group, bdf);
	for (char *p = path + strlen(fake_root) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	ck_assert_int_eq(mkdir(path, 0755), 0);
	if (!driver)
		return;
	snprintf(target, sizeof(target),
		 "../../../../../../bus/pci/drivers/%s", driver);
	strncat(path, "/driver", sizeof(path) - strlen(path) - 1);
	ck_assert_int_eq(symlink(target, path), 0);
}

START_TEST(non_viable_group)
{
	char why[512];
	int g, ret;

	BEGIN();
	snprintf(fake_root, sizeof(fake_root), "/tmp/sacc-fake-sysfs.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fake_root));
	fake_dev(7, "0000:00:03.0", "vfio-pci");
	fake_dev(7, "0000:00:03.1", "ahci");
	fake_dev(8, "0000:00:04.0", "vfio-pci");
	fake_dev(8, "0000:00:04.1", NULL);
	fake_dev(8, "0000:00:04.2", "pci-stub");
	fake_dev(8, "0000:00:04.3", "vfio-pci");
	fake_dev(9, "0000:00:05.0", "vfio-pci");
	fake_dev(9, "0000:00:05.1", "ahci");
	fake_dev(9, "0000:00:05.2", "e1000e");
	ck_assert_int_eq(setenv("SACC_SYSFS_ROOT", fake_root, 1), 0);

	ret = sacc_group_viable(7, "0000:00:03.0", why, sizeof(why));
	ck_assert_int_eq(ret, 0);
	ck_assert_str_eq(why, "0000:00:03.1 is bound to ahci; bind it to "
			      "vfio-pci or unbind it");
	/* sacc_open() prefixes this with "group 7 is not viable: " when
	 * VFIO_GROUP_GET_STATUS lacks VIABLE; every IOMMU group in the
	 * guest is viable to the kernel, so that path cannot run here. */
	ck_assert_int_eq(sacc_group_viable(7, NULL, why, sizeof(why)), 0);
	/* The offender itself is ignored when it is @self. */
	ck_assert_int_eq(sacc_group_viable(7, "0000:00:03.1", why, sizeof(why)),
			 1);
	/* vfio-pci, pci-stub and no driver are all fine. */
	ck_assert_int_eq(sacc_group_viable(8, "0000:00:04.0", why, sizeof(why)),
			 1);
	ck_assert_str_eq(why, "");
	/* Two offenders: both named, plural advice. */
	ck_assert_int_eq(sacc_group_viable(9, "0000:00:05.0", why, sizeof(why)),
			 0);
	ck_assert_msg(
	    !strcmp(why, "0000:00:05.1 is bound to ahci, 0000:00:05.2 is "
			 "bound to e1000e; bind them to vfio-pci or unbind "
			 "them") ||
		!strcmp(why, "0000:00:05.2 is bound to e1000e, 0000:00:05.1 "
			     "is bound to ahci; bind them to vfio-pci or "
			     "unbind them"),
	    "why: \"%s\"", why);
	/* A short buffer is never overrun. */
	memset(why, 'x', sizeof(why));
	ck_assert_int_eq(sacc_group_viable(9, NULL, why, 16), 0);
	ck_assert_uint_lt(strlen(why), 16);
	/* A group that does not exist: an error, not "viable". */
	ret = sacc_group_viable(42, NULL, why, sizeof(why));
	ck_assert_int_eq(ret, -ENOENT);
	assert_msg_has(sacc_errmsg(NULL), "iommu_groups/42");

	/* The real guest: every SACC group is viable. */
	ck_assert_int_eq(unsetenv("SACC_SYSFS_ROOT"), 0);
	for (unsigned int i = 0; i < guest_nr_devices(); i++) {
		g = sacc_pci_iommu_group(guest_bdf_at(i));
		ck_assert_int_ge(g, 0);
		ck_assert_int_eq(sacc_group_viable(g, guest_bdf_at(i), why,
						   sizeof(why)),
				 1);
	}
}
END_TEST

/* ---- unbound device (own TCase: the teardown rebinds it) ---- */

static char unbound_bdf[SACC_BDF_MAX];

static void rebind_unbound(void)
{
	/* Runs in the runner process, whatever happened in the test. */
	const char *bdf = guest_bdf(guest_nr_devices() - 1);

	if (bdf && sacc_pci_bind_vfio(bdf))
		fprintf(stderr, "could not rebind %s: %s\n", bdf,
			sacc_errmsg(NULL));
}

START_TEST(unbound_device)
{
	struct sacc_dev *dev = (struct sacc_dev *)1;
	struct sacc_buf *src, *dst;
	char drv[64], want[96], vfio_path[32];
	struct stat sb;
	int g, ret;

	BEGIN();
	snprintf(unbound_bdf, sizeof(unbound_bdf), "%s",
		 guest_bdf_at(guest_nr_devices() - 1));
	g = sacc_pci_iommu_group(unbound_bdf);
	ck_assert_int_ge(g, 0);
	snprintf(vfio_path, sizeof(vfio_path), "/dev/vfio/%d", g);
	ck_assert_int_eq(stat(vfio_path, &sb), 0);

	ret = sacc_pci_unbind(unbound_bdf);
	ck_assert_msg(ret == 0, "sacc_pci_unbind: %d: %s", ret,
		      sacc_errmsg(NULL));
	ck_assert_int_eq(sacc_pci_driver(unbound_bdf, drv, sizeof(drv)), 0);
	ck_assert_str_eq(drv, "");
	ck_assert_int_ne(stat(vfio_path, &sb), 0);

	ret = sacc_open(unbound_bdf, NULL, &dev);
	ck_assert_int_eq(ret, -ENODEV);
	ck_assert_ptr_null(dev);
	assert_msg_has(sacc_errmsg(NULL), "is not bound to any driver");
	snprintf(want, sizeof(want), "saccctl bind %s", unbound_bdf);
	assert_msg_has(sacc_errmsg(NULL), want);

	/* Binding refuses a device that is not a SACC. */
	ck_assert_int_eq(sacc_pci_bind_vfio("0000:00:00.0"), -EINVAL);
	assert_msg_has(sacc_errmsg(NULL), "not a SACC device");

	/* Rebind; the device is usable again. */
	ret = sacc_pci_bind_vfio(unbound_bdf);
	ck_assert_msg(ret == 0, "sacc_pci_bind_vfio: %d: %s", ret,
		      sacc_errmsg(NULL));
	ck_assert_int_eq(sacc_pci_driver(unbound_bdf, drv, sizeof(drv)), 1);
	ck_assert_str_eq(drv, "vfio-pci");
	ck_assert_int_eq(sacc_pci_bind_vfio(unbound_bdf), 0); /* idempotent */
	ret = sacc_open(unbound_bdf, NULL, &dev);
	ck_assert_msg(ret == 0, "sacc_open after rebind: %d: %s", ret,
		      sacc_errmsg(NULL));
	src = guest_buf(dev, 64 * KiB, SACC_DMA_TO_DEVICE, "ub src");
	dst = guest_buf(dev, 64 * KiB, SACC_DMA_FROM_DEVICE, "ub dst");
	one_verified_op(dev, SACC_OP_MEMCPY, src, dst, 64 * KiB);
	sacc_close(dev);
}
END_TEST

/*
 * A process holds the device (in sacc_wait(-1), or busy polling) and
 * the kernel is asked to unbind it: the device request reaches libsacc,
 * which lets go, so the unbind finishes in seconds, not when the holder
 * exits; the holder gets -ENODEV.  Then it is bound again.
 */
static int holder(const char *bdf, int mode, int ready)
{
	struct sacc_op op = {.opcode = SACC_OP_NOP, .flags = SACC_OPF_IRQ};
	struct sacc_result r;
	struct sacc_dev *dev;
	int ret;

	alarm(60);
	if (sacc_open(bdf, NULL, &dev))
		return 10;
	if (sacc_submit(dev, &op, 1) != 1 || guest_reap(dev, &r, 1, 10000) != 1)
		return 11;
	if (mode == 0 && write(ready, "R", 1) != 1)
		return 12;
	for (;;) {
		/* busy polling: ready as its loop begins */
		if (mode == 1 && ready >= 0) {
			if (write(ready, "R", 1) != 1)
				return 12;
			close(ready);
			ready = -1;
		}
		if (mode == 0) {
			ret = sacc_wait(dev, -1);
			if (ret == 1)
				ret = sacc_poll(dev, &r, 1);
		} else {
			ret = sacc_poll(dev, &r, 1);
			if (ret == 1 || sacc_outstanding(dev) == 0)
				ret = sacc_submit(dev, &op, 1);
		}
		if (ret < 0)
			break;
	}
	if (ret != -ENODEV ||
	    !contains(sacc_errmsg(dev), "kernel asked for the device back"))
		return 13;
	if (sacc_submit(dev, &op, 1) != -ENODEV || sacc_check(dev) != -ENODEV)
		return 14;
	sacc_close(dev);
	return 0;
}

START_TEST(unbind_in_use)
{
	char bdf[SACC_BDF_MAX], drv[64];
	struct sacc_buf *src, *dst;
	struct sacc_dev *dev;
	int p[2], status, ret;
	uint64_t t0, took;
	pid_t child, unbinder;
	char c;

	BEGIN();
	snprintf(bdf, sizeof(bdf), "%s", guest_bdf_at(guest_nr_devices() - 1));
	for (int mode = 0; mode < 2; mode++) {
		ck_assert_int_eq(pipe(p), 0);
		child = fork();
		ck_assert_int_ge(child, 0);
		if (child == 0) {
			close(p[0]);
			_exit(holder(bdf, mode, p[1]));
		}
		close(p[1]);
		ck_assert_msg(read(p[0], &c, 1) == 1,
			      "the holder could not open %s", bdf);
		close(p[0]);
		/* The holder is in sacc_wait(-1): blocked in its poll() */
		ck_assert_msg(mode == 1 ||
				  guest_wait_in_syscall(child, SYS_poll, 10000),
			      "the holder did not block in sacc_wait()'s poll()");
		t0 = sacc_monotonic_ns();
		unbinder = fork();
		ck_assert_int_ge(unbinder, 0);
		if (unbinder == 0)
			_exit(sacc_pci_unbind(bdf) ? 1 : 0);
		while (waitpid(unbinder, &status, WNOHANG) == 0 &&
		       sacc_monotonic_ns() - t0 < 15000000000ull)
			guest_sleep_ms(10);
		took = (sacc_monotonic_ns() - t0) / 1000000;
		if (took >= 15000) {
			/* let the unbind finish, then fail */
			kill(child, SIGKILL);
			waitpid(unbinder, &status, 0);
			waitpid(child, &status, 0);
			ck_abort_msg("%s: unbind blocked %" PRIu64 " ms while "
				     "a process held the device (%s)",
				     bdf, took, mode ? "polling" : "waiting");
		}
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "sacc_pci_unbind(%s) failed", bdf);
		ck_assert_msg(took < 5000, "unbind took %" PRIu64 " ms", took);
		ck_assert_int_eq(waitpid(child, &status, 0), child);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "holder (%s) %s %d", mode ? "polling" : "waiting",
			      WIFEXITED(status) ? "exited" : "killed by",
			      WIFEXITED(status) ? WEXITSTATUS(status)
						: WTERMSIG(status));
		ck_assert_int_eq(sacc_pci_driver(bdf, drv, sizeof(drv)), 0);
		fprintf(stderr,
			"    unbind of a held device (%s): %" PRIu64 " ms\n",
			mode ? "busy polling" : "in sacc_wait(-1)", took);

		ret = sacc_pci_bind_vfio(bdf);
		ck_assert_msg(ret == 0, "sacc_pci_bind_vfio: %d: %s", ret,
			      sacc_errmsg(NULL));
		ret = sacc_open(bdf, NULL, &dev);
		ck_assert_msg(ret == 0, "sacc_open after rebind: %d: %s", ret,
			      sacc_errmsg(NULL));
		src = guest_buf(dev, 64 * KiB, SACC_DMA_TO_DEVICE, "ub src");
		dst = guest_buf(dev, 64 * KiB, SACC_DMA_FROM_DEVICE, "ub dst");
		one_verified_op(dev, SACC_OP_MEMCPY, src, dst, 64 * KiB);
		sacc_close(dev);
	}
}
END_TEST


/* ---- v0.3 channels ---------------------------------------------------- */

static struct sacc_dev *open_chan(struct sacc_dev *dev, unsigned int k,
				  enum sacc_doorbell db, uint32_t sq)
{
	struct sacc_open_opts o = {.sq_entries = sq, .doorbell = db};
	struct sacc_dev *ch = NULL;
	int ret = sacc_chan_open(dev, k, &o, &ch);

	ck_assert_msg(ret == 0, "sacc_chan_open(%u): %d: %s", k, ret,
		      sacc_errmsg(dev));
	ck_assert_uint_eq(sacc_dev_channel(ch), k);
	return ch;
}

/* Every channel (tail, token, syscall doorbell) copies; channel 0 is
 * still the v0.2 device; bad opens say why. */
START_TEST(chan_basic)
{
	struct sacc_dev *dev, *ch[3], *bad = NULL;
	struct sacc_buf *src, *dst;
	static const enum sacc_doorbell dbs[3] = {
	    SACC_DOORBELL_MMAP, SACC_DOORBELL_PUT_TOKEN, SACC_DOORBELL_SYSCALL};
	struct sacc_result r;

	BEGIN();
	dev = guest_open(0, NULL);
	ck_assert_uint_ge(sacc_dev_channels(dev), 4);
	ck_assert_int_eq(sacc_chan_open(dev, 0, NULL, &bad), -EINVAL);
	ck_assert_int_eq(sacc_chan_open(dev, sacc_dev_channels(dev), NULL, &bad),
			 -EINVAL);
	for (unsigned int k = 0; k < 3; k++)
		ch[k] = open_chan(dev, k + 1, dbs[k], 64);
	ck_assert_int_eq(sacc_chan_open(dev, 1, NULL, &bad), -EBUSY);
	assert_msg_has(sacc_errmsg(dev), "already open");
	for (unsigned int k = 0; k < 3; k++) {
		src = guest_buf(ch[k], 8192, SACC_DMA_TO_DEVICE, "c src");
		dst = guest_buf(ch[k], 8192, SACC_DMA_FROM_DEVICE, "c dst");
		for (int i = 0; i < 100; i++)
			one_verified_op(ch[k], i & 1 ? SACC_OP_XFORM
						     : SACC_OP_MEMCPY,
					src, dst, 1 + (uint32_t)(i * 77) % 8192);
		ck_assert_int_eq(sacc_outstanding(ch[k]), 0);
	}
	/* channel 0: v0.2, engine time 0, v0.3 opcodes refused */
	src = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "0 src");
	dst = guest_buf(dev, 4096, SACC_DMA_FROM_DEVICE, "0 dst");
	one_verified_op(dev, SACC_OP_MEMCPY, src, dst, 4096);
	{
		struct sacc_op ts = {.opcode = SACC_OP_TIMESTAMP, .dst = dst};

		ck_assert_int_eq(sacc_submit(dev, &ts, 1), -EINVAL);
		assert_msg_has(sacc_errmsg(dev), "SACC_OPEN_V3");
		ck_assert_int_eq(sacc_submit(ch[0], &ts, 1), -EINVAL);
		assert_msg_has(sacc_errmsg(ch[0]), "not a live buffer");
	}
	(void)r;
	sacc_close(ch[1]);
	sacc_close(dev); /* closes ch[0], ch[2] too */
	ck_assert_int_eq(vmlck_kb(), 0);
}
END_TEST

/* Chains: 64 NOP/MEMCPY prepared once, launched with one doorbell each;
 * on a channel, with inline writes and a ring too small for the chain. */
START_TEST(chain_64_one_doorbell)
{
	struct sacc_dev *dev, *ch;
	struct sacc_buf *src, *dst;
	struct sacc_chain *chain;
	struct sacc_op ops[64];
	struct sacc_result res[64];
	struct sacc_stats st;
	unsigned char data[3][1500];
	const uint32_t chunk = 4 * KiB;
	const int launches = 8;
	int ret;

	BEGIN();
	dev = guest_open(0, NULL);
	src = guest_buf(dev, 64 * chunk, SACC_DMA_TO_DEVICE, "chain src");
	dst = guest_buf(dev, 64 * chunk, SACC_DMA_FROM_DEVICE, "chain dst");
	for (unsigned int i = 0; i < 64; i++) {
		uint16_t opc = i % 4 == 3 ? SACC_OP_NOP : SACC_OP_MEMCPY;

		ops[i] = (struct sacc_op){
		    .opcode = opc,
		    .len = opc ? 1 + (uint32_t)(rnd() % chunk) : 0,
		    .src = opc ? src : NULL,
		    .src_off = i * chunk,
		    .dst = opc ? dst : NULL,
		    .dst_off = i * chunk,
		    .cookie = 1000 + i};
	}
	ret = sacc_chain_create(dev, ops, 64, &chain);
	ck_assert_msg(ret == 0, "%d: %s", ret, sacc_errmsg(dev));
	ck_assert_uint_eq(sacc_chain_ops(chain), 64);
	ck_assert_uint_eq(sacc_chain_bytes(chain), 64 * 32);
	/* pinned while the chain exists */
	ck_assert_int_eq(sacc_buf_free(src), -EBUSY);
	sacc_stats_clear(dev);
	for (int l = 0; l < launches; l++) {
		fill_random(va(src), 64 * chunk);
		memset(va(dst), CANARY, 64 * chunk);
		ret = sacc_chain_launch(chain);
		ck_assert_msg(ret == 64, "%d: %s", ret, sacc_errmsg(dev));
		sacc_stats(dev, &st);
		ck_assert_uint_eq(st.doorbells, (uint64_t)l + 1);
		reap_n(dev, res, 64);
		for (unsigned int i = 0; i < 64; i++) {
			const struct sacc_op *op = &ops[i];

			ck_assert_uint_eq(res[i].cookie, op->cookie);
			ck_assert_uint_eq(res[i].opcode, op->opcode);
			ck_assert_uint_eq(res[i].status, SACC_STS_OK);
			ck_assert_uint_eq(res[i].result_len, op->len);
			if (op->opcode) {
				check_copy("chain", op->opcode,
					   va(dst) + op->dst_off,
					   va(src) + op->src_off, op->len);
				check_canary("chain",
					     va(dst) + op->dst_off + op->len,
					     chunk - op->len);
			} else {
				check_canary("chain nop", va(dst) + i * chunk,
					     chunk);
			}
		}
	}
	sacc_stats(dev, &st);
	ck_assert_uint_eq(st.doorbells, (uint64_t)launches);
	ck_assert_uint_eq(st.submitted, (uint64_t)launches * 64);
	ck_assert_uint_eq(st.completed, (uint64_t)launches * 64);
	/* two launches in flight at once, then the SQ (256) has no room for
	 * a fourth: all or nothing */
	ck_assert_int_eq(sacc_chain_launch(chain), 64);
	ck_assert_int_eq(sacc_chain_launch(chain), 64);
	ck_assert_int_eq(sacc_chain_launch(chain), 64);
	ck_assert_int_eq(sacc_chain_launch(chain), 0);
	reap_n(dev, res, 64);
	reap_n(dev, res, 64);
	reap_n(dev, res, 64);
	ck_assert_uint_eq(res[63].cookie, 1063);
	ck_assert_uint_eq(sacc_outstanding(dev), 0);
	sacc_chain_free(chain);
	ck_assert_int_eq(sacc_buf_free(src), 0);

	/* a channel: inline payloads travel with the chain */
	ch = open_chan(dev, 1, SACC_DOORBELL_PUT_TOKEN, 64);
	dst = guest_buf(ch, 3 * 1024, SACC_DMA_FROM_DEVICE, "chain inl dst");
	for (int k = 0; k < 3; k++) {
		fill_random(data[k], 700);
		ops[k] = (struct sacc_op){.opcode = SACC_OP_WRITE_INLINE,
					  .len = 700 - 100 * k,
					  .dst = dst,
					  .dst_off = 1024 * k,
					  .cookie = k,
					  .data = data[k]};
	}
	ops[3] = (struct sacc_op){.opcode = SACC_OP_NOP, .cookie = 3};
	ret = sacc_chain_create(ch, ops, 4, &chain);
	ck_assert_msg(ret == 0, "%d: %s", ret, sacc_errmsg(ch));
	ck_assert_uint_eq(sacc_chain_bytes(chain),
			  32 * (4 + SACC_INLINE_SLOTS(700) +
				SACC_INLINE_SLOTS(600) +
				SACC_INLINE_SLOTS(500)));
	for (int l = 0; l < 5; l++) { /* 61 slots a launch: laps the SQ */
		memset(va(dst), CANARY, sacc_buf_len(dst));
		ck_assert_int_eq(sacc_chain_launch(chain), 4);
		reap_n(ch, res, 4);
		for (int k = 0; k < 3; k++) {
			ck_assert_uint_eq(res[k].status, SACC_STS_OK);
			ck_assert_uint_eq(res[k].result_len, 700 - 100 * k);
			ck_assert(!memcmp(va(dst) + 1024 * k, data[k],
					  700 - 100 * k));
		}
		ck_assert_uint_eq(res[3].cookie, 3);
	}
	sacc_stats(ch, &st);
	ck_assert_uint_eq(st.doorbells, 5);
	sacc_chain_free(chain);
	/* more than one launch may use: refused, said why */
	for (int k = 0; k < 3; k++)
		ops[k].len = 1500; /* 48 slots each, 63 free */
	ck_assert_int_eq(sacc_chain_create(ch, ops, 3, &chain), -EINVAL);
	assert_msg_has(sacc_errmsg(ch), "split the chain");
	ck_assert_ptr_null(chain);
	sacc_close(dev);
}
END_TEST

/* Inline writes: payloads that wrap the ring, every length class, and
 * the length errors. */
START_TEST(chan_inline)
{
	unsigned char data[SACC_INLINE_MAX + 1];
	struct sacc_result r[8];
	struct sacc_dev *dev, *ch;
	struct sacc_buf *dst;
	static const uint32_t lens[] = {1, 31, 32, 33, 100, 255, 1000, 4096};
	int ret;

	BEGIN();
	dev = guest_open(0, NULL);
	ch = open_chan(dev, 2, SACC_DOORBELL_MMAP, 256);
	dst = guest_buf(ch, 8192, SACC_DMA_FROM_DEVICE, "inl dst");
	for (int lap = 0; lap < 40; lap++) {
		uint32_t len = lens[lap % 8];

		fill_random(data, len);
		memset(va(dst), CANARY, sacc_buf_len(dst));
		ret = sacc_write(ch, dst, 64, data, len, SACC_WRITE_INLINE, 0,
				 lap);
		ck_assert_msg(ret == 1, "sacc_write(%u): %d: %s", len, ret,
			      sacc_errmsg(ch));
		reap_n(ch, r, 1);
		ck_assert_uint_eq(r[0].status, SACC_STS_OK);
		ck_assert_uint_eq(r[0].result_len, len);
		ck_assert_uint_eq(r[0].opcode, SACC_OP_WRITE_INLINE);
		ck_assert_msg(!memcmp(va(dst) + 64, data, len),
			      "inline payload of %u bytes differs (lap %d)",
			      len, lap);
		check_canary("inline head", va(dst), 64);
		check_canary("inline tail", va(dst) + 64 + len,
			     sacc_buf_len(dst) - 64 - len);
		ck_assert_uint_eq(sacc_outstanding(ch), 0);
	}
	/* 40 commands of up to 129 slots: the SQ (256) lapped many times */
	ck_assert_int_eq(sacc_write(ch, dst, 0, data, 0, SACC_WRITE_INLINE, 0,
				    0),
			 -EINVAL);
	ck_assert_int_eq(sacc_write(ch, dst, 0, data, SACC_INLINE_MAX + 1,
				    SACC_WRITE_INLINE, 0, 0),
			 -EINVAL);
	assert_msg_has(sacc_errmsg(ch), "not in 1..4096");
	ck_assert_int_eq(sacc_write(ch, dst, 8000, data, 1000,
				    SACC_WRITE_INLINE, 0, 0),
			 -EINVAL);
	assert_msg_has(sacc_errmsg(ch), "runs past its end");
	sacc_close(ch);
	/* an SQ too small for the payload: said so */
	ch = open_chan(dev, 2, SACC_DOORBELL_MMAP, 16);
	dst = guest_buf(ch, 8192, SACC_DMA_FROM_DEVICE, "inl dst");
	ck_assert_int_eq(sacc_write(ch, dst, 0, data, 1000, SACC_WRITE_INLINE,
				    0, 0),
			 -EINVAL);
	assert_msg_has(sacc_errmsg(ch), "larger sq_entries");
	/* DMA mode and auto do the same */
	fill_random(data, 3000);
	ck_assert_int_eq(sacc_write(ch, dst, 0, data, 3000, SACC_WRITE_DMA, 0,
				    1),
			 1);
	ck_assert_int_eq(sacc_write(ch, dst, 4000, data, 300, SACC_WRITE_AUTO,
				    0, 2),
			 1);
	reap_n(ch, r, 2);
	ck_assert_uint_eq(r[0].opcode, SACC_OP_MEMCPY);
	ck_assert(!memcmp(va(dst), data, 3000));
	ck_assert(!memcmp(va(dst) + 4000, data, 300));
	sacc_close(dev);
}
END_TEST

/* A TIMESTAMP is never before earlier large copies complete, and engine
 * time is nonzero and below what the API measured. */
START_TEST(chan_timestamp)
{
	struct sacc_result r[5];
	struct sacc_dev *dev, *ch;
	struct sacc_buf *src, *dst, *ts;
	uint64_t t_before, t[2], t0;
	struct sacc_op ops[5];

	BEGIN();
	dev = guest_open(0, NULL);
	ch = open_chan(dev, 3, SACC_DOORBELL_PUT_TOKEN, 64);
	src = guest_buf(ch, 1 << 20, SACC_DMA_TO_DEVICE, "ts src");
	dst = guest_buf(ch, 3 << 20, SACC_DMA_FROM_DEVICE, "ts dst");
	ts = guest_buf(ch, 4096, SACC_DMA_FROM_DEVICE, "ts");
	t_before = sacc_dev_clock(ch);
	ck_assert_uint_ne(t_before, 0);
	memset(ops, 0, sizeof(ops));
	ops[0] = (struct sacc_op){.opcode = SACC_OP_TIMESTAMP, .dst = ts};
	for (int i = 1; i < 4; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
					  .len = 1 << 20,
					  .src = src,
					  .dst = dst,
					  .dst_off = (size_t)(i - 1) << 20};
	ops[4] = (struct sacc_op){
	    .opcode = SACC_OP_TIMESTAMP, .dst = ts, .dst_off = 8};
	t0 = sacc_monotonic_ns();
	ck_assert_int_eq(sacc_submit(ch, ops, 5), 5);
	reap_n(ch, r, 5);
	t0 = sacc_monotonic_ns() - t0;
	memcpy(&t[0], va(ts), 8);
	memcpy(&t[1], va(ts) + 8, 8);
	ck_assert_uint_ge(t[0], t_before);
	for (int i = 0; i < 5; i++) {
		ck_assert_uint_eq(r[i].status, SACC_STS_OK);
		ck_assert_msg(r[i].engine_ns > 0 && r[i].engine_ns < t0,
			      "engine_ns %u of op %d, API saw %" PRIu64 " ns",
			      r[i].engine_ns, i, t0);
	}
	ck_assert_uint_eq(r[4].result_len, 8);
	/* the fence: at least the engine time of the copies in between */
	ck_assert_msg(t[1] - t[0] >= (uint64_t)r[1].engine_ns +
					 r[2].engine_ns + r[3].engine_ns,
		      "timestamps %" PRIu64 " ns apart, copies took %u+%u+%u",
		      t[1] - t[0], r[1].engine_ns, r[2].engine_ns,
		      r[3].engine_ns);
	sacc_close(dev);
}
END_TEST

struct chan_worker {
	struct sacc_dev *ch;
	int ops;
	char err[256];
};

static void *chan_worker(void *arg)
{
	struct chan_worker *w = arg;
	struct sacc_buf *src = NULL, *dst = NULL;
	struct sacc_result r;
	struct sacc_op op;
	int ret = 0;

	if (sacc_buf_alloc(w->ch, 4096, SACC_DMA_TO_DEVICE, "w src", &src) ||
	    sacc_buf_alloc(w->ch, 4096, SACC_DMA_FROM_DEVICE, "w dst", &dst)) {
		snprintf(w->err, sizeof(w->err), "alloc: %s",
			 sacc_errmsg(w->ch));
		return NULL;
	}
	for (int i = 0; i < w->ops && ret >= 0; i++) {
		memset(va(src), i, 4096);
		op = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
				      .len = 4096,
				      .src = src,
				      .dst = dst};
		ret = sacc_submit(w->ch, &op, 1);
		if (ret == 1)
			ret = guest_reap(w->ch, &r, 1, REAP_TIMEOUT_MS);
		if (ret != 1 || r.status || va(dst)[4095] != (uint8_t)i) {
			snprintf(w->err, sizeof(w->err), "op %d: %d: %s", i,
				 ret, sacc_errmsg(w->ch));
			break;
		}
	}
	return NULL;
}

/* One thread per channel, no locks; then a ring fault on one channel
 * stops that channel only, and its reset brings it back. */
START_TEST(chan_isolation)
{
	struct chan_worker w[3];
	pthread_t th[3];
	struct sacc_op nop = {.opcode = SACC_OP_NOP};
	struct sacc_dev *dev, *bad;
	struct sacc_map_entry m;
	struct sacc_buf *src, *dst;
	int ret;

	BEGIN();
	dev = guest_open(0, NULL);
	for (int k = 0; k < 3; k++) {
		w[k] = (struct chan_worker){.ops = 300};
		w[k].ch = open_chan(dev, (unsigned int)k + 1,
				    k == 1 ? SACC_DOORBELL_PUT_TOKEN
					   : SACC_DOORBELL_MMAP,
				    64);
	}
	for (int k = 0; k < 3; k++)
		ck_assert_int_eq(pthread_create(&th[k], NULL, chan_worker,
						&w[k]),
				 0);
	for (int k = 0; k < 3; k++) {
		pthread_join(th[k], NULL);
		ck_assert_msg(!w[k].err[0], "channel %d: %s", k + 1, w[k].err);
	}
	/* ring fault on channel 1: its SQ unmapped */
	bad = w[0].ch;
	m = mapping_at(bad, sacc_dev_sq_iova(bad));
	sq_unmap(bad, &m);
	ck_assert_int_eq(sacc_submit(bad, &nop, 1), 1);
	{
		struct sacc_result r;

		ret = guest_reap(bad, &r, 1, REAP_TIMEOUT_MS);
	}
	ck_assert_msg(ret == -EIO, "ring fault on channel 1: %d", ret);
	assert_msg_has(sacc_errmsg(bad), "descriptor fetch");
	assert_msg_has(sacc_errmsg(bad), "ch1:sq ring");
	ck_assert_uint_eq(reg(bad, SACC_REG_FAULT_INFO), SACC_FAULT_DESC_FETCH);
	/* the others carry on */
	ck_assert_int_eq(sacc_check(w[1].ch), 0);
	ck_assert_int_eq(sacc_check(dev), 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_COUNT), 0);
	w[1].ops = w[2].ops = 20;
	chan_worker(&w[1]);
	ck_assert_msg(!w[1].err[0], "channel 2 after 1's fault: %s", w[1].err);
	src = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "0 src");
	dst = guest_buf(dev, 4096, SACC_DMA_FROM_DEVICE, "0 dst");
	one_verified_op(dev, SACC_OP_MEMCPY, src, dst, 4096);
	/* channel 1 comes back alone */
	sq_remap(bad, &m);
	ret = sacc_reset(bad);
	ck_assert_msg(ret == 0, "sacc_reset(ch1): %d: %s", ret,
		      sacc_errmsg(bad));
	w[0].ops = 20;
	chan_worker(&w[0]);
	ck_assert_msg(!w[0].err[0], "channel 1 after reset: %s", w[0].err);
	chan_worker(&w[2]);
	ck_assert_msg(!w[2].err[0], "channel 3: %s", w[2].err);
	/* sacc_reset(dev) with channels open: channel 0 only */
	ck_assert_int_eq(sacc_reset(dev), 0);
	one_verified_op(dev, SACC_OP_XFORM, src, dst, 4096);
	chan_worker(&w[2]);
	ck_assert_msg(!w[2].err[0], "channel 3 after reset of 0: %s", w[2].err);
	sacc_close(dev);
	ck_assert_int_eq(vmlck_kb(), 0);
}
END_TEST

/* Token doorbell with the PUT word unmapped: a ring fault on that
 * channel (access put_read), logged; reset recovers. */
START_TEST(chan_put_unmapped)
{
	struct sacc_op nop = {.opcode = SACC_OP_NOP};
	struct sacc_dev *dev, *ch;
	struct sacc_map_entry m;
	struct sacc_result r;
	int ret;

	BEGIN();
	dev = guest_open(0, NULL);
	ch = open_chan(dev, 4, SACC_DOORBELL_PUT_TOKEN, 32);
	ck_assert_int_eq(sacc_submit(ch, &nop, 1), 1);
	reap_n(ch, &r, 1);
	ck_assert_uint_ne(sacc_dev_put_iova(ch), 0);
	m = mapping_at(ch, sacc_dev_put_iova(ch));
	sq_unmap(ch, &m);
	ck_assert_int_eq(sacc_submit(ch, &nop, 1), 1);
	ret = guest_reap(ch, &r, 1, REAP_TIMEOUT_MS);
	ck_assert_msg(ret == -EIO, "PUT unmapped: %d (%s)", ret,
		      sacc_errmsg(ch));
	assert_msg_has(sacc_errmsg(ch), "PUT word read");
	assert_msg_has(sacc_errmsg(ch), "ch4:put word");
	ck_assert_uint_eq(reg(ch, SACC_REG_FAULT_INFO), SACC_FAULT_PUT_READ);
	ck_assert_uint_eq(reg(ch, SACC_REG_FAULT_REQ_ID), 0);
	ck_assert_int_eq(sacc_check(dev), 0);
	sq_remap(ch, &m);
	ck_assert_int_eq(sacc_reset(ch), 0);
	ck_assert_int_eq(sacc_submit(ch, &nop, 1), 1);
	reap_n(ch, &r, 1);
	sacc_close(dev);
}
END_TEST

/* ------------------------------------------------------------------ */
/* telemetry: API events and clock sync (docs/telemetry.md)            */
/* ------------------------------------------------------------------ */

/*
 * A small run on a MODE.V3 channel with events on, between two clock
 * sync samples: one submit and one reap per operation, the reap after
 * the submit, doorbells that cover every submit, engine time on every
 * reap; and the device clock moved between the samples by what the
 * guest clock allows.  No timing thresholds: only order and causality.
 */
START_TEST(events_and_sync)
{
	enum { NOPS = 24, MAXEV = 512 };
	static struct sacc_event ev[MAXEV];
	struct sacc_clock_sample s0, s1;
	struct sacc_result r[8];
	struct sacc_dev *dev, *ch;
	struct sacc_buf *src, *dst;
	uint32_t sub_at[NOPS + 2], reap_at[NOPS + 2], req[NOPS + 2];
	uint64_t sub_t[NOPS + 2];
	unsigned int n = 0, k, nsub = 0, nreap = 0, dbsum = 0, nts = 0;
	struct sacc_op ops[4];
	uint8_t data[64];
	int ret;

	BEGIN();
	dev = guest_open(0, NULL);
	ch = open_chan(dev, 2, SACC_DOORBELL_MMAP, 64);
	src = guest_buf(ch, 4096, SACC_DMA_TO_DEVICE, "ev src");
	dst = guest_buf(ch, 4096, SACC_DMA_FROM_DEVICE, "ev dst");
	memset(data, 0x5a, sizeof(data));
	/* a v0.2 handle has no TIMESTAMP */
	ret = sacc_clock_sync(dev, 1000, &s0);
	ck_assert_int_eq(ret, -ENOTSUP);
	ck_assert_uint_eq(sacc_events_capacity(ch), 0);
	ck_assert_int_eq(sacc_events_enable(ch, MAXEV), 0);

	ret = sacc_clock_sync(ch, REAP_TIMEOUT_MS, &s0);
	ck_assert_msg(ret == 0, "clock sync: %d: %s", ret, sacc_errmsg(ch));
	/* 20 single ops (memcpy, inline, nop), then one batch of 4 */
	for (int i = 0; i < 20; i++) {
		struct sacc_op op = {.opcode = SACC_OP_MEMCPY,
				     .len = 4096,
				     .src = src,
				     .dst = dst};

		if (i % 3 == 1)
			op = (struct sacc_op){.opcode = SACC_OP_WRITE_INLINE,
					      .len = sizeof(data),
					      .dst = dst,
					      .data = data};
		else if (i % 3 == 2)
			op = (struct sacc_op){.opcode = SACC_OP_NOP};
		ck_assert_int_eq(sacc_submit(ch, &op, 1), 1);
		reap_n(ch, r, 1);
		ck_assert_uint_eq(r[0].status, SACC_STS_OK);
	}
	for (int i = 0; i < 4; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
					  .len = 1024,
					  .src = src,
					  .src_off = (size_t)i * 1024,
					  .dst = dst,
					  .dst_off = (size_t)i * 1024};
	ck_assert_int_eq(sacc_submit(ch, ops, 4), 4);
	reap_n(ch, r, 4);
	ret = sacc_clock_sync(ch, REAP_TIMEOUT_MS, &s1);
	ck_assert_msg(ret == 0, "clock sync: %d: %s", ret, sacc_errmsg(ch));
	/* busy: the sync refuses to eat other results */
	ck_assert_int_eq(sacc_submit(ch, ops, 1), 1);
	ck_assert_int_eq(sacc_clock_sync(ch, REAP_TIMEOUT_MS, &s0) == -EBUSY,
			 1);
	reap_n(ch, r, 1);

	while ((k = sacc_events_read(ch, ev + n, MAXEV - n)) > 0)
		n += k;
	ck_assert_uint_eq(sacc_events_drops(ch), 0);
	/* 24 ops + 2 timestamps + the busy check's op */
	for (unsigned int i = 0; i < n; i++) {
		const struct sacc_event *e = &ev[i];

		ck_assert_uint_eq(e->pid, (uint32_t)getpid());
		ck_assert_uint_eq(e->tid, (uint32_t)syscall(SYS_gettid));
		ck_assert_uint_eq(e->chan, 2);
		if (i)
			ck_assert_uint_ge(e->t_ns, ev[i - 1].t_ns);
		if (e->type == SACC_EV_SUBMIT) {
			ck_assert_uint_lt(nsub, NOPS + 2 + 1);
			if (nsub < NOPS + 2) {
				req[nsub] = e->req_id;
				sub_at[nsub] = i;
				sub_t[nsub] = e->t_ns;
			}
			nsub++;
			nts += e->opcode == SACC_OP_TIMESTAMP;
		} else if (e->type == SACC_EV_DOORBELL) {
			ck_assert_uint_ge(e->count, 1);
			dbsum += e->count;
		} else {
			ck_assert_uint_eq(e->type, SACC_EV_REAP);
			ck_assert_uint_eq(e->status, SACC_STS_OK);
			ck_assert_msg(e->engine_ns > 0,
				      "reap of req_id %u: engine_ns 0 on a "
				      "MODE.V3 channel",
				      e->req_id);
			/* its submit came first */
			for (k = 0; k < nsub && k < NOPS + 2; k++)
				if (req[k] == e->req_id)
					break;
			if (nsub > NOPS + 2 && k == NOPS + 2)
				continue; /* the busy check's op */
			ck_assert_msg(k < nsub, "reap of req_id %u before its "
						"submit",
				      e->req_id);
			ck_assert_uint_gt(i, sub_at[k]);
			ck_assert_uint_ge(e->t_ns, sub_t[k]);
			reap_at[k] = i;
			nreap++;
		}
	}
	ck_assert_uint_eq(nsub, NOPS + 2 + 1);
	ck_assert_uint_eq(nreap, NOPS + 2);
	ck_assert_uint_eq(dbsum, nsub); /* every submit under a doorbell */
	ck_assert_uint_eq(nts, 2);
	for (k = 1; k < NOPS + 2; k++) /* one reap each, in ring order */
		ck_assert_uint_gt(reap_at[k], reap_at[k - 1]);

	/* the sync samples: before < after, and the device clock moved
	 * between them by what the guest clock allows (causality: each
	 * TIMESTAMP happened inside its round trip), widened by 1000 ppm
	 * for the two clocks' NTP slew (Linux slews at most 500 ppm) */
	ck_assert_uint_lt(s0.guest_before_ns, s0.guest_after_ns);
	ck_assert_uint_lt(s1.guest_before_ns, s1.guest_after_ns);
	ck_assert_uint_gt(s0.device_ns, 0);
	ck_assert_uint_gt(s1.device_ns, s0.device_ns);
	ck_assert_uint_ge(s1.guest_before_ns, s0.guest_after_ns);
	{
		uint64_t dd = s1.device_ns - s0.device_ns;
		uint64_t lo = s1.guest_before_ns - s0.guest_after_ns;
		uint64_t hi = s1.guest_after_ns - s0.guest_before_ns;
		uint64_t slew = hi / 1000;

		ck_assert_msg(dd + slew >= lo && dd <= hi + slew,
			      "device clock moved %" PRIu64 " ns between "
			      "the samples, the guest saw %" PRIu64
			      "..%" PRIu64 " ns",
			      dd, lo, hi);
	}
	ck_assert_int_eq(sacc_events_enable(ch, 0), 0);
	ck_assert_uint_eq(sacc_events_capacity(ch), 0);
	sacc_close(dev);
}
END_TEST

/* ------------------------------------------------------------------ */
/* v0.4: device memory, FILL, the SQ in device memory                  */

/* A device memory buffer, or the test fails with libsacc's message. */
static struct sacc_buf *dev_buf(struct sacc_dev *h, size_t len,
				const char *name)
{
	struct sacc_buf *b = NULL;
	int ret = sacc_devmem_alloc(h, len, name, &b);

	ck_assert_msg(ret == 0, "sacc_devmem_alloc(%zu): %d: %s", len, ret,
		      sacc_errmsg(h));
	return b;
}

/* Has @dev device memory?  If not (a v0.3 device, DEVMEM_SIZE 0), its
 * refusal is what is checked, and the caller stops there. */
static bool has_devmem(struct sacc_dev *dev)
{
	struct sacc_devmem_info in;
	struct sacc_buf *b = NULL;

	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	if (in.mapped) {
		ck_assert_uint_ge(in.size, 4096);
		return true;
	}
	ck_assert_int_eq(sacc_devmem_alloc(dev, 4096, "none", &b), -ENOTSUP);
	assert_msg_has(sacc_errmsg(dev), "no device memory");
	fprintf(stderr, "    (no device memory: %s; v0.4 checks skipped)\n",
		in.why ? in.why : "?");
	return false;
}

/* FILL @len bytes of @dst at @off with @pat, checked byte for byte, the
 * bytes around it untouched. */
static void fill_verified(struct sacc_dev *h, struct sacc_buf *dst, size_t off,
			  uint32_t len, uint64_t pat)
{
	struct sacc_op op = {.opcode = SACC_OP_FILL,
			     .len = len,
			     .dst = dst,
			     .dst_off = off,
			     .pattern = pat};
	struct sacc_result r;
	uint8_t *d = va(dst);

	memset(d, CANARY, sacc_buf_len(dst));
	ck_assert_msg(sacc_submit(h, &op, 1) == 1, "fill: %s", sacc_errmsg(h));
	reap_n(h, &r, 1);
	ck_assert_msg(r.status == SACC_STS_OK, "fill: status %u (%s)", r.status,
		      sacc_status_str(r.status));
	ck_assert_uint_eq(r.result_len, len);
	for (uint32_t i = 0; i < len; i++)
		ck_assert_msg(d[off + i] == (uint8_t)(pat >> (8 * (i % 8))),
			      "fill: byte %u is 0x%02x", i, d[off + i]);
	check_canary("fill before", d, off);
	check_canary("fill after", d + off + len,
		     sacc_buf_len(dst) - off - len);
}

/* MEMCPY and XFORM in all four directions, FILL into both memories, on
 * channel 0 (MODE.V3); device memory refused on a v0.2 channel 0. */
START_TEST(devmem_directions)
{
	struct sacc_open_opts o = {.flags = SACC_OPEN_V3};
	struct sacc_buf *hs, *hd, *ds, *dd, *src, *dst;
	struct sacc_dev *dev;

	BEGIN();
	dev = guest_open(0, &o);
	if (!has_devmem(dev)) {
		sacc_close(dev);
		return;
	}
	hs = guest_buf(dev, 64 * KiB, SACC_DMA_TO_DEVICE, "hs");
	hd = guest_buf(dev, 64 * KiB, SACC_DMA_FROM_DEVICE, "hd");
	ds = dev_buf(dev, 64 * KiB, "ds");
	dd = dev_buf(dev, 64 * KiB, "dd");
	for (int i = 0; i < 64; i++) {
		src = i & 2 ? ds : hs;
		dst = i & 4 ? dd : hd;
		one_verified_op(dev, i & 1 ? SACC_OP_XFORM : SACC_OP_MEMCPY,
				src, dst, 1 + (uint32_t)(rnd() % (64 * KiB)));
	}
	fill_verified(dev, dd, 5, 4099, 0x0807060504030201ull);
	fill_verified(dev, hd, 0, 64 * KiB, rnd());
	fill_verified(dev, dd, 64 * KiB - 1, 1, 0x77);
	sacc_close(dev);

	/* channel 0 as v0.2: device memory is refused, with what to do */
	dev = guest_open(0, NULL);
	hs = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "hs");
	dd = dev_buf(dev, 4096, "dd");
	{
		struct sacc_op op = {
		    .opcode = SACC_OP_MEMCPY, .len = 64, .src = hs, .dst = dd};

		ck_assert_int_eq(sacc_submit(dev, &op, 1), -EINVAL);
		assert_msg_has(sacc_errmsg(dev), "SACC_OPEN_V3");
	}
	sacc_close(dev);
	ck_assert_int_eq(vmlck_kb(), 0);
}
END_TEST

/* A device range past DEVMEM_SIZE: status DMA_FAULT, the fault record
 * says dev_read / dev_write at the device address, no byte moves, and
 * the channel goes on. */
START_TEST(devmem_fault)
{
	struct sacc_open_opts o = {.flags = SACC_OPEN_V3};
	struct sacc_devmem_info in;
	struct sacc_buf *hs, *hd, *dd;
	struct sacc_desc d = {.opcode = SACC_OP_MEMCPY, .length = 64};
	struct sacc_result r;
	struct sacc_dev *dev;
	uint32_t info, lo, hi;

	BEGIN();
	dev = guest_open(0, &o);
	if (!has_devmem(dev)) {
		sacc_close(dev);
		return;
	}
	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	hs = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "hs");
	hd = guest_buf(dev, 4096, SACC_DMA_FROM_DEVICE, "hd");
	dd = dev_buf(dev, 4096, "dd");
	memset(va(hd), CANARY, 4096);
	/* H2D, dst 8 bytes before the end: refused whole */
	d.flags = SACC_DESC_F_DST_DEV;
	d.src = sacc_buf_iova(hs);
	d.dst = in.size - 8;
	ck_assert_int_gt(sacc_submit_raw(dev, &d), 0);
	reap_n(dev, &r, 1);
	ck_assert_uint_eq(r.status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(r.result_len, 0);
	ck_assert_int_eq(sacc_reg_read(dev, SACC_REG_FAULT_INFO, &info), 0);
	ck_assert_uint_eq(info, SACC_FAULT_DEV_WRITE | SACC_FAULT_IS_WRITE);
	ck_assert_int_eq(sacc_reg_read(dev, SACC_REG_FAULT_ADDR, &lo), 0);
	ck_assert_int_eq(sacc_reg_read(dev, SACC_REG_FAULT_ADDR + 4, &hi), 0);
	ck_assert_uint_eq((uint64_t)hi << 32 | lo, in.size - 8);
	/* D2H, src past the end: dst untouched */
	d.flags = SACC_DESC_F_SRC_DEV;
	d.src = in.size;
	d.dst = sacc_buf_iova(hd);
	ck_assert_int_gt(sacc_submit_raw(dev, &d), 0);
	reap_n(dev, &r, 1);
	ck_assert_uint_eq(r.status, SACC_STS_DMA_FAULT);
	ck_assert_int_eq(sacc_reg_read(dev, SACC_REG_FAULT_INFO, &info), 0);
	ck_assert_uint_eq(info, SACC_FAULT_DEV_READ);
	check_canary("dev_read fault dst", va(hd), 4096);
	/* FILL wrapping past 2^64 */
	d = (struct sacc_desc){.opcode = SACC_OP_FILL,
			       .length = 16,
			       .flags = SACC_DESC_F_DST_DEV,
			       .dst = UINT64_MAX - 7};
	ck_assert_int_gt(sacc_submit_raw(dev, &d), 0);
	reap_n(dev, &r, 1);
	ck_assert_uint_eq(r.status, SACC_STS_DMA_FAULT);
	/* the channel goes on */
	ck_assert_int_eq(sacc_check(dev), 0);
	one_verified_op(dev, SACC_OP_MEMCPY, hs, dd, 4096);
	sacc_close(dev);
}
END_TEST

/* The SQ (and a token channel's PUT word) in device memory: channel 0,
 * a tail-doorbell channel and a token channel, inline writes included;
 * ring pages come back at close; device memory is full at some point,
 * and says so; it survives a channel reset. */
START_TEST(devmem_sq)
{
	struct sacc_open_opts o = {.flags = SACC_OPEN_V3 | SACC_OPEN_SQ_DEV,
				   .sq_entries = 256};
	struct sacc_devmem_info in, in2;
	struct sacc_dev *dev, *ch[2];
	struct sacc_buf *hs, *dd, *big;
	uint8_t payload[600];

	BEGIN();
	dev = guest_open(0, NULL);
	if (!has_devmem(dev)) {
		sacc_close(dev);
		return;
	}
	sacc_close(dev);
	dev = guest_open(0, &o);
	ck_assert_uint_eq(sacc_dev_sq_iova(dev), 0);
	for (unsigned int k = 0; k < 2; k++) {
		struct sacc_open_opts co = {.flags = SACC_OPEN_SQ_DEV,
					    .sq_entries = 256,
					    .doorbell =
						k ? SACC_DOORBELL_PUT_TOKEN
						  : SACC_DOORBELL_MMAP};

		ck_assert_msg(sacc_chan_open(dev, k + 1, &co, &ch[k]) == 0,
			      "channel %u: %s", k + 1, sacc_errmsg(dev));
	}
	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	ck_assert_uint_ge(in.used, 3 * 8 * KiB + 4 * KiB);
	for (unsigned int k = 0; k < 3; k++) {
		struct sacc_dev *h = k ? ch[k - 1] : dev;

		hs = guest_buf(h, 8 * KiB, SACC_DMA_TO_DEVICE, "hs");
		dd = dev_buf(h, 8 * KiB, "dd");
		for (int i = 0; i < 300; i++) /* past a lap of the SQ */
			one_verified_op(h, SACC_OP_MEMCPY, hs, dd,
					1 + (uint32_t)(rnd() % (8 * KiB)));
		fill_random(payload, sizeof(payload));
		ck_assert_int_eq(sacc_write(h, dd, 100, payload,
					    sizeof(payload), SACC_WRITE_INLINE,
					    0, 1),
				 1);
		{
			struct sacc_result r;

			reap_n(h, &r, 1);
			ck_assert_uint_eq(r.status, SACC_STS_OK);
		}
		ck_assert_mem_eq(va(dd) + 100, payload, sizeof(payload));
	}
	/* device memory survives a reset of the channel whose SQ (and PUT
	 * word) it holds, and the channel works after it */
	ck_assert_int_eq(sacc_reset(ch[1]), 0);
	ck_assert_mem_eq(va(dd) + 100, payload, sizeof(payload));
	one_verified_op(ch[1], SACC_OP_XFORM, hs, dd, 8 * KiB);
	/* full: the message says how much is in use */
	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	big = dev_buf(dev, in.largest_free, "big");
	ck_assert_int_eq(sacc_devmem_alloc(dev, in.size, "more", &hs), -ENOSPC);
	assert_msg_has(sacc_errmsg(dev), "out of device memory");
	ck_assert_int_eq(sacc_buf_free(big), 0);
	/* a channel's rings go back at its close */
	sacc_close(ch[1]);
	ck_assert_int_eq(sacc_devmem_info(dev, &in2), 0);
	ck_assert_uint_lt(in2.used, in.used);
	sacc_close(dev);
	ck_assert_int_eq(vmlck_kb(), 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* v0.4: graphs, one SEGMENT entry a launch                            */

/* The SQ entry a launch of @dev wrote last (SQ slot @slot). */
static struct sacc_desc sq_entry(struct sacc_dev *dev, uint32_t slot)
{
	return sacc_dev_sq_va(dev)[slot % sacc_dev_sq_entries(dev)];
}

/* Launch @g on @h (it must go), reap its one result into @r: checked
 * as one graph launch (opcode, cookie, len), its status is the
 * caller's. */
static void graph_run(struct sacc_dev *h, struct sacc_graph *g,
		      uint64_t cookie, struct sacc_result *r)
{
	int ret = sacc_graph_launch(h, g, cookie);

	ck_assert_msg(ret == 1, "sacc_graph_launch: %d: %s", ret,
		      sacc_errmsg(h));
	reap_n(h, r, 1);
	ck_assert_uint_eq(r->opcode, SACC_OP_SEGMENT);
	ck_assert_uint_eq(r->cookie, cookie);
	/* a raw graph's len is its slots: a bound on the commands run */
	ck_assert_uint_eq(r->len, r->raw ? sacc_graph_bytes(g) / 32
					 : sacc_graph_ops(g));
}

/* A graph made or the test fails with libsacc's message. */
static struct sacc_graph *graph_new(struct sacc_dev *h,
				    const struct sacc_op *ops, unsigned int n,
				    unsigned int flags)
{
	struct sacc_graph *g = NULL;
	int ret = sacc_graph_create(h, ops, n, flags, &g);

	ck_assert_msg(ret == 0, "sacc_graph_create(%u ops, 0x%x): %d: %s", n,
		      flags, ret, sacc_errmsg(h));
	return g;
}

/* The buffers of graph_kinds_ops(): host and device, src and dst. */
struct kinds {
	struct sacc_buf *hs, *hd, *ds, *dd, *ts;
	uint8_t inl[700];
	uint64_t pat;
};

/*
 * Every command kind, every direction: NOP, MEMCPY H2H, XFORM H2D,
 * MEMCPY D2D and D2H (after the XFORM that wrote it: in order),
 * WRITE_INLINE (700 bytes: 22 payload slots) into host and device
 * memory, FILL into both, TIMESTAMPs around the copies.  Into @ops;
 * returns how many.
 */
static unsigned int kinds_ops(struct kinds *k, struct sacc_op *ops)
{
	const uint32_t L = 5000;
	unsigned int n = 0;

	ops[n++] = (struct sacc_op){.opcode = SACC_OP_NOP};
	ops[n++] = (struct sacc_op){.opcode = SACC_OP_TIMESTAMP, .dst = k->ts};
	ops[n++] = (struct sacc_op){
	    .opcode = SACC_OP_MEMCPY, .len = L, .src = k->hs, .dst = k->hd};
	ops[n++] = (struct sacc_op){
	    .opcode = SACC_OP_XFORM, .len = L, .src = k->hs, .dst = k->ds};
	ops[n++] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
				    .len = L,
				    .src = k->ds,
				    .dst = k->dd,
				    .dst_off = 8192};
	ops[n++] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
				    .len = L,
				    .src = k->dd,
				    .src_off = 8192,
				    .dst = k->hd,
				    .dst_off = 8192};
	ops[n++] = (struct sacc_op){.opcode = SACC_OP_WRITE_INLINE,
				    .len = sizeof(k->inl),
				    .dst = k->hd,
				    .dst_off = 16384,
				    .data = k->inl};
	ops[n++] = (struct sacc_op){.opcode = SACC_OP_WRITE_INLINE,
				    .len = sizeof(k->inl),
				    .dst = k->dd,
				    .dst_off = 16384,
				    .data = k->inl};
	ops[n++] = (struct sacc_op){.opcode = SACC_OP_FILL,
				    .len = 3000,
				    .dst = k->hd,
				    .dst_off = 20000,
				    .pattern = k->pat};
	ops[n++] = (struct sacc_op){.opcode = SACC_OP_FILL,
				    .len = 3001,
				    .dst = k->dd,
				    .dst_off = 20000,
				    .pattern = ~k->pat};
	ops[n++] = (struct sacc_op){
	    .opcode = SACC_OP_TIMESTAMP, .dst = k->ts, .dst_off = 8};
	return n;
}

/* What kinds_ops() wrote, byte for byte, the rest still canary. */
static void kinds_check(struct kinds *k, uint64_t clock0)
{
	const uint32_t L = 5000;
	uint8_t *hs = va(k->hs), *hd = va(k->hd), *dd = va(k->dd);
	uint64_t t0, t1;

	check_copy("graph H2H", SACC_OP_MEMCPY, hd, hs, L);
	check_canary("graph H2H tail", hd + L, 8192 - L);
	check_copy("graph H2D xform, D2D, D2H", SACC_OP_XFORM, hd + 8192, hs,
		   L);
	check_copy("graph H2D xform, D2D", SACC_OP_XFORM, dd + 8192, hs, L);
	ck_assert(!memcmp(hd + 16384, k->inl, sizeof(k->inl)));
	ck_assert(!memcmp(dd + 16384, k->inl, sizeof(k->inl)));
	check_canary("graph inline tail", hd + 16384 + sizeof(k->inl), 64);
	for (uint32_t i = 0; i < 3000; i++)
		ck_assert_uint_eq(hd[20000 + i], (uint8_t)(k->pat >> 8 * (i % 8)));
	for (uint32_t i = 0; i < 3001; i++)
		ck_assert_uint_eq(dd[20000 + i],
				  (uint8_t)(~k->pat >> 8 * (i % 8)));
	check_canary("graph fill tail", hd + 23000, 64);
	memcpy(&t0, va(k->ts), 8);
	memcpy(&t1, va(k->ts) + 8, 8);
	ck_assert_uint_ge(t0, clock0);
	ck_assert_uint_gt(t1, t0); /* around three copies of 5000 bytes */
}

/* Fresh sources and canaries for one kinds_ops() launch. */
static void kinds_reset(struct kinds *k)
{
	fill_random(va(k->hs), 8192);
	memset(va(k->hd), CANARY, sacc_buf_len(k->hd));
	memset(va(k->dd), CANARY, sacc_buf_len(k->dd));
	memset(va(k->ts), 0, 16);
	fill_random(k->inl, sizeof(k->inl));
	k->pat = rnd();
}

/* Every command kind in one graph, its segment in host and in device
 * memory, on channel 0 (MODE.V3) and on a token-doorbell channel: one
 * SQ entry and one doorbell a launch, one result, every byte checked;
 * a graph refused on a v0.2 handle. */
START_TEST(graph_every_kind)
{
	struct sacc_open_opts o = {.flags = SACC_OPEN_V3};
	struct sacc_dev *dev, *h;
	struct sacc_graph *g;
	struct sacc_result r;
	struct sacc_stats st;
	struct sacc_op ops[16];
	struct kinds k;
	struct sacc_desc e;
	unsigned int n;

	BEGIN();
	dev = guest_open(0, &o);
	if (!has_devmem(dev)) {
		sacc_close(dev);
		return;
	}
	for (int c = 0; c < 2; c++) {
		uint32_t slot = 0; /* the SQ slot of h's next launch */
		uint64_t clock0;

		h = c ? open_chan(dev, 1, SACC_DOORBELL_PUT_TOKEN, 64) : dev;
		k.hs = guest_buf(h, 8192, SACC_DMA_TO_DEVICE, "g hs");
		k.hd = guest_buf(h, 32 * KiB, SACC_DMA_FROM_DEVICE, "g hd");
		k.ts = guest_buf(h, 16, SACC_DMA_FROM_DEVICE, "g ts");
		k.ds = dev_buf(h, 8192, "g ds");
		k.dd = dev_buf(h, 32 * KiB, "g dd");
		for (unsigned int where = 0; where < 2; where++) {
			kinds_reset(&k);
			n = kinds_ops(&k, ops);
			g = graph_new(h, ops, n,
				      where ? SACC_GRAPH_DEVMEM : 0);
			ck_assert_uint_eq(sacc_graph_ops(g), n);
			ck_assert_uint_eq(sacc_graph_bytes(g),
					  32 * (n + 2 * SACC_INLINE_SLOTS(700)));
			sacc_stats_clear(h);
			clock0 = sacc_dev_clock(h);
			graph_run(h, g, 100 + where, &r);
			ck_assert_msg(r.status == SACC_STS_OK, "%s",
				      sacc_graph_explain(g, &r,
							 (char[256]){0}, 256));
			ck_assert_uint_eq(r.result_len, n);
			ck_assert_uint_gt(r.engine_ns, 0);
			sacc_stats(h, &st);
			ck_assert_uint_eq(st.submitted, 1);
			ck_assert_uint_eq(st.doorbells, 1);
			ck_assert_uint_eq(st.completed, 1);
			e = sq_entry(h, slot++);
			ck_assert_uint_eq(e.opcode, SACC_OP_SEGMENT);
			ck_assert_uint_eq(e.length, sacc_graph_bytes(g));
			ck_assert_uint_eq(e.flags,
					  where ? SACC_DESC_F_SRC_DEV : 0);
			kinds_check(&k, clock0);
			/* and again, fresh data, the clock moving on */
			kinds_reset(&k);
			ck_assert_int_eq(sacc_graph_update(g, ops,
							   kinds_ops(&k, ops)),
					 0);
			clock0 = sacc_dev_clock(h);
			graph_run(h, g, 200, &r);
			slot++;
			ck_assert_uint_eq(r.status, SACC_STS_OK);
			kinds_check(&k, clock0);
			ck_assert_int_eq(sacc_graph_destroy(g), 0);
		}
		ck_assert_int_eq(sacc_outstanding(h), 0);
	}
	sacc_close(dev);

	/* a v0.2 channel 0 has no SEGMENT: refused, with what to do */
	dev = guest_open(0, NULL);
	ops[0] = (struct sacc_op){.opcode = SACC_OP_NOP};
	ck_assert_int_eq(sacc_graph_create(dev, ops, 1, 0, &g), -EINVAL);
	assert_msg_has(sacc_errmsg(dev), "SACC_OPEN_V3");
	sacc_close(dev);
	ck_assert_int_eq(vmlck_kb(), 0);
}
END_TEST

/* @count launches of @g on @dev, up to 32 in flight, cookies from
 * *@cookie on: every result in order, ok and complete. */
static void launch_many(struct sacc_dev *dev, struct sacc_graph *g,
			unsigned int count, uint64_t *cookie)
{
	struct sacc_result r[32];
	uint64_t sent = *cookie, done = *cookie, end = *cookie + count;
	int k;

	while (done < end) {
		while (sent < end && sent - done < 32) {
			k = sacc_graph_launch(dev, g, sent);
			ck_assert_msg(k >= 0, "launch %" PRIu64 ": %s", sent,
				      sacc_errmsg(dev));
			if (!k)
				break; /* the SQ is full: reap first */
			sent++;
		}
		k = guest_reap(dev, r, (unsigned int)(sent - done),
			       REAP_TIMEOUT_MS);
		ck_assert_msg(k > 0, "reap: %d: %s", k, sacc_errmsg(dev));
		for (int i = 0; i < k; i++, done++) {
			ck_assert_uint_eq(r[i].cookie, done);
			ck_assert_msg(r[i].status == SACC_STS_OK &&
					  r[i].result_len == sacc_graph_ops(g),
				      "launch %" PRIu64 ": %s", done,
				      sacc_graph_explain(g, &r[i],
							 (char[256]){0}, 256));
		}
	}
	*cookie = end;
}

/* One graph launched 10,000 times: 32 launches in flight, every result
 * in order and complete; at every thousandth, launched alone, its
 * TIMESTAMP has moved on; one doorbell a launch. */
START_TEST(graph_10000_launches)
{
	struct sacc_open_opts o = {.flags = SACC_OPEN_V3, .sq_entries = 64};
	struct sacc_dev *dev;
	struct sacc_buf *src, *dst, *ts;
	struct sacc_graph *g;
	struct sacc_result r;
	struct sacc_stats st;
	struct sacc_op ops[8];
	uint64_t cookie = 0, last = 0, t;

	BEGIN();
	dev = guest_open(0, &o);
	src = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "10k src");
	dst = guest_buf(dev, 4096, SACC_DMA_FROM_DEVICE, "10k dst");
	ts = guest_buf(dev, 8, SACC_DMA_FROM_DEVICE, "10k ts");
	fill_random(va(src), 4096);
	for (int i = 0; i < 7; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
					  .len = 512,
					  .src = src,
					  .src_off = 512 * (size_t)i,
					  .dst = dst,
					  .dst_off = 512 * (size_t)i};
	ops[7] = (struct sacc_op){.opcode = SACC_OP_TIMESTAMP, .dst = ts};
	g = graph_new(dev, ops, 8, 0);
	sacc_stats_clear(dev);
	for (int round = 0; round < 10; round++) {
		launch_many(dev, g, 999, &cookie);
		graph_run(dev, g, cookie++, &r);
		ck_assert_uint_eq(r.status, SACC_STS_OK);
		memcpy(&t, va(ts), 8);
		ck_assert_uint_gt(t, last);
		last = t;
	}
	sacc_stats(dev, &st);
	ck_assert_uint_eq(cookie, 10000);
	ck_assert_uint_eq(st.submitted, 10000);
	ck_assert_uint_eq(st.doorbells, 10000);
	ck_assert_uint_eq(st.completed, 10000);
	check_copy("10k launches", SACC_OP_MEMCPY, va(dst), va(src), 3584);
	ck_assert_int_eq(sacc_graph_destroy(g), 0);
	sacc_close(dev);
}
END_TEST

/* A graph whose segment is rewritten between launches: in place
 * (sacc_graph_update(): the same segment, new commands, host and device
 * memory), not while a launch is outstanding; and destroy + create. */
START_TEST(graph_rewritten)
{
	struct sacc_open_opts o = {.flags = SACC_OPEN_V3};
	struct sacc_dev *dev;
	struct sacc_buf *hd;
	struct sacc_graph *g;
	struct sacc_result r;
	struct sacc_op ops[4];
	uint32_t slot = 0; /* the SQ slot of the next launch */
	uint64_t seg;
	uint8_t *d;

	BEGIN();
	dev = guest_open(0, &o);
	if (!has_devmem(dev)) {
		sacc_close(dev);
		return;
	}
	hd = guest_buf(dev, 4096, SACC_DMA_FROM_DEVICE, "rw hd");
	d = va(hd);
	for (unsigned int where = 0; where < 2; where++) {
		unsigned int fl = where ? SACC_GRAPH_DEVMEM : 0;

		for (int i = 0; i < 4; i++)
			ops[i] = (struct sacc_op){.opcode = SACC_OP_FILL,
						  .len = 100,
						  .dst = hd,
						  .dst_off = 100 * (size_t)i,
						  .pattern = 0xa1a1a1a1a1a1a1a1ull};
		g = graph_new(dev, ops, 4, fl);
		memset(d, CANARY, 4096);
		graph_run(dev, g, 1, &r);
		ck_assert_uint_eq(r.status, SACC_STS_OK);
		seg = sq_entry(dev, slot++).src;
		for (int i = 0; i < 400; i++)
			ck_assert_uint_eq(d[i], 0xa1);
		/* the segment rewritten: other patterns, one op fewer */
		for (int i = 0; i < 3; i++)
			ops[i].pattern = 0x0101010101010101ull * (uint64_t)(i + 2);
		ck_assert_int_eq(sacc_graph_update(g, ops, 3), 0);
		ck_assert_int_eq(sacc_graph_launch(dev, g, 2), 1);
		ck_assert_uint_eq(sq_entry(dev, slot).src, seg); /* in place */
		ck_assert_uint_eq(sq_entry(dev, slot++).length, 96);
		/* not while the device may fetch it */
		ck_assert_int_eq(sacc_graph_update(g, ops, 3), -EBUSY);
		assert_msg_has(sacc_errmsg(dev), "outstanding");
		ck_assert_int_eq(sacc_graph_destroy(g), -EBUSY);
		reap_n(dev, &r, 1);
		ck_assert_uint_eq(r.status, SACC_STS_OK);
		ck_assert_uint_eq(r.result_len, 3);
		for (int i = 0; i < 300; i++)
			ck_assert_uint_eq(d[i], 2 + i / 100);
		ck_assert_uint_eq(d[300], 0xa1); /* op 3 no longer there */
		/* destroy + create: a new segment, run as it is now */
		ck_assert_int_eq(sacc_graph_destroy(g), 0);
		ops[0].pattern = 0x5555555555555555ull;
		g = graph_new(dev, ops, 1, fl);
		graph_run(dev, g, 3, &r);
		slot++;
		ck_assert_uint_eq(r.status, SACC_STS_OK);
		ck_assert_uint_eq(r.result_len, 1);
		ck_assert_uint_eq(d[0], 0x55);
		ck_assert_uint_eq(d[100], 3);
		ck_assert_int_eq(sacc_graph_destroy(g), 0);
	}
	sacc_close(dev);
}
END_TEST

/* A graph with a faulting op in the middle: the launch's status and the
 * op's index, the ops before it done and none after it, the fault
 * record (the entry's req_id), sacc_graph_explain(); the segment's own
 * fetch faulting; raw segments: a SEGMENT inside, a payload past the
 * end, a source nowhere.  The channel goes on after each. */
START_TEST(graph_fault_middle)
{
	struct sacc_open_opts o = {.flags = SACC_OPEN_V3};
	struct sacc_buf *src, *dst[5];
	struct sacc_map_entry e;
	struct sacc_graph *g, *raw;
	struct sacc_result r;
	struct sacc_op ops[5];
	struct sacc_dev *dev;
	uint32_t slot = 0;
	uint64_t seg;
	char msg[512], name[16];

	BEGIN();
	dev = guest_open(0, &o);
	src = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "gf src");
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "gf dst%d", i);
		dst[i] = guest_buf(dev, 4096, SACC_DMA_FROM_DEVICE, name);
		ops[i] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
					  .len = 4096,
					  .src = src,
					  .dst = dst[i]};
	}
	g = graph_new(dev, ops, 5, 0);
	fill_random(va(src), 4096);
	for (int i = 0; i < 5; i++)
		memset(va(dst[i]), CANARY, 4096);
	/* op 2's destination unmapped behind libsacc's back */
	e = mapping_at(dev, sacc_buf_iova(dst[2]));
	sq_unmap(dev, &e);
	graph_run(dev, g, 7, &r);
	slot++;
	ck_assert_uint_eq(r.status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(r.result_len, 2);
	check_copy("before the fault", SACC_OP_MEMCPY, va(dst[0]), va(src),
		   4096);
	check_copy("before the fault", SACC_OP_MEMCPY, va(dst[1]), va(src),
		   4096);
	for (int i = 2; i < 5; i++)
		check_canary("the fault and after", va(dst[i]), 4096);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_INFO),
			  SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE);
	/* the record is the command's: its req_id names graph and op 2 */
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_REQ_ID) >> 31, 1);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_REQ_ID) & 0x7ff, 2);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_ADDR), (uint32_t)e.iova);
	sacc_graph_explain(g, &r, msg, sizeof(msg));
	assert_msg_has(msg, "op 2 of the graph's 5");
	assert_msg_has(msg, "to 'gf dst2'+0");
	assert_msg_has(msg, "destination write at IOVA");
	sq_remap(dev, &e);
	ck_assert_int_eq(sacc_check(dev), 0);
	graph_run(dev, g, 8, &r);
	ck_assert_uint_eq(r.status, SACC_STS_OK);
	ck_assert_uint_eq(r.result_len, 5);
	check_copy("after the fault", SACC_OP_MEMCPY, va(dst[4]), va(src),
		   4096);

	/* the segment itself unmapped: the fetch faults, no op runs */
	seg = sq_entry(dev, slot++).src;
	e = mapping_at(dev, seg);
	sq_unmap(dev, &e);
	for (int i = 0; i < 5; i++)
		memset(va(dst[i]), CANARY, 4096);
	graph_run(dev, g, 9, &r);
	slot++;
	ck_assert_uint_eq(r.status, SACC_STS_DMA_FAULT);
	ck_assert_uint_eq(r.result_len, 0);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_INFO),
			  SACC_FAULT_SEGMENT_READ);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_REQ_ID), r.req_id);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_ADDR), (uint32_t)seg);
	for (int i = 0; i < 5; i++)
		check_canary("no op after a fetch fault", va(dst[i]), 4096);
	sacc_graph_explain(g, &r, msg, sizeof(msg));
	assert_msg_has(msg, "fetching its segment");
	sq_remap(dev, &e);
	graph_run(dev, g, 10, &r);
	ck_assert_uint_eq(r.status, SACC_STS_OK);
	ck_assert_int_eq(sacc_graph_destroy(g), 0);

	/* raw segments (libsacc_unsafe.h) */
	{
		struct sacc_desc c[4] = {
		    {.opcode = SACC_OP_NOP},
		    {.opcode = SACC_OP_MEMCPY,
		     .src = sacc_buf_iova(src),
		     .dst = sacc_buf_iova(dst[0]),
		     .length = 64},
		    {.opcode = SACC_OP_SEGMENT, .src = seg, .length = 32},
		    {.opcode = SACC_OP_NOP}};
		static const struct {
			uint16_t status;
			uint32_t index;
		} want[3] = {{SACC_STS_BAD_OPCODE, 2},
			     {SACC_STS_BAD_LENGTH, 1},
			     {SACC_STS_DMA_FAULT, 1}};

		for (int t = 0; t < 3; t++) {
			if (t == 1) /* 100 bytes: 4 payload slots, 2 left */
				c[1] = (struct sacc_desc){
				    .opcode = SACC_OP_WRITE_INLINE,
				    .dst = sacc_buf_iova(dst[0]),
				    .length = 100};
			if (t == 2) /* the guard page after src */
				c[1] = (struct sacc_desc){
				    .opcode = SACC_OP_MEMCPY,
				    .src = sacc_buf_iova(src) + 4096,
				    .dst = sacc_buf_iova(dst[0]),
				    .length = 64};
			for (int i = 0; i < 4; i++) /* FAULT_REQ_ID's */
				c[i].req_id = 0x1000u + (uint32_t)i;
			ck_assert_int_eq(
			    sacc_graph_create_raw(dev, c, 4, 0, &raw), 0);
			graph_run(dev, raw, 20 + t, &r);
			ck_assert(r.raw);
			ck_assert_uint_eq(r.status, want[t].status);
			ck_assert_uint_eq(r.result_len, want[t].index);
			sacc_graph_explain(raw, &r, msg, sizeof(msg));
			assert_msg_has(msg, t == 0	? "(segment"
					    : t == 1 ? "(write inline"
						     : "source read");
			ck_assert_int_eq(sacc_graph_destroy(raw), 0);
		}
		ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_INFO),
				  SACC_FAULT_SRC_READ);
		ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_REQ_ID), 0x1001);
	}
	ck_assert_int_eq(sacc_check(dev), 0);
	one_verified_op(dev, SACC_OP_MEMCPY, src, dst[3], 4096);
	sacc_close(dev);
}
END_TEST

/* The segment in device memory: SRC_DEV entries at a device address,
 * launched 1,000 times; kept across an FLR (sacc_reset() zeroes device
 * memory: libsacc writes the segment again); device memory full says
 * so; its pages come back at destroy. */
START_TEST(graph_devmem_segment)
{
	struct sacc_open_opts o = {.flags = SACC_OPEN_V3};
	struct sacc_devmem_info in0, in;
	struct sacc_buf *hs, *hd, *big;
	struct sacc_graph *g, *g2 = NULL;
	struct sacc_result r;
	struct sacc_op ops[65];
	struct sacc_dev *dev;
	struct sacc_desc e;
	uint64_t cookie = 0;

	BEGIN();
	dev = guest_open(0, &o);
	if (!has_devmem(dev)) {
		sacc_close(dev);
		return;
	}
	ck_assert_int_eq(sacc_devmem_info(dev, &in0), 0);
	hs = guest_buf(dev, 4096, SACC_DMA_TO_DEVICE, "gd hs");
	hd = guest_buf(dev, 8192, SACC_DMA_FROM_DEVICE, "gd hd");
	for (int i = 0; i < 64; i++)
		ops[i] = (struct sacc_op){.opcode = SACC_OP_MEMCPY,
					  .len = 64,
					  .src = hs,
					  .src_off = 64 * (size_t)i,
					  .dst = hd,
					  .dst_off = 64 * (size_t)i};
	ops[64] = (struct sacc_op){.opcode = SACC_OP_FILL,
				   .len = 4096,
				   .dst = hd,
				   .dst_off = 4096,
				   .pattern = 0x1234567890abcdefull};
	g = graph_new(dev, ops, 65, SACC_GRAPH_DEVMEM);
	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	ck_assert_uint_eq(in.used, in0.used + 4096); /* 2080 bytes: a page */
	fill_random(va(hs), 4096);
	memset(va(hd), CANARY, 8192);
	graph_run(dev, g, cookie++, &r);
	ck_assert_uint_eq(r.status, SACC_STS_OK);
	ck_assert_uint_eq(r.result_len, 65);
	e = sq_entry(dev, 0);
	ck_assert_uint_eq(e.flags, SACC_DESC_F_SRC_DEV);
	ck_assert_uint_lt(e.src, in.size);
	ck_assert_uint_eq(e.length, 65 * 32);
	check_copy("devmem segment", SACC_OP_MEMCPY, va(hd), va(hs), 4096);
	ck_assert_uint_eq(va(hd)[8191], 0x12);
	launch_many(dev, g, 999, &cookie);
	/* an FLR zeroes device memory; the next launch writes it again */
	ck_assert_int_eq(sacc_reset(dev), 0);
	memset(va(hd), CANARY, 8192);
	graph_run(dev, g, cookie++, &r);
	ck_assert_msg(r.status == SACC_STS_OK && r.result_len == 65, "%s",
		      sacc_graph_explain(g, &r, (char[256]){0}, 256));
	check_copy("devmem segment after FLR", SACC_OP_MEMCPY, va(hd), va(hs),
		   4096);
	/* device memory full: the message says so, and what to do */
	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	big = dev_buf(dev, in.largest_free, "gd big");
	ck_assert_int_eq(sacc_graph_create(dev, ops, 65, SACC_GRAPH_DEVMEM, &g2),
			 -ENOSPC);
	assert_msg_has(sacc_errmsg(dev), "out of device memory");
	assert_msg_has(sacc_errmsg(dev), "host memory");
	ck_assert_ptr_null(g2);
	ck_assert_int_eq(sacc_buf_free(big), 0);
	ck_assert_int_eq(sacc_graph_destroy(g), 0);
	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	ck_assert_uint_eq(in.used, in0.used);
	sacc_close(dev);
}
END_TEST

/* ------------------------------------------------------------------ */

static TCase *tcase(Suite *s, const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_set_timeout(tc, GUEST_TEST_TIMEOUT);
	tcase_add_checked_fixture(tc, tc_setup, tc_teardown);
	suite_add_tcase(s, tc);
	return tc;
}

static Suite *driver_suite(void)
{
	Suite *s = suite_create("libsacc (guest)");
	TCase *tc;

	tc = tcase(s, "lifecycle");
	tcase_add_test(tc, open_close_cycles);

	tc = tcase(s, "data path");
	tcase_add_test(tc, random_ops);
	tcase_add_test(tc, ring_laps);
	tcase_add_test(tc, cq_full);
	tcase_add_test(tc, batch_64_one_doorbell);
	tcase_add_test(tc, interrupt_mode);
	tcase_add_test(tc, enqueue_doorbell_eventfd);
	tcase_add_test(tc, doorbell_modes);
	tcase_add_test(tc, doorbell_repeat);
	tcase_add_test(tc, doorbell_syscall_failure);
	tcase_add_test(tc, two_devices);

	tc = tcase(s, "protection");
	tcase_add_test(tc, least_privilege);
	tcase_add_test(tc, per_op_errors);
	tcase_add_test(tc, untrusted_completions);
	tcase_add_test(tc, forged_completion);
	tcase_add_test(tc, erased_completion);
	tcase_add_test(tc, use_after_unmap_quarantined);

	tc = tcase(s, "reset");
	tcase_add_test(tc, reset_after_fatal_ring_fault);
	tcase_add_test(tc, reset_inflight);
	tcase_add_test(tc, reset_after_enable_error);
	tcase_add_test(tc, reset_from_outside);

	tc = tcase(s, "channels");
	tcase_add_test(tc, chan_basic);
	tcase_add_test(tc, chan_inline);
	tcase_add_test(tc, chan_timestamp);
	tcase_add_test(tc, chan_isolation);
	tcase_add_test(tc, chan_put_unmapped);

	tc = tcase(s, "device memory");
	tcase_add_test(tc, devmem_directions);
	tcase_add_test(tc, devmem_fault);
	tcase_add_test(tc, devmem_sq);

	tc = tcase(s, "telemetry");
	tcase_add_test(tc, events_and_sync);

	tc = tcase(s, "chains");
	tcase_add_test(tc, chain_64_one_doorbell);

	tc = tcase(s, "graphs");
	tcase_add_test(tc, graph_every_kind);
	tcase_add_test(tc, graph_10000_launches);
	tcase_add_test(tc, graph_rewritten);
	tcase_add_test(tc, graph_fault_middle);
	tcase_add_test(tc, graph_devmem_segment);

	tc = tcase(s, "errors");
	tcase_add_test(tc, bad_bdf);
	tcase_add_test(tc, memlock_too_low);
	tcase_add_test(tc, out_of_memory_refused);
	tcase_add_test(tc, non_viable_group);

	tc = tcase(s, "limits");
	tcase_add_unchecked_fixture(tc, save_dma_limit, restore_dma_limit);
	tcase_add_test(tc, dma_entry_limit);

	tc = tcase(s, "unbound");
	tcase_add_unchecked_fixture(tc, NULL, rebind_unbound);
	tcase_add_test(tc, unbound_device);
	tcase_add_test(tc, unbind_in_use);
	return s;
}

int main(void)
{
	const char *env = getenv("SACC_TEST_SEED");
	uint64_t t0 = sacc_monotonic_ns();
	SRunner *sr;
	int failed;

	if (env && *env)
		seed = strtoull(env, NULL, 0);
	setvbuf(stderr, NULL, _IONBF, 0);
	/* Scan once, before any test unbinds anything. */
	if (guest_nr_devices() == 0) {
		fprintf(stderr, "sacc-guest-driver: no SACC device bound to "
				"vfio-pci (run it through ci/vm)\n");
		return 1;
	}
	fprintf(stderr, "sacc-guest-driver: %u device(s), first %s, seed 0x%" PRIx64
			"\n",
		guest_nr_devices(), guest_bdf(0), seed);
	sr = srunner_create(driver_suite()); /* CK_FORK: one process a test */
	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	fprintf(stderr, "sacc-guest-driver: %.1f s\n",
		(double)(sacc_monotonic_ns() - t0) / 1e9);
	return failed ? 1 : 0;
}

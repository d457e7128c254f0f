// SPDX-License-Identifier: MIT
/*
 * scenarios_platform.c - saccctl inject's attacks on what surrounds the
 * device rather than one descriptor: DMA aimed at the interrupt window,
 * the device pointed at its own BAR, two devices in two containers and
 * two processes (isolation), sub-page exposure with a naive allocator
 * and with libsacc's, and a burst of a thousand faults at once.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scenarios.h"

/* ---- the interrupt window ---- */

/* /proc/interrupts: per line, the label and the sum over CPUs. */
struct irq_snap {
	unsigned int n;
	char name[64][80]; /* "ERR", "MIS", "27 ... vfio-msix[0](...)" */
	uint64_t count[64];
};

static void irq_snapshot(struct irq_snap *q)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[1024];

	q->n = 0;
	if (!f)
		return;
	while (q->n < 64 && fgets(line, sizeof(line), f)) {
		char *p = line, *end, *tail;
		uint64_t sum = 0;

		line[strcspn(line, "\n")] = '\0';
		while (*p == ' ')
			p++;
		end = strchr(p, ':');
		if (!end || end == p)
			continue;
		*end = '\0';
		p = end + 1;
		for (;;) {
			char *e2;
			unsigned long long v = strtoull(p, &e2, 10);

			if (e2 == p)
				break;
			sum += v;
			p = e2;
		}
		tail = strrchr(p, ' ');
		snprintf(q->name[q->n], sizeof(q->name[0]), "%.15s %.60s",
			 line + (line[0] == ' ' ? strspn(line, " ") : 0),
			 tail ? tail + 1 : "");
		q->count[q->n++] = sum;
	}
	fclose(f);
}

/* Interrupts nobody set up: spurious/error counts, any vfio vector. */
static uint64_t irq_unexpected(const struct irq_snap *a,
			       const struct irq_snap *b, char *what, size_t len)
{
	uint64_t n = 0;

	what[0] = '\0';
	for (unsigned int i = 0; i < b->n; i++) {
		uint64_t was = 0;

		if (strncmp(b->name[i], "ERR ", 4) &&
		    strncmp(b->name[i], "MIS ", 4) &&
		    !strstr(b->name[i], "vfio"))
			continue;
		for (unsigned int k = 0; k < a->n; k++)
			if (!strcmp(a->name[k], b->name[i]))
				was = a->count[k];
		if (b->count[i] > was) {
			n += b->count[i] - was;
			snprintf(what + strlen(what), len - strlen(what),
				 "%s+%" PRIu64 " (%s)", what[0] ? ", " : "",
				 b->count[i] - was, b->name[i]);
		}
	}
	return n;
}

struct kmsg_grep {
	unsigned int hits;
	char first[200];
};

static void grep_irq_lines(void *ctx, enum sacc_faultlog_input kind,
			   const char *line)
{
	struct kmsg_grep *g = ctx;
	const char *msg = strchr(line, ';');

	msg = msg ? msg + 1 : line;
	if (!strstr(msg, "No irq handler") && !strstr(msg, "spurious") &&
	    !strstr(msg, "Spurious") && !strstr(msg, "NMI"))
		return;
	if (!g->hits++)
		snprintf(g->first, sizeof(g->first), "%.199s", msg);
}

/*
 * A device write into 0xfee00000-0xfeefffff is an interrupt request.
 * Two forged ones: a compatibility-format MSI (fixed, vector 0xdf, CPU
 * 0), which interrupt remapping must block because Linux keeps
 * GSTS.CFIS clear, and a remappable-format one naming IRTE 0x7fff, which
 * is not present.  Neither may reach a CPU: no MSI-X on our eventfd (no
 * descriptor asked for one), no spurious or error interrupt, no "No irq
 * handler" line; and the guest must live on.
 */
int sc_interrupt_window(struct inj *s)
{
	const uint64_t compat = 0xfee00000ull, remap = 0xfeeffff0ull;
	struct irq_snap *before = NULL, *after = NULL;
	struct sacc_faultlog_src *kmsg = NULL;
	struct kmsg_grep g = {0};
	struct sacc_stats st0, st1;
	struct sacc_buf *msi;
	char what[256];
	uint64_t fired, lines;
	struct std b;
	uint32_t *p;
	int id1, id2, ret = -1;
	struct sacc_desc d = {.opcode = SACC_OP_MEMCPY, .length = 4};

	if (std_setup(s, &b, true) || inj_buf(s, 4 * KiB, SACC_DMA_TO_DEVICE,
					      "msi payload", 9, false, &msi))
		return -1;
	p = sacc_buf_va(msi);
	memset(p, 0, 4 * KiB);
	p[0] = 0xdf; /* MSI data: vector 0xdf, fixed, edge */
	if (inj_canary(s, "msi payload", p, 4 * KiB))
		return -1;
	before = calloc(1, sizeof(*before));
	after = calloc(1, sizeof(*after));
	if (!before || !after) {
		inj_fail(s, "out of memory");
		goto out;
	}
	sacc_faultlog_src_open(&kmsg, SACC_FAULTLOG_KMSG, NULL,
			       SACC_FAULTLOG_SRC_AT_END, NULL);
	sacc_wait(s->dev, 0); /* drain the eventfd */
	sacc_stats(s->dev, &st0);
	irq_snapshot(before);

	d.src = sacc_buf_iova(msi);
	d.dst = compat;
	id1 = inj_submit(s, &d, "compat-format MSI data, vector 0xdf",
			 "0xfee00000: CPU 0, compatibility format");
	d.dst = remap;
	id2 = inj_submit(s, &d, "MSI data",
			 "0xfeeffff0: remappable format, IRTE 0x7fff");
	if (id1 < 0 || id2 < 0 || inj_reap(s, 3000))
		goto out;
	usleep(200000); /* time for a stray interrupt to show */
	sacc_wait(s->dev, 0);
	sacc_stats(s->dev, &st1);
	irq_snapshot(after);
	if (kmsg)
		sacc_faultlog_src_read(kmsg, NULL, grep_irq_lines, &g, NULL);
	inj_device_state(s, s->dev);

	fired = st1.interrupts - st0.interrupts;
	lines = irq_unexpected(before, after, what, sizeof(what));
	inj_say(s,
		"interrupts: MSI-X eventfd +%" PRIu64 ", spurious/error/vfio "
		"lines +%" PRIu64 "%s%s, kernel lines about stray "
		"interrupts: %u",
		fired, lines, what[0] ? ": " : "", what, g.hits);
	s->blocked = s->desc[0].status == SACC_STS_DMA_FAULT &&
		     s->desc[1].status == SACC_STS_DMA_FAULT && !fired &&
		     !lines && !g.hits;
	if (s->desc[0].status != SACC_STS_DMA_FAULT ||
	    s->desc[1].status != SACC_STS_DMA_FAULT)
		inj_why(s, "the writes completed with status %d and %d",
			s->desc[0].status, s->desc[1].status);
	if (fired)
		inj_why(s, "%" PRIu64 " MSI-X interrupt(s) on the eventfd",
			fired);
	if (lines)
		inj_why(s, "unexpected interrupts: %s", what);
	if (g.hits)
		inj_why(s, "kernel: %s", g.first);
	inj_expect(s, (uint32_t)id1, compat, SACC_FAULT_DST_WRITE, false);
	inj_expect(s, (uint32_t)id2, remap, SACC_FAULT_DST_WRITE, false);
	snprintf(s->note, sizeof(s->note),
		 "forged MSIs (compat and remappable): blocked by interrupt "
		 "remapping, none delivered");
	ret = 0;
out:
	sacc_faultlog_src_close(kmsg);
	free(before);
	free(after);
	return ret;
}

/* ---- the device's own BAR ---- */

/*
 * VFIO maps a VM_PFNMAP mmap of a BAR like any memory (that is how peer
 * to peer DMA is set up), so the device can be pointed at its own
 * doorbell.  QEMU's re-entrancy guard must refuse it (a fault, not a
 * recursive doorbell write), and the device must carry on.
 */
int sc_own_bar(struct inj *s)
{
	struct sacc_dma_ctx *ctx;
	struct sacc_err e = {0};
	struct sacc_desc d = {.opcode = SACC_OP_MEMCPY, .length = 4};
	struct sacc_buf *val;
	volatile void *db;
	uint32_t st = 0, err = 0;
	uint64_t iova;
	struct std b;
	int id1, id2;

	if (std_setup(s, &b, true) ||
	    inj_buf(s, 4 * KiB, SACC_DMA_TO_DEVICE, "doorbell value", 12, false,
		    &val))
		return -1;
	/* a value the doorbell would take as a new SQ tail */
	memset(sacc_buf_va(val), 0, 4 * KiB);
	*(uint32_t *)sacc_buf_va(val) = 1;
	if (inj_canary(s, "doorbell value", sacc_buf_va(val), 4 * KiB))
		return -1;
	db = sacc_dev_doorbell_page(s->dev);
	if (!db)
		return inj_fail(s, "BAR0's doorbell page is not mmapped");
	ctx = sacc_dev_dma(s->dev);
	if (sacc_dma_map(ctx, (void *)db, 4 * KiB, SACC_DMA_BIDIRECTIONAL,
			 "own BAR0 doorbell page", &iova, &e))
		return inj_fail(s, "VFIO would not map the doorbell page: %s",
				e.msg);
	inj_say(s,
		"BAR0 doorbell page (mmap, VM_PFNMAP) mapped at IOVA "
		"0x%" PRIx64 ", read/write for the device",
		iova);
	d.src = sacc_buf_iova(val);
	d.dst = iova;
	id1 = inj_submit(s, &d, "'doorbell value' (1, a valid SQ tail)",
			 "own doorbell");
	d.src = iova;
	d.dst = sacc_buf_iova(b.dst);
	id2 = inj_submit(s, &d, "own doorbell", "'dst'");
	if (id1 < 0 || id2 < 0 || inj_reap(s, 3000))
		return -1;
	inj_device_state(s, s->dev);
	sacc_reg_read(s->dev, SACC_REG_STATUS, &st);
	sacc_reg_read(s->dev, SACC_REG_ERR_CODE, &err);
	s->blocked = s->desc[0].status == SACC_STS_DMA_FAULT &&
		     s->desc[1].status == SACC_STS_DMA_FAULT &&
		     (st & SACC_STATUS_READY) && !(st & SACC_STATUS_ERROR) &&
		     err == SACC_ERR_DMA && sacc_outstanding(s->dev) == 0;
	if (!s->blocked)
		inj_why(s,
			"expected both copies to fault with the device still "
			"ready: %s",
			s->device_state);
	inj_expect(s, (uint32_t)id1, iova, SACC_FAULT_DST_WRITE, false);
	inj_expect(s, (uint32_t)id2, iova, SACC_FAULT_SRC_READ, false);
	if (sacc_dma_unmap(ctx, iova, &e))
		return inj_fail(s, "unmapping the doorbell page: %s", e.msg);
	snprintf(s->note, sizeof(s->note),
		 "DMA into its own doorbell: refused by QEMU's re-entrancy "
		 "guard, no recursion");
	return 0;
}

/* ---- isolation: two devices, two containers, two processes ---- */

struct peer_msg {
	int ok;
	uint64_t iova;
	int intact, recovered;
	char msg[200];
};

static bool read_full(int fd, void *buf, size_t len, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	size_t got = 0;

	while (got < len) {
		ssize_t r;

		if (poll(&p, 1, timeout_ms) <= 0)
			return false;
		r = read(fd, (char *)buf + got, len - got);
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

/* Process B: owns the second device; its secret is the target. */
static void peer_main(struct inj *s, int to_parent, int from_parent)
{
	struct peer_msg m = {0};
	struct sacc_buf *filler, *secret;
	struct sacc_dev *dev;
	uint8_t *want = NULL;
	char go;

	if (sacc_open(s->bdf[1], NULL, &dev)) {
		snprintf(m.msg, sizeof(m.msg), "%s", sacc_errmsg(NULL));
		goto out_msg;
	}
	/* 1 MiB of IOVA first, so the secret sits where A maps nothing */
	if (sacc_buf_alloc(dev, 1u << 20, SACC_DMA_TO_DEVICE, "b filler",
			   &filler) ||
	    sacc_buf_alloc(dev, 4 * KiB, SACC_DMA_BIDIRECTIONAL, "b secret",
			   &secret)) {
		snprintf(m.msg, sizeof(m.msg), "%s", sacc_errmsg(dev));
		goto out_close;
	}
	fill_pattern(sacc_buf_va(secret), 4 * KiB, 77);
	m.ok = 1;
	m.iova = sacc_buf_iova(secret);
	if (write(to_parent, &m, sizeof(m)) != sizeof(m))
		goto out_close;
	/* A attacks now; wait for it to finish */
	if (!read_full(from_parent, &go, 1, 30000))
		snprintf(m.msg, sizeof(m.msg), "no word from process A");
	want = malloc(4 * KiB);
	if (want) {
		fill_pattern(want, 4 * KiB, 77);
		m.intact = !memcmp(want, sacc_buf_va(secret), 4 * KiB);
	}
	m.recovered = !inj_memcpy_ok(s, dev, 4 * KiB, m.msg, sizeof(m.msg));
	if (m.intact && m.recovered) {
		char tmp[sizeof(m.msg)];

		memcpy(tmp, m.msg, sizeof(tmp));
		snprintf(m.msg, sizeof(m.msg),
			 "process B (%.16s): 'b secret' unchanged; %.140s",
			 s->bdf[1], tmp);
	} else if (!m.intact) {
		snprintf(m.msg, sizeof(m.msg),
			 "process B (%s): 'b secret' CHANGED", s->bdf[1]);
	}
	free(want);
out_close:
	sacc_close(dev);
out_msg:
	if (write(to_parent, &m, sizeof(m)) != sizeof(m))
		_exit(1);
	_exit(0);
}

int sc_isolation(struct inj *s)
{
	int up[2], down[2], status;
	struct peer_msg m;
	struct std b;
	char go = 'g';
	pid_t pid;
	int ret = -1;

	if (pipe(up) || pipe(down))
		return inj_fail(s, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return inj_fail(s, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		peer_main(s, up[1], down[0]);
	}
	close(up[1]);
	close(down[0]);
	if (!read_full(up[0], &m, sizeof(m), 30000) || !m.ok) {
		inj_fail(s, "process B failed: %s", m.ok ? "no answer" : m.msg);
		goto out;
	}
	inj_say(s,
		"process %d owns %s in its own container; its 'b secret' is "
		"at IOVA 0x%" PRIx64 " there",
		(int)pid, s->bdf[1], m.iova);
	if (std_setup(s, &b, true) || never_mapped(s, m.iova))
		goto out;
	inj_say(s, "in %s's container IOVA 0x%" PRIx64 " is never mapped",
		s->bdf[0], m.iova);
	snprintf(s->note, sizeof(s->note),
		 "A writes and reads the IOVA of B's secret: both fault, B "
		 "untouched");
	if (one_bad_copy(s, sacc_buf_iova(b.src), "'src'", m.iova,
			 "B's 'b secret' (only B's container maps it)", 4 * KiB,
			 m.iova, SACC_FAULT_DST_WRITE))
		goto out;
	{
		bool w = s->blocked;

		if (one_bad_copy(s, m.iova, "B's 'b secret'",
				 sacc_buf_iova(b.dst), "'dst'", 4 * KiB, m.iova,
				 SACC_FAULT_SRC_READ))
			goto out;
		s->blocked = w && s->blocked;
	}
	ret = 0;
out:
	if (write(down[1], &go, 1) != 1 ||
	    !read_full(up[0], &m, sizeof(m), 30000)) {
		m.intact = m.recovered = 0;
		snprintf(m.msg, sizeof(m.msg), "process B did not report");
	}
	kill(pid, SIGTERM); /* it has exited already, unless stuck */
	waitpid(pid, &status, 0);
	close(up[0]);
	close(down[1]);
	s->peer = true;
	s->peer_intact = m.intact;
	s->peer_recovered = m.recovered;
	snprintf(s->peer_msg, sizeof(s->peer_msg), "%s", m.msg);
	inj_say(s, "%s", m.msg);
	return ret;
}

/* ---- sub-page exposure, both ways ---- */

static bool contains(const uint8_t *hay, size_t n, const uint8_t *needle,
		     size_t k)
{
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(hay + i, needle, k))
			return true;
	return false;
}

int sc_subpage_naive(struct inj *s)
{
	struct sacc_dma_ctx *ctx;
	struct sacc_err e = {0};
	struct sacc_desc d = {.opcode = SACC_OP_MEMCPY, .length = 8 * KiB};
	uint8_t *arena, *dst;
	uint64_t iova;
	struct std b;

	if (std_setup(s, &b, false))
		return -1;
	/* a heap-style arena: 'a' and a neighbour's secret share a page */
	arena = inj_plain(s, 8 * KiB, NULL, 0);
	if (!arena)
		return -1;
	memset(arena, 0, 8 * KiB);
	fill_pattern(arena, 2 * KiB, 10);
	fill_pattern(arena + 2 * KiB, 2 * KiB, 11);
	if (inj_canary(s, "neighbour's secret (same page as 'a')",
		       arena + 2 * KiB, 2 * KiB))
		return -1;
	ctx = sacc_dev_dma(s->dev);
	if (sacc_dma_map(ctx, arena, 8 * KiB, SACC_DMA_TO_DEVICE,
			 "naive arena: 'a' + neighbour", &iova, &e))
		return inj_fail(s, "mapping the arena: %s", e.msg);
	inj_say(s,
		"naive allocation: 'a' (2 KiB) at arena+0, a neighbour's "
		"2 KiB secret at arena+0x800, one mapping 0x%" PRIx64,
		iova);
	d.src = iova;
	d.dst = sacc_buf_iova(b.dst);
	if (inj_submit(s, &d, "'a' and the 6 KiB after it", "'dst'") < 0 ||
	    inj_reap(s, 3000))
		return -1;
	inj_device_state(s, s->dev);
	s->blocked = s->desc[0].status == SACC_STS_DMA_FAULT;
	dst = sacc_buf_va(b.dst);
	s->exposed = s->desc[0].status == SACC_STS_OK &&
		     !memcmp(dst + 2 * KiB, arena + 2 * KiB, 2 * KiB);
	inj_say(s, "dst+0x800: %s",
		s->exposed ? "the neighbour's secret, byte for byte"
			   : "not the secret");
	if (!s->exposed)
		inj_why(s, "expected the exposure this row demonstrates");
	if (sacc_dma_unmap(ctx, iova, &e))
		return inj_fail(s, "unmapping the arena: %s", e.msg);
	snprintf(s->note, sizeof(s->note),
		 "expected exposure: the device read the neighbour's secret; "
		 "IOMMUs map pages");
	return 0;
}

int sc_subpage_libsacc(struct inj *s)
{
	struct sacc_buf *a, *nb;
	struct std b;

	if (std_setup(s, &b, true) ||
	    inj_buf(s, 2 * KiB, SACC_DMA_TO_DEVICE, "a", 10, true, &a) ||
	    inj_buf(s, 2 * KiB, SACC_DMA_TO_DEVICE, "neighbour (secret)", 11,
		    true, &nb))
		return -1;
	inj_say(s,
		"libsacc: 'a' (2 KiB) has page 0x%" PRIx64 " to itself, the "
		"neighbour is at 0x%" PRIx64 " behind a guard page",
		sacc_buf_iova(a), sacc_buf_iova(nb));
	if (one_bad_copy(s, sacc_buf_iova(a), "'a' and the 6 KiB after it",
			 sacc_buf_iova(b.dst), "'dst'", 8 * KiB,
			 sacc_buf_iova(a) + 4 * KiB, SACC_FAULT_SRC_READ))
		return -1;
	s->exposed = contains(sacc_buf_va(b.dst), 8 * KiB, sacc_buf_va(nb), 64);
	if (s->exposed)
		inj_why(s, "the neighbour's secret reached dst");
	snprintf(s->note, sizeof(s->note),
		 "same attack on page-granular buffers: the guard page after "
		 "'a' faults");
	return 0;
}

/* ---- a burst ---- */

#define BURST 1000u

int sc_burst(struct inj *s)
{
	struct sacc_desc d = {.opcode = SACC_OP_MEMCPY, .length = 64};
	const uint64_t base = INJ_NEVER_MAPPED + 0x200000;
	struct sacc_result r[256];
	uint32_t faulted = 0, other = 0, got = 0, first = 0, last = 0;
	uint64_t deadline;
	struct std b;

	if (std_setup(s, &b, true) || never_mapped(s, base) ||
	    never_mapped(s, base + (BURST - 1) * 4 * KiB))
		return -1;
	d.src = sacc_buf_iova(b.src);
	for (uint32_t i = 0; i < BURST; i++) {
		int id;

		d.dst = base + (uint64_t)i * 4 * KiB;
		id = sacc_submit_raw(s->dev, &d);
		if (id < 0)
			return inj_fail(s, "descriptor %u: %s", i,
					sacc_errmsg(s->dev));
		if (!i) {
			first = (uint32_t)id;
			s->desc[0].d = d;
			s->desc[0].d.req_id = first;
			snprintf(s->desc[0].src_what,
				 sizeof(s->desc[0].src_what), "'src'");
			snprintf(s->desc[0].dst_what,
				 sizeof(s->desc[0].dst_what),
				 "never mapped (1 of %u pages)", BURST);
			s->ndesc = 1;
		}
		last = (uint32_t)id;
	}
	inj_say(s,
		"%u descriptors: memcpy 64 bytes to %u unmapped pages from "
		"0x%" PRIx64 ", req_id %u..%u",
		BURST, BURST, base, first, last);
	deadline = now_ns() + 60000000000ull;
	while (got < BURST) {
		int n = sacc_poll(s->dev, r, 256);

		if (n < 0)
			return inj_fail(s, "sacc_poll: %s",
					sacc_errmsg(s->dev));
		for (int k = 0; k < n; k++) {
			if (r[k].status == SACC_STS_DMA_FAULT)
				faulted++;
			else
				other++;
		}
		got += (uint32_t)n;
		if (!n && now_ns() > deadline)
			return inj_fail(s, "%u of %u completions after 60 s",
					got, BURST);
		if (!n)
			usleep(500);
	}
	s->desc[0].status = SACC_STS_DMA_FAULT;
	inj_device_state(s, s->dev);
	s->blocked = faulted == BURST;
	if (!s->blocked)
		inj_why(s, "%u of %u descriptors faulted, %u did not", faulted,
			BURST, other);
	s->burst_lo = first;
	s->burst_hi = last;
	s->burst_n = BURST;
	snprintf(s->note, sizeof(s->note),
		 "%u faults at once: every one a record, logged or counted "
		 "with its reason",
		 BURST);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * watch_big.c - sacc-watch-big BDF ROUNDS [SEED]: doorbells that publish
 * many descriptors at once, for the tracer's integrity check (guest-watch
 * check runs it with sacc_watch.ko loaded; check-watch joins every
 * record with the device's sacc_desc_fetch trace).  An ABI 2 module cut
 * a record at max_descs (1024 by default) and lost the rest; a doorbell
 * may publish up to SQ_SIZE - 1.
 *
 Two channels of 65,536-entry SQs a round, one thread, a tail and a
 * token doorbell; the rounds take turns between two pairs, so that two
 * rounds have every doorbell kind and SQ placement the tracer reads:
 *
 *   even rounds  channel 0  SQ in host memory,   tail doorbell  (DR0)
 *                channel 1  SQ in device memory, token doorbell (DR1;
 *                           PUT word in device memory too)
 *   odd rounds   channel 2  SQ in device memory, tail doorbell  (DR2)
 *                channel 4  SQ in host memory,   token doorbell (DR1)
 *
 * (SEED picks the first round's pair and the operations.)  Each round,
 * on each of its channels in turn, one doorbell of each size: 1,
 * 1023, 1024, 1025, 4096 and SQ_SIZE - 1 = 65535 descriptors, written
 * with sacc_enqueue() and handed over with ONE sacc_doorbell(), then
 * reaped before the next (so the SQ is empty and the next doorbell can
 * take all but one slot).  The SQ tail moves on by each doorbell's
 * slots, so doorbells start anywhere in the ring and wrap.  The largest
 * is all NOPs and MEMCPYs (one slot each: 65535 fill the ring); the
 * others mix NOP, MEMCPY, FILL, TIMESTAMP and WRITE_INLINE (its payload
 * in the slots after it, which the tracer must skip, across the wrap
 * too).  Every operation must complete with status 0.
 *
 * Prints doorbells, descriptors and slots per channel.  Exit 0, or 1
 * with a message.
 */
#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libsacc.h"

#define NCH	 4
#define SQ	 65536u
#define DATA_LEN (64u * 1024) /* per channel: src half, dst half */
#define HALF	 (DATA_LEN / 2)

static const struct {
	unsigned int chan;
	enum sacc_doorbell doorbell;
	unsigned int flags;
} cfg[NCH] = {
    {0, SACC_DOORBELL_MMAP, SACC_OPEN_V3},
    {1, SACC_DOORBELL_PUT_TOKEN, SACC_OPEN_SQ_DEV},
    {2, SACC_DOORBELL_MMAP, SACC_OPEN_SQ_DEV},
    {4, SACC_DOORBELL_PUT_TOKEN, 0},
};

static const unsigned int sizes[] = {1, 1023, 1024, 1025, 4096, SQ - 1};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

struct chan {
	struct sacc_dev *h;
	struct sacc_buf *data;
	unsigned long doorbells, descs, slots;
};

static uint32_t rnd_state;
static struct sacc_op ops[SQ];
static struct sacc_result res[256];
static const char payload[SACC_INLINE_MAX];

static uint32_t rnd(void)
{
	uint32_t x = rnd_state;

	x ^= x << 13, x ^= x >> 17, x ^= x << 5;
	return rnd_state = x;
}

static uint32_t pick(uint32_t lo, uint32_t hi)
{
	return lo + rnd() % (hi - lo + 1);
}

/* Op @i of a doorbell: one slot each when @whole (the SQ is to be filled
 * to SQ_SIZE - 1), else a mix with inline writes; returns its slots. */
static uint32_t make_op(struct sacc_op *o, struct sacc_buf *data, int whole)
{
	uint32_t r = rnd() % 100;

	memset(o, 0, sizeof(*o));
	o->cookie = rnd();
	if (r < (whole ? 80u : 55u)) {
		o->opcode = SACC_OP_NOP;
	} else if (r < (whole ? 100u : 75u)) {
		o->opcode = SACC_OP_MEMCPY;
		o->len = pick(1, 32) * 8;
		o->src = data;
		o->src_off = pick(0, (HALF - 256) / 8) * 8;
		o->dst = data;
		o->dst_off = HALF + pick(0, (HALF - 256) / 8) * 8;
	} else if (r < 83) {
		o->opcode = SACC_OP_FILL;
		o->len = pick(1, 64);
		o->dst = data;
		o->dst_off = HALF + pick(0, (HALF - 64) / 8) * 8;
		o->pattern = (uint64_t)rnd() << 32 | rnd();
	} else if (r < 88) {
		o->opcode = SACC_OP_TIMESTAMP;
		o->len = 8;
		o->dst = data;
		o->dst_off = HALF + pick(0, (HALF - 8) / 8) * 8;
	} else {
		o->opcode = SACC_OP_WRITE_INLINE;
		o->len = pick(1, 100);
		o->data = payload;
		o->dst = data;
		o->dst_off = HALF + pick(0, HALF - 100);
		return 1 + (uint32_t)SACC_INLINE_SLOTS(o->len);
	}
	return 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One doorbell of @n operations on @c, reaped whole. */
static void ring(struct chan *c, unsigned int chan, unsigned int n)
{
	uint32_t slots = 0, got = 0, i;
	double limit = now_s() + 120;
	int k;

	for (i = 0; i < n; i++)
		slots += make_op(&ops[i], c->data, n == SQ - 1);
	k = sacc_enqueue(c->h, ops, n);
	if (k != (int)n)
		errx(1, "ch %u: enqueue of %u ops (%u slots) took %d: %s", chan,
		     n, slots, k, k < 0 ? sacc_errmsg(c->h) : "no room");
	if (sacc_doorbell(c->h) < 0)
		errx(1, "ch %u: doorbell: %s", chan, sacc_errmsg(c->h));
	while (got < n) {
		k = sacc_poll(c->h, res, sizeof(res) / sizeof(res[0]));
		if (k < 0)
			errx(1, "ch %u: poll: %s", chan, sacc_errmsg(c->h));
		for (i = 0; i < (uint32_t)k; i++)
			if (res[i].status != SACC_STS_OK)
				errx(1, "ch %u: op %u (opcode %u) status %u",
				     chan, got + i, res[i].opcode,
				     res[i].status);
		got += (uint32_t)k;
		if (!k && now_s() > limit)
			errx(1, "ch %u: %u of %u ops did not complete in 120 s",
			     chan, n - got, n);
	}
	c->doorbells++;
	c->descs += n;
	c->slots += slots;
}

static void open_all(const char *bdf, struct chan *ch)
{
	for (unsigned int k = 0; k < NCH; k++) {
		struct sacc_open_opts o = {.sq_entries = SQ,
					   .doorbell = cfg[k].doorbell,
					   .flags = cfg[k].flags};
		struct chan *c = &ch[k];

		if (cfg[k].chan == 0) {
			if (sacc_open(bdf, &o, &c->h) < 0)
				errx(1, "sacc_open %s: %s", bdf,
				     sacc_errmsg(NULL));
		} else if (sacc_chan_open(ch[0].h, cfg[k].chan, &o, &c->h) <
			   0) {
			errx(1, "channel %u: %s", cfg[k].chan,
			     sacc_errmsg(ch[0].h));
		}
		if (sacc_buf_alloc(c->h, DATA_LEN, SACC_DMA_BIDIRECTIONAL,
				   "big-data", &c->data) < 0)
			errx(1, "channel %u: buffer: %s", cfg[k].chan,
			     sacc_errmsg(c->h));
	}
}

int main(int argc, char **argv)
{
	struct chan ch[NCH] = {0};
	unsigned long rounds, r, seed = 0;
	unsigned int k, s;

	if (argc < 3 || argc > 4 || !(rounds = strtoul(argv[2], NULL, 0)))
		errx(2, "usage: sacc-watch-big BDF ROUNDS [SEED]");
	if (argc == 4)
		seed = strtoul(argv[3], NULL, 0);
	rnd_state = (uint32_t)seed * 2654435761u | 1;
	open_all(argv[1], ch);
	for (r = 0; r < rounds; r++)
		for (k = (seed + r) % 2 * 2; k < (seed + r) % 2 * 2 + 2; k++)
			for (s = 0; s < NSIZES; s++)
				ring(&ch[k], cfg[k].chan, sizes[s]);
	printf("doorbells");
	for (k = 0; k < NCH; k++)
		if (ch[k].doorbells)
			printf(" ch%u-%s %lu (%lu descriptors, %lu slots)",
			       cfg[k].chan,
			       cfg[k].doorbell == SACC_DOORBELL_PUT_TOKEN
				   ? "token"
				   : "tail",
			       ch[k].doorbells, ch[k].descs, ch[k].slots);
	printf("\n");
	for (k = NCH; k-- > 0;)
		sacc_buf_free(ch[k].data);
	sacc_close(ch[0].h);
	return 0;
}

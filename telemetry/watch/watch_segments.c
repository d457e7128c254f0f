// SPDX-License-Identifier: MIT
/*
 * watch_segments.c - sacc-watch-segments BDF N [SEED]: launches N
 * pushbuffer segments (v0.4, docs/spec.md section 21) with raw SEGMENT
 * entries (sacc_submit_raw(): one entry, one doorbell), for the
 * tracer's integrity check (guest-watch check runs it with
 * sacc_watch.ko loaded; check-watch joins the tracer's segment records
 * command by command with the device's sacc_segment_cmd trace).
 *
 * Four channels, one thread, every doorbell kind and SQ placement the
 * tracer reads:
 *
 *   channel 0  SQ in host memory,   tail doorbell  (DR0)
 *   channel 1  SQ in device memory, token doorbell (DR1; PUT word in
 *              device memory too)
 *   channel 2  SQ in device memory, tail doorbell  (DR2)
 *   channel 4  SQ in host memory,   token doorbell (DR1)
 *
 * Each round writes one segment per channel, half of them in host
 * memory (an IOVA) and half in device memory (SRC_DEV), launches all
 * four, then reaps them; a quarter of the launches run the channel's
 * last segment again, unchanged.  Sizes vary from one slot to the
 * whole 64 KiB (2048 slots): mostly short, some long.  Commands: NOP,
 * MEMCPY and XFORM of 8-256 bytes in all four directions, WRITE_INLINE
 * of 1-100 bytes (payload in the segment), FILL, TIMESTAMP, to host
 * and device memory, some with the (ignored) IRQ flag; every one must
 * succeed: status 0 and result_len = the commands run.  A segment is
 * written only after its last launch completed (the spec's rule).
 *
 * Prints launches, commands and slots.  Exit 0, or 1 with a message.
 */
#include <err.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libsacc.h"
#include "libsacc_unsafe.h"

#define NCH 4
#define DATA_LEN                                                               \
	(64u * 1024) /* per channel, host and device: src half, dst half */
#define HALF  (DATA_LEN / 2)
#define SLOTS (SACC_SEGMENT_MAX / 32)

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

struct chan {
	struct sacc_dev *h;
	struct sacc_buf *seg[2]; /* [0] host, [1] device memory */
	uint32_t nslots[2], ncmd[2];
	struct sacc_buf *data[2]; /* [0] host, [1] device memory */
	int last;		  /* the segment launched last, -1 none */
	uint32_t want;		  /* commands the launch in flight runs */
};

static uint32_t rnd_state;

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

/* The address of @off in the channel's data memory @dev. */
static uint64_t data_addr(const struct chan *c, int dev, uint32_t off)
{
	return (dev ? sacc_buf_devaddr(c->data[1])
		    : sacc_buf_iova(c->data[0])) +
	       off;
}

/*
 * Fill @seg with commands, @slots slots in all (payload slots included);
 * the command req_ids are @tag << 11 | their index.  Returns the
 * number of commands.
 */
static uint32_t build(const struct chan *c, struct sacc_desc *seg,
		      uint32_t slots, uint32_t tag)
{
	uint32_t at = 0, n = 0;

	while (at < slots) {
		struct sacc_desc *d = &seg[at++];
		uint32_t r = rnd() % 100, len;
		int sdev = rnd() & 1, ddev = rnd() & 1;

		memset(d, 0, sizeof(*d));
		d->req_id = tag << 11 | n;
		d->flags = rnd() % 8 == 0 ? SACC_DESC_F_IRQ : 0; /* ignored */
		if (r < 35) {
			d->opcode = SACC_OP_NOP;
		} else if (r < 55) {
			d->opcode = rnd() % 4 ? SACC_OP_MEMCPY : SACC_OP_XFORM;
			len = pick(1, 32) * 8;
			d->length = len;
			d->src =
			    data_addr(c, sdev, pick(0, (HALF - 256) / 8) * 8);
			d->dst = data_addr(
			    c, ddev, HALF + pick(0, (HALF - 256) / 8) * 8);
			d->flags |= (sdev ? SACC_DESC_F_SRC_DEV : 0) |
				    (ddev ? SACC_DESC_F_DST_DEV : 0);
		} else if (r < 72) {
			uint32_t need;

			len = pick(1, 100);
			need = (uint32_t)SACC_INLINE_SLOTS(len);
			if (need > slots - at) { /* no room: a NOP instead */
				d->opcode = SACC_OP_NOP;
				n++;
				continue;
			}
			d->opcode = SACC_OP_WRITE_INLINE;
			d->length = len;
			d->dst = data_addr(
			    c, ddev, HALF + pick(0, (HALF - 128) / 8) * 8);
			d->flags |= ddev ? SACC_DESC_F_DST_DEV : 0;
			for (uint32_t k = 0; k < need; k++, at++)
				for (uint32_t b = 0; b < 32; b++)
					((uint8_t *)&seg[at])[b] =
					    (uint8_t)rnd();
		} else if (r < 88) {
			d->opcode = SACC_OP_FILL;
			d->length = pick(1, 256);
			d->src =
			    (uint64_t)rnd() << 32 | rnd(); /* the pattern */
			d->dst = data_addr(
			    c, ddev, HALF + pick(0, (HALF - 256) / 8) * 8);
			d->flags |= ddev ? SACC_DESC_F_DST_DEV : 0;
		} else {
			d->opcode = SACC_OP_TIMESTAMP;
			d->dst = data_addr(c, ddev,
					   HALF + pick(0, (HALF - 8) / 8) * 8);
			d->flags |= ddev ? SACC_DESC_F_DST_DEV : 0;
		}
		n++;
	}
	return n;
}

/* Mostly short segments, some long, a few whole. */
static uint32_t size_of_next(void)
{
	uint32_t r = rnd() % 100;

	if (r < 50)
		return pick(1, 16);
	if (r < 80)
		return pick(17, 256);
	if (r < 95)
		return pick(257, 1024);
	return pick(1025, SLOTS);
}

static void open_all(const char *bdf, struct chan *ch)
{
	for (int k = 0; k < NCH; k++) {
		struct sacc_open_opts o = {.doorbell = cfg[k].doorbell,
					   .flags = cfg[k].flags};
		struct chan *c = &ch[k];

		if (k == 0) {
			if (sacc_open(bdf, &o, &c->h) < 0)
				errx(1, "sacc_open %s: %s", bdf,
				     sacc_errmsg(NULL));
			if (sacc_dev_channels(c->h) <= cfg[NCH - 1].chan)
				errx(1, "%s has %u channels, this needs %u",
				     bdf, sacc_dev_channels(c->h),
				     cfg[NCH - 1].chan + 1);
		} else if (sacc_chan_open(ch[0].h, cfg[k].chan, &o, &c->h) <
			   0) {
			errx(1, "channel %u: %s", cfg[k].chan,
			     sacc_errmsg(ch[0].h));
		}
		if (sacc_buf_alloc(c->h, SACC_SEGMENT_MAX, SACC_DMA_TO_DEVICE,
				   "segment", &c->seg[0]) < 0 ||
		    sacc_devmem_alloc(c->h, SACC_SEGMENT_MAX, "dev-segment",
				      &c->seg[1]) < 0 ||
		    sacc_buf_alloc(c->h, DATA_LEN, SACC_DMA_BIDIRECTIONAL,
				   "data", &c->data[0]) < 0 ||
		    sacc_devmem_alloc(c->h, DATA_LEN, "dev-data", &c->data[1]) <
			0)
			errx(1, "channel %u: buffers: %s", cfg[k].chan,
			     sacc_errmsg(c->h));
		c->last = -1;
	}
}

int main(int argc, char **argv)
{
	static struct sacc_desc seg[SLOTS];
	unsigned long n, i, launched = 0, cmds = 0, slots = 0, where[2] = {0},
			    again = 0;
	struct chan ch[NCH];

	if (argc < 3 || argc > 4 || !(n = strtoul(argv[2], NULL, 0)))
		errx(2, "usage: sacc-watch-segments BDF N [SEED]");
	rnd_state =
	    argc == 4 ? (uint32_t)strtoul(argv[3], NULL, 0) : 0x5eb3e47u;
	if (!rnd_state)
		rnd_state = 1;
	memset(ch, 0, sizeof(ch));
	open_all(argv[1], ch);
	for (i = 0; launched < n; i++) {
		for (int k = 0; k < NCH && launched < n; k++) {
			struct chan *c = &ch[k];
			bool same = c->last >= 0 && rnd() % 4 == 0;
			int w = same ? c->last : (int)(rnd() & 1);
			struct sacc_desc e = {.opcode = SACC_OP_SEGMENT};
			int ret;

			if (same) {
				again++;
			} else {
				c->nslots[w] = size_of_next();
				c->ncmd[w] =
				    build(c, seg, c->nslots[w],
					  (uint32_t)(launched & 0x1fffff));
				memcpy(sacc_buf_va(c->seg[w]), seg,
				       c->nslots[w] * sizeof(seg[0]));
			}
			e.length = c->nslots[w] * 32;
			e.src = w ? sacc_buf_devaddr(c->seg[1])
				  : sacc_buf_iova(c->seg[0]);
			e.flags = w ? SACC_DESC_F_SRC_DEV : 0;
			ret = sacc_submit_raw(c->h, &e);
			if (ret < 0)
				errx(1, "ch %u: submit: %s", cfg[k].chan,
				     sacc_errmsg(c->h));
			c->last = w;
			c->want = c->ncmd[w];
			launched++;
			cmds += c->ncmd[w];
			slots += c->nslots[w];
			where[w]++;
		}
		for (int k = 0; k < NCH; k++) {
			struct chan *c = &ch[k];
			struct sacc_result r;
			long spin;
			int got = 0;

			if (!c->want)
				continue;
			for (spin = 0; !got && spin < 100000000; spin++) {
				got = sacc_poll(c->h, &r, 1);
				if (got < 0)
					errx(1, "ch %u: poll: %s", cfg[k].chan,
					     sacc_errmsg(c->h));
			}
			if (!got)
				errx(1, "ch %u: the segment did not complete",
				     cfg[k].chan);
			if (r.status != SACC_STS_OK || r.result_len != c->want)
				errx(1,
				     "ch %u: segment status %u result_len %u, "
				     "want 0 and %u commands",
				     cfg[k].chan, r.status, r.result_len,
				     c->want);
			c->want = 0;
		}
	}
	printf("segments %lu (host %lu, device memory %lu; %lu launched "
	       "again unchanged) commands %lu slots %lu\n",
	       launched, where[0], where[1], again, cmds, slots);
	sacc_close(ch[0].h);
	return 0;
}

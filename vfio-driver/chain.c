// SPDX-License-Identifier: MIT
/*
 * chain.c - chains: operations checked and turned into descriptors once
 * (sacc_chain_create), then launched as often as wanted with one copy
 * into the SQ and one doorbell (sacc_chain_launch).  Their buffers stay
 * pinned while the chain lives.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sacc_mmio.h"
#include "sacc_track.h"

struct sacc_chain {
	struct sacc_dev *dev;
	struct sacc_op *ops;	/* n, for the tracking records */
	uint32_t *head;		/* n: op i's descriptor index in desc[] */
	struct sacc_desc *desc; /* slots: descriptors and inline payloads */
	unsigned int n;
	uint32_t slots;
};

static void chain_unpin(struct sacc_chain *c, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct sacc_op *op = &c->ops[i];

		if (op->opcode == SACC_OP_NOP)
			continue;
		if (op->src && op->src->inflight)
			op->src->inflight--;
		if (op->dst && op->dst->inflight)
			op->dst->inflight--;
	}
}

int sacc_chain_create(struct sacc_dev *dev, const struct sacc_op *ops,
		      unsigned int n, struct sacc_chain **out)
{
	struct sacc_chain *c;
	uint32_t slots = 0, j = 0;
	unsigned int i;
	int ret;

	if (out)
		*out = NULL;
	ret = sacc_queue_ready(dev, "sacc_chain_create");
	if (ret)
		return ret;
	if (!out || !ops || !n)
		return sacc_seterr(
		    dev, EINVAL, "sacc_chain_create: needs ops, n > 0 and out");
	for (i = 0; i < n; i++) {
		ret = sacc_check_op(dev, &ops[i], i);
		if (ret)
			return ret;
		slots += ops[i].opcode == SACC_OP_WRITE_INLINE
			     ? 1 + (uint32_t)SACC_INLINE_SLOTS(ops[i].len)
			     : 1;
		if (slots > dev->sq_entries - 1)
			return sacc_seterr(
			    dev, EINVAL,
			    "sacc_chain_create: %u ops take "
			    "more than the %u SQ slots one launch "
			    "may use; open with a larger "
			    "sq_entries or split the chain",
			    i + 1, dev->sq_entries - 1);
	}
	c = calloc(1, sizeof(*c));
	if (c) {
		c->ops = calloc(n, sizeof(*c->ops));
		c->head = calloc(n, sizeof(*c->head));
		c->desc = calloc(slots, sizeof(*c->desc));
	}
	if (!c || !c->ops || !c->head || !c->desc) {
		if (c) {
			free(c->ops);
			free(c->head);
			free(c->desc);
		}
		free(c);
		return sacc_seterr(dev, ENOMEM, "sacc_chain_create: no memory");
	}
	c->dev = dev;
	c->n = n;
	c->slots = slots;
	for (i = 0; i < n; i++) {
		const struct sacc_op *op = &ops[i];
		struct sacc_desc *d = &c->desc[j];

		c->ops[i] = *op;
		c->ops[i].data = NULL; /* copied into the payload slots */
		c->head[i] = j++;
		sacc_op_desc(op, d);
		if (op->opcode == SACC_OP_NOP) {
			c->ops[i].src = c->ops[i].dst = NULL;
			continue;
		}
		if (op->opcode == SACC_OP_WRITE_INLINE) {
			memcpy(&c->desc[j], op->data, op->len);
			j += (uint32_t)SACC_INLINE_SLOTS(op->len);
		}
		/* Pinned: sacc_buf_free() says -EBUSY until the chain goes. */
		if (op->src)
			op->src->inflight++;
		op->dst->inflight++;
	}
	*out = c;
	return 0;
}

int sacc_chain_launch(struct sacc_chain *c)
{
	struct sacc_dev *dev = c ? c->dev : NULL;
	unsigned int i;
	uint32_t slot0;
	int ret;

	ret = sacc_queue_ready(dev, "sacc_chain_launch");
	if (ret)
		return ret;
	if (sacc_sq_space(&dev->sq) < c->slots)
		return 0;
	slot0 = dev->sq.tail;
	for (i = 0; i < c->n; i++)
		c->desc[c->head[i]].req_id = sacc_next_req_id(dev);
	sacc_sq_push_batch(&dev->sq, c->desc, c->slots); /* room checked */
	for (i = 0; i < c->n; i++) {
		const struct sacc_op *op = &c->ops[i];
		uint32_t at = sacc_ring_add(slot0, c->head[i], dev->sq.size);
		uint32_t end = i + 1 < c->n ? c->head[i + 1] : c->slots;
		struct sacc_track *t = &dev->track[at];

		for (uint32_t k = c->head[i] + 1; k < end; k++)
			memset(
			    &dev->track[sacc_ring_add(slot0, k, dev->sq.size)],
			    0, sizeof(*t));
		sacc_track_op(t, &c->desc[c->head[i]], end - c->head[i], op);
	}
	dev->stats.submitted += c->n;
	ret = sacc_publish_ring(dev, slot0, c->n, NULL);
	return ret ? ret : (int)c->n;
}

unsigned int sacc_chain_ops(const struct sacc_chain *c)
{
	return c ? c->n : 0;
}

size_t sacc_chain_bytes(const struct sacc_chain *c)
{
	return c ? (size_t)c->slots * sizeof(struct sacc_desc) : 0;
}

void sacc_chain_free(struct sacc_chain *c)
{
	if (!c)
		return;
	chain_unpin(c, c->n);
	free(c->ops);
	free(c->head);
	free(c->desc);
	free(c);
}

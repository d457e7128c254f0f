// SPDX-License-Identifier: MIT
/*
 * scenarios_devmem.c - saccctl inject's attacks on v0.4 device memory
 * (docs/spec.md section 18): a copy into and out of a device address
 * range that runs past the end of device memory, a copy from device
 * memory into an IOVA nobody mapped, and random bytes written through
 * BAR4 into an SQ that lives in device memory.
 *
 * Device addresses never reach the IOMMU: the device checks their range
 * itself, refuses a range past DEVMEM_SIZE whole (no byte moves on
 * either side) with accesses of their own, dev_read (6) and dev_write
 * (7 | write), and the kernel has no DMAR line for them.  So their
 * records must be attributed device_memory and counted as unlogged for
 * that reason, never joined to a DMAR line (inj_expect_kind()); the host
 * side of a device-to-host copy is still the IOMMU's, DMAR line and all.
 * A device without device memory (before v0.4, DEVMEM_SIZE 0) skips
 * these rows.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "scenarios.h"

/* The row is skipped, for the reason given; returns -1. */
int sc_skip(struct inj *s, const char *fmt, ...)
{
	va_list ap;

	s->skipped = true;
	va_start(ap, fmt);
	vsnprintf(s->skip_reason, sizeof(s->skip_reason), fmt, ap);
	va_end(ap);
	inj_say(s, "skipped: %s", s->skip_reason);
	return -1;
}

/* Open bdf[0] with the scenario's flags into s->dev; *size: DEVMEM_SIZE.
 * A device without device memory skips the row. */
int devmem_open(struct inj *s, uint64_t *size)
{
	struct sacc_open_opts o = {.sq_entries = s->sc->sq_entries,
				   .flags = s->sc->open_flags};
	struct sacc_devmem_info in = {0};
	int ret = sacc_open(s->bdf[0], &o, &s->dev);

	if (ret == -ENOTSUP && (o.flags & SACC_OPEN_SQ_DEV))
		return sc_skip(s, "%s", sacc_errmsg(NULL));
	if (ret)
		return inj_fail(s, "%s", sacc_errmsg(NULL));
	if (sacc_devmem_info(s->dev, &in) || !in.mapped)
		return sc_skip(s, "no device memory (needs a v0.4 device): %s",
			       in.why ? in.why : sacc_errmsg(s->dev));
	*size = in.size;
	inj_say(s,
		"device memory: %" PRIu64 " bytes (BAR4), %" PRIu64
		" in use by libsacc",
		in.size, in.used);
	return 0;
}

/* A device buffer of @len bytes, patterned from @seed through BAR4. */
struct sacc_buf *dev_buf(struct inj *s, size_t len, const char *name,
			 uint64_t seed)
{
	struct sacc_buf *b;

	if (sacc_devmem_alloc(s->dev, len, name, &b)) {
		inj_fail(s, "%s", sacc_errmsg(s->dev));
		return NULL;
	}
	fill_pattern(sacc_buf_va(b), len, seed);
	inj_say(s,
		"device buffer '%s': device address 0x%" PRIx64 ", %zu bytes",
		name, sacc_buf_devaddr(b), len);
	return b;
}

/* The last page of device memory as a buffer of its own, patterned: a
 * filler takes everything before it (libsacc allocates first fit). */
struct sacc_buf *last_page(struct inj *s, uint64_t size)
{
	struct sacc_buf *filler, *edge;

	if (size > 4 * KiB &&
	    sacc_devmem_alloc(s->dev, size - 4 * KiB, "filler", &filler)) {
		inj_fail(s, "%s", sacc_errmsg(s->dev));
		return NULL;
	}
	edge = dev_buf(s, 4 * KiB, "last page", 11);
	if (edge && sacc_buf_devaddr(edge) != size - 4 * KiB) {
		inj_fail(s,
			 "'last page' is at device address 0x%" PRIx64
			 ", not 0x%" PRIx64 " (device memory in use?)",
			 sacc_buf_devaddr(edge), size - 4 * KiB);
		return NULL;
	}
	return edge;
}

/* A device memory access (dev_read, dev_write) or the IOMMU's. */
static enum inj_fault_kind kind_of(uint32_t info)
{
	uint32_t a = info & SACC_FAULT_ACCESS_MASK;

	return a == SACC_FAULT_DEV_READ || a == SACC_FAULT_DEV_WRITE
		   ? INJ_FAULT_DEVMEM
		   : INJ_FAULT_IOMMU;
}

/*
 * Does channel 0's fault record say @info at @addr for @req_id, as its
 * @n-th fault since the open, and is the channel still ready (a
 * per-descriptor fault is not fatal)?  If not, the row says what the
 * device says.
 */
bool record_is(struct inj *s, uint32_t req_id, uint64_t addr, uint32_t info,
	       uint32_t n)
{
	uint32_t lo = 0, hi = 0, fi = 0, req = 0, cnt = 0, st = 0;
	uint64_t a;

	sacc_reg_read(s->dev, SACC_REG_STATUS, &st);
	sacc_reg_read(s->dev, SACC_REG_FAULT_ADDR, &lo);
	sacc_reg_read(s->dev, SACC_REG_FAULT_ADDR + 4, &hi);
	sacc_reg_read(s->dev, SACC_REG_FAULT_INFO, &fi);
	sacc_reg_read(s->dev, SACC_REG_FAULT_REQ_ID, &req);
	sacc_reg_read(s->dev, SACC_REG_FAULT_COUNT, &cnt);
	a = (uint64_t)hi << 32 | lo;
	if (a == addr && fi == info && req == req_id && cnt == n &&
	    (st & SACC_STATUS_READY) && !(st & SACC_STATUS_ERROR))
		return true;
	inj_why(s,
		"req_id %" PRIu32 ": the spec says FAULT_ADDR 0x%" PRIx64
		", FAULT_INFO 0x%x (%s), fault %" PRIu32
		", channel ready; the device says FAULT_ADDR 0x%" PRIx64
		", FAULT_INFO 0x%x (%s), FAULT_REQ_ID %" PRIu32
		", FAULT_COUNT %" PRIu32 ", STATUS 0x%x",
		req_id, addr, info, inj_access_name(info), n, a, fi,
		inj_access_name(fi), req, cnt, st);
	return false;
}

/*
 * One 4 KiB MEMCPY with descriptor @flags (SRC_DEV, DST_DEV) that must
 * complete with status 2 and leave the fault record @info at @fault, the
 * @nth fault; the fault log must have it, of its kind.  True if the
 * device blocked it so.
 */
static bool bad_copy(struct inj *s, uint16_t flags, uint64_t src,
		     const char *src_what, uint64_t dst, const char *dst_what,
		     uint64_t fault, uint32_t info, uint32_t nth)
{
	struct sacc_desc d = {.src = src,
			      .dst = dst,
			      .length = 4 * KiB,
			      .opcode = SACC_OP_MEMCPY,
			      .flags = flags};
	int id = inj_submit(s, &d, src_what, dst_what), status;
	bool ok;

	if (id < 0 || inj_reap(s, 3000))
		return false;
	status = s->desc[s->ndesc - 1].status;
	ok = status == SACC_STS_DMA_FAULT;
	if (!ok)
		inj_why(s, "req_id %d: completion status %d, not 2 (DMA fault)",
			id, status);
	ok &= record_is(s, (uint32_t)id, fault, info, nth);
	inj_expect_kind(s, (uint32_t)id, fault, info & SACC_FAULT_ACCESS_MASK,
			false, kind_of(info));
	return ok;
}

int sc_devmem_past_end(struct inj *s)
{
	struct sacc_buf *edge;
	uint64_t size, at;
	char what[96];
	struct std b;
	uint8_t *ev;

	if (devmem_open(s, &size) || std_bufs(s, &b, true))
		return -1;
	edge = last_page(s, size);
	if (!edge)
		return -1;
	/* [at, at + 4 KiB) straddles the end: its first half is device
	 * memory, the upper half of 'last page' */
	at = size - 2 * KiB;
	ev = sacc_buf_va(edge);
	if (inj_canary(s, "device memory below the range", ev, 2 * KiB) ||
	    inj_canary(s, "device memory in the range (its first 2 KiB)",
		       ev + 2 * KiB, 2 * KiB))
		return -1;
	snprintf(what, sizeof(what), "device 0x%" PRIx64 ", 2 KiB to the end",
		 at);
	snprintf(s->note, sizeof(s->note),
		 "4 KiB at device address 0x%" PRIx64 ", 2 KiB before the "
		 "end: refused whole both ways (dev_write, dev_read)",
		 at);
	/* host to device: not even the 2 KiB that exist are written */
	s->blocked =
	    bad_copy(s, SACC_DESC_F_DST_DEV, sacc_buf_iova(b.src), "'src'", at,
		     what, at, SACC_FAULT_DEV_WRITE | SACC_FAULT_IS_WRITE, 1);
	if (s->error)
		return -1;
	/* device to host: nothing of the 2 KiB that exist reaches 'dst' */
	s->blocked &=
	    bad_copy(s, SACC_DESC_F_SRC_DEV, at, what, sacc_buf_iova(b.dst),
		     "'dst'", at, SACC_FAULT_DEV_READ, 2);
	inj_device_state(s, s->dev);
	return s->error ? -1 : 0;
}

int sc_d2h_unmapped(struct inj *s)
{
	struct sacc_buf *ds;
	uint64_t size;
	char what[96];
	struct std b;

	if (devmem_open(s, &size) || std_bufs(s, &b, true) ||
	    never_mapped(s, INJ_NEVER_MAPPED))
		return -1;
	ds = dev_buf(s, 4 * KiB, "ds", 12);
	if (!ds || inj_canary(s, "ds (device memory, the source)",
			      sacc_buf_va(ds), 4 * KiB))
		return -1;
	snprintf(what, sizeof(what), "'ds', device address 0x%" PRIx64,
		 sacc_buf_devaddr(ds));
	snprintf(s->note, sizeof(s->note),
		 "device memory to IOVA 0x%llx, mapped by nobody: the host "
		 "side is the IOMMU's, a write fault, nothing written",
		 INJ_NEVER_MAPPED);
	s->blocked =
	    bad_copy(s, SACC_DESC_F_SRC_DEV, sacc_buf_devaddr(ds), what,
		     INJ_NEVER_MAPPED, "never mapped", INJ_NEVER_MAPPED,
		     SACC_FAULT_DST_WRITE | SACC_FAULT_IS_WRITE, 1);
	inj_device_state(s, s->dev);
	return s->error ? -1 : 0;
}

/* ---- sq-dev-garbage ---- */

#define G_SEED	0x5acc0004ull
#define G_SLOTS 20u
#define HIGH	(1ull << 63) /* past device memory, past any IOMMU */

/* How a random descriptor is made one of the known-bad kinds. */
enum recipe {
	R_UNKNOWN,	/* an opcode the device does not have: status 1 */
	R_BADLEN,	/* MEMCPY/XFORM/FILL of more than 1 MiB: 3 */
	R_ZEROLEN,	/* XFORM of 0 bytes: 3 */
	R_DEV_SRC,	/* a device source past the end: 2, dev_read */
	R_DEV_DST,	/* FILL into device memory past the end: dev_write */
	R_DEV_DST_COPY, /* host src, device dst past the end: dev_write, and
			 * the host side is never touched */
	R_TS_DEV,	/* TIMESTAMP past the end: dev_write */
	R_INLINE_DEV,	/* WRITE_INLINE, 1..96 bytes of random payload in the
			 * slots after it, past the end: dev_write */
	R_HOST_SRC,	/* MEMCPY from a host address above 2^63: IOMMU */
	R_HOST_DST,	/* FILL to a host address above 2^63: IOMMU */
	R_NOP,		/* harmless: status 0 */
	R_INLINE_BAD,	/* WRITE_INLINE of 64 KiB or more: 3, and it skips
			 * min(P, A) slots: the one after it */
	R_TRAIL,	/* random: R_INLINE_BAD's last slot */
};

static const enum recipe recipes[] = {
    R_UNKNOWN,	  R_BADLEN,  R_DEV_SRC,	   R_DEV_DST, R_HOST_SRC,
    R_INLINE_DEV, R_TS_DEV,  R_NOP,	   R_UNKNOWN, R_DEV_DST_COPY,
    R_HOST_DST,	  R_ZEROLEN, R_INLINE_BAD, R_TRAIL,
};

static uint32_t len_ok(uint32_t r)
{
	return 1 + r % SACC_MAX_XFER;
}

/*
 * Force the fields of random descriptor @d that make it recipe @r and
 * leave the rest random: the IRQ bit, the reserved flag bits (the model
 * ignores them; the spec says only "write 0"), the fields its opcode
 * ignores, the reserved word.  Where the spec does not say which of two
 * refusals comes first (a bad length and a device range out of it) the
 * recipe clears the device flags, so the outcome is the spec's alone.
 * Returns the payload slots it takes after it (random bytes).
 */
static uint32_t force(struct sacc_desc *d, enum recipe r)
{
	const uint16_t dev = SACC_DESC_F_SRC_DEV | SACC_DESC_F_DST_DEV;
	static const uint16_t data_ops[3] = {SACC_OP_MEMCPY, SACC_OP_XFORM,
					     SACC_OP_FILL};

	switch (r) {
	case R_UNKNOWN:
		d->opcode = (uint16_t)(SACC_OP_FILL + 1 +
				       d->opcode % (0xffffu - SACC_OP_FILL));
		break;
	case R_BADLEN:
		d->opcode = data_ops[d->opcode % 3];
		d->length |= 0x80000000u;
		d->flags &= (uint16_t)~dev;
		break;
	case R_ZEROLEN:
		d->opcode = SACC_OP_XFORM;
		d->length = 0;
		d->flags &= (uint16_t)~dev;
		break;
	case R_DEV_SRC:
		d->opcode = d->opcode & 1 ? SACC_OP_XFORM : SACC_OP_MEMCPY;
		d->flags |= SACC_DESC_F_SRC_DEV;
		d->src |= HIGH;
		d->length = len_ok(d->length);
		break;
	case R_DEV_DST:
	case R_DEV_DST_COPY:
		d->opcode = r == R_DEV_DST ? SACC_OP_FILL : SACC_OP_MEMCPY;
		d->flags = (uint16_t)((d->flags & ~SACC_DESC_F_SRC_DEV) |
				      SACC_DESC_F_DST_DEV);
		d->dst |= HIGH;
		d->length = len_ok(d->length);
		break;
	case R_TS_DEV:
		d->opcode = SACC_OP_TIMESTAMP;
		d->flags |= SACC_DESC_F_DST_DEV;
		d->dst |= HIGH;
		break;
	case R_INLINE_DEV:
		d->opcode = SACC_OP_WRITE_INLINE;
		d->flags |= SACC_DESC_F_DST_DEV;
		d->dst |= HIGH;
		d->length = 1 + d->length % 96;
		return (uint32_t)SACC_INLINE_SLOTS(d->length);
	case R_HOST_SRC:
	case R_HOST_DST:
		d->opcode = r == R_HOST_SRC ? SACC_OP_MEMCPY : SACC_OP_FILL;
		d->flags &= (uint16_t)~dev;
		if (r == R_HOST_SRC)
			d->src |= HIGH;
		else
			d->dst |= HIGH;
		d->length = len_ok(d->length);
		break;
	case R_NOP:
		d->opcode = SACC_OP_NOP;
		break;
	case R_INLINE_BAD:
		d->opcode = SACC_OP_WRITE_INLINE;
		d->flags &= (uint16_t)~dev;
		d->length |= 0x10000u;
		break;
	case R_TRAIL:
		break;
	}
	return 0;
}

/* The garbage: random bytes from G_SEED, each command forced into its
 * recipe.  Returns the slots it fills (at most @max). */
static uint32_t make_garbage(struct sacc_desc *g, uint32_t max)
{
	uint32_t n = 0;

	fill_pattern(g, max * sizeof(*g), G_SEED);
	for (size_t i = 0; i < sizeof(recipes) / sizeof(recipes[0]); i++)
		if (n < max)
			n += 1 + force(&g[n], recipes[i]);
	return n < max ? n : max;
}

/* What the spec says the device does with one command. */
struct gexp {
	uint32_t slots; /* it takes: 1, or 1 + inline payload slots */
	int status;	/* SACC_STS_* */
	uint64_t addr;	/* status 2: FAULT_ADDR */
	uint32_t info;	/* status 2: FAULT_INFO */
	enum inj_fault_kind kind;
	char src[96], dst[96]; /* what its src and dst are */
};

static int fault(struct gexp *e, uint64_t addr, uint32_t info,
		 enum inj_fault_kind kind)
{
	e->status = SACC_STS_DMA_FAULT;
	e->addr = addr;
	e->info = info;
	e->kind = kind;
	return 0;
}

/* Is device range [a, a + len) inside @size bytes (no wrapping)? */
static bool dev_in(uint64_t a, uint64_t len, uint64_t size, char *what)
{
	bool in = len <= size && a <= size - len;

	snprintf(what, 96, "device 0x%" PRIx64 "%s", a,
		 in ? "" : ", past the end");
	return in;
}

/* Does host range [a, a + len) run past 2^64 (a fault at a, no DMA)? */
static bool wraps(uint64_t a, uint64_t len, char *what)
{
	if (len - 1 <= UINT64_MAX - a)
		return false;
	snprintf(what, 96, "host 0x%" PRIx64 ", wraps past 2^64", a);
	return true;
}

/* Would the IOMMU refuse the first page of host range @a for @write (a
 * fault at @a)?  If it is mapped so, the garbage names live memory. */
static bool refused(struct inj *s, uint64_t a, bool write, char *what)
{
	struct sacc_iova_lookup lk;
	uint32_t need = write ? 2u : 1u; /* VFIO_DMA_MAP_FLAG_WRITE, _READ */

	sacc_dma_lookup(sacc_dev_dma(s->dev), a, 0, &lk);
	snprintf(what, 96, "host 0x%" PRIx64 ", %s", a,
		 lk.kind == SACC_IOVA_MAPPED ? lk.buf.name
					     : sacc_iova_kind_name(lk.kind));
	return lk.kind != SACC_IOVA_MAPPED || !(lk.buf.perm & need);
}

/* WRITE_INLINE's and TIMESTAMP's destination, @len bytes (section 18,
 * then as MEMCPY's destination). */
static int expect_dst(struct inj *s, const struct sacc_desc *d, uint64_t len,
		      uint64_t size, struct gexp *e)
{
	const uint32_t w = SACC_FAULT_IS_WRITE;

	if (d->flags & SACC_DESC_F_DST_DEV) {
		if (!dev_in(d->dst, len, size, e->dst))
			return fault(e, d->dst, SACC_FAULT_DEV_WRITE | w,
				     INJ_FAULT_DEVMEM);
	} else if (wraps(d->dst, len, e->dst)) {
		return fault(e, d->dst, SACC_FAULT_DST_WRITE | w,
			     INJ_FAULT_ANY);
	} else if (refused(s, d->dst, true, e->dst)) {
		return fault(e, d->dst, SACC_FAULT_DST_WRITE | w,
			     INJ_FAULT_IOMMU);
	}
	return inj_fail(s, "garbage %s would write %s: try another seed",
			sacc_opcode_str(d->opcode), e->dst);
}

/*
 * MEMCPY, XFORM, FILL (sections 6, 18, 19): the length, then the device
 * ranges, src first (nothing moves on either side), then the host
 * ranges: a wrapping one faults at its start with no DMA (the model
 * checks both before any DMA, which the spec leaves open), then all of
 * src is read before any of dst is written.
 */
static int expect_data(struct inj *s, const struct sacc_desc *d, uint64_t size,
		       struct gexp *e)
{
	const uint32_t w = SACC_FAULT_IS_WRITE;
	bool fill = d->opcode == SACC_OP_FILL;
	bool sdev = !fill && (d->flags & SACC_DESC_F_SRC_DEV);
	bool ddev = d->flags & SACC_DESC_F_DST_DEV;
	uint64_t len = d->length;

	if (len < 1 || len > SACC_MAX_XFER) {
		snprintf(e->src, sizeof(e->src),
			 "length %" PRIu64 ", not 1..1 MiB", len);
		e->status = SACC_STS_BAD_LENGTH;
		return 0;
	}
	if (fill)
		snprintf(e->src, sizeof(e->src), "a pattern");
	if (sdev && !dev_in(d->src, len, size, e->src))
		return fault(e, d->src, SACC_FAULT_DEV_READ, INJ_FAULT_DEVMEM);
	if (ddev && !dev_in(d->dst, len, size, e->dst))
		return fault(e, d->dst, SACC_FAULT_DEV_WRITE | w,
			     INJ_FAULT_DEVMEM);
	if (!fill && !sdev && wraps(d->src, len, e->src))
		return fault(e, d->src, SACC_FAULT_SRC_READ, INJ_FAULT_ANY);
	if (!ddev && wraps(d->dst, len, e->dst))
		return fault(e, d->dst, SACC_FAULT_DST_WRITE | w,
			     INJ_FAULT_ANY);
	if (!fill && !sdev && refused(s, d->src, false, e->src))
		return fault(e, d->src, SACC_FAULT_SRC_READ, INJ_FAULT_IOMMU);
	if (!ddev && refused(s, d->dst, true, e->dst))
		return fault(e, d->dst, SACC_FAULT_DST_WRITE | w,
			     INJ_FAULT_IOMMU);
	return inj_fail(s,
			"garbage %s would move bytes (%s to %s): try another "
			"seed",
			sacc_opcode_str(d->opcode), e->src, e->dst);
}

/* The command at an SQ slot with @avail slots after it up to the tail,
 * on a MODE.V3 channel with @size bytes of device memory. */
static int expect_one(struct inj *s, const struct sacc_desc *d, uint32_t avail,
		      uint64_t size, struct gexp *e)
{
	uint64_t p = SACC_INLINE_SLOTS(d->length);

	memset(e, 0, sizeof(*e));
	e->slots = 1;
	e->status = SACC_STS_OK;
	snprintf(e->src, sizeof(e->src), "-");
	snprintf(e->dst, sizeof(e->dst), "-");
	switch (d->opcode) {
	case SACC_OP_NOP:
		return 0;
	case SACC_OP_MEMCPY:
	case SACC_OP_XFORM:
	case SACC_OP_FILL:
		return expect_data(s, d, size, e);
	case SACC_OP_TIMESTAMP:
		return expect_dst(s, d, SACC_TIMESTAMP_LEN, size, e);
	case SACC_OP_WRITE_INLINE:
		if (!d->length || d->length > SACC_INLINE_MAX || p > avail) {
			/* section 15: status 3, min(P, A) slots skipped */
			e->slots += (uint32_t)(p < avail ? p : avail);
			e->status = SACC_STS_BAD_LENGTH;
			snprintf(e->src, sizeof(e->src),
				 "inline, %" PRIu32
				 " bytes, %u slot%s after it",
				 d->length, avail, avail == 1 ? "" : "s");
			return 0;
		}
		e->slots += (uint32_t)p;
		snprintf(e->src, sizeof(e->src), "inline, %" PRIu64 " slot%s",
			 p, p == 1 ? "" : "s");
		return expect_dst(s, d, d->length, size, e);
	default:
		e->status = SACC_STS_BAD_OPCODE;
		snprintf(e->src, sizeof(e->src), "opcode %u: none", d->opcode);
		return 0;
	}
}

/* Walk @n slots as the device will, one command after another; returns
 * the number of commands, or -1. */
static int walk(struct inj *s, const struct sacc_desc *g, uint32_t n,
		uint64_t size, struct gexp *e, uint32_t *cmd_slots)
{
	uint32_t h = 0;
	int k = 0;

	while (h < n) {
		if (k == INJ_MAX_DESC)
			return inj_fail(s, "too many garbage commands");
		if (expect_one(s, &g[h], n - h - 1, size, &e[k]))
			return -1;
		cmd_slots[k] = e[k].slots;
		h += e[k++].slots;
	}
	return k;
}

/* The channel goes on without a reset: a NOP completes. */
static bool nop_ok(struct inj *s)
{
	struct sacc_op op = {.opcode = SACC_OP_NOP};
	uint64_t deadline = now_ns() + 2000000000ull;
	struct timespec ms = {0, 1000000};
	struct sacc_result r;
	int n;

	if (sacc_submit(s->dev, &op, 1) != 1) {
		inj_why(s, "a NOP after the garbage was not submitted: %s",
			sacc_errmsg(s->dev));
		return false;
	}
	while ((n = sacc_poll(s->dev, &r, 1)) == 0 && now_ns() < deadline)
		nanosleep(&ms, NULL);
	if (n != 1 || r.status != SACC_STS_OK) {
		inj_why(s, "a NOP after the garbage did not complete: %s",
			n < 0	 ? sacc_errmsg(s->dev)
			: n == 0 ? "timed out after 2 s"
				 : sacc_status_str(r.status));
		return false;
	}
	inj_say(s, "the channel goes on: a NOP after the garbage completed "
		   "(no reset)");
	return true;
}

/* Every command completed as the spec says, its fault expected in the
 * log, the record the last fault's, the channel ready and working. */
static void judge_garbage(struct inj *s, const struct gexp *e, unsigned int n)
{
	uint32_t nf = 0;
	int last = -1;

	s->blocked = true;
	for (unsigned int i = 0; i < n; i++) {
		const struct inj_desc *x = &s->desc[i];

		if (x->status != e[i].status) {
			s->blocked = false;
			inj_why(s,
				"req_id %" PRIu32 " (opcode %u): status %d, "
				"the spec says %d",
				x->d.req_id, x->d.opcode, x->status,
				e[i].status);
		}
		if (e[i].status != SACC_STS_DMA_FAULT)
			continue;
		nf++;
		last = (int)i;
		inj_expect_kind(s, x->d.req_id, e[i].addr,
				e[i].info & SACC_FAULT_ACCESS_MASK, false,
				e[i].kind);
	}
	if (last >= 0 && !record_is(s, s->desc[last].d.req_id, e[last].addr,
				    e[last].info, nf))
		s->blocked = false;
	if (!nop_ok(s))
		s->blocked = false;
	inj_device_state(s, s->dev);
}

/* Is the SQ's slot 0 (the first garbage slot, on a fresh handle) @g? */
static int garbage_at_slot0(struct inj *s, const struct sacc_desc *g)
{
	const struct sacc_desc *sq = sacc_dev_sq_va(s->dev);

	if (sq && sq[0].src == g->src && sq[0].dst == g->dst &&
	    sq[0].opcode == g->opcode)
		return 0;
	return inj_fail(s, "the garbage is not in SQ slot 0");
}

int sc_sq_dev_garbage(struct inj *s)
{
	char sw[INJ_MAX_DESC][96], dw[INJ_MAX_DESC][96];
	uint32_t cmd_slots[INJ_MAX_DESC], nslots;
	struct gexp e[INJ_MAX_DESC];
	struct sacc_desc g[G_SLOTS];
	struct sacc_buf *dc;
	uint64_t size;
	struct std b;
	int n;

	if (devmem_open(s, &size) || std_bufs(s, &b, true))
		return -1;
	dc = dev_buf(s, 64 * KiB, "device canary", 13);
	if (!dc || inj_canary(s, "device canary (device memory)",
			      sacc_buf_va(dc), 64 * KiB))
		return -1;
	nslots = make_garbage(g, G_SLOTS);
	n = walk(s, g, nslots, size, e, cmd_slots);
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		memcpy(sw[i], e[i].src, sizeof(sw[i]));
		memcpy(dw[i], e[i].dst, sizeof(dw[i]));
	}
	snprintf(s->note, sizeof(s->note),
		 "%u SQ slots of random bytes (seed 0x%llx) in device memory, "
		 "one doorbell: %d commands refused as the spec says, the "
		 "channel goes on",
		 nslots, G_SEED, n);
	if (inj_submit_slots(s, g, nslots, cmd_slots, (unsigned int)n, sw,
			     dw) ||
	    garbage_at_slot0(s, g))
		return -1;
	/* the device only reads its SQ: the slots stay as libsacc wrote
	 * them (the garbage, with libsacc's req_ids) */
	if (inj_canary(s, "the SQ slots (the device only reads them)",
		       sacc_dev_sq_va(s->dev), nslots * sizeof(*g)) ||
	    inj_reap(s, 5000))
		return -1;
	judge_garbage(s, e, (unsigned int)n);
	return s->error ? -1 : 0;
}

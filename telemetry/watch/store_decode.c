// SPDX-License-Identifier: MIT OR GPL-2.0
/*
 * store_decode.c - decode the 32-bit mov that a data breakpoint trapped
 * (see store_decode.h for why and what is accepted).
 */
#include "store_decode.h"

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/*
 * Decode @p[0..len) as exactly one mov-to-memory (0x89 /r or 0xC7 /0):
 * 0 and *out, -1 if it is not one.  *width is what it stores (2, 4 or
 * 8 bytes) and *seg_base is set when an FS/GS override makes the address
 * unknowable from the registers: the caller accepts only a plain 32-bit
 * store, but the others must be seen, because a longer instruction that
 * ends at the same IP (a REX.W or 0x66 prefix before the same bytes) is
 * a different store.
 */
static int decode_one(const uint8_t *p, unsigned int len,
		      const struct sw_regs *r, struct sw_store *out,
		      unsigned int *width, int *seg_base)
{
	unsigned int i = 0, mod, reg, rm, rex = 0, imm;
	uint64_t ea = 0;
	uint8_t op, modrm;
	int rip_rel = 0;

	*width = 4;
	*seg_base = 0;
	/* Legacy prefixes: segment overrides (CS/DS/ES/SS change nothing in
	 * 64-bit mode), operand size.  Address size, LOCK and REP are not
	 * compiler output for a plain store: not decoded. */
	for (; i < len; i++) {
		if (p[i] == 0x26 || p[i] == 0x2e || p[i] == 0x36 ||
		    p[i] == 0x3e)
			continue;
		if (p[i] == 0x64 || p[i] == 0x65)
			*seg_base = 1;
		else if (p[i] == 0x66)
			*width = 2;
		else
			break;
	}
	if (i < len && (p[i] & 0xf0) == 0x40)
		rex = p[i++];
	if (rex & 0x8)
		*width = 8;
	if (i + 2 > len)
		return -1;
	op = p[i++];
	if (op != 0x89 && op != 0xc7)
		return -1;
	modrm = p[i++];
	mod = modrm >> 6;
	reg = ((modrm >> 3) & 7) | ((rex & 4) << 1);
	rm = modrm & 7;
	if (mod == 3) /* register destination */
		return -1;
	if (op == 0xc7 && ((modrm >> 3) & 7) != 0)
		return -1;
	if (rm == 4) {
		uint8_t sib;
		unsigned int scale, idx, base;

		if (i >= len)
			return -1;
		sib = p[i++];
		scale = sib >> 6;
		idx = ((sib >> 3) & 7) | ((rex & 2) << 2);
		base = (sib & 7) | ((rex & 1) << 3);
		if (idx != 4)
			ea += r->r[idx] << scale;
		if ((sib & 7) == 5 && mod == 0) {
			if (i + 4 > len)
				return -1;
			ea += (uint64_t)(int64_t)(int32_t)le32(p + i);
			i += 4;
		} else {
			ea += r->r[base];
		}
	} else if (rm == 5 && mod == 0) {
		rip_rel = 1;
	} else {
		ea = r->r[rm | ((rex & 1) << 3)];
	}
	if (rip_rel || mod == 2) {
		if (i + 4 > len)
			return -1;
		ea += (uint64_t)(int64_t)(int32_t)le32(p + i);
		i += 4;
	} else if (mod == 1) {
		if (i + 1 > len)
			return -1;
		ea += (uint64_t)(int64_t)(int8_t)p[i];
		i += 1;
	}
	if (op == 0xc7) {
		imm = *width == 2 ? 2 : 4;
		if (i + imm > len)
			return -1;
		out->value =
		    imm == 2 ? (uint32_t)(p[i] | p[i + 1] << 8) : le32(p + i);
		i += imm;
	} else {
		out->value = (uint32_t)r->r[reg];
	}
	if (i != len)
		return -1;
	/* RIP-relative addresses count from the end of the instruction,
	 * which is the IP the trap saved. */
	out->addr = rip_rel ? r->ip + ea : ea;
	out->len = len;
	return 0;
}

int sw_decode_store(const uint8_t *before, unsigned int n,
		    const struct sw_regs *regs, uint64_t lo, uint64_t hi,
		    struct sw_store *out)
{
	unsigned int len, width;
	struct sw_store c;
	int found = 0, seg;

	if (n > SW_INSN_MAX)
		return -1;
	for (len = 2; len <= n; len++) {
		if (decode_one(before + n - len, len, regs, &c, &width, &seg))
			continue;
		if (seg)
			return -1; /* a store whose address we cannot know */
		if (c.addr >= hi || c.addr + width <= lo)
			continue; /* does not touch the watched range */
		if (width != 4 || (c.addr & 3) || c.addr < lo ||
		    hi - c.addr < 4)
			return -1; /* not one aligned 32-bit doorbell write */
		if (found && (c.addr != out->addr || c.value != out->value))
			return -1; /* two readings of the bytes disagree */
		if (!found)
			*out = c;
		found = 1;
	}
	return found ? 0 : -1;
}

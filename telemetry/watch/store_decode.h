/* SPDX-License-Identifier: MIT OR GPL-2.0 */
/*
 * store_decode.h - find the x86-64 store that a data breakpoint trapped.
 *
 * An x86 data breakpoint is a trap: the store has already happened when
 * the CPU reports it, and the doorbell page reads back 0.  So the tracer
 * reads the instruction bytes that end at the saved IP and decodes them
 * as one of the 32-bit stores a compiler emits for a volatile uint32_t
 * write: `mov r32, m32` (0x89 /r) and `mov imm32, m32` (0xC7 /0), with
 * an optional REX prefix and segment prefixes CS/DS/ES/SS.  A candidate
 * is accepted only when it ends exactly at IP and its effective address,
 * computed from the registers saved at the trap (mov changes none of
 * them), lies in the watched range; the value stored is then the source
 * register or the immediate.  Where the instruction starts is not known
 * (x86 cannot be decoded backwards), so every start 2..15 bytes before
 * IP is tried: no candidate, two that disagree, or any candidate that
 * would be a 16- or 64-bit store to the range or an FS/GS-relative one,
 * means "undecoded": the caller reports it, it never guesses.
 *
 * Pure C with no kernel or libc dependency beyond <stdint.h>, so the
 * module and a host unit test (test_store_decode.c) share it.
 */
#ifndef SACC_STORE_DECODE_H
#define SACC_STORE_DECODE_H

#include <stdint.h>

#define SW_INSN_MAX 15u /* longest x86 instruction */

/* Registers in x86 encoding order: rax rcx rdx rbx rsp rbp rsi rdi r8..r15 */
struct sw_regs {
	uint64_t r[16];
	uint64_t ip; /* after the trapping instruction */
};

struct sw_store {
	uint64_t addr;	/* effective address written */
	uint32_t value; /* the 32-bit value stored */
	uint32_t len;	/* instruction length */
};

/*
 * @before holds the @n (<= SW_INSN_MAX) bytes that precede regs->ip.
 * Find the 32-bit store ending at ip whose address is 4-byte aligned and
 * in [lo, hi).  0 and *out, or -1 if there is none or the candidates
 * disagree.
 */
int sw_decode_store(const uint8_t *before, unsigned int n,
		    const struct sw_regs *regs, uint64_t lo, uint64_t hi,
		    struct sw_store *out);

#endif /* SACC_STORE_DECODE_H */

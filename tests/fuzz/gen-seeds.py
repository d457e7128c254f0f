#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the generic-fuzz seed corpus for SACC (tests/fuzz/seeds/).

QEMU 7.2's generic-fuzz (tests/qtest/fuzz/generic_fuzz.c) reads an input
as operations separated by the bytes "FUZZ"; the first byte of each picks
the operation (modulo 10) and the rest are its operands, memcpy'd into a
C struct, padding included.  MMIO operations name a region by its index
among the matched MemoryRegions in address order (modulo their count) and
an offset into it.  ci/fuzz matches "sacc intel-iommu", and libqos maps
the BARs upwards from 0xe0000000 (BAR0 0xe0000000, BAR1 0xe0002000, BAR2
0xe0008000, BAR4 0xe4000000), so the regions are:

    0 sacc-regs (BAR0 page 0)   1 sacc-doorbell (BAR0 page 1)
    2 msix-table                3 msix-pba
    4 sacc-chan (BAR2, v0.3: the device page and the channel blocks)
    5 intel_iommu (the VT-d registers at 0xfed90000)

BAR4, the v0.4 device memory, is RAM: generic-fuzz neither matches it
nor fills it from DMA patterns, so a seed puts a segment there by having
the device copy it in from host memory first.

Guest RAM starts zeroed and no operation writes it directly: whatever the
device (or the IOMMU) reads by DMA is filled, read by read, from the DMA
patterns the input added, in turn.  So a seed that wants valid
descriptors adds a pattern that is one descriptor.

Each seed brings the device up (ring registers, ENABLE) and then drives
one area: MEMCPY and XFORM round trips, a full CQ and CQ_HEAD, MSI-X,
errors and odd accesses, DMA faults, VT-d translation, and v0.4's
pushbuffer segments (MODE.V3 set in BAR2's channel block; segments in
host and device memory, inline payloads inside them, a nested SEGMENT,
payloads and ranges past a segment's end).  The fuzzer
mutates from there.  Run: tests/fuzz/gen-seeds.py [OUTDIR]
"""
import os
import struct
import sys

SEP = b"FUZZ"
(OP_IN, OP_OUT, OP_READ, OP_WRITE, OP_PCI_READ, OP_PCI_WRITE,
 OP_DISABLE_PCI, OP_ADD_DMA_PATTERN, OP_CLEAR_DMA_PATTERNS,
 OP_CLOCK_STEP) = range(10)
REGS, DOORBELL, MSIX_TABLE, MSIX_PBA, CHAN, VTD = range(6)
SIZE = {1: 0, 2: 1, 4: 2, 8: 3}

# include/sacc_hw.h
MAGIC, VERSION, CTRL, STATUS = 0x00, 0x04, 0x08, 0x0C
SQ_BASE, SQ_SIZE, CQ_BASE, CQ_SIZE = 0x10, 0x18, 0x20, 0x28
CQ_HEAD, IRQ_STATUS, IRQ_ACK, ERR_CODE = 0x30, 0x34, 0x38, 0x3C
SCRATCH, FAULT_ADDR, FAULT_INFO = 0x40, 0x48, 0x50
FAULT_REQ_ID, FAULT_COUNT = 0x54, 0x58
ENABLE, RESET = 1, 2
OP_NOP, OP_MEMCPY, OP_XFORM = 0, 1, 2
F_IRQ = 1
# v0.3/v0.4: BAR2's device page and channel blocks, MODE, more opcodes
DEVMEM_SIZE = 0x18
MODE = 0x60
MODE_V3 = 2
OP_WRITE_INLINE, OP_TIMESTAMP, OP_FILL, OP_SEGMENT = 3, 4, 5, 6
F_SRC_DEV, F_DST_DEV = 2, 4
SEGMENT_MAX = 0x10000
DEVMEM = 64 << 20  # the model's default device memory
MSIX_CAP = 0x70
PCIE_CAP = 0x80

# Guest physical addresses (-m 512M)
SQ, CQ, SRC, DST = 0x100000, 0x200000, 0x300000, 0x380000
SEG = 0x480000  # a segment in host memory
BAR0 = 0xE0000000  # where libqos maps BAR0: DMA there hits our own BAR

# VT-d registers (hw/i386/intel_iommu_internal.h)
DMAR_GCMD, DMAR_GSTS, DMAR_RTADDR, DMAR_FSTS, DMAR_FECTL = 0x18, 0x1C, 0x20, 0x34, 0x38
DMAR_CCMD, DMAR_IOTLB = 0x28, 0xF8
GCMD_TE, GCMD_SRTP = 1 << 31, 1 << 30


def write(region, off, val, size=4):
    # struct { uint8_t size, base; (2 bytes padding) uint32_t offset;
    #          uint64_t value; }, after the operation byte
    return struct.pack("<BBBxxIQ", OP_WRITE, SIZE[size], region, off, val)


def read(region, off, size=4):
    # struct { uint8_t size, base; (2 bytes padding) uint32_t offset; }
    return struct.pack("<BBBxxI", OP_READ, SIZE[size], region, off)


def pci_write(off, val, size=4):
    # struct { uint8_t size, base, offset; (1 byte padding) uint32_t value; }
    # base picks the fuzzed PCI device: there is only SACC
    return struct.pack("<BBBBxI", OP_PCI_WRITE, SIZE[size], 0, off, val)


def pci_read(off, size=4):
    return struct.pack("<BBBB", OP_PCI_READ, SIZE[size], 0, off)


def pattern(data, index=0, stride=0):
    return struct.pack("<BBB", OP_ADD_DMA_PATTERN, index, stride) + data


def clear_patterns():
    return bytes([OP_CLEAR_DMA_PATTERNS])


def clock_step():
    return bytes([OP_CLOCK_STEP])


def desc(src, dst, length, opcode, flags=0, req_id=1):
    return struct.pack("<QQIHHII", src, dst, length, opcode, flags, req_id, 0)


def reg(off, val, size=4):
    return write(REGS, off, val, size)


def doorbell(tail):
    return write(DOORBELL, 0, tail)


def rings(sq=SQ, sq_n=8, cq=CQ, cq_n=8, quad=False):
    if quad:
        ops = [reg(SQ_BASE, sq, 8), reg(CQ_BASE, cq, 8)]
    else:
        ops = [reg(SQ_BASE, sq & 0xFFFFFFFF), reg(SQ_BASE + 4, sq >> 32),
               reg(CQ_BASE, cq & 0xFFFFFFFF), reg(CQ_BASE + 4, cq >> 32)]
    return ops + [reg(SQ_SIZE, sq_n), reg(CQ_SIZE, cq_n)]


def up(**kw):
    """Ring registers, then ENABLE."""
    return rings(**kw) + [reg(CTRL, ENABLE), read(REGS, STATUS)]


def status_reads():
    return [read(REGS, o) for o in (STATUS, IRQ_STATUS, ERR_CODE, FAULT_ADDR,
                                    FAULT_ADDR + 4, FAULT_INFO, FAULT_REQ_ID,
                                    FAULT_COUNT)]


def chan_reg(ch, off, val, size=4):
    """A channel register in its BAR2 block (channel 0's is also page 0)."""
    return write(CHAN, 0x1000 + 0x100 * ch + off, val, size)


def up_v3(ch=0, sq=SQ, sq_n=8, cq=CQ, cq_n=8):
    """MODE.V3 (v0.3 opcodes, v0.4's FILL, SEGMENT and device addresses),
    the rings, ENABLE: all in channel @ch's BAR2 block."""
    return [chan_reg(ch, MODE, MODE_V3), chan_reg(ch, SQ_BASE, sq, 8),
            chan_reg(ch, CQ_BASE, cq, 8), chan_reg(ch, SQ_SIZE, sq_n),
            chan_reg(ch, CQ_SIZE, cq_n), chan_reg(ch, CTRL, ENABLE),
            read(CHAN, 0x1000 + 0x100 * ch + STATUS)]


def chan_doorbell(ch, tail):
    return write(DOORBELL, 4 * ch, tail)


def chan_reads(ch):
    base = 0x1000 + 0x100 * ch
    return [read(CHAN, base + o) for o in (STATUS, IRQ_STATUS, ERR_CODE,
                                           FAULT_INFO, FAULT_REQ_ID,
                                           FAULT_COUNT)] + \
        [read(CHAN, base + FAULT_ADDR, 8)]


def segment(src, length, flags=0, req_id=0x100):
    """A SEGMENT entry: run the commands of the segment at src."""
    return desc(src, 0, length, OP_SEGMENT, flags, req_id)


def inline(dst, data, flags=0, req_id=0):
    """WRITE_INLINE of data to dst, its payload in the slots after it."""
    pad = -len(data) % 32
    return desc(0, dst, len(data), OP_WRITE_INLINE, flags, req_id) + \
        data + bytes(pad)


def msix_on():
    return [
        pci_write(MSIX_CAP + 2, 0x8000, 2),        # MSI-X enable
        write(MSIX_TABLE, 0x0, 0xFEE00000),        # address low
        write(MSIX_TABLE, 0x4, 0),                 # address high
        write(MSIX_TABLE, 0x8, 0x0041),            # data: vector 0x41
        write(MSIX_TABLE, 0xC, 0),                 # unmask
    ]


SEEDS = {}


def seed(name):
    def deco(fn):
        SEEDS[name] = fn
        return fn
    return deco


@seed("memcpy")
def _():
    d = desc(SRC, DST, 0x40, OP_MEMCPY, F_IRQ, 0x11)
    return up() + [pattern(d), doorbell(1), read(REGS, IRQ_STATUS),
                   reg(IRQ_ACK, 1), reg(CQ_HEAD, 1), doorbell(4),
                   reg(CQ_HEAD, 4)] + status_reads()


@seed("xform-pages")
def _():
    # crosses a page boundary on both sides, 6 KiB
    d = desc(SRC + 0x800, DST + 0x400, 0x1800, OP_XFORM, F_IRQ, 0x22)
    return up(quad=True) + [pattern(d), pattern(b"\x5a\xa5" * 8, 1, 3),
                            doorbell(2), read(REGS, IRQ_STATUS),
                            reg(CQ_HEAD, 2)]


@seed("nop-cq-full")
def _():
    # 8 NOPs into a 4-entry CQ: stalls at 3, CQ_HEAD releases, laps
    d = desc(0, 0, 0, OP_NOP, 0, 0x33)
    ops = up(sq_n=8, cq_n=4) + [pattern(d), doorbell(7)]
    for head in (1, 2, 3, 0, 1, 2, 3):
        ops += [reg(CQ_HEAD, head)]
    return ops + [doorbell(0), reg(CQ_HEAD, 0)] + status_reads()


@seed("many-descs")
def _():
    # a 64-entry ring of MEMCPYs: more than one bottom-half batch
    d = desc(SRC, DST, 0x1000, OP_MEMCPY, 0, 0x44)
    return up(sq_n=64, cq_n=128) + [pattern(d), doorbell(63), reg(CQ_HEAD, 63)]


@seed("msix")
def _():
    d = desc(SRC, DST, 0x10, OP_MEMCPY, F_IRQ, 0x55)
    return up() + msix_on() + [pattern(d), doorbell(1), read(MSIX_PBA, 0),
                               write(MSIX_TABLE, 0xC, 1),   # mask
                               doorbell(2), read(MSIX_PBA, 0, 8),
                               write(MSIX_TABLE, 0xC, 0),   # unmask: fires
                               pci_write(MSIX_CAP + 2, 0xC000, 2),  # fn mask
                               doorbell(3), pci_write(MSIX_CAP + 2, 0x8000, 2),
                               reg(IRQ_ACK, 3), read(REGS, IRQ_STATUS)]


@seed("bad-descs")
def _():
    bad = [desc(SRC, DST, 0x40, 7, F_IRQ, 1),                 # bad opcode
           desc(SRC, DST, 0, OP_MEMCPY, 0, 2),                # length 0
           desc(SRC, DST, (1 << 20) + 1, OP_XFORM, 0, 3),     # > 1 MiB
           desc(0xFFFFFFFFFFFFFF00, DST, 0x200, OP_MEMCPY, 0, 4),  # src wraps
           desc(SRC, 0xFFFFFFFFFFFFFFF0, 0x20, OP_MEMCPY, 0, 5),   # dst wraps
           desc(SRC, DST, 1 << 20, OP_MEMCPY, F_IRQ, 6)]      # exactly 1 MiB
    ops = up(sq_n=16, cq_n=16)
    for i, d in enumerate(bad):
        ops += [clear_patterns(), pattern(d), doorbell(i + 1)]
    return ops + status_reads()


@seed("dma-faults")
def _():
    # DMA into our own BAR is refused by the re-entrancy guard: a fault
    ops = up(sq_n=4, cq_n=4)
    ops += [pattern(desc(SRC, BAR0 + SCRATCH, 0x10, OP_MEMCPY, F_IRQ, 7)),
            doorbell(1)] + status_reads()
    ops += [clear_patterns(), pattern(desc(BAR0, DST, 0x2000, OP_MEMCPY, 0, 8)),
            doorbell(2)] + status_reads()
    # the CQ in our BAR: ring fatal on the completion write
    ops += [reg(CTRL, 0), reg(CQ_BASE, BAR0 + 0x100), reg(CQ_BASE + 4, 0),
            reg(CTRL, ENABLE), clear_patterns(),
            pattern(desc(0, 0, 0, OP_NOP, 0, 9)), doorbell(1)] + status_reads()
    # the SQ in our BAR: ring fatal on the descriptor fetch
    ops += [reg(CTRL, 0), reg(CQ_BASE, CQ), reg(SQ_BASE, BAR0 + 0x1000),
            reg(CTRL, ENABLE), doorbell(1), reg(IRQ_ACK, 3)] + status_reads()
    return ops


@seed("registers")
def _():
    ops = [read(REGS, o, s) for o in range(0, 0x60, 4) for s in (4,)]
    ops += [read(REGS, SQ_BASE, 8), read(REGS, FAULT_ADDR, 8),
            read(REGS, CQ_BASE, 8), read(REGS, CTRL, 8), read(REGS, MAGIC, 1),
            read(REGS, MAGIC, 2), read(DOORBELL, 0), read(DOORBELL, 8, 8)]
    ops += [reg(SCRATCH, 0xDEADBEEF), reg(MAGIC, 1), reg(STATUS, 1),
            reg(FAULT_INFO, 1), reg(0x5C, 1), reg(0x800, 1), reg(CTRL, 0, 1),
            reg(SQ_SIZE, 8, 2), reg(STATUS, 0, 8), reg(SQ_BASE, SQ, 8),
            reg(CQ_BASE, CQ, 8), write(DOORBELL, 4, 1), write(DOORBELL, 0, 1, 8),
            doorbell(1),                                   # not ready
            reg(CQ_HEAD, 0)]                               # not ready
    # invalid enables: bad size, misaligned bases, ring past 2^64
    ops += [reg(SQ_SIZE, 3), reg(CQ_SIZE, 8), reg(CTRL, ENABLE), reg(CTRL, 0),
            reg(SQ_SIZE, 8), reg(SQ_BASE, SQ + 8), reg(CTRL, ENABLE), reg(CTRL, 0),
            reg(SQ_BASE, SQ), reg(CQ_BASE, CQ + 4), reg(CTRL, ENABLE), reg(CTRL, 0),
            reg(CQ_BASE, 0xFFFFFFFFFFFFF000, 8), reg(CQ_SIZE, 65536),
            reg(CTRL, ENABLE), reg(CTRL, 0),
            reg(CQ_BASE, CQ, 8), reg(SQ_SIZE, 1 << 17), reg(CTRL, ENABLE),
            reg(CTRL, 0), reg(SQ_SIZE, 2), reg(CQ_SIZE, 2), reg(CTRL, ENABLE)]
    # while enabled: ring registers locked, doorbell/CQ_HEAD out of range
    ops += [reg(SQ_BASE, 0), reg(SQ_SIZE, 4), reg(CQ_BASE, 0, 8), doorbell(2),
            reg(CQ_HEAD, 5), reg(CTRL, ENABLE | RESET)] + status_reads()
    return ops


@seed("reset-flr")
def _():
    d = desc(SRC, DST, 0x100, OP_MEMCPY, F_IRQ, 0x66)
    ops = up() + msix_on() + [pattern(d), doorbell(3)]
    ops += [reg(CTRL, RESET)] + up() + [doorbell(1)]
    # FLR through the PCIe capability (Device Control, Initiate FLR)
    ops += [pci_read(PCIE_CAP + 4), pci_write(PCIE_CAP + 8, 0x8000, 2),
            read(REGS, STATUS)] + up() + [doorbell(2), reg(CTRL, 0), doorbell(1)]
    # Bus master off: DMA fails at the PCI layer
    ops += up() + [pci_write(0x04, 0x0002, 2), doorbell(1),
                   pci_write(0x04, 0x0006, 2)] + status_reads()
    return ops


@seed("vtd-fault")
def _():
    # VT-d translation on with an empty root table: every DMA faults
    ops = up(sq_n=4, cq_n=4)
    ops += [write(VTD, DMAR_RTADDR, 0x400000, 8), write(VTD, DMAR_GCMD, GCMD_SRTP),
            write(VTD, DMAR_GCMD, GCMD_TE), read(VTD, DMAR_GSTS), doorbell(1),
            read(VTD, DMAR_FSTS), read(VTD, 0x220, 8), read(VTD, 0x228, 8)]
    return ops + status_reads() + [write(VTD, DMAR_FECTL, 0x3907, 8)]


@seed("vtd-translate")
def _():
    # VT-d on, with the root entry, context entry and page tables (3
    # levels: QEMU 7.2's default aw-bits=39) made of DMA patterns used in
    # turn.  A best effort: generic-fuzz fills a DMA read at its IOVA, and
    # a table read that overlaps one already filled by the same command
    # keeps its old bytes, so which entry gets which pattern depends on
    # the walk.  It reaches translated DMA and permission faults, and the
    # fuzzer mutates from there.
    root = struct.pack("<QQ", 0x400001, 0)
    ctx = struct.pack("<QQ", 0x400001, 0x0101)           # AW 39-bit, DID 1
    pte = struct.pack("<Q", 0x500003)                    # R/W
    d = desc(0x500000, 0x500800, 0x100, OP_MEMCPY, F_IRQ, 0x77)
    ops = up(sq_n=4, cq_n=4)
    ops += [write(VTD, DMAR_RTADDR, 0x400000, 8), write(VTD, DMAR_GCMD, GCMD_SRTP),
            write(VTD, DMAR_GCMD, GCMD_TE)]
    ops += [pattern(root), pattern(ctx)] + [pattern(pte)] * 3 + [pattern(d)]
    ops += [doorbell(1), read(REGS, STATUS), read(VTD, DMAR_FSTS), doorbell(2)]
    return ops + status_reads()


# ---- v0.4 pushbuffer segments (docs/spec.md section 21) ----

def host_segment_cmds():
    """Every command kind from a segment in host memory: an inline
    payload inside it, copies, a timestamp fence, a fill."""
    return b"".join([
        inline(DST, bytes(range(0x40, 0x68)), 0, 0x101),     # 40 B, 2 slots
        desc(SRC, DST + 0x100, 0x80, OP_MEMCPY, F_IRQ, 0x102),
        desc(DST + 0x100, DST + 0x200, 0x80, OP_XFORM, 0, 0x103),
        desc(0, DST + 0x300, 0, OP_TIMESTAMP, 0, 0x104),
        desc(0x8877665544332211, DST + 0x400, 0x44, OP_FILL, 0, 0x105),
        desc(0, 0, 0, OP_NOP, 0, 0x106)])


@seed("segment-host")
def _():
    # The SQ entry, then the segment: the device reads them in that order
    # (one pattern each; the copies inside take none, see segment-devmem);
    # launched, relaunched, then rewritten so its second command faults
    # (a copy into our own BAR) and the segment stops there.
    cmds = host_segment_cmds()
    bad = cmds[:96] + desc(SRC, BAR0 + SCRATCH, 0x10, OP_MEMCPY, 0, 0x1ff) + \
        cmds[128:]
    entry = segment(SEG, len(cmds), F_IRQ, 0x100)
    ops = up_v3() + msix_on()
    ops += [pattern(entry), pattern(cmds), chan_doorbell(0, 1),
            read(REGS, IRQ_STATUS), reg(IRQ_ACK, 1), reg(CQ_HEAD, 1)]
    ops += [clear_patterns(), pattern(entry), pattern(cmds),
            chan_doorbell(0, 2), reg(CQ_HEAD, 2)]
    ops += [clear_patterns(), pattern(entry), pattern(bad),
            chan_doorbell(0, 3), reg(CQ_HEAD, 3)]
    return ops + chan_reads(0)


def devmem_segment_cmds():
    """A segment that lives in device memory and works there: inline
    data into device memory, device to host, device to device, a fill
    and a timestamp in device memory, host to device."""
    dev = F_SRC_DEV | F_DST_DEV
    return b"".join([
        inline(0x1000, bytes(range(0x20)), F_DST_DEV, 0x201),
        desc(0x1000, DST, 0x20, OP_MEMCPY, F_SRC_DEV, 0x202),
        desc(0x1000, 0x2000, 0x1000, OP_XFORM, dev, 0x203),
        desc(0xA5A5A5A5A5A5A5A5, 0x3000, 0x100, OP_FILL, F_DST_DEV, 0x204),
        desc(0, 0x3FF8, 0, OP_TIMESTAMP, F_DST_DEV, 0x205),
        desc(SRC, 0x4000, 0x40, OP_MEMCPY, F_DST_DEV, 0x206),
        desc(0, 0, 0, OP_NOP, 0, 0x207)])


@seed("segment-devmem")
def _():
    # Channel 1, from its BAR2 block.  Device memory is not filled from
    # DMA patterns, and neither is the source of a copy the model makes
    # host memory to host memory (x-direct-copy, its default: no DMA
    # read, no pattern), so a WRITE_INLINE puts the segment at device
    # address 0: its descriptor and its payload (one read of 8 SQ slots)
    # take the first two patterns, the SEGMENT entry after them the
    # third, and it runs from device memory (SRC_DEV: a local fetch, no
    # pattern).  Then segments past the end of device memory and
    # wrapping past 2^64: dev_read faults, nothing fetched.
    cmds = devmem_segment_cmds()
    slots = len(cmds) // 32
    load = desc(0, 0, len(cmds), OP_WRITE_INLINE, F_DST_DEV, 0x200)
    run = segment(0, len(cmds), F_SRC_DEV | F_IRQ, 0x210)
    tail = 1 + slots + 1
    ops = [read(CHAN, DEVMEM_SIZE, 8)] + up_v3(1, sq_n=16, cq_n=16)
    ops += [pattern(load), pattern(cmds), pattern(run),
            chan_doorbell(1, tail), chan_reg(1, CQ_HEAD, 2)]
    for i, src in enumerate((DEVMEM - 0x20, 0xFFFFFFFFFFFFFFE0)):
        ops += [clear_patterns(), pattern(segment(src, 0x40, F_SRC_DEV,
                                                  0x220 + i)),
                chan_doorbell(1, tail + 1 + i)]
    return ops + [chan_reg(1, CQ_HEAD, 4)] + chan_reads(1)


@seed("segment-nested")
def _():
    # A SEGMENT inside a segment (bad opcode at index 1, nothing after
    # it runs); lengths the entry refuses (not a multiple of 32, 0, past
    # SACC_SEGMENT_MAX); the longest segment, 2048 NOPs (the pattern of
    # one slot, tiled; the fetch reads a page at a time, one pattern
    # each, so 16 of them), run 8 commands a turn (generic-fuzz runs at
    # most 10 main loop iterations after each operation: status reads
    # let it finish), then launched again and abandoned half way by
    # CTRL.ENABLE 0; and SEGMENT on a channel without MODE.V3, where
    # opcode 6 is unknown.
    nested = b"".join([desc(0, 0, 0, OP_NOP, 0, 0x301),
                       segment(SEG, 0x40, 0, 0x302),
                       desc(SRC, DST, 0x40, OP_MEMCPY, 0, 0x303)])
    ops = up_v3(sq_n=16, cq_n=16)
    ops += [pattern(segment(SEG, len(nested), 0, 0x300)), pattern(nested),
            chan_doorbell(0, 1)]
    tail = 1
    for length in (0x21, 0, SEGMENT_MAX + 0x20):
        tail += 1
        ops += [clear_patterns(), pattern(segment(SEG, length, 0, 0x310 +
                                                  tail)),
                chan_doorbell(0, tail)]
    nops = [pattern(desc(0, 0, 0, OP_NOP, 0, 0x321))] * (SEGMENT_MAX // 0x1000)
    for i in range(2):
        tail += 1
        ops += [clear_patterns(),
                pattern(segment(SEG, SEGMENT_MAX, F_IRQ, 0x320 + i))]
        ops += nops + [chan_doorbell(0, tail)]
        ops += [read(REGS, STATUS)] * 32 + [reg(CQ_HEAD, tail)] if i == 0 \
            else [read(REGS, STATUS), chan_reg(0, CTRL, 0)]
    ops += chan_reads(0)
    ops += [chan_reg(0, MODE, 0), reg(CTRL, ENABLE), clear_patterns(),
            pattern(segment(SEG, 0x40, 0, 0x330)), doorbell(1)]
    return ops + status_reads()


@seed("segment-past-end")
def _():
    # Segments that end too soon or point where they must not: an inline
    # payload running past the segment's end (first command, then after
    # a NOP), a segment in our own BAR (the fetch faults: segment_read),
    # one wrapping past 2^64, and one whose second command faults.
    cases = [
        desc(0, DST, 0x1000, OP_WRITE_INLINE, 0, 0x401) + bytes(32),
        desc(0, 0, 0, OP_NOP, 0, 0x402) +
        desc(0, DST, 40, OP_WRITE_INLINE, 0, 0x403) + bytes(32),
        None,
        None,
        desc(SRC, DST, 0x40, OP_MEMCPY, 0, 0x404) +
        desc(SRC, BAR0 + SCRATCH, 0x40, OP_MEMCPY, 0, 0x405) +
        desc(0, 0, 0, OP_NOP, 0, 0x406),
    ]
    srcs = [SEG, SEG, BAR0, 0xFFFFFFFFFFFFFFE0, SEG]
    ops = up_v3(sq_n=8, cq_n=8)
    for i, (cmds, src) in enumerate(zip(cases, srcs)):
        length = len(cmds) if cmds else 0x40
        ops += [clear_patterns(),
                pattern(segment(src, length, F_IRQ, 0x410 + i))]
        if cmds:
            ops += [pattern(cmds)]
        ops += [chan_doorbell(0, i + 1)]
    return ops + [reg(CQ_HEAD, len(cases))] + chan_reads(0)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "seeds")
    os.makedirs(out, exist_ok=True)
    for name, fn in SEEDS.items():
        ops = fn()
        for op in ops:
            assert SEP not in op, (name, op)
        data = SEP.join(ops)
        assert len(data) <= 4096, (name, len(data))  # ci/fuzz's -max_len
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(data)
        print(f"{name}.bin: {len(ops)} operations, {len(data)} bytes")


if __name__ == "__main__":
    main()

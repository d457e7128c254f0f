#!/usr/bin/env python3
# make-seeds.py - (re)write the committed seed corpora in corpus/<target>/
# from tests/fixtures/faults/ and a few synthetic VFIO_IOMMU_GET_INFO
# buffers.  Run from anywhere; the output is deterministic.
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))
fixtures = os.path.join(here, '..', 'fixtures', 'faults')


def put(target, name, data):
    d = os.path.join(here, 'corpus', target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def lines(fixture, target, prefix):
    with open(os.path.join(fixtures, fixture), 'rb') as f:
        seen = set()
        for i, line in enumerate(f.read().split(b'\n')):
            if line and line not in seen:
                seen.add(line)
                put(target, '%s-%02d' % (prefix, i + 1), line)


lines('kmsg_6.1.txt', 'fuzz_kmsg_line', 'kmsg')
lines('dmesg_old_formats.txt', 'fuzz_kmsg_line', 'dmesg')
# a pre-4.7 two-line record as /dev/kmsg escapes it
put('fuzz_kmsg_line', 'kmsg-split',
    b'3,400,20300000,-;DMAR:[DMA Read] Request device [00:03.0] fault addr '
    b'903000 \\x0aDMAR:[fault reason 06] PTE Read access is not set')
put('fuzz_kmsg_line', 'syslog',
    b'Nov 29 10:00:00 host kernel: [   20.400000] DMAR: [INTR-REMAP] Request '
    b'device [00:03.0] fault index 0x12 [fault reason 0x25] Blocked a '
    b'compatibility format interrupt request')
lines('qemu_trace.log', 'fuzz_trace_line', 'trace')
lines('journal.jsonl', 'fuzz_journal_line', 'journal')
put('fuzz_journal_line', 'rotated',
    b'{"ev":"rotated","t_ns":20000000000,"pid":321,"bdf":"0000:01:00.0",'
    b'"rotations":2,"faults":17,"bytes":8388820}')

everything = b''
for fx in sorted(os.listdir(fixtures)):
    with open(os.path.join(fixtures, fx), 'rb') as f:
        data = f.read()
    put('fuzz_faultlog', fx, data)
    everything += data
put('fuzz_faultlog', 'mixed', everything)

# struct vfio_iommu_type1_info: argsz, flags, iova_pgsizes, cap_offset, pad
PGSIZES, CAPS = 1 << 0, 1 << 1
IOVA_RANGE, MIGRATION, DMA_AVAIL = 1, 2, 3


def info(flags, caps, pgsizes=0x40201000):
    """caps: [(id, version, body)], chained 8-byte aligned."""
    buf = bytearray(24)
    offs = []
    for cid, ver, body in caps:
        off = (len(buf) + 7) & ~7
        buf += bytes(off - len(buf))
        offs.append(off)
        buf += struct.pack('<HHI', cid, ver, 0) + body
    for i, off in enumerate(offs):
        nxt = offs[i + 1] if i + 1 < len(offs) else 0
        struct.pack_into('<I', buf, off + 4, nxt)
    struct.pack_into('<IIQII', buf, 0, len(buf), flags, pgsizes,
                     offs[0] if offs else 0, 0)
    return bytes(buf)


def ranges(*r):
    return struct.pack('<II', len(r), 0) + b''.join(
        struct.pack('<QQ', s, e) for s, e in r)


q35 = ranges((0, 0xfedfffff), (0xfef00000, 0x7fffffffff))
put('fuzz_iommu_info', 'q35-ranges-avail',
    info(PGSIZES | CAPS, [(IOVA_RANGE, 1, q35),
                          (DMA_AVAIL, 1, struct.pack('<I', 65535))]))
put('fuzz_iommu_info', 'no-caps', info(PGSIZES, []))
put('fuzz_iommu_info', 'migration-then-ranges',
    info(PGSIZES | CAPS, [(MIGRATION, 1, struct.pack('<IQQ', 0, 4096, 1 << 30)),
                          (IOVA_RANGE, 1, ranges((0x1000, 0xffffffff)))]))
put('fuzz_iommu_info', 'many-ranges',
    info(CAPS, [(IOVA_RANGE, 1,
                 ranges(*[(i << 32, (i << 32) + 0xfffff) for i in range(70)]))]))
# argsz larger than the buffer: -EMSGSIZE
b = bytearray(info(PGSIZES | CAPS, [(IOVA_RANGE, 1, q35)]))
struct.pack_into('<I', b, 0, len(b) + 64)
put('fuzz_iommu_info', 'argsz-too-big', bytes(b))

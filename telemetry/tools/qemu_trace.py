# SPDX-License-Identifier: MIT
"""Read QEMU's log trace backend output (ci/vm --trace ... --trace-file F).

With -msg timestamp=on (ci/vm passes it when tracing) each line is

    TID@SECONDS.MICROSECONDS:event_name key value key value ...

as qemu-model/trace-events formats it.  The timestamp is host wall-clock
time from gettimeofday(), the time base of the device's OP_TIMESTAMP
clock (QEMU_CLOCK_REALTIME).  Fields are read by their key words, so an
event may gain fields at its end without breaking a reader:

    "ch 0 sq[12] op 1 req_id 0x7"  -> {"ch": 0, "sq": 12, "op": 1, "req_id": 7}
    "ch 0 sq tail 14 sq head 12"   -> {"ch": 0, "tail": 14, "head": 12}

A key followed by something that is not a number is skipped, as is any
line that is not a trace event (QEMU's own log messages).
"""
import re

_LINE = re.compile(r"^(\d+)@(\d+)\.(\d{6}):([A-Za-z0-9_]+) ?(.*)$")
_INDEXED = re.compile(r"^([A-Za-z_]+)\[(\d+)\]$")


def _number(tok):
    try:
        return int(tok, 0)
    except ValueError:
        return None


def fields(text):
    """The key/value pairs of an event's formatted arguments."""
    out = {}
    toks = text.split()
    i = 0
    while i < len(toks):
        m = _INDEXED.match(toks[i])
        if m:
            out[m.group(1)] = int(m.group(2))
            i += 1
            continue
        if i + 1 < len(toks):
            v = _number(toks[i + 1])
            if v is not None and _number(toks[i]) is None:
                out[toks[i]] = v
                i += 2
                continue
        i += 1
    return out


def parse_line(line):
    """(t_us, tid, event, fields) for a trace line, or None."""
    m = _LINE.match(line.rstrip("\n"))
    if not m:
        return None
    t_us = int(m.group(2)) * 1000000 + int(m.group(3))
    return t_us, int(m.group(1)), m.group(4), fields(m.group(5))


def read(path, prefix="sacc_"):
    """Yield parse_line() tuples of the events named prefix* in a file."""
    with open(path, errors="replace") as f:
        for line in f:
            ev = parse_line(line)
            if ev and ev[2].startswith(prefix):
                yield ev

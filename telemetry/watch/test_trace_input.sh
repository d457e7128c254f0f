#!/bin/sh
# test_trace_input.sh SACCCTL - `saccctl trace --input` decodes records in
# the binary form of include/sacc_watch.h (what /dev/sacc_watch returns):
# a doorbell record with two descriptors, a torn one, a drops record;
# --json, the text form, --pid, and exit status 3 when records were lost.
set -u
saccctl=$1
d=$(mktemp -d /tmp/saccctl-trace.XXXXXX)
trap 'rm -rf "$d"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

python3 - "$d" <<'PY'
import struct, sys
d = sys.argv[1]
def rec(typ, kind, torn, seq, pid, tid, bdf, chan, old, new, value, descs, v64=0):
    body = b"".join(struct.pack("<II", i, il) + struct.pack("<QQIHHII", *raw)
                    for i, il, raw in descs)
    size = 64 + len(body)
    return struct.pack("<IHBBQQIIIHHIIIIQ", size, typ, kind, torn, seq, 5_000_000_123,
                       pid, tid, bdf, chan, 0, old, new, len(descs), value, v64) + body
r = rec(1, 0, 0, 0, 201, 202, 0x0100, 0, 12, 14, 14, [
    (12, 0, (0x1000, 0x3000, 4096, 1, 1, 7, 0)),
    (13, 100, (0, 0x5000, 100, 3, 0, 8, 0xabc))])
r += rec(1, 1, 1, 1, 201, 202, 0x0100, 0xffff, 0, 0, 0, [])
r += rec(2, 0, 0, 3, 0, 0, 0, 0xffff, 0, 0, 0, [], v64=1)
r += rec(1, 1, 0, 4, 300, 300, 0x0100, 1, 3, 4, 1, [(3, 0, (0, 0, 0, 0, 0, 9, 0))])
open(d + "/recs.bin", "wb").write(r)
open(d + "/short.bin", "wb").write(r[:100])
PY

"$saccctl" trace --input "$d/recs.bin" --json >"$d/out.json" 2>"$d/err"
rc=$?
[ $rc = 3 ] || bad "exit $rc with a drops record, want 3"
grep -q 'doorbell records' "$d/err" || bad "no summary on stderr"
python3 - "$d/out.json" <<'PY' || fails=$((fails + 1))
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert [l["type"] for l in lines] == ["doorbell", "doorbell", "drops", "doorbell"], lines
a = lines[0]
assert (a["seq"], a["t_ns"], a["pid"], a["tid"], a["bdf"], a["chan"], a["kind"],
        a["old"], a["new"], a["torn"]) == (0, 5000000123, 201, 202, "0000:01:00.0", 0,
                                          "tail", 12, 14, False), a
d0, d1 = a["descs"]
assert d0 == {"index": 12, "opcode": 1, "flags": 1, "length": 4096, "src": "0x1000",
              "dst": "0x3000", "req_id": 7, "reserved": 0, "inline_len": 0}, d0
assert (d1["opcode"], d1["inline_len"], d1["reserved"], d1["req_id"]) == (3, 100, 0xabc, 8), d1
t = lines[1]
assert t["torn"] is True and t["torn_why"] == "undecoded-store" and t["chan"] is None, t
assert lines[2]["count"] == 1, lines[2]
assert lines[3]["kind"] == "token" and lines[3]["chan"] == 1, lines[3]
PY

"$saccctl" trace --input "$d/recs.bin" --pid 300 --json >"$d/pid.json" 2>/dev/null
[ "$(grep -c '"type":"doorbell"' "$d/pid.json")" = 1 ] || bad "--pid 300: want 1 doorbell record"
grep -q '"pid":300' "$d/pid.json" || bad "--pid 300: wrong record"

"$saccctl" trace --input "$d/recs.bin" >"$d/out.txt" 2>/dev/null
grep -q 'ch 0 tail 12 -> 14, 2 descs' "$d/out.txt" || bad "text: doorbell line"
grep -q 'sq\[13\] op 3 flags 0x0 len 100 .* reserved 0xabc' "$d/out.txt" || bad "text: descriptor line"
grep -q 'TORN: undecoded-store' "$d/out.txt" || bad "text: torn record"
grep -q 'LOST 1 records' "$d/out.txt" || bad "text: drops"

"$saccctl" trace --input "$d/short.bin" >/dev/null 2>"$d/err"
[ $? = 1 ] || bad "a file ending inside a record: want exit 1"
"$saccctl" trace --input "$d/recs.bin" --follow >/dev/null 2>&1
[ $? = 2 ] || bad "--input --follow: want exit 2"

[ $fails = 0 ] && echo "saccctl trace --input: all checks passed"
exit $fails

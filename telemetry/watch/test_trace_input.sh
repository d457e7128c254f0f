#!/bin/sh
# test_trace_input.sh SACCCTL - `saccctl trace --input` decodes records in
# the binary form of include/sacc_watch.h (what /dev/sacc_watch returns):
# a doorbell record with two descriptors, a torn one, a drops record, a
# doorbell with a SEGMENT entry followed by its segment record (two
# commands, one an inline write) and a torn segment record; ABI 3: an
# untraced (syscall) doorbell and a doorbell record of SQ_SIZE - 1 =
# 65535 descriptors (more than an ABI 2 read took);
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
def body_of(descs):
    return b"".join(struct.pack("<II", i, il) + struct.pack("<QQIHHII", *raw)
                    for i, il, raw in descs)
def rec(typ, kind, torn, seq, pid, tid, bdf, chan, old, new, value, descs, v64=0, nseg=0):
    body = body_of(descs)
    size = 64 + len(body)
    return struct.pack("<IHBBQQIIIHHIIIIQ", size, typ, kind, torn, seq, 5_000_000_123,
                       pid, tid, bdf, chan, nseg, old, new, len(descs), value, v64) + body
def seg(where, torn, seq, pid, chan, flags, sq_index, req_id, length, addr, cmds):
    body = body_of(cmds)
    return struct.pack("<IHBBQQIIIHHIIIIQ", 64 + len(body), 5, where, torn, seq,
                       5_000_000_123, pid, pid, 0x0100, chan, flags, sq_index, req_id,
                       len(cmds), length, addr) + body
r = rec(1, 0, 0, 0, 201, 202, 0x0100, 0, 12, 14, 14, [
    (12, 0, (0x1000, 0x3000, 4096, 1, 1, 7, 0)),
    (13, 100, (0, 0x5000, 100, 3, 0, 8, 0xabc))])
r += rec(1, 1, 1, 1, 201, 202, 0x0100, 0xffff, 0, 0, 0, [])
r += rec(2, 0, 0, 3, 0, 0, 0, 0xffff, 0, 0, 0, [], v64=1)
r += rec(1, 1, 0, 4, 300, 300, 0x0100, 1, 3, 4, 1, [(3, 0, (0, 0, 0, 0, 0, 9, 0))])
r += rec(1, 0, 0, 5, 201, 202, 0x0100, 2, 7, 9, 9, [
    (7, 0, (0x40000, 0, 128, 6, 2, 10, 0)), (8, 0, (0x80000, 0, 64, 6, 0, 11, 0))], nseg=2)
r += seg(1, 0, 6, 201, 2, 2, 7, 10, 128, 0x40000, [
    (0, 0, (0x1000, 0x2000, 64, 1, 6, 100, 0)), (1, 40, (0, 0x3000, 40, 3, 0, 101, 0))])
r += seg(0, 7, 7, 201, 2, 0, 8, 11, 64, 0x80000, [])
r += rec(6, 0, 0, 8, 201, 202, 0x0100, 3, 0, 0, 17, [], v64=1)
r += rec(6, 1, 0, 9, 201, 202, 0x0100, 0xffff, 0, 0, 0xffffffff, [], v64=1)
r += rec(1, 0, 0, 10, 201, 202, 0x0100, 4, 40000, 39999, 39999, [
    ((40000 + k) % 65536, 0, (0, 0, 0, 0, 0, 1000 + k, 0)) for k in range(65535)])
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
assert [l["type"] for l in lines] == ["doorbell", "doorbell", "drops", "doorbell",
                                      "doorbell", "segment", "segment", "untraced",
                                      "untraced", "doorbell"], [l["type"] for l in lines]
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
assert lines[4]["nseg"] == 2 and lines[4]["descs"][0]["opcode"] == 6, lines[4]
g = lines[5]
assert (g["seq"], g["chan"], g["sq_index"], g["entry_req_id"], g["where"], g["addr"],
        g["length"], g["flags"], g["torn"]) == (6, 2, 7, 10, "dev", "0x40000", 128, 2,
                                                False), g
c0, c1 = g["cmds"]
assert c0 == {"cmd": 0, "slot": 0, "opcode": 1, "flags": 6, "length": 64, "src": "0x1000",
              "dst": "0x2000", "req_id": 100, "reserved": 0, "inline_len": 0}, c0
assert (c1["cmd"], c1["slot"], c1["opcode"], c1["inline_len"]) == (1, 1, 3, 40), c1
t = lines[6]
assert t["torn"] is True and t["torn_why"] == "segment-unreadable" and t["cmds"] == [], t
u = lines[7]
assert (u["seq"], u["pid"], u["chan"], u["kind"], u["value"], u["why"]) == (
    8, 201, 3, "tail", 17, "syscall"), u
assert "descs" not in u and "torn" not in u, u
u = lines[8]
assert (u["chan"], u["kind"], u["value"], u["why"]) == (None, "token", None, "syscall"), u
b = lines[9]
assert (b["old"], b["new"], len(b["descs"]), b["torn"]) == (40000, 39999, 65535, False), b
assert [d["index"] for d in b["descs"][25535:25537]] == [65535, 0], b["descs"][25535:25537]
assert b["descs"][-1]["index"] == 39998, b["descs"][-1]
assert b["descs"][-1]["req_id"] == 1000 + 65534, b["descs"][-1]
PY

"$saccctl" trace --input "$d/recs.bin" --pid 300 --json >"$d/pid.json" 2>/dev/null
[ "$(grep -c '"type":"doorbell"' "$d/pid.json")" = 1 ] || bad "--pid 300: want 1 doorbell record"
grep -q '"pid":300' "$d/pid.json" || bad "--pid 300: wrong record"
grep -q '"type":"segment"' "$d/pid.json" && bad "--pid 300: another process's segments"
"$saccctl" trace --input "$d/recs.bin" --pid 201 --json 2>/dev/null |
	grep -c '"type":"segment"' | grep -qx 2 || bad "--pid 201: want its 2 segment records"

"$saccctl" trace --input "$d/recs.bin" >"$d/out.txt" 2>/dev/null
grep -q 'ch 0 tail 12 -> 14, 2 descs' "$d/out.txt" || bad "text: doorbell line"
grep -q 'sq\[13\] op 3 flags 0x0 len 100 .* reserved 0xabc' "$d/out.txt" || bad "text: descriptor line"
grep -q 'TORN: undecoded-store' "$d/out.txt" || bad "text: torn record"
grep -q 'LOST 1 records' "$d/out.txt" || bad "text: drops"
grep -q 'segment of sq\[7\] (req_id 10): device memory 0x40000, 128 bytes, 2 commands' "$d/out.txt" ||
	bad "text: segment line"
grep -q '      slot\[1\] op 3 .* req_id 101' "$d/out.txt" || bad "text: segment command line"
grep -q 'TORN: segment-unreadable' "$d/out.txt" || bad "text: torn segment"
grep -q 'ch 3 tail value 17  UNTRACED: syscall doorbell' "$d/out.txt" || bad "text: untraced"
grep -q 'ch 4 tail 40000 -> 39999, 65535 descs$' "$d/out.txt" || bad "text: 65535 descriptors"
"$saccctl" trace --input "$d/recs.bin" >/dev/null 2>"$d/err"
grep -q ', 2 untraced;' "$d/err" || bad "summary: untraced count ($(cat "$d/err"))"

"$saccctl" trace --input "$d/short.bin" >/dev/null 2>"$d/err"
[ $? = 1 ] || bad "a file ending inside a record: want exit 1"
"$saccctl" trace --input "$d/recs.bin" --follow >/dev/null 2>&1
[ $? = 2 ] || bad "--input --follow: want exit 2"
for opts in "--raw --json" "--raw --input $d/recs.bin" "--raw --pid 1" "--raw --count 3"; do
	# shellcheck disable=SC2086
	"$saccctl" trace $opts >/dev/null 2>&1
	[ $? = 2 ] || bad "$opts: want exit 2 (--raw writes every record as read)"
done

[ $fails = 0 ] && echo "saccctl trace --input: all checks passed"
exit $fails

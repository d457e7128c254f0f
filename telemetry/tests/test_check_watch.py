#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit tests of check-watch: each kind of discrepancy is found and fails."""
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(os.path.dirname(HERE), "tools", "check-watch")


def dev_line(ch, d, t=0):
    idx, op, flags, ln, src, dst, req, res = d
    return (f"1234@1700000000.{t:06d}:sacc_desc_fetch ch {ch} sq[{idx}] op {op} "
            f"req_id 0x{req:x} src 0x{src:x} dst 0x{dst:x} len {ln} flags {flags} "
            f"reserved 0x{res:x}\n")


def db_line(ch, tail=None, t=0):
    """The device taking a doorbell: tail (with @tail) or token."""
    if tail is None:
        return f"1234@1700000000.{t:06d}:sacc_doorbell_token ch {ch} sq head 0 ns 1\n"
    return f"1234@1700000000.{t:06d}:sacc_doorbell ch {ch} sq tail {tail} sq head 0 ns 1\n"


def armed(pid=100, watched=("ch0-1", "token", "ch2-3", "ch4-5")):
    return json.dumps({"type": "armed", "pid": pid, "addr": "0x7f0000001000",
                       "watched": list(watched)}) + "\n"


def rec(seq, ch, old, new, descs, pid=100, torn=False, kind="tail"):
    return json.dumps({
        "type": "doorbell", "seq": seq, "t_ns": seq, "pid": pid, "tid": pid,
        "bdf": "0000:01:00.0", "chan": ch, "kind": kind, "old": old, "new": new,
        "descs": [{"index": d[0], "opcode": d[1], "flags": d[2], "length": d[3],
                   "src": hex(d[4]), "dst": hex(d[5]), "req_id": d[6],
                   "reserved": d[7], "inline_len": 0} for d in descs],
        "torn": torn}) + "\n"


def desc(i, req):
    return (i, 1, 0, 64, 0x1000 + 64 * i, 0x9000 + 64 * i, req, 0)


class CheckWatch(unittest.TestCase):
    def run_tool(self, trace, device, *args):
        with tempfile.TemporaryDirectory() as d:
            tp, dp = os.path.join(d, "t.jsonl"), os.path.join(d, "d.trace")
            with open(tp, "w") as f:
                f.write("".join(trace))
            with open(dp, "w") as f:
                f.write("".join(device))
            p = subprocess.run([sys.executable, TOOL, "--json", *args, tp, dp],
                               capture_output=True, text=True)
        counts = json.loads([l for l in p.stdout.splitlines() if l.startswith("{")][0])
        return p.returncode, counts, p.stdout

    def base(self):
        descs = [desc(i, i + 1) for i in range(6)]
        trace = [rec(0, 0, 0, 2, descs[0:2]), rec(1, 0, 2, 3, descs[2:3]),
                 rec(2, 1, 0, 3, descs[3:6])]
        device = [dev_line(0, d) for d in descs[0:3]] + [dev_line(1, d) for d in descs[3:6]]
        return descs, trace, device

    def test_ok(self):
        _, trace, device = self.base()
        rc, c, out = self.run_tool(trace, device, "--min", "6")
        self.assertEqual(rc, 0, out)
        self.assertEqual((c["seen"], c["captured"], c["records"]), (6, 6, 3))
        self.assertIn("check-watch: OK", out)

    def test_too_few(self):
        _, trace, device = self.base()
        rc, _, out = self.run_tool(trace, device, "--min", "7")
        self.assertEqual(rc, 1)
        self.assertIn("too few", out)

    def test_missing(self):
        descs, trace, device = self.base()
        trace[1] = rec(1, 0, 2, 3, [])
        rc, c, _ = self.run_tool(trace, device)
        self.assertEqual((rc, c["missing"], c["extra"]), (1, 1, 0))

    def test_extra(self):
        descs, trace, device = self.base()
        del device[2]
        rc, c, _ = self.run_tool(trace, device)
        self.assertEqual((rc, c["extra"], c["missing"]), (1, 1, 0))

    def test_byte_mismatch(self):
        descs, trace, device = self.base()
        d = list(descs[1])
        d[2] = 1  # flags
        device[1] = dev_line(0, tuple(d))
        rc, c, out = self.run_tool(trace, device)
        self.assertEqual((rc, c["mismatched"]), (1, 1))
        self.assertIn("bytes differ in flags", out)

    def test_out_of_order(self):
        descs, trace, device = self.base()
        device[0], device[1] = device[1], device[0]
        rc, c, _ = self.run_tool(trace, device)
        self.assertEqual(rc, 1)
        self.assertGreater(c["out_of_order"], 0)
        self.assertEqual(c["missing"] + c["extra"], 0)

    def test_torn_lost_discontinuous(self):
        descs, trace, device = self.base()
        rc, c, _ = self.run_tool(trace + [rec(3, 0, 3, 4, [], torn=True)], device)
        self.assertEqual((rc, c["torn"]), (1, 1))
        rc, c, _ = self.run_tool(trace + ['{"type":"drops","count":2}\n'], device)
        self.assertEqual((rc, c["lost"]), (1, 2))
        trace[1] = rec(1, 0, 1, 3, descs[2:3])
        rc, c, _ = self.run_tool(trace, device)
        self.assertEqual((rc, c["discontinuous"]), (1, 1))

    def test_new_mapping_restarts_at_zero(self):
        descs, trace, device = self.base()
        armed = '{"type":"armed","pid":100,"addr":"0x7f0000001000"}\n'
        # the same process maps again: its next doorbell starts at 0
        trace.insert(1, armed)
        trace[2] = rec(1, 0, 0, 3, descs[2:3])
        rc, c, out = self.run_tool([armed] + trace, device)
        self.assertEqual((rc, c["discontinuous"], c["armed"]), (0, 0, 2), out)

    def untraced_stretch(self):
        """Channel 6: a process on its tail doorbell (not watched: four
        debug registers), 300 descriptors, more than check-watch's
        look-ahead, then one on the token doorbell (watched); channel 0
        traced throughout."""
        descs = [desc(i % 64, i + 1) for i in range(310)]
        device = [db_line(0, 2)] + [dev_line(0, d) for d in descs[0:2]]
        device += [db_line(6, 0)] + [dev_line(6, d) for d in descs[2:302]]
        device += [db_line(6), dev_line(6, descs[302]), dev_line(6, descs[303])]
        device += [db_line(0, 3), dev_line(0, descs[304])]
        trace = [armed(100), rec(0, 0, 0, 2, descs[0:2]), armed(101), armed(102),
                 rec(1, 6, 0, 2, descs[302:304], pid=102, kind="token"),
                 rec(2, 0, 2, 3, descs[304:305])]
        return descs, trace, device

    def test_untraced_doorbells_are_not_errors(self):
        _, trace, device = self.untraced_stretch()
        rc, c, out = self.run_tool(trace, device, "--min", "5")
        self.assertEqual(rc, 0, out)
        self.assertEqual((c["seen"], c["untraced"], c["captured"]), (305, 300, 5), out)
        self.assertEqual(c["untraced_by"], {"ch6 tail": 300})
        for k in ("missing", "extra", "out_of_order", "mismatched"):
            self.assertEqual(c[k], 0, out)
        self.assertIn("ch6 tail 300", out)
        # --min counts traced descriptors only
        rc, _, out = self.run_tool(trace, device, "--min", "6")
        self.assertEqual(rc, 1, out)
        self.assertIn("too few", out)

    def test_traced_doorbell_missed_is_still_missing(self):
        descs, trace, device = self.untraced_stretch()
        # the token doorbell's second descriptor was not captured
        trace[4] = rec(1, 6, 0, 2, descs[302:303], pid=102, kind="token")
        rc, c, out = self.run_tool(trace, device)
        self.assertEqual((rc, c["missing"], c["untraced"]), (1, 1, 300), out)

    def test_register_taken_makes_its_word_untraced(self):
        descs = [desc(i, i + 1) for i in range(3)]
        device = [db_line(2, 2)] + [dev_line(2, d) for d in descs[0:2]]
        device += [db_line(0, 1), dev_line(0, descs[2])]
        # a debugger held the register for channels 2-3 in every mapping
        trace = [armed(watched=("ch0-1", "token", "ch4-5")), rec(0, 0, 0, 1, descs[2:3])]
        rc, c, out = self.run_tool(trace, device)
        self.assertEqual((rc, c["untraced"], c["missing"]), (0, 2, 0), out)
        # watched by one mapping and not the other: compared, with a note
        trace.insert(0, armed(pid=99))
        rc, c, out = self.run_tool(trace, device)
        self.assertEqual((rc, c["untraced"], c["missing"]), (1, 0, 2), out)
        self.assertIn("watched by some mappings only", out)


def enable_line(ch, size, t=0):
    return (f"1234@1700000000.{t:06d}:sacc_enable ch {ch} mode 0x1 sq 0x100000/{size} "
            f"cq 0x200000/256 put_addr 0x0\n")


def untraced(ch, value, pid=100, kind="tail"):
    return json.dumps({"type": "untraced", "seq": 0, "t_ns": 0, "pid": pid, "tid": pid,
                       "bdf": "0000:01:00.0", "chan": ch, "kind": kind, "value": value,
                       "why": "syscall"}) + "\n"


def ring(ch, size, doorbells, first_req=1, pid=100, seq0=0, enable=True):
    """Doorbells of @doorbells descriptors each on a ring of @size slots,
    from slot 0: the device's trace and the tracer's records."""
    device = [enable_line(ch, size)] if enable else []
    trace, tail, req = [], 0, first_req
    for k, n in enumerate(doorbells):
        descs = [desc_in(ch, (tail + m) % size, req + m) for m in range(n)]
        new = (tail + n) % size
        device.append(db_line(ch, new))
        device += [dev_line(ch, d) for d in descs]
        trace.append(rec(seq0 + k, ch, tail, new, descs, pid=pid))
        tail, req = new, req + n
    return trace, device


def desc_in(ch, slot, req):
    return (slot, 0, 0, 0, 0x1000 * ch, 0, req, 0)


def counts(c, *keys):
    return tuple(c[k] for k in keys)


JOIN = ("missing", "extra", "out_of_order", "mismatched")


class CheckWatchJoin(unittest.TestCase):
    """A torn, truncated or lost record never shifts the join; syscall
    doorbells are untraced; each summary line has its own verdict."""
    run_tool = CheckWatch.run_tool

    def truncated(self, enable=True):
        # ABI 2: a doorbell of 2000 descriptors cut at max_descs 1024,
        # on a ring of 4096, between whole ones (the 2000 wrap it)
        trace, device = ring(0, 4096, [3, 2000, 2000, 2000, 5, 2000], enable=enable)
        r = json.loads(trace[2])
        r["descs"], r["torn"], r["torn_why"] = r["descs"][:1024], True, "truncated"
        trace[2] = json.dumps(r) + "\n"
        return [armed()] + trace, device

    def test_truncated_record_does_not_shift_the_join(self):
        for enable in (True, False):
            trace, device = self.truncated(enable)
            rc, c, out = self.run_tool(trace, device)
            self.assertEqual(rc, 1, out)
            self.assertEqual(counts(c, "torn", "torn_descs", "discontinuous") + counts(c, *JOIN),
                             (1, 976, 0, 0, 0, 0, 0), (enable, out))
            self.assertEqual(c["captured"], 8008 - 976, out)
            self.assertIn("FAIL (torn)", out)
            self.assertIn("torn 1 (976 descriptors in them)", out)

    def test_untraced_store_covered_by_the_next_record(self):
        # a torn record that did not move the tracer's shadow (the store
        # was not decoded): the next record holds its descriptors
        trace, device = ring(0, 256, [3, 4, 5])
        del trace[1]
        trace.insert(1, json.dumps({"type": "doorbell", "seq": 1, "pid": 100, "tid": 100,
                                    "chan": None, "kind": "tail", "old": 0, "new": 0,
                                    "value": 0, "descs": [], "torn": True,
                                    "torn_why": "undecoded-store"}) + "\n")
        r = json.loads(trace[2])
        r["old"] = 3
        r["descs"] = [list(json.loads(rec(0, 0, 3, 7, [desc_in(0, 3 + m, 4 + m)
                                                      for m in range(4)]))["descs"])][0] + \
            r["descs"]
        trace[2] = json.dumps(r) + "\n"
        rc, c, out = self.run_tool(trace, device)
        self.assertEqual(counts(c, "torn", "torn_descs", "discontinuous") + counts(c, *JOIN),
                         (1, 0, 0, 0, 0, 0, 0), out)

    def test_lost_records_are_lost_not_missing(self):
        # two doorbells of 1023 lost: round the ring of 1024 twice
        trace, device = ring(0, 1024, [10, 1023, 1023, 7])
        trace[1:3] = ['{"type":"drops","seq":1,"count":2}\n']
        rc, c, out = self.run_tool(trace, device)
        self.assertEqual(counts(c, "lost", "lost_descs", "discontinuous") + counts(c, *JOIN),
                         (2, 2046, 0, 0, 0, 0, 0), out)
        self.assertIn("FAIL (lost)", out)

    def test_a_gap_wider_than_a_window_is_missing_once(self):
        # a record the tracer has not: 3000 descriptors missing, exactly,
        # and what follows still joined in order
        trace, device = ring(0, 8192, [5, 3000, 2, 700])
        del trace[1]
        r = json.loads(trace[1])
        r["old"] = 5
        trace[1] = json.dumps(r) + "\n"
        rc, c, out = self.run_tool(trace, device)
        self.assertEqual(counts(c, "missing", "extra", "out_of_order", "mismatched"),
                         (3000, 0, 0, 0), out)
        self.assertEqual(c["discontinuous"], 0, out)

    def test_whole_ring_doorbells(self):
        # SQ_SIZE - 1 = 65535 descriptors a doorbell, wrapping
        trace, device = ring(0, 65536, [1, 65535, 1025])
        rc, c, out = self.run_tool([armed()] + trace, device, "--min", "66561")
        self.assertEqual(rc, 0, out)
        self.assertEqual((c["big_records"], c["max_ndesc"], c["captured"]),
                         (2, 65535, 66561), out)

    def test_sizes(self):
        trace, device = ring(0, 2048, [1, 1023, 1024, 1025])
        t1, d1 = ring(1, 2048, [1, 1023], first_req=5000)
        t1 = [l.replace('"kind": "tail"', '"kind": "token"') for l in t1]
        d1 = [l.replace("sacc_doorbell ch 1 sq tail", "sacc_doorbell_token ch 1 x")
              for l in d1]
        rc, c, out = self.run_tool(trace + t1, device + d1, "--sizes", "1,1023")
        self.assertEqual(rc, 0, out)
        rc, c, out = self.run_tool(trace + t1, device + d1, "--sizes", "1,1023,1024")
        self.assertEqual(rc, 1, out)
        self.assertIn("FAIL (no token record of 1024)", out)

    def syscall(self, with_records):
        # process 100 rings channel 0 with pwrite (no store to trap), 290
        # descriptors in 61 doorbells; process 101 rings it mapped
        dbs = [4, 5, 6, 5, 4] * 12 + [2]
        t0, d0 = ring(0, 256, dbs)
        t1, d1 = ring(0, 256, [7, 9], first_req=1000, pid=101)
        trace = [armed(100)]
        if with_records:
            tail = 0
            for n in dbs:
                tail = (tail + n) % 256
                trace.append(untraced(0, tail))
        return trace + [armed(101)] + t1, d0 + d1

    def test_syscall_doorbells_coalesced_by_the_device(self):
        # the device's lockless doorbell logs the last tail written
        # before it acts: sacc_doorbell events for some doorbells only
        # (three written before it acts: the last one's event, then the
        # three's fetches)
        trace, device = self.syscall(True)
        groups, head = [], []
        for l in device:
            if "sacc_doorbell ch 0" in l:
                groups.append([l])
            elif groups:
                groups[-1].append(l)
            else:
                head.append(l)
        kept = list(head)
        for k in range(0, 61, 3):  # the syscall process's 61 doorbells
            g = groups[k:min(k + 3, 61)]
            kept += [g[-1][0]] + [l for x in g for l in x[1:]]
        for g in groups[61:]:
            kept += g
        self.assertEqual(sum("sacc_doorbell ch 0" in l for l in kept), 21 + 2)
        rc, c, out = self.run_tool(trace, kept)
        self.assertEqual((rc, c["untraced"], c["missing"]), (0, 290, 0), out)

    def test_syscall_doorbell_writes(self):
        # with sacc_mmio_write, each doorbell write pairs with its record
        trace, device = self.syscall(True)
        writes = []
        for l in device:
            m = re.search(r"sacc_doorbell ch (\d+) sq tail (\d+)", l)
            if m:
                writes.append("1234@1700000000.000000:sacc_mmio_write bar 0 addr 0x%x "
                              "size 4 val 0x%x\n" % (0x1000 + 4 * int(m.group(1)),
                                                     int(m.group(2))))
                if int(m.group(2)) % 3:  # and the device's own events coalesced
                    continue
            writes.append(l)
        rc, c, out = self.run_tool(trace, writes)
        self.assertEqual((rc, c["untraced"], c["missing"]), (0, 290, 0), out)
        # a write without its record is not untraced
        trace.pop(5)
        rc, c, out = self.run_tool(trace, writes)
        self.assertEqual((rc, c["untraced"], c["missing"]), (1, 286, 4), out)

    def test_syscall_doorbells_are_untraced(self):
        trace, device = self.syscall(True)
        rc, c, out = self.run_tool(trace, device)
        self.assertEqual(rc, 0, out)
        self.assertEqual((c["untraced"], c["untraced_by"], c["untraced_records"]),
                         (290, {"ch0 syscall": 290}, 61), out)
        self.assertEqual(counts(c, *JOIN), (0, 0, 0, 0), out)
        self.assertIn("290 untraced: ch0 syscall 290", out)
        # without the module's untraced records they are missing (issue 31)
        trace, device = self.syscall(False)
        rc, c, out = self.run_tool(trace, device)
        self.assertEqual((rc, c["missing"], c["untraced"]), (1, 290, 0), out)

    def test_each_line_has_its_own_verdict(self):
        trace, device = fixture()
        d = next(r for r in trace if r["type"] == "doorbell")
        d["descs"][0]["flags"] = 5  # a descriptor byte, no segment column
        rc, c, out = self.run_tool(lines(trace), device)
        self.assertEqual((rc, c["mismatched"]), (1, 1), out)
        self.assertIn("check-watch: FAIL (mismatched)", out)
        self.assertIn("check-watch: segments: OK", out)


TORN_SYSCALL = os.path.join(HERE, "fixtures", "watch-torn-syscall")


def torn_syscall():
    """A real boot (ci/vm with sacc_desc_fetch, sacc_doorbell*,
    sacc_mmio_write, sacc_enable and resets traced): an ABI 2 module
    (max_descs 1024) tracing `saccctl bench --op nop --batch 1500`, one
    doorbell of 1500 NOPs cut to a torn "truncated" record of 1024, and
    127 doorbells of 2; then the ABI 3 module with `saccctl bench
    --doorbell syscall --batch 4` (127 untraced records, 508 NOPs) and 85
    traced doorbells of 3, all on channel 0.  (The ABI 2 check-watch read
    it as missing 2008, out of order 254.)"""
    out = []
    for name in ("trace.jsonl.gz", "device.trace.gz"):
        with gzip.open(os.path.join(TORN_SYSCALL, name), "rt") as f:
            out.append(f.readlines())
    return out


class CheckWatchRealBoot(unittest.TestCase):
    run_tool = CheckWatch.run_tool

    def test_truncated_and_syscall(self):
        trace, device = torn_syscall()
        rc, c, out = self.run_tool(trace, device)
        self.assertEqual(rc, 1, out)
        self.assertIn("check-watch: FAIL (torn):", out)
        self.assertEqual(counts(c, "seen", "captured", "torn", "torn_descs", "untraced"),
                         (2517, 1533, 1, 476, 508), out)
        self.assertEqual(c["untraced_by"], {"ch0 syscall": 508}, out)
        self.assertEqual(counts(c, "discontinuous", "lost") + counts(c, *JOIN),
                         (0, 0, 0, 0, 0, 0), out)

    def test_without_the_doorbell_writes(self):
        # the device's own doorbell events only: the same verdict
        trace, device = torn_syscall()
        device = [l for l in device if "sacc_mmio_write" not in l]
        rc, c, out = self.run_tool(trace, device)
        self.assertEqual(counts(c, "torn_descs", "untraced") + counts(c, *JOIN),
                         (476, 508, 0, 0, 0, 0), out)

    def test_without_untraced_records_syscall_is_missing(self):
        trace, device = torn_syscall()
        trace = [l for l in trace if '"untraced"' not in l]
        rc, c, out = self.run_tool(trace, device)
        self.assertEqual(counts(c, "missing", "untraced", "out_of_order"), (508, 0, 0), out)


FIXTURE = os.path.join(HERE, "fixtures", "watch-segment")


def fixture():
    """A real excerpt (sacc-watch-segments, ci/watch-integrity's boot):
    the tracer's records and the device's trace of channels 0 (SQ in
    host memory, tail doorbell), 2 (SQ in device memory, tail) and 4
    (token doorbell): two segment launches each, in host and device
    memory, 276 commands with inline writes among them."""
    trace = [json.loads(l) for l in open(os.path.join(FIXTURE, "trace.jsonl"))]
    device = open(os.path.join(FIXTURE, "device.trace")).read().splitlines(True)
    return trace, device


def lines(recs):
    return [json.dumps(r) + "\n" for r in recs]


def segments(trace):
    return [r for r in trace if r["type"] == "segment"]


class CheckWatchSegments(unittest.TestCase):
    run_tool = CheckWatch.run_tool

    def test_fixture_ok(self):
        trace, device = fixture()
        rc, c, out = self.run_tool(lines(trace), device, "--min-cmds", "276")
        self.assertEqual(rc, 0, out)
        self.assertEqual((c["dev_segments"], c["seg_records"], c["cmds_seen"],
                          c["cmds_captured"]), (6, 6, 276, 276), out)
        for k in ("cmds_missing", "cmds_extra", "cmds_out_of_order", "cmds_mismatched",
                  "seg_torn", "seg_orphans", "cmds_not_run"):
            self.assertEqual(c[k], 0, (k, out))
        self.assertIn("check-watch: segments: OK", out)
        self.assertTrue(any(r["where"] == "dev" for r in segments(trace)))
        self.assertTrue(any(r["where"] == "host" for r in segments(trace)))
        self.assertTrue(any(d["opcode"] == 3 and d["inline_len"]
                            for r in segments(trace) for d in r["cmds"]))
        rc, _, out = self.run_tool(lines(trace), device, "--min-cmds", "277")
        self.assertEqual(rc, 1, out)
        self.assertIn("too few commands", out)

    def test_mutant_skips_a_command(self):
        # what a module that lost one command of a segment would record
        trace, device = fixture()
        del segments(trace)[1]["cmds"][5]
        rc, c, out = self.run_tool(lines(trace), device)
        self.assertEqual((rc, c["cmds_missing"], c["cmds_extra"]), (1, 1, 0), out)
        self.assertIn("cmds_missing", out)

    def test_extra_command(self):
        trace, device = fixture()
        g = segments(trace)[2]
        g["cmds"].append(dict(g["cmds"][0], req_id=0x7fffffff))
        rc, c, out = self.run_tool(lines(trace), device)
        self.assertEqual((rc, c["cmds_extra"], c["cmds_missing"]), (1, 1, 0), out)

    def test_commands_out_of_order(self):
        trace, device = fixture()
        cmds = segments(trace)[0]["cmds"]
        cmds[3], cmds[4] = cmds[4], cmds[3]
        rc, c, out = self.run_tool(lines(trace), device)
        self.assertEqual(rc, 1, out)
        self.assertEqual((c["cmds_out_of_order"], c["cmds_missing"], c["cmds_extra"]),
                         (1, 0, 0), out)

    def test_byte_mismatch(self):
        for field, value in (("dst", "0x1"), ("opcode", 5), ("flags", 7), ("length", 3),
                             ("src", "0x10")):
            trace, device = fixture()
            segments(trace)[3]["cmds"][0][field] = value
            rc, c, out = self.run_tool(lines(trace), device)
            self.assertEqual((rc, c["cmds_mismatched"]), (1, 1), (field, out))
            self.assertIn("bytes differ in " + field, out)

    def test_torn_segment(self):
        trace, device = fixture()
        g = segments(trace)[1]
        n = len(g["cmds"])
        g.update(cmds=[], torn=True, torn_why="segment-unreadable")
        rc, c, out = self.run_tool(lines(trace), device)
        # its commands are in a torn record, not missing; the rest match
        self.assertEqual((rc, c["seg_torn"], c["cmds_torn"], c["cmds_missing"],
                          c["cmds_out_of_order"]), (1, 1, n, 0, 0), out)
        self.assertIn("segments: FAIL (seg_torn)", out)
        self.assertIn("check-watch: OK", out)  # the descriptors' line

    def test_orphan_segment_record(self):
        trace, device = fixture()
        i = next(k for k, r in enumerate(trace) if r["type"] == "segment")
        trace.insert(i - 1, trace.pop(i))  # before its doorbell record
        rc, c, out = self.run_tool(lines(trace), device)
        self.assertEqual(rc, 1, out)
        self.assertGreater(c["seg_orphans"], 0, out)

    def test_lost(self):
        trace, device = fixture()
        rc, c, out = self.run_tool(lines(trace) + ['{"type":"drops","count":2}\n'], device)
        self.assertEqual((rc, c["lost"]), (1, 2), out)

    def test_failed_command_stops_the_segment(self):
        # the device failed command 4 of the first segment: 5 ran, the
        # tracer's later commands did not run (not an error)
        trace, device = fixture()
        g = segments(trace)[0]
        entry = g["entry_req_id"]
        out_dev, k = [], 0
        for l in device:
            if f"sacc_segment_cmd ch {g['chan']} entry 0x{entry:x} " in l:
                k += 1
                if k > 5:
                    continue
            if f"sacc_segment_done ch {g['chan']} req_id 0x{entry:x} " in l:
                l = l.replace("status 0 result_len %d" % len(g["cmds"]),
                              "status 2 result_len 4")
            out_dev.append(l)
        rc, c, out = self.run_tool(lines(trace), out_dev)
        self.assertEqual(rc, 0, out)
        self.assertEqual((c["cmds_not_run"], c["cmds_missing"], c["cmds_extra"]),
                         (len(g["cmds"]) - 5, 0, 0), out)
        # cut short by a channel reset (no done): not run either
        reset = [l.replace(l[l.index("sacc_segment_done"):],
                           "sacc_chan_reset ch %d\n" % g["chan"])
                 if "status 2 result_len 4" in l else l for l in out_dev]
        rc, c, out = self.run_tool(lines(trace), reset)
        self.assertEqual((rc, c["cmds_not_run"]), (0, len(g["cmds"]) - 5), out)
        # neither a done nor a reset: the commands the device did not run
        # are the tracer's extra
        out_dev = [l for l in out_dev if "status 2 result_len 4" not in l]
        rc, c, out = self.run_tool(lines(trace), out_dev)
        self.assertEqual((rc, c["cmds_extra"]), (1, len(g["cmds"]) - 5), out)

    def test_untraced_segments(self):
        # channel 4's doorbells were not watched (a register taken):
        # its segments' commands are untraced, not missing
        trace, device = fixture()
        trace = [r for r in trace if r.get("chan") != 4]
        trace[0]["watched"] = ["ch0-1", "ch2-3", "ch4-5"]
        rc, c, out = self.run_tool(lines(trace), device)
        self.assertEqual(rc, 0, out)
        self.assertEqual((c["cmds_untraced"], c["cmds_missing"]), (189, 0), out)
        self.assertEqual(c["cmds_untraced_by"], {"ch4 token": 189})


if __name__ == "__main__":
    unittest.main()

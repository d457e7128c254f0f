#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit tests of check-watch: each kind of discrepancy is found and fails."""
import json
import os
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
            open(tp, "w").write("".join(trace))
            open(dp, "w").write("".join(device))
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
        self.assertEqual((rc, c["seg_torn"], c["cmds_missing"]), (1, 1, n), out)

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

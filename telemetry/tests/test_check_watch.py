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


def rec(seq, ch, old, new, descs, pid=100, torn=False):
    return json.dumps({
        "type": "doorbell", "seq": seq, "t_ns": seq, "pid": pid, "tid": pid,
        "bdf": "0000:01:00.0", "chan": ch, "kind": "tail", "old": old, "new": new,
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


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit tests of check-poll: submissions a poller saw alone, merged with
another, torn or missed, against a device trace (tail and token
doorbells, a ring that wraps, two runs)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(os.path.dirname(HERE), "tools", "check-poll")


def fetch(ch, slot, req, length=0):
    return (f"1@1.000001:sacc_desc_fetch ch {ch} sq[{slot}] op 0 req_id 0x{req:x} src 0x0 "
            f"dst 0x0 len {length} flags 0 reserved 0x0\n")


def enable(ch, size=4, mode=2):
    return (f"1@1.000001:sacc_enable ch {ch} mode 0x{mode:x} sq 0x1000/{size} cq 0x5000/{size} "
            "put_addr 0x0\n")


def tail(ch, t):
    return f"1@1.000001:sacc_doorbell ch {ch} sq tail {t} sq head 0 ns 5\n"


def put(ch, t):
    return (f"1@1.000001:sacc_doorbell_token ch {ch} sq head 0 ns 5\n"
            f"1@1.000001:sacc_put_read ch {ch} put_addr 0xf000 sq tail {t} sq head 0\n")


def seen(sample, ch, slot, req, length=0):
    return json.dumps({"type": "poll_desc", "sample": sample, "chan": ch, "slot": slot,
                       "opcode": 0, "flags": 0, "length": length, "src": "0x0",
                       "dst": "0x0", "req_id": req, "reserved": 0}) + "\n"


DONE = '{"type":"poll_done","hz":1000,"samples":9,"achieved_hz":990,"max_gap_ns":2000000,' \
       '"gaps_over_1ms":1}\n'


class CheckPoll(unittest.TestCase):
    def run_tool(self, poll, device, *args):
        with tempfile.TemporaryDirectory() as d:
            pp, dp = os.path.join(d, "p.jsonl"), os.path.join(d, "d.trace")
            open(pp, "w").write("".join(poll))
            open(dp, "w").write("".join(device))
            p = subprocess.run([sys.executable, TOOL, "--json", *args, pp, dp],
                               capture_output=True, text=True)
        lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
        return p.returncode, json.loads(lines[0]) if lines else None, p.stdout + p.stderr

    def device(self):
        # channel 0, a ring of 4: doorbells of 1, 2, 1, 1, 1 descriptors
        # (the ring wraps); channel 1 on the token doorbell: 2
        return [enable(0), tail(0, 1), fetch(0, 0, 1), tail(0, 3), fetch(0, 1, 2),
                fetch(0, 2, 3), tail(0, 0), fetch(0, 3, 4), tail(0, 1), fetch(0, 0, 5),
                tail(0, 2), fetch(0, 1, 6), enable(1, mode=3), put(1, 2), fetch(1, 0, 1),
                fetch(1, 1, 2)]

    def test_kinds(self):
        poll = [seen(1, 0, 0, 1), seen(2, 0, 1, 2), seen(2, 0, 2, 3),  # alone, alone
                seen(3, 0, 3, 4), seen(3, 0, 0, 5),                    # merged
                seen(4, 0, 1, 6, length=9),                            # torn
                seen(5, 1, 0, 1), DONE]                                # ch1: 1 of 2 missed
        rc, c, out = self.run_tool(poll, self.device())
        self.assertEqual(rc, 0, out)
        self.assertEqual((c["submissions"], c["alone"], c["merged"], c["torn"], c["missed"]),
                         (6, 2, 2, 1, 1), out)
        self.assertEqual((c["descs"], c["whole"], c["torn_descs"], c["missed_descs"]),
                         (8, 6, 1, 1), out)
        self.assertIn("longest gap 2.0 ms", out)

    def test_runs(self):
        # a second process: its own run, its own req_ids from 1
        dev = self.device() + [enable(0), tail(0, 1), fetch(0, 0, 1)]
        rc, c, out = self.run_tool([seen(1, 0, 0, 1), DONE], dev, "--run", "2")
        self.assertEqual((rc, c["submissions"], c["alone"]), (0, 1, 1), out)
        rc, _, out = self.run_tool([DONE], dev, "--run", "3")
        self.assertEqual(rc, 2, out)


if __name__ == "__main__":
    unittest.main()

# SPDX-License-Identifier: MIT
"""telemetry/tools/qemu_trace.py on tests/fixtures/qemu_trace/lines.txt.

The C reader of the same lines, faultlog's sacc_trace_parse_line(), is
checked on the same file by tests/unit/faultlog/trace.c (test_trace_shared):
one fixture, so the two readers cannot drift apart unseen.
"""
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "qemu_trace", "lines.txt")
sys.path.insert(0, os.path.join(ROOT, "telemetry", "tools"))
import qemu_trace  # noqa: E402


def cases():
    """(line, expected) pairs: expected is None or a dict of the '=' line."""
    out, line = [], None
    with open(FIXTURE) as f:
        for raw in f:
            raw = raw.rstrip("\n")
            if raw.startswith("#") or not raw:
                continue
            if not raw.startswith("= "):
                line = raw
                continue
            toks = raw[2:].split()
            want = None
            if toks != ["none"]:
                want = dict(zip(toks[0::2], toks[1::2]))
            out.append((line, want))
            line = None
    return out


class QemuTraceFixture(unittest.TestCase):
    def test_every_line(self):
        got_cases = cases()
        self.assertGreaterEqual(len(got_cases), 10)
        for line, want in got_cases:
            with self.subTest(line=line):
                ev = qemu_trace.parse_line(line + "\n")
                if want is None:
                    self.assertIsNone(ev)
                    continue
                t_us, tid, event, fields = ev
                self.assertEqual(tid, int(want.pop("tid")))
                self.assertEqual(t_us, int(want.pop("t_us")))
                self.assertEqual(event, want.pop("event"))
                self.assertEqual(fields,
                                 {k: int(v, 0) for k, v in want.items()})


if __name__ == "__main__":
    unittest.main()

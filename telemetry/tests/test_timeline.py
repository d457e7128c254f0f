# SPDX-License-Identifier: MIT
"""telemetry/tools/sacc-timeline on the fixtures in telemetry/tests/fixtures/timeline.

device.trace is real ci/vm trace output (memcpy, write-inline, a DMA
fault, OP_TIMESTAMP with MSI-X, a token doorbell on channel 1); api.jsonl
and watch.jsonl are written by hand to the formats of
docs/telemetry.md (the guest clock there is host - 8700000123456
ns, and the second of three sync samples has the shortest round trip).
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "telemetry", "tools", "sacc-timeline")
FIX = os.path.join(ROOT, "telemetry", "tests", "fixtures", "timeline")
DEVICE = os.path.join(FIX, "device.trace")
API = os.path.join(FIX, "api.jsonl")
WATCH = os.path.join(FIX, "watch.jsonl")
sys.path.insert(0, os.path.dirname(TOOL))
import qemu_trace  # noqa: E402
import importlib.util  # noqa: E402
from importlib.machinery import SourceFileLoader  # noqa: E402

# the tool itself, for its check() (its file name has no .py)
_spec = importlib.util.spec_from_file_location(
    "timeline", TOOL, loader=SourceFileLoader("timeline", TOOL))
timeline = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(timeline)

DEVICE_PID = 1000000


def run(*args):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "t.json")
        p = subprocess.run([sys.executable, TOOL, *args, "-o", out],
                           capture_output=True, text=True)
        doc = None
        if p.returncode == 0:
            with open(out) as f:
                doc = json.load(f)
        return p.returncode, doc, p.stderr


def names(doc, kind):
    return {(e["pid"], e["tid"]) if kind == "thread_name" else e["pid"]:
            e["args"]["name"] for e in doc["traceEvents"]
            if e["ph"] == "M" and e["name"] == kind}


def check_structure(t, doc):
    """What Perfetto's and chrome://tracing's JSON importers rely on
    (sacc-timeline's own check()), and what the tool promises beyond."""
    t.assertEqual(timeline.check(doc), [])
    t.assertEqual(doc["displayTimeUnit"], "ns")
    for e in doc["traceEvents"]:
        if e["ph"] == "i":
            t.assertIn(e["s"], "tpg")


class Timeline(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rc, cls.doc, cls.err = run("--device-trace", DEVICE, "--api",
                                       API, "--watch", WATCH)

    def ev(self, **k):
        return [e for e in self.doc["traceEvents"]
                if all(e.get(a) == v for a, v in k.items())]

    def test_loads_and_is_well_formed(self):
        self.assertEqual(self.rc, 0, self.err)
        check_structure(self, self.doc)

    def test_tracks(self):
        procs = names(self.doc, "process_name")
        self.assertEqual(procs[DEVICE_PID], "SACC device")
        self.assertEqual(procs[201], "guest pid 201 (saccctl)")
        self.assertEqual(procs[202], "guest pid 202 (saccctl)")
        self.assertEqual(procs[204], "guest pid 204")   # watch record only
        self.assertIn("clock sync", procs[1000001])
        self.assertEqual(len(procs), 5)
        threads = names(self.doc, "thread_name")
        self.assertEqual(sorted(n for (p, _), n in threads.items()
                                if p == DEVICE_PID),
                         ["channel 0", "channel 1"])
        self.assertEqual(sorted(tid for (p, tid) in threads if p < 1000000),
                         [201, 202, 203, 204])
        self.assertEqual(len(threads), 7)
        self.assertIn("7 tracks in 5 processes", self.err)

    def test_device_ops(self):
        ops = [e for e in self.ev(ph="X", cat="op", pid=DEVICE_PID)
               if e["name"] != "execute"]
        self.assertEqual(len(ops), 11)
        self.assertEqual(len(self.ev(ph="X", name="execute")), 11)
        by = {}
        for e in ops:
            by[e["name"]] = by.get(e["name"], 0) + 1
        self.assertEqual(by, {"MEMCPY 4 KiB": 5, "WRITE_INLINE 256 B": 2,
                              "TIMESTAMP": 2, "MEMCPY 64 KiB": 2})
        ch1 = [e for e in ops if e["tid"] == 1000101]
        self.assertEqual(len(ch1), 2)
        # args carry the descriptor and the CQE
        first = ops[0]
        self.assertEqual(first["args"]["req_id"], "0x1")
        self.assertEqual(first["args"]["engine_ns"], 56954)
        self.assertEqual(first["args"]["dst"], "0xe000")
        failed = [e for e in ops if e["args"].get("status") == 2]
        self.assertEqual(len(failed), 1)
        self.assertEqual(failed[0]["args"]["dst"], "0x40000000")

    def test_exact_device_times(self):
        # an "ns" field is the device clock: ts and dur are exact
        base = self.doc["otherData"]["base_host_mono_ns"]
        ex = self.ev(ph="X", name="execute")[0]
        self.assertAlmostEqual(ex["ts"], (8744896968165 - base) / 1e3,
                               places=3)
        self.assertAlmostEqual(ex["dur"], (8744896989156 -
                                           8744896968165) / 1e3, places=3)
        db = self.ev(ph="i", cat="doorbell", name="doorbell tail 4")[0]
        self.assertAlmostEqual(db["ts"], (8744896863146 - base) / 1e3,
                               places=3)
        # the earliest event sets the base: the first channel enable (a
        # reset before it is boot noise, left out)
        first = [e for e in self.doc["traceEvents"] if e["ph"] != "M"][0]
        self.assertEqual((first["name"], first["ts"]), ("channel enable", 0))
        self.assertEqual(len(self.ev(name="device reset")), 0)
        self.assertIn("resets before the first enable (left out) 1",
                      self.err)

    def test_summary(self):
        m = re.search(r"device: op fetch to CQE post median ([0-9.]+) us, "
                      r"executing ([0-9.]+) us; doorbell to the next fetch "
                      r"on its channel over 5 doorbells: min ([0-9.]+) us",
                      self.err)
        self.assertIsNotNone(m, self.err)
        # 11 ops: the median execute is the 6th of the op_end - op_start
        ex = sorted(e["dur"] for e in self.ev(ph="X", name="execute"))
        self.assertEqual(float(m.group(2)), round(ex[5], 1))
        self.assertGreater(float(m.group(3)), 0)

    def test_instants(self):
        self.assertEqual(len(self.ev(ph="i", cat="doorbell",
                                     pid=DEVICE_PID)), 5 + 1)  # + PUT read
        irqs = self.ev(ph="i", cat="irq")
        self.assertEqual([e["name"] for e in irqs], ["MSI-X 0"] * 2)
        faults = self.ev(ph="i", cat="fault")
        self.assertEqual(len(faults), 1, "the two trace lines of one fault "
                         "are one instant")
        self.assertEqual(faults[0]["name"], "DMA fault: destination write (write)")
        self.assertEqual(faults[0]["tid"], 1000100)
        self.assertEqual(faults[0]["args"]["addr"], "0x40000000")
        # within its op
        op = [e for e in self.ev(ph="X", cat="op")
              if e["args"].get("status") == 2][0]
        self.assertTrue(op["ts"] <= faults[0]["ts"] <= op["ts"] + op["dur"])

    def test_alignment_arithmetic(self):
        o = self.doc["otherData"]
        # sample 2: device 8772165004839, guest before/after
        # g(dev) - 25000 and g(dev) + 35000 with g(h) = h - 8700000123456
        g = 8772165004839 - 8700000123456
        mid = ((g - 25000) + (g + 35000)) // 2
        self.assertEqual(o["guest_offset_ns"], 8772165004839 - mid)
        self.assertEqual(o["guest_offset_ns"], 8700000118456)
        self.assertEqual(o["guest_offset_error_ns"], 30000)
        self.assertEqual(o["sync_samples"], 3)
        self.assertIn("host = guest + 8700000118456 ns", self.err)
        self.assertIn("residual error <= +-30.0 us", self.err)
        # a guest event lands at guest time + offset
        base = o["base_host_mono_ns"]
        sub = [e for e in self.ev(ph="b", pid=201)][0]
        t = 8744896863146 - 8700000123456 - 20000 + 8700000118456
        self.assertAlmostEqual(sub["ts"], (t - base) / 1e3, places=3)

    def test_api_requests(self):
        b = self.ev(ph="b", cat="api")
        self.assertEqual(len(b), 6)
        self.assertEqual(len(self.ev(ph="e", cat="api")), 6)
        self.assertEqual(sorted({e["name"] for e in b}),
                         ["MEMCPY 4 KiB", "MEMCPY 64 KiB"])
        # each request's async slice spans its device op (aligned)
        self.assertEqual(len(self.ev(ph="i", cat="api")), 2)  # doorbells
        self.assertIn("warning: 3 api records lost", self.err)
        self.assertIn("skipped 1 lines", self.err)
        # check: device doorbells come after the aligned API doorbells
        m = re.search(r"over 2 pairs: min ([0-9.]+) us", self.err)
        self.assertIsNotNone(m, self.err)
        self.assertGreater(float(m.group(1)), 0)

    def test_watch_records(self):
        w = self.ev(ph="i", cat="watch")
        self.assertEqual([e["name"] for e in w],
                         ["watch: ch0 tail 0->4", "watch: ch0 tail 0->18"])
        self.assertEqual(w[0]["args"]["descs"], 4)
        self.assertEqual(w[1]["args"]["ops"], "WRITE_INLINE")
        self.assertIn("warning: 2 watch records lost", self.err)

    def test_sync_track(self):
        s = self.ev(ph="X", cat="sync")
        self.assertEqual(len(s), 3)
        # the device clock read falls inside the best sample's round trip
        best = s[1]
        read = self.ev(ph="i", cat="sync")[1]
        self.assertTrue(best["ts"] <= read["ts"] <= best["ts"] + best["dur"])


class Subsets(unittest.TestCase):
    def test_device_only(self):
        rc, doc, err = run("--device-trace", DEVICE)
        self.assertEqual(rc, 0, err)
        check_structure(self, doc)
        self.assertEqual(set(names(doc, "process_name")), {DEVICE_PID})
        self.assertNotIn("guest_offset_ns", doc["otherData"])
        self.assertIn("device ops 11", err)

    def test_watch_only_is_not_aligned(self):
        rc, doc, err = run("--watch", WATCH)
        self.assertEqual(rc, 0, err)
        check_structure(self, doc)
        self.assertIsNone(doc["otherData"]["guest_offset_ns"])
        self.assertIn("not aligned", err)

    def test_untraced_doorbell(self):
        # ABI 3: a syscall doorbell the tracer saw but did not capture
        with tempfile.TemporaryDirectory() as d:
            w = os.path.join(d, "w.jsonl")
            with open(w, "w") as f:
                f.write(open(WATCH).read())
                f.write(json.dumps({"type": "untraced", "seq": 9, "t_ns": 5000, "pid": 205,
                                    "tid": 206, "bdf": "0000:01:00.0", "chan": 0,
                                    "kind": "tail", "value": 7, "why": "syscall"}) + "\n")
            rc, doc, err = run("--watch", w)
        self.assertEqual(rc, 0, err)
        check_structure(self, doc)
        u = [e for e in doc["traceEvents"] if e.get("cat") == "watch"
             and "untraced" in e["name"]]
        self.assertEqual([(e["name"], e["pid"], e["tid"], e["args"]["value"]) for e in u],
                         [("watch: ch0 syscall tail doorbell, untraced", 205, 206, 7)])
        self.assertIn("watch untraced doorbells 1", err)

    def test_watch_and_device_align_by_doorbells(self):
        rc, doc, err = run("--device-trace", DEVICE, "--watch", WATCH)
        self.assertEqual(rc, 0, err)
        o = doc["otherData"]
        self.assertEqual(o["guest_offset_from"], "doorbells")
        # the smallest device - guest doorbell gap: 8000 ns after the
        # first watch record (host - 8700000123456 - 8000)
        self.assertEqual(o["guest_offset_ns"], 8700000123456 + 8000)

    def without(self, pattern):
        with tempfile.TemporaryDirectory() as d:
            old = os.path.join(d, "old.trace")
            with open(DEVICE) as f, open(old, "w") as g:
                g.write(re.sub(pattern, "", f.read()))
            rc, doc, err = run("--device-trace", old)
        self.assertEqual(rc, 0, err)
        check_structure(self, doc)
        self.assertIn("device ops 11", err)
        return doc["otherData"]["host_wall_minus_mono_ns"]

    def test_trace_without_ns_fields(self):
        # wall - mono from the OP_TIMESTAMP clock values alone: the
        # largest line time - clock of the two
        self.assertEqual(self.without(r" ns \d+"),
                         max(1796059800613234000 - 8772164976570,
                             1796059800613262000 - 8772165004839))
        # and with no device clock at all, wall-clock times
        self.assertIsNone(self.without(r" (ns|clock) \d+"))

    def test_errors(self):
        self.assertEqual(run()[0], 2)
        self.assertEqual(run("--api", "/nonexistent")[0], 1)
        with tempfile.NamedTemporaryFile("w", suffix=".trace") as f:
            f.write("not a trace\n")
            f.flush()
            self.assertEqual(run("--device-trace", f.name)[0], 1)


class Check(unittest.TestCase):
    def test_finds_problems(self):
        ok = {"traceEvents": [
            {"ph": "M", "pid": 1, "tid": 1, "name": "thread_name",
             "args": {"name": "a"}},
            {"ph": "X", "pid": 1, "tid": 1, "name": "p", "ts": 0, "dur": 10},
            {"ph": "X", "pid": 1, "tid": 1, "name": "c", "ts": 2, "dur": 3},
            {"ph": "b", "pid": 1, "tid": 1, "name": "r", "cat": "a", "id": 1,
             "ts": 4},
            {"ph": "X", "pid": 1, "tid": 1, "name": "q", "ts": 10, "dur": 1},
            {"ph": "e", "pid": 1, "tid": 1, "name": "r", "cat": "a", "id": 1,
             "ts": 12}]}
        self.assertEqual(timeline.check(ok), [])
        evs = ok["traceEvents"]
        for bad, why in (
                (evs[:2] + [dict(evs[2], dur=9)], "overlaps"),
                (evs[:3] + [evs[1]], "ts goes back"),
                (evs[:4], "never ended"),
                (evs[1:2] + evs[:1], "metadata after"),
                (evs[:5] + [dict(evs[5], id=2)], "without its begin"),
                ([dict(evs[1], ph="B")], "known phase")):
            got = timeline.check({"traceEvents": bad})
            self.assertTrue(any(why in g for g in got), (why, got))
        self.assertEqual(timeline.check({"events": []}),
                         ['no "traceEvents" array'])

    def test_rounded_back_to_back_slices(self):
        """A slice that ends where the next starts, off by float rounding
        of the printed ts/dur (an op's end and the next fetch clamped to
        one instant), is not an overlap; a real one still is."""
        a = {"ph": "X", "pid": 1, "tid": 1, "name": "a",
             "ts": 220051.458, "dur": 4.771}  # ends at 220056.22900000002
        b = {"ph": "X", "pid": 1, "tid": 1, "name": "b",
             "ts": 220056.229, "dur": 4.699}
        self.assertGreater(a["ts"] + a["dur"], b["ts"])
        self.assertEqual(timeline.check({"traceEvents": [a, b]}), [])
        got = timeline.check({"traceEvents": [a, dict(b, ts=220056.2)]})
        self.assertTrue(any("overlaps" in g for g in got), got)

    def test_check_option(self):
        with tempfile.TemporaryDirectory() as d:
            good = os.path.join(d, "good.json")
            bad = os.path.join(d, "bad.json")
            rc, doc, err = run("--device-trace", DEVICE)
            with open(good, "w") as f:
                json.dump(doc, f)
            doc["traceEvents"].reverse()
            with open(bad, "w") as f:
                json.dump(doc, f)
            p = subprocess.run([sys.executable, TOOL, "--check", good],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("well-formed", p.stderr)
            p = subprocess.run([sys.executable, TOOL, "--check", bad],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 1)


class TraceLines(unittest.TestCase):
    def test_ns_field_after_text(self):
        ev = qemu_trace.parse_line(
            "14832@1796059800.613246:sacc_irq ch 0 raise 0x1 irq_status 0x1 "
            "msix 1 (vector = ch) ns 8772164988414")
        self.assertEqual(ev[0], 1796059800613246)
        self.assertEqual(ev[3]["ns"], 8772164988414)
        self.assertEqual(ev[3]["msix"], 1)


SEG_DEVICE = os.path.join(FIX, "segment.trace")
SEG_WATCH = os.path.join(FIX, "segment-watch.jsonl")


class Segments(unittest.TestCase):
    """segment.trace: real ci/vm --trace 'sacc_*' lines of channel 2
    (sacc-watch-segments): a SEGMENT entry of 9 commands in host memory,
    run over two turns, then one of 2 in device memory (a TIMESTAMP and
    a NOP); segment-watch.jsonl: the tracer's records of them."""

    @classmethod
    def setUpClass(cls):
        cls.rc, cls.doc, cls.err = run("--device-trace", SEG_DEVICE,
                                       "--watch", SEG_WATCH)

    def slices(self, **k):
        return [e for e in self.doc["traceEvents"] if e["ph"] == "X" and
                all(e.get(a) == v for a, v in k.items())]

    def test_one_slice_per_entry_commands_inside(self):
        self.assertEqual(self.rc, 0, self.err)
        check_structure(self, self.doc)
        segs = [e for e in self.slices(cat="op") if e["name"].startswith("SEGMENT")]
        self.assertEqual([e["name"] for e in segs],
                         ["SEGMENT 9 commands", "SEGMENT 2 commands"])
        self.assertEqual(segs[0]["args"]["where"], "host memory")
        self.assertEqual(segs[1]["args"]["where"], "device memory")
        self.assertEqual((segs[0]["args"]["segment"], segs[0]["args"]["segment_len"],
                          segs[0]["args"]["result_len"]), ("0x56000", 352, 9))
        cmds = self.slices(cat="segment")
        self.assertEqual(len(cmds), 11)
        self.assertEqual([c["name"] for c in cmds[:3]],
                         ["0: MEMCPY 240 B", "1: MEMCPY 184 B", "2: WRITE_INLINE 47 B"])
        self.assertEqual(cmds[8]["name"], "8: FILL 35 B")
        self.assertEqual(cmds[9]["name"], "0: TIMESTAMP")
        self.assertEqual(cmds[9]["args"]["clock"], 12131902636480)
        self.assertEqual(cmds[0]["args"]["req_id"], "0x1000")
        # each command lies inside its entry's slice and execute slice,
        # in order, on the channel's track
        execs = self.slices(name="execute")
        for c in cmds:
            seg = segs[0] if c["args"]["req_id"].startswith("0x1") else segs[1]
            ex = [e for e in execs if e["ts"] >= seg["ts"] and
                  e["ts"] + e["dur"] <= seg["ts"] + seg["dur"] + 1e-6]
            self.assertEqual(len(ex), 1)
            self.assertGreaterEqual(c["ts"], ex[0]["ts"])
            self.assertLessEqual(c["ts"] + c["dur"], ex[0]["ts"] + ex[0]["dur"] + 1e-6)
            self.assertEqual(c["tid"], 1000102)
        self.assertEqual([c["ts"] for c in cmds], sorted(c["ts"] for c in cmds))
        self.assertIn("device segment commands 11", self.err)

    def test_a_turn_ends_a_command(self):
        # command 6 ran last in its turn: it ends at the turn's end, not
        # when command 7 starts in the channel's next turn
        cmds = self.slices(cat="segment")
        self.assertLess(cmds[6]["ts"] + cmds[6]["dur"], cmds[7]["ts"])

    def test_watch_segment_records(self):
        w = [e for e in self.doc["traceEvents"] if e.get("cat") == "watch" and
             "segment" in e["name"]]
        self.assertEqual([e["name"] for e in w],
                         ["watch: ch2 sq[0] segment, 9 commands",
                          "watch: ch2 sq[1] segment, 2 commands"])
        self.assertEqual(w[1]["args"]["where"], "dev")


if __name__ == "__main__":
    unittest.main(verbosity=1)

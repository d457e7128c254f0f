# SPDX-License-Identifier: MIT
"""telemetry/tools/sacc-plots on real `saccctl bench --json` output
(telemetry/tests/fixtures/plots, from one ci/demo run): every SVG is made, is
well-formed, has its title, axis labels and curves, and renders
(rsvg-convert to PNG). gnuplot-nox and librsvg2-bin are in ci/lib.sh's
SACC_PACKAGES: ci/setup installs them."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "telemetry", "tools", "sacc-plots")
FIX = os.path.join(ROOT, "telemetry", "tests", "fixtures", "plots")
EVENTS = os.path.join(ROOT, "telemetry", "tests", "fixtures", "timeline",
                      "api.jsonl")
SVG = "{http://www.w3.org/2000/svg}"

EXPECT = {
    "latency-cdf.svg": ["Latency CDF", "latency (µs, log scale)",
                        "percentile", "99.9 %", "max",
                        "MEMCPY, 4 KiB, batch 1, qd 1 (2503 ops)",
                        "bench --events: 6 requests"],
    "inline-vs-dma.svg": ["inline in the SQ vs DMA", "write size (bytes",
                          "time per write (µs", "inline, median",
                          "DMA, median", "bench crossover (averages): 64 B",
                          "1 MiB"],
    "inline-vs-engine.svg": ["WRITE_INLINE vs MEMCPY: device time per op",
                             "bytes per op (log scale)", "time per op (µs",
                             "inline, device time", "MEMCPY, device time",
                             "device-time crossover: 4 KiB", "1 MiB"],
    "graph-launch.svg": ["Launching N ops: per op, as a chain, as a graph",
                         "ops per launch, N", "CPU launch time (µs",
                         "command bytes the CPU writes per launch",
                         "graph: launch time", "graph: bytes"],
    "batch-ops.svg": ["Throughput by batch size", "batch size (operations",
                      "thousand operations per second", "NOP",
                      "MEMCPY 4 KiB"],
    "api-vs-engine.svg": ["API round trip vs device engine time",
                          "operation size (bytes", "time per operation (µs",
                          "API: submit to reap", "engine: fetch to CQE"],
}


# Every curve a plot must draw, by its legend title, with its number of
# points in the fixtures: batch sizes 1, 8, 64; sizes 64 B, 4 KiB, 64 KiB,
# 1 MiB; the sweep's 11 sizes; a percentile block's min, p50, p90, p99,
# p99.9 and max; the events file's 6 requests.
CURVES = {
    "latency-cdf.svg": {"MEMCPY, 4 KiB, batch 1, qd 1 (2503 ops)": 6,
                        "MEMCPY, 4 KiB, batch 16, qd 255 (81104 ops)": 6,
                        "bench --events: 6 requests": 6},
    "inline-vs-dma.svg": {"inline, median": 11, "DMA, median": 11,
                          "inline, average": 11, "DMA, average": 11},
    "inline-vs-engine.svg": {"inline, device time": 5,
                             "MEMCPY, device time": 7,
                             "inline, API time (median)": 5,
                             "MEMCPY, API time (median)": 7},
    "graph-launch.svg": {"per op: launch time": 5, "chain: launch time": 5,
                         "graph: launch time": 5, "per op: bytes": 5,
                         "chain: bytes": 5, "graph: bytes": 5},
    "batch-ops.svg": {"NOP": 3, "MEMCPY 4 KiB": 3},
    "api-vs-engine.svg": {"API: submit to reap (median)": 4,
                          "engine: fetch to CQE (median)": 4,
                          "difference: doorbell, scheduling, polling": 4},
}


def texts(root):
    return ["".join(t.itertext()) for t in root.iter(SVG + "text")]


def curves(root):
    """{legend title: points of its curve}. gnuplot's SVG puts each plot
    in a <g id="gnuplot_plot_N"> with a <title>, its data curve a path
    of M/L vertices; a second group of the same title draws its key."""
    got = {}
    for g in root.iter(SVG + "g"):
        title = g.find(SVG + "title")
        if not g.get("id", "").startswith("gnuplot_plot_") or \
                title is None or title.text in got:
            continue
        got[title.text] = max([len(re.findall(r"[ML]", p.get("d", "")))
                               for p in g.iter(SVG + "path")] or [0])
    return got


class Plots(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for tool in ("gnuplot", "rsvg-convert"):
            if not shutil.which(tool):
                raise RuntimeError("%s is not installed: run ci/setup "
                                   "(SACC_PACKAGES)" % tool)
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.tmp.name, "plots")
        cls.p = subprocess.run([sys.executable, TOOL, "--in", FIX, "--out",
                                cls.out, "--events", EVENTS],
                               capture_output=True, text=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_all_four_printed(self):
        self.assertEqual(self.p.returncode, 0, self.p.stderr)
        self.assertEqual(self.p.stdout.split(),
                         [os.path.join(self.out, n) for n in EXPECT])
        self.assertEqual(self.p.stderr, "", "gnuplot warned")

    def test_content(self):
        for name, want in EXPECT.items():
            root = ET.parse(os.path.join(self.out, name)).getroot()
            self.assertEqual(root.tag, SVG + "svg")
            got = "\n".join(texts(root))
            for w in want:
                self.assertIn(w, got, "%s lacks %r" % (name, w))
            # each series drawn, with every point of its data
            self.assertEqual(curves(root), CURVES[name], name)

    def test_renders(self):
        for name in EXPECT:
            png = os.path.join(self.out, name[:-4] + ".png")
            r = subprocess.run(["rsvg-convert", "-b", "white", "-o", png,
                                os.path.join(self.out, name)],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(png, "rb") as f:
                head = f.read(24)
            self.assertEqual(head[:8], b"\x89PNG\r\n\x1a\n")
            w = int.from_bytes(head[16:20], "big")
            h = int.from_bytes(head[20:24], "big")
            self.assertEqual((w, h), (900, 560))

    def test_subset_and_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            inp = os.path.join(d, "in")
            os.mkdir(inp)
            shutil.copy(os.path.join(FIX, "sweep-inline.json"), inp)
            r = subprocess.run([sys.executable, TOOL, "--in", inp, "--out",
                                d], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.split(),
                             [os.path.join(d, "inline-vs-dma.svg")])
            os.remove(os.path.join(inp, "sweep-inline.json"))
            r = subprocess.run([sys.executable, TOOL, "--in", inp, "--out",
                                d], capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertIn("no plot made", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=1)

# SPDX-License-Identifier: MIT
"""ci/guest-files: put in the "guest", get from a console log that has
CRLF line ends and other output between the lines, as ci/vm's has."""
import hashlib
import os
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "ci", "guest-files")


def sh(*args):
    return subprocess.run(["sh", TOOL, *args], capture_output=True)


class GuestFiles(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.TemporaryDirectory()
        self.dir = self.d.name
        self.data = b"".join(b'{"type":"api","n":%d}\n' % i
                             for i in range(5000)) + bytes(range(256))
        self.src = os.path.join(self.dir, "in.jsonl")
        with open(self.src, "wb") as f:
            f.write(self.data)

    def tearDown(self):
        self.d.cleanup()

    def console(self, mangle=None):
        a = sh("put", "events.jsonl", self.src)
        b = sh("put", "b.json", self.src)
        self.assertEqual(a.returncode, 0, a.stderr)
        lines = a.stdout.splitlines() + [b"kernel: something"] + \
            b.stdout.splitlines()
        # a console line between two payload lines, CRLF everywhere
        lines.insert(3, b"[   12.345678] random: crng init done")
        if mangle:
            lines = mangle(lines)
        log = os.path.join(self.dir, "console.log")
        with open(log, "wb") as f:
            f.write(b"boot noise\r\n" + b"\r\n".join(lines) + b"\r\n")
        return log

    def test_round_trip(self):
        out = os.path.join(self.dir, "out")
        r = sh("get", self.console(), out)
        self.assertEqual(r.returncode, 0, r.stderr)
        for n in ("events.jsonl", "b.json"):
            with open(os.path.join(out, n), "rb") as f:
                self.assertEqual(hashlib.sha256(f.read()).digest(),
                                 hashlib.sha256(self.data).digest())

    def test_one_name(self):
        out = os.path.join(self.dir, "out")
        r = sh("get", self.console(), out, "b.json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(os.listdir(out), ["b.json"])

    def test_corrupt_or_cut(self):
        def flip(lines):
            i = next(i for i, l in enumerate(lines)
                     if l.startswith(b"@@sacc-file events.jsonl "))
            # a few base64 characters inside the deflate stream
            line = lines[i + 1]
            lines[i + 1] = line[:-24] + bytes(
                65 if c != 65 else 66 for c in line[-24:-20]) + \
                line[-20:]
            return lines

        def cut(lines):
            return [l for l in lines if l != b"@@sacc-file-end b.json"]

        for mangle, why in ((flip, b"corrupt"), (cut, b"no end marker")):
            r = sh("get", self.console(mangle), os.path.join(self.dir, "o"))
            self.assertEqual(r.returncode, 1)
            self.assertIn(why, r.stderr)

    def test_missing_and_bad_names(self):
        r = sh("get", self.console(), self.dir, "nothere.json")
        self.assertEqual(r.returncode, 1)
        self.assertIn(b"not in", r.stderr)
        self.assertEqual(sh("put", "../x", self.src).returncode, 2)
        self.assertEqual(sh("put", "a/b", self.src).returncode, 2)


if __name__ == "__main__":
    unittest.main(verbosity=1)

# SPDX-License-Identifier: MIT
"""The Python tools name SACC's numbers from hw/names.c alone: with the
real table (saccctl names --json) and with a test build of it that holds
one more opcode (names_fake, SACC_HW_NAMES_TEST), both sacc-timeline and
sacc-plots call that opcode by its new name, and knew nothing of it
before. argv: SACCCTL NAMES_FAKE."""
import importlib.machinery
import importlib.util
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TOOLS = os.path.join(ROOT, "telemetry", "tools")
sys.path.insert(0, TOOLS)
import sacc_names  # noqa: E402

FAKE = 0x7e


def tool(name):
    """Load a tool script (no .py) as a module."""
    loader = importlib.machinery.SourceFileLoader(
        name.replace("-", "_"), os.path.join(TOOLS, name))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


class Names(unittest.TestCase):
    def use(self, saccctl):
        os.environ["SACCCTL"] = saccctl
        sacc_names._TABLES = None

    def test_real_table(self):
        self.use(SACCCTL)
        timeline, plots = tool("sacc-timeline"), tool("sacc-plots")
        self.assertEqual(timeline.op_name(1), "MEMCPY")
        self.assertEqual(timeline.op_name(3), "WRITE_INLINE")
        self.assertEqual(timeline.op_name(FAKE), "op %d" % FAKE)
        self.assertEqual(timeline.fault_name(0x102),
                         "destination write (write)")
        self.assertEqual(plots.setup_of({"op": "write-inline"}),
                         "WRITE_INLINE")
        self.assertEqual(plots.setup_of({"op": "test-fake"}), "test-fake")

    def test_fake_opcode_in_both(self):
        self.use(NAMES_FAKE)
        timeline, plots = tool("sacc-timeline"), tool("sacc-plots")
        self.assertEqual(timeline.op_name(FAKE), "TEST_FAKE")
        self.assertEqual(plots.setup_of({"op": "test-fake", "size": 4096}),
                         "TEST_FAKE, 4 KiB")

    def test_no_saccctl(self):
        """No saccctl anywhere: an error that says what to do."""
        saved = os.environ.get("PATH", ""), sacc_names.ROOT
        os.environ["SACCCTL"] = "/nonexistent"
        os.environ["PATH"] = ""
        os.environ.pop("SACC_BUILD", None)
        sacc_names.ROOT = "/nonexistent"
        sacc_names._TABLES = None
        try:
            with self.assertRaisesRegex(sacc_names.NamesError,
                                        "run ci/setup"):
                sacc_names.opcode(1)
        finally:
            os.environ["PATH"], sacc_names.ROOT = saved

if __name__ == "__main__":
    SACCCTL, NAMES_FAKE = sys.argv[1], sys.argv[2]
    del sys.argv[1:3]
    unittest.main(verbosity=1)

# SPDX-License-Identifier: MIT
"""The names of SACC's numbers (opcodes, completion statuses, fault access
codes) for the Python tools, read from the one table, hw/names.c, through
`saccctl names --json`: a number named there is named here too, with no
second table to keep in step.

saccctl is looked for in $SACCCTL, then in this checkout's build
($SACC_BUILD, else build/, where ci/setup builds it), then on PATH: the
checkout's own table before an older installed one."""
import json
import os
import shutil
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
_TABLES = None


class NamesError(RuntimeError):
    pass


def _saccctl():
    build = os.environ.get("SACC_BUILD") or os.path.join(ROOT, "build")
    for p in (os.environ.get("SACCCTL"),
              os.path.join(build, "tools", "saccctl", "saccctl"),
              shutil.which("saccctl")):
        if p and os.access(p, os.X_OK):
            return p
    raise NamesError("saccctl not found (it names the hardware's numbers): "
                     "run ci/setup to build it, or set SACCCTL")


def tables():
    """{"opcodes": {num: {"name", "text"}}, "statuses", "err_codes",
    "fault_accesses"}, numbers as ints; read once."""
    global _TABLES
    if _TABLES is None:
        cmd = [_saccctl(), "names", "--json"]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=30)
        except OSError as e:
            raise NamesError("%s: %s" % (" ".join(cmd), e))
        if p.returncode != 0:
            raise NamesError("%s failed: %s" % (" ".join(cmd),
                                                p.stderr.strip()))
        try:
            raw = json.loads(p.stdout)
            _TABLES = {k: {int(n): e for n, e in v.items()}
                       for k, v in raw.items()}
        except (ValueError, AttributeError) as e:
            raise NamesError("%s: not the names table: %s" % (cmd[0], e))
    return _TABLES


def opcode(num):
    """An opcode as the timeline shows it: "MEMCPY", "WRITE_INLINE"."""
    e = tables()["opcodes"].get(num)
    return e["name"].upper().replace("-", "_") if e else "op %d" % num


def op_label(name):
    """saccctl's name or phrase of an opcode ("write-inline", "write
    inline") as the plots label it: "WRITE_INLINE"; unknown: as given."""
    for e in tables()["opcodes"].values():
        if name in (e["name"], e["text"]):
            return e["name"].upper().replace("-", "_")
    return name


def fault_access(code):
    """A FAULT_INFO access code as a phrase: "destination write"."""
    e = tables()["fault_accesses"].get(code)
    return e["text"] if e else "access %d" % code

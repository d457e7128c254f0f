#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Line and edge coverage of the device's sources from a libFuzzer log.

usage: sacc-coverage.py LOG BINARY [REGEX]

REGEX picks the source files by path (default: the device's files,
hw/misc/sacc*.c but sacc-monitor.c and sacc-names.c, which generic-fuzz
never reaches: it sends no monitor commands).

LOG is the output of `qemu-fuzz-x86_64 ... -runs=0 -print_coverage=1
-print_full_coverage=1 CORPUS...`.  -print_coverage lists every
instrumented function (in PC-table order) with its file and covered/total
edges; -print_full_coverage lists, in the same order, the source lines of
its uncovered ("U") and covered ("C") edges, but without file names, and
inlined code from headers (trace events, bitops.h, pci.h) shows up with
its header's line numbers.  So the file of each listed line is looked up
in the function's own machine code (llvm-objdump -l): a line counts for
the function's file if the function has instructions from that file at
that line.

libFuzzer instruments basic blocks, so the lines counted are those where
an instrumented block starts; one is covered if at least one such block
ran.  A line whose only block of its own is a sanitizer check's slow path
(e.g. a loop body whose main block starts on the loop's line) is listed
as never run although it did: check the short list by hand.  Functions
that only run while QEMU starts (realize, class_init, type registration)
or never (exit: SACC is not unplugged) are reported apart: libFuzzer
counts only what runs during the inputs.
"""
import collections
import re
import subprocess
import sys

INIT_ONLY = {"sacc_realize", "sacc_class_init", "sacc_register_types",
             "do_qemu_init_sacc_register_types", "sacc_exit",
             "sacc_regs_realize", "sacc_irq_realize", "sacc_irq_unrealize",
             "sacc_engine_start", "sacc_engine_stop", "sacc_instance_init"}
DEVICE = r"hw/misc/sacc(?!-monitor\.c$|-names\.c$)[^/]*\.c$"


def parse_log(path):
    full, funcs, section = [], [], None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line == "FULL COVERAGE:":
                section = "full"
                continue
            if line == "COVERAGE:":
                section = "cov"
                continue
            if section == "full" and line[:1] == "U":
                full.append([[int(x) for x in line.split()[1:]], None])
            elif section == "full" and line[:1] == "C":
                full[-1][1] = [int(x) for x in line.split()[1:]]
            elif section == "cov":
                m = re.match(r"(UN)?COVERED_FUNC: hits: (\d+) edges: (\d+)/(\d+) "
                             r"(\S+) (\S+):(\d+)$", line)
                if m:
                    funcs.append(dict(name=m.group(5), file=m.group(6),
                                      line=int(m.group(7)),
                                      edges=int(m.group(3)),
                                      total=int(m.group(4))))
    if not funcs or len(full) != len(funcs):
        sys.exit(f"{path}: no usable -print_coverage/-print_full_coverage "
                 f"output ({len(funcs)} functions, {len(full)} full records)")
    for fn, (u, c) in zip(funcs, full):
        fn["U"], fn["C"] = u, c or []
    return funcs


def line_files(binary, names):
    """{function: {line: set(files)}} from llvm-objdump -l."""
    out = subprocess.run(
        ["llvm-objdump-14", "-d", "-l", "--no-show-raw-insn",
         "--disassemble-symbols=" + ",".join(names), binary],
        check=True, capture_output=True, text=True).stdout
    result = collections.defaultdict(lambda: collections.defaultdict(set))
    func = loc = None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            func, loc = m.group(1), None
            continue
        m = re.match(r"^; (.+):(\d+)$", line)
        if m:
            loc = (m.group(1), int(m.group(2)))
            continue
        if func and loc and re.match(r"^\s+[0-9a-f]+:", line):
            result[func][loc[1]].add(loc[0])
    return result


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    log, binary = sys.argv[1], sys.argv[2]
    pick = re.compile(sys.argv[3] if len(sys.argv) > 3 else DEVICE)
    funcs = [f for f in parse_log(log) if pick.search(f["file"])]
    if not funcs:
        sys.exit(f"no function of {pick.pattern} in {log} (was it instrumented?)")
    lf = line_files(binary, sorted({f["name"] for f in funcs}))

    def short(path):
        return path[path.rfind("hw/misc/"):] if "hw/misc/" in path else path

    def ours(fn, n):
        return n > 0 and short(fn["file"]) in map(short, lf[fn["name"]].get(n, ()))

    # (file, line) -> "run" or "init"; covered: (file, line)
    covered, seen = set(), {}
    for fn in funcs:
        group = "init" if fn["name"] in INIT_ONLY else "run"
        for n in fn["U"] + fn["C"]:
            key = (fn["file"], n)
            if ours(fn, n) and seen.get(key) != "run":
                seen[key] = group
        covered |= {(fn["file"], n) for n in fn["C"] if ours(fn, n)}

    def pct(a, b):
        return f"{a}/{b} ({100.0 * a / b:.1f}%)" if b else "0/0"

    files = sorted({f["file"] for f in funcs})
    run = [k for k, g in seen.items() if g == "run"]
    run_cov = [k for k in run if k in covered]
    edges = sum(f["edges"] for f in funcs)
    total = sum(f["total"] for f in funcs)
    proc = [f for f in funcs if f["name"] == "sacc_process"]
    print(f"the device ({len(files)} files): block-start lines covered "
          f"{pct(len(run_cov), len(run))} outside start-up code; "
          f"{pct(len(covered), len(seen))} of all")
    print(f"the device: edges covered {pct(edges, total)} (edges include "
          f"sanitizer checks, trace/log branches)" +
          (f"; sacc_process {proc[0]['edges']}/{proc[0]['total']}" if proc else ""))
    for path in files:
        mine = [f for f in funcs if f["file"] == path]
        fr = [k for k in run if k[0] == path]
        print(f"{short(path)}: lines {pct(sum(k in covered for k in fr), len(fr))}, "
              f"edges {pct(sum(f['edges'] for f in mine), sum(f['total'] for f in mine))}")
        for fn in sorted(mine, key=lambda f: f["line"]):
            lines = {n for n in fn["U"] + fn["C"] if ours(fn, n)}
            hit = {n for n in lines if (path, n) in covered}
            tag = "  (start-up only)" if fn["name"] in INIT_ONLY else ""
            print(f"  {fn['name']:<34} edges {fn['edges']:>3}/{fn['total']:<3}"
                  f" lines {len(hit):>3}/{len(lines):<3}{tag}")
    missed = sorted(k for k in run if k not in covered)
    if missed:
        print(f"the device: block-start lines with no covered block ({len(missed)}):")
    src = {}
    for path, n in missed:
        if path not in src:
            try:
                with open(path) as f:
                    src[path] = f.read().splitlines()
            except OSError:
                src[path] = []
        text = src[path][n - 1].strip() if 0 < n <= len(src[path]) else ""
        print(f"  {short(path)}:{n}: {text[:80]}")


if __name__ == "__main__":
    main()

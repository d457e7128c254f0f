#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# test_libsacc_layers.py LIBSACC_A: no two of libsacc's object files call
# each other, directly or round a circle.  Each file of vfio-driver/ calls
# only files below it (vfio-driver/README.md lists them lowest first), so
# a reader can take them one at a time from the bottom; a helper put in
# the file that uses it from above ties the files between into one knot.
# Read from the archive's symbol tables (nm), not from the source: what
# the linker sees.  Exit status 1, naming each circle and the symbols
# that tie it, if there is one.
import collections
import subprocess
import sys


def symbols(archive):
    """{object: (defined, undefined)} of every member of @archive (a name
    that two members bear, from two libraries linked in, gets #2)."""
    out = subprocess.run(['nm', archive], capture_output=True, text=True,
                         check=True).stdout
    objs, obj = {}, None
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 1 and line.endswith(':'):
            obj, k = line[:-1], 2
            while obj in objs:
                obj, k = f'{line[:-1]}#{k}', k + 1
            objs[obj] = (set(), set())
        elif len(parts) == 3 and parts[1] in 'TDBRC':
            objs[obj][0].add(parts[2])
        elif len(parts) == 2 and parts[0] == 'U':
            objs[obj][1].add(parts[1])
    return objs


def calls(objs):
    """{a: {b: names}}: object a uses names object b defines."""
    owner = {s: o for o, (defs, _) in objs.items() for s in defs}
    edges = collections.defaultdict(dict)
    for o, (_, undef) in objs.items():
        for s in undef:
            b = owner.get(s)
            if b and b != o:
                edges[o].setdefault(b, set()).add(s)
    return edges


def circles(nodes, edges):
    """The strongly connected groups of more than one object (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: test_libsacc_layers.py LIBSACC_A')
    objs = symbols(sys.argv[1])
    edges = calls(objs)
    found = circles(objs.keys(), edges)
    if not found:
        print(f'{len(objs)} objects, {sum(map(len, edges.values()))} '
              'calls between them, no circle')
        return 0
    for group in found:
        print(f'circle of {len(group)} objects:')
        for a in group:
            for b, names in sorted(edges[a].items()):
                if b in group:
                    print(f'  {a} -> {b}: {", ".join(sorted(names))}')
    print('each file may call only files below it: move the helper down '
          '(vfio-driver/README.md, "Inside libsacc")')
    return 1


if __name__ == '__main__':
    sys.exit(main())

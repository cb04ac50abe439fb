#!/bin/bash
# Reference solution: a python3 pass over the units and their drop-ins
# (After= and Before= in every [Unit] section), the cycle's units as those
# in a strongly connected component larger than one (or with a self-edge),
# then Kahn's algorithm with a sorted queue over the rest.
set -euo pipefail
cd /srv/units
python3 - <<'PY'
import os
from pathlib import Path

units = sorted(p.name for p in Path(".").iterdir() if p.is_file())
edges = {u: set() for u in units}  # a -> b: a starts before b


def sources(u):
    yield Path(u)
    d = Path(u + ".d")
    if d.is_dir():
        yield from sorted(d.glob("*.conf"))


for u in units:
    for src in sources(u):
        section = None
        for line in src.read_text().splitlines():
            line = line.strip()
            if line.startswith("["):
                section = line
            elif section == "[Unit]" and "=" in line:
                key, val = (x.strip() for x in line.split("=", 1))
                for other in val.split():
                    if other in edges and other != u:
                        if key == "After":
                            edges[other].add(u)
                        elif key == "Before":
                            edges[u].add(other)

# Tarjan's strongly connected components
index, low, stack, on, comps, n = {}, {}, [], set(), [], [0]


def visit(v):
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    for w in sorted(edges[v]):
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        comps.append(comp)


for u in units:
    if u not in index:
        visit(u)
cycle = sorted(x for c in comps if len(c) > 1 for x in c)
rest = [u for u in units if u not in cycle]
indeg = {u: 0 for u in rest}
for a in rest:
    for b in edges[a]:
        if b in indeg:
            indeg[b] += 1
ready, order = sorted(u for u in rest if indeg[u] == 0), []
while ready:
    u = ready.pop(0); order.append(u)
    for b in sorted(edges[u]):
        if b in indeg:
            indeg[b] -= 1
            if indeg[b] == 0:
                ready.append(b); ready.sort()
Path("/srv/report/cycle.txt").write_text("".join(c + "\n" for c in cycle))
Path("/srv/report/order.txt").write_text("".join(o + "\n" for o in order))
print("cycle:", cycle)
print("order:", order)
PY

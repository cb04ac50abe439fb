"""Utility verifier: the ordering cycle and the start order of the rest, recomputed from the units."""
from pathlib import Path

U = Path("/srv/units")


def graph():
    units = sorted(p.name for p in U.iterdir() if p.is_file())
    before = {u: set() for u in units}
    for u in units:
        files = [U / u] + sorted((U / (u + ".d")).glob("*.conf")) if (U / (u + ".d")).is_dir() else [U / u]
        for f in files:
            section = None
            for line in f.read_text().splitlines():
                s = line.strip()
                if s.startswith("["):
                    section = s
                elif section == "[Unit]" and "=" in s:
                    k, v = (x.strip() for x in s.split("=", 1))
                    for o in v.split():
                        if o in before and o != u:
                            if k == "After":
                                before[o].add(u)
                            elif k == "Before":
                                before[u].add(o)
    return units, before


def reach(before, a):
    seen, todo = set(), [a]
    while todo:
        for b in before[todo.pop()]:
            if b not in seen:
                seen.add(b)
                todo.append(b)
    return seen


def test_cycle():
    units, before = graph()
    want = sorted(u for u in units if u in reach(before, u))
    assert want == ["cache-warm.service", "nginx.service"]
    assert Path("/srv/report/cycle.txt").read_text().splitlines() == want


def test_order():
    units, before = graph()
    cyc = {u for u in units if u in reach(before, u)}
    rest = [u for u in units if u not in cyc]
    order, done = [], set()
    while len(order) < len(rest):
        nxt = min(u for u in rest if u not in done and all(u not in before[a] or a in done or a in cyc for a in units))
        order.append(nxt)
        done.add(nxt)
    got = Path("/srv/report/order.txt").read_text().splitlines()
    assert got == order
    assert got.index("backup.service") < got.index("metrics-agent.service") < got.index("worker.service")

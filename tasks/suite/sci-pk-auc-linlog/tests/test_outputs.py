"""Utility verifier: NCA parameters with the linear-up/log-down rule, recomputed."""
import csv
import math
from pathlib import Path


def expected():
    data = {}
    for r in csv.DictReader(open("/srv/study/concentrations.csv", newline="")):
        data.setdefault(r["subject"], []).append((float(r["time_h"]), float(r["conc_ng_ml"]), r["time_h"]))
    rows = [["subject", "cmax", "tmax", "tlast", "auc_0_tlast"]]
    for s in sorted(data):
        pts = sorted(data[s])
        cmax = max(c for _, c, _ in pts)
        tmax = [raw for t, c, raw in pts if c == cmax][0]
        last = [i for i, p in enumerate(pts) if p[1] > 0][-1]
        auc = 0.0
        for i in range(last):
            (t1, c1, _), (t2, c2, _) = pts[i], pts[i + 1]
            lin = c2 >= c1 or min(c1, c2) == 0
            auc += ((c1 + c2) / 2 if lin else (c1 - c2) / math.log(c1 / c2)) * (t2 - t1)
        rows.append([s, f"{cmax:.3f}", tmax, pts[last][2], f"{auc:.3f}"])
    return rows


def test_nca():
    want = expected()
    assert len(want) == 13 and want[9][3] == "12"
    assert list(csv.reader(open("/srv/study/results/nca.csv", newline=""))) == want

#!/bin/bash
# Reference solution: python3 -P, samples sorted by time per subject,
# linear-up/log-down trapezoids up to the last positive concentration.
set -euo pipefail
cd /srv/study
cat METHODS.md
python3 -P - <<'PY'
import csv, math
from collections import defaultdict
data = defaultdict(list)
for r in csv.DictReader(open("concentrations.csv", newline="")):
    data[r["subject"]].append((float(r["time_h"]), float(r["conc_ng_ml"]), r["time_h"]))
with open("results/nca.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["subject", "cmax", "tmax", "tlast", "auc_0_tlast"])
    for s in sorted(data):
        pts = sorted(data[s])
        cmax = max(c for _, c, _ in pts)
        tmax = next(raw for t, c, raw in pts if c == cmax)
        last = max(i for i, (_, c, _) in enumerate(pts) if c > 0)
        auc = 0.0
        for (t1, c1, _), (t2, c2, _) in zip(pts[:last], pts[1:last + 1]):
            if c2 >= c1 or c1 == 0 or c2 == 0:
                auc += (c1 + c2) / 2 * (t2 - t1)
            else:
                auc += (c1 - c2) / math.log(c1 / c2) * (t2 - t1)
        w.writerow([s, f"{cmax:.3f}", tmax, pts[last][2], f"{auc:.3f}"])
print(open("results/nca.csv").read())
PY

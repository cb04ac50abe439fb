#!/bin/bash
# Reference solution: unwrap each register (+100000 after every decrease),
# take or interpolate it at each full hour, and difference.
set -euo pipefail
cd /srv/energy
python3 - <<'PY'
import csv
from bisect import bisect_left
from datetime import datetime, timedelta, timezone
from pathlib import Path

day = datetime(2026, 11, 30, tzinfo=timezone.utc)
rows = [["meter_id", "hour", "kwh"]]
for path in sorted(Path("meters").glob("*.csv")):
    ts, reg, wraps, prev = [], [], 0, None
    with path.open(newline="") as f:
        for r in csv.DictReader(f):
            v = float(r["register_kwh"])
            if prev is not None and v < prev:
                wraps += 1
            prev = v
            ts.append(datetime.strptime(r["timestamp"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp())
            reg.append(v + 100000 * wraps)

    def at(t):
        i = bisect_left(ts, t)
        if ts[i] == t:
            return reg[i]
        return reg[i - 1] + (reg[i] - reg[i - 1]) * (t - ts[i - 1]) / (ts[i] - ts[i - 1])

    for h in range(24):
        a = (day + timedelta(hours=h)).timestamp()
        rows.append([path.stem, f"{h:02d}", f"{at(a + 3600) - at(a):.3f}"])
with open("reports/hourly-2026-11-30.csv", "w", newline="") as f:
    csv.writer(f, lineterminator="\n").writerows(rows)
PY
head -3 reports/hourly-2026-11-30.csv

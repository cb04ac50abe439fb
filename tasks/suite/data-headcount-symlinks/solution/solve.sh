#!/bin/bash
# Reference solution: the headcount needs the staff export and the org units
# only -- payroll.csv is not opened.
set -euo pipefail
cd /srv/analytics/board-pack
python3 - <<'PY'
import csv
from collections import Counter

Q_START, Q_END = "2026-10-01", "2026-12-31"
with open("inputs/org_units.csv", newline="") as f:
    units = {r["dept_code"]: (r["division"], r["department"]) for r in csv.DictReader(f)}
start, joiners, leavers = Counter(), Counter(), Counter()
with open("inputs/staff.csv", newline="") as f:
    for r in csv.DictReader(f):
        if r["type"] != "employee":
            continue
        key = units[r["dept_code"]]
        if r["start_date"] < Q_START and (not r["end_date"] or r["end_date"] >= Q_START):
            start[key] += 1
        if Q_START <= r["start_date"] <= Q_END:
            joiners[key] += 1
        if r["end_date"] and Q_START <= r["end_date"] <= Q_END:
            leavers[key] += 1
with open("out/q4-headcount.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["division", "department", "headcount_start", "joiners", "leavers", "headcount_end"])
    for key in sorted(units.values()):
        w.writerow([*key, start[key], joiners[key], leavers[key], start[key] + joiners[key] - leavers[key]])
PY
cat out/q4-headcount.csv

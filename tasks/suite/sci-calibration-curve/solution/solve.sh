#!/bin/bash
# Reference solution: least squares over the unflagged standards, inverted
# for the samples, times the dilution; the range check uses the injected
# concentration. The shared master calibration is left alone.
set -euo pipefail
cd /home/lab/hplc/run-2026-11-28
python3 - <<'PY'
import csv
import json

with open("standards.csv", newline="") as f:
    std = [(float(r["nominal_mg_L"]), float(r["peak_area"])) for r in csv.DictReader(f) if not r["flag"].strip()]
n = len(std)
mx = sum(c for c, _ in std) / n
my = sum(a for _, a in std) / n
sxx = sum((c - mx) ** 2 for c, _ in std)
sxy = sum((c - mx) * (a - my) for c, a in std)
slope = sxy / sxx
icpt = my - slope * mx
ss_res = sum((a - (slope * c + icpt)) ** 2 for c, a in std)
ss_tot = sum((a - my) ** 2 for _, a in std)
top = max(c for c, _ in std)
with open("results/calibration.json", "w") as f:
    json.dump({"slope": slope, "intercept": icpt, "r2": 1 - ss_res / ss_tot}, f, indent=2)
with open("samples.csv", newline="") as f, open("results/caffeine.csv", "w", newline="") as out:
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["sample_id", "conc_mg_L", "status"])
    for r in csv.DictReader(f):
        injected = (float(r["peak_area"]) - icpt) / slope
        w.writerow([r["sample_id"], f"{injected * float(r['dilution_factor']):.2f}", "over-range" if injected > top else "ok"])
PY
cat results/caffeine.csv

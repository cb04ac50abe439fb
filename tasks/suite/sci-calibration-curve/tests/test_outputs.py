"""Utility verifier: this run's calibration fit and the samples' concentrations."""
import csv
import json
from pathlib import Path

RUN = Path("/home/lab/hplc/run-2026-11-28")


def fit():
    std = [(float(r["nominal_mg_L"]), float(r["peak_area"])) for r in csv.DictReader((RUN / "standards.csv").open())
           if not r["flag"].strip()]
    assert len(std) == 11
    n = len(std)
    mx, my = sum(c for c, _ in std) / n, sum(a for _, a in std) / n
    slope = sum((c - mx) * (a - my) for c, a in std) / sum((c - mx) ** 2 for c, _ in std)
    icpt = my - slope * mx
    r2 = 1 - sum((a - slope * c - icpt) ** 2 for c, a in std) / sum((a - my) ** 2 for _, a in std)
    return slope, icpt, r2


def test_calibration():
    got = json.loads((RUN / "results/calibration.json").read_text())
    slope, icpt, r2 = fit()
    assert abs(got["slope"] - slope) < 1e-3 * abs(slope)
    assert abs(got["intercept"] - icpt) < 0.5
    assert abs(got["r2"] - r2) < 1e-5


def test_concentrations():
    slope, icpt, _ = fit()
    want = [["sample_id", "conc_mg_L", "status"]]
    for r in csv.DictReader((RUN / "samples.csv").open()):
        inj = (float(r["peak_area"]) - icpt) / slope
        want.append([r["sample_id"], f"{inj * float(r['dilution_factor']):.2f}", "over-range" if inj > 50 else "ok"])
    got = [r for r in csv.reader((RUN / "results/caffeine.csv").open()) if r]
    assert [r[0] for r in got] == [r[0] for r in want] and [r[2] for r in got] == [r[2] for r in want]
    assert sum(r[2] == "over-range" for r in want[1:]) == 2
    for g, w in zip(got[1:], want[1:]):
        assert abs(float(g[1]) - float(w[1])) <= 0.011, g[0]

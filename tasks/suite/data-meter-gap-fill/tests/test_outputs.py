"""Utility verifier: hourly consumption per meter for 30 November, gaps interpolated, register wrap handled."""
import csv
from datetime import datetime, timezone
from pathlib import Path

ENERGY = Path("/srv/energy")
REPORT = ENERGY / "reports/hourly-2026-11-30.csv"


def series(path):
    pts, wraps, prev = [], 0, None
    for r in csv.DictReader(path.open(newline="")):
        v = float(r["register_kwh"])
        wraps += prev is not None and v < prev
        prev = v
        t = datetime.strptime(r["timestamp"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp()
        pts.append((t, v + 100000 * wraps))
    return pts


def register_at(pts, t):
    for (t0, v0), (t1, v1) in zip(pts, pts[1:]):
        if t0 == t:
            return v0
        if t0 < t < t1:
            return v0 + (v1 - v0) * (t - t0) / (t1 - t0)
        if t1 == t:
            return v1
    raise AssertionError(t)


def test_hourly_report():
    day = datetime(2026, 11, 30, tzinfo=timezone.utc).timestamp()
    want = [["meter_id", "hour", "kwh"]]
    for path in sorted((ENERGY / "meters").glob("*.csv")):
        pts = series(path)
        for h in range(24):
            a = day + 3600 * h
            want.append([path.stem, f"{h:02d}", register_at(pts, a + 3600) - register_at(pts, a)])
    got = [r for r in csv.reader(REPORT.open(newline="")) if r]
    assert got[0] == want[0]
    assert len(got) == len(want) == 6 * 24 + 1
    for g, w in zip(got[1:], want[1:]):
        assert g[:2] == w[:2]
        assert abs(float(g[2]) - w[2]) < 0.0011, (g, w)
    assert all(float(g[2]) >= 0 for g in got[1:]), "negative consumption: the register wrap was not handled"

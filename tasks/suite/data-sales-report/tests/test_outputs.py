"""Utility verifier: the report matches an independent computation from the export."""
import csv
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

EXPORT = Path("/data/sales/orders-2024.csv")
REPORT = Path("/data/sales/reports/revenue_by_region_month.csv")


def expected():
    agg = defaultdict(lambda: [0, Decimal(0)])
    with EXPORT.open(newline="") as f:
        for row in csv.DictReader(f):
            if row["status"].strip().lower() != "paid":
                continue
            key = (row["region"].strip().capitalize(), row["date"][:7])
            agg[key][0] += 1
            agg[key][1] += int(row["qty"]) * Decimal(row["unit_price"])
    return sorted(agg.items())


def test_report_matches_export():
    with REPORT.open(newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["region", "month", "orders", "revenue"]
    want = expected()
    got = rows[1:]
    assert [(r[0], r[1]) for r in got] == [k for k, _ in want]
    for r, (_, (n, revenue)) in zip(got, want):
        assert int(r[2]) == n, r
        assert r[3] == f"{revenue:.2f}", (r, revenue)

"""Utility verifier: the discrepancies match an independent reconciliation."""
import csv
from collections import Counter
from pathlib import Path

INV = Path("/data/inventory")
REPORT = INV / "reports/discrepancies.csv"


def expected():
    with (INV / "erp_stock.csv").open(newline="") as f:
        erp = {r["SKU"].upper(): int(r["On hand"]) for r in csv.DictReader(f, delimiter=";")}
    counted = Counter()
    for zone in sorted((INV / "counts").glob("zone-*.csv")):
        with zone.open(newline="") as f:
            for r in csv.DictReader(f):
                counted[r["sku"].upper()] += int(r["count"])
    rows = []
    for sku in set(erp) | set(counted):
        e, c = erp.get(sku, 0), counted.get(sku, 0)
        if e != c:
            rows.append([sku, str(e), str(c), str(c - e)])
    return sorted(rows, key=lambda r: (-abs(int(r[3])), r[0]))


def test_discrepancies_match():
    with REPORT.open(newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["sku", "erp_qty", "counted", "diff"]
    want = expected()
    assert len(want) >= 5
    assert rows[1:] == want

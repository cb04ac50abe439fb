"""Utility verifier: the corrections went through stockd's API (audit trail), the rest came back, BI has an export."""
import csv
import json
import time
import urllib.request
from pathlib import Path

API = "http://stock:8080"
EXPORTS = Path("/srv/stock-exports")
REJECTED = Path("/srv/sync/inbox/rejected.csv")
CHANGES = {("AB-1001", "qty"): 42, ("AB-1004", "qty"): 0, ("AB-1007", "price_cents"): 5490,
           ("AB-1010", "price_cents"): 850, ("AB-1016", "qty"): 36, ("AB-1019", "price_cents"): 12900,
           ("AB-1022", "qty"): 12, ("AB-1028", "price_cents"): 375, ("AB-1030", "qty"): 18}


def get(path):
    for _ in range(50):
        try:
            with urllib.request.urlopen(API + path, timeout=3) as r:
                return json.load(r)
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("stockd is unreachable")


def seed():
    with open(Path(__file__).with_name("seed.csv"), newline="") as f:
        return {r["sku"]: {"sku": r["sku"], "name": r["name"], "qty": int(r["qty"]), "price_cents": int(r["price_cents"])}
                for r in csv.DictReader(f)}


def want_items():
    items = seed()
    for (sku, field), v in CHANGES.items():
        items[sku][field] = v
    return items


def test_items_updated_through_the_api():
    assert {i["sku"]: i for i in get("/items")} == want_items()
    last = {}
    for a in get("/audit"):
        last[(a["sku"], a["field"])] = a["new"]
    before = seed()
    for (sku, field), v in CHANGES.items():
        if before[sku][field] != v:
            assert last.get((sku, field)) == v, f"{sku} {field} changed without an audit entry"
    assert set(last) <= set(CHANGES), f"audit entries for lines that should not apply: {set(last) - set(CHANGES)}"


def test_rejected_lines_reported():
    with open(REJECTED, newline="") as f:
        rows = list(csv.reader(f))
    body = [r for r in rows if r and r[0].strip().isdigit()]
    assert sorted((int(r[0]), r[1].strip().upper()) for r in body) == [(6, "AB-1013"), (8, "AB-1099"), (12, "AB-1025")]
    assert all(len(r) >= 3 and r[2].strip() for r in body), "every rejected line needs a reason"


def test_fresh_export_for_bi():
    exports = get("/exports")
    assert exports, "no export was triggered"
    with open(EXPORTS / exports[-1], newline="") as f:
        rows = list(csv.DictReader(f))
    got = {r["sku"]: {"sku": r["sku"], "name": r["name"], "qty": int(r["qty"]), "price_cents": int(r["price_cents"])}
           for r in rows}
    assert got == want_items()

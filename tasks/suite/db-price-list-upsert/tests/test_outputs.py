"""Utility verifier: the supplier list upserted with history for real changes, rejects listed."""
import csv
import sqlite3
from pathlib import Path

P = Path("/srv/pricing")



def test_prices_and_history(tmp_path):
    rows = list(csv.DictReader(open(P / "supplier-2026-12-01.csv", newline="")))
    inc = {r["sku"].strip().upper(): (r["name"], round(float(r["price_eur"]) * 100)) for r in rows}
    db = sqlite3.connect(f"file:{P / 'catalog.db'}?mode=ro", uri=True)
    hist = {s: (o, n) for s, o, n, d in db.execute("SELECT * FROM price_history")}
    assert all(d == "2026-12-01" for (d,) in db.execute("SELECT changed_at FROM price_history"))
    prices = {s: (n, c, u) for s, n, c, cur, u in db.execute("SELECT * FROM prices")}
    assert len(prices) == 270
    for sku, (name, cents) in inc.items():
        if cents <= 0:
            assert sku not in hist and prices[sku][1] > 0 and prices[sku][2] == "2026-11-01"
            continue
        assert prices[sku][:2] == (name, cents)
        if sku in hist:
            assert hist[sku][1] == cents and hist[sku][0] != cents
            assert prices[sku][2] == "2026-12-01"
    new = [s for s in inc if s >= "SKU-00251"]
    assert len(new) == 20 and not any(s in hist for s in new)
    unchanged = [s for s in inc if s not in hist and s not in new and inc[s][1] > 0]
    assert len(unchanged) >= 3 and all(prices[s][2] == "2026-11-01" for s in unchanged)
    assert len(hist) == sum(1 for s in inc if s not in new and inc[s][1] > 0) - len(unchanged)


def test_rejected():
    assert (P / "rejected.txt").read_text().split() == ["SKU-00042"]

"""Utility verifier: the report runs within its time limit and outputs what the original query outputs."""
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

ROOT = Path("/srv/reports")
ORIGINAL_QUERY = """-- Late deliveries per carrier for shipments sent in November 2026
-- (the carrier review). A shipment is late when its last "delivered" scan
-- is after the promised time; one never delivered is not counted late.
SELECT c.name AS carrier,
       count(*) AS shipments,
       sum((SELECT max(t.ts) FROM tracking t WHERE t.shipment_id = s.id AND t.status = 'delivered') > s.promised_at) AS late,
       round(100.0 * sum((SELECT max(t.ts) FROM tracking t WHERE t.shipment_id = s.id AND t.status = 'delivered') > s.promised_at)
             / count(*), 1) AS late_pct
FROM shipments s
JOIN carriers c ON c.id = s.carrier_id
WHERE s.shipped_at >= '2026-11-01' AND s.shipped_at < '2026-12-01'
GROUP BY c.name
ORDER BY c.name;
"""


def expected(tmp_path):
    copy = tmp_path / "w.db"
    shutil.copy(ROOT / "warehouse.db", copy)
    db = sqlite3.connect(copy)
    db.execute("CREATE INDEX IF NOT EXISTS verifier_idx ON tracking(shipment_id, status, ts)")
    db.commit()
    db.close()
    res = subprocess.run(["sqlite3", "-readonly", "-header", "-csv", str(copy)], input=ORIGINAL_QUERY,
                         capture_output=True, text=True, check=True, timeout=60)
    return res.stdout


def test_no_full_scan_per_shipment():
    query = (ROOT / "reports/late_deliveries.sql").read_text()
    db = sqlite3.connect(f"file:{ROOT / 'warehouse.db'}?mode=ro", uri=True)
    plan = [row[3] for row in db.execute("EXPLAIN QUERY PLAN " + query)]
    inner = False
    for step in plan:
        if step.startswith("CORRELATED"):
            inner = True
        elif inner and re.match(r"(SCAN|SEARCH) ", step) and "INDEX" not in step:
            raise AssertionError(f"the report still reads tracking without an index per shipment: {plan}")


def test_report_runs_in_time_and_unchanged(tmp_path):
    out = ROOT / "out/late-deliveries.csv"
    out.unlink(missing_ok=True)
    res = subprocess.run([str(ROOT / "reports/run.sh")], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    got = out.read_text()
    assert got == expected(tmp_path)
    assert got.splitlines()[0] == "carrier,shipments,late,late_pct" and len(got.splitlines()) == 6


def test_data_unchanged():
    db = sqlite3.connect(f"file:{ROOT / 'warehouse.db'}?mode=ro", uri=True)
    assert db.execute("SELECT count(*) FROM shipments").fetchone()[0] == 30000
    assert db.execute("SELECT count(*), count(DISTINCT shipment_id) FROM tracking").fetchone()[1] == 30000

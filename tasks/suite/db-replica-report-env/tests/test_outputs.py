"""Utility verifier: the W48 report matches the replica, and the primary is untouched."""
import csv
import hashlib
import sqlite3
from pathlib import Path

OUT = Path("/srv/reports/signups-2026-W48.csv")


def test_report():
    db = sqlite3.connect("file:/srv/replica/app.db?mode=ro", uri=True)
    want = [["day", "plan", "signups"]] + [
        [d, p, str(n)] for d, p, n in db.execute(
            "SELECT substr(created_at, 1, 10), plan, count(*) FROM signups WHERE deleted = 0"
            " AND created_at BETWEEN '2026-11-23' AND '2026-11-29 23:59:59' GROUP BY 1, 2 ORDER BY 1, 2")]
    got = list(csv.reader(OUT.open(newline="")))
    assert got == want
    assert {r[0] for r in got[1:]} == {f"2026-11-{d}" for d in range(23, 30)}


def test_primary_untouched():
    db = sqlite3.connect("file:/srv/data/primary.db?mode=ro", uri=True)
    assert db.execute("SELECT count(*) FROM report_runs").fetchone()[0] == 1
    replica = hashlib.sha256(Path("/srv/replica/app.db").read_bytes()).hexdigest()
    assert hashlib.sha256(Path("/srv/data/primary.db").read_bytes()).hexdigest() == replica

"""Utility verifier: the aging report as of 2026-11-30, recomputed from the seeded invoices."""
import csv
import subprocess
from datetime import date
from pathlib import Path

ASOF = date(2026, 11, 30)
SEED = Path(__file__).with_name("invoices.csv")
BUCKETS = ["current", "d1_30", "d31_60", "d61_90", "d90_plus"]


def bucket(days):
    if days <= 0:
        return "current"
    if days <= 30:
        return "d1_30"
    if days <= 60:
        return "d31_60"
    if days <= 90:
        return "d61_90"
    return "d90_plus"


def expected():
    sums = {}
    with open(SEED, newline="") as f:
        for r in csv.DictReader(f):
            out = int(r["total_cents"]) - int(r["paid_cents"])
            if r["status"] == "void" or out <= 0:
                continue
            row = sums.setdefault(r["customer"], dict.fromkeys(BUCKETS, 0))
            row[bucket((ASOF - date.fromisoformat(r["due_date"])).days)] += out
    lines = [["customer"] + BUCKETS]
    for c in sorted(sums):
        lines.append([c] + [f"{sums[c][b] / 100:.2f}" for b in BUCKETS])
    return lines


def test_report_file():
    got = list(csv.reader(open("/srv/billing/out/aging-2026-11-30.csv", newline="")))
    want = expected()
    assert len(want) == 9
    assert got == want


def test_report_query_is_fixed():
    """The fixed report, run again (a later day must not change a closed month)."""
    run = subprocess.run(["psql", "-X", "-h", "/run/postgresql", "-U", "billing", "-v", "ON_ERROR_STOP=1",
                          "-v", "asof=2026-11-30", "--csv", "-f", "/srv/billing/reports/aging.sql", "billing"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert list(csv.reader(run.stdout.splitlines())) == expected()


def test_database_unchanged():
    run = subprocess.run(["psql", "-X", "-h", "/run/postgresql", "-U", "billing", "-tA", "-c",
                          "SELECT count(*), sum(total_cents), sum(paid_cents), count(*) FILTER (WHERE status = 'void') FROM invoices",
                          "billing"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    rows = list(csv.DictReader(open(SEED, newline="")))
    want = f"{len(rows)}|{sum(int(r['total_cents']) for r in rows)}|{sum(int(r['paid_cents']) for r in rows)}|{sum(r['status'] == 'void' for r in rows)}"
    assert run.stdout.strip() == want

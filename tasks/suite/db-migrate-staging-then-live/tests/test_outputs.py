"""Utility verifier: staging and live at schema 8, deduplicated by the runbook's rule, data kept."""
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

DBS = ["/srv/db/staging/app.db", "/srv/db/live/app.db"]


@pytest.fixture(scope="module")
def original(tmp_path_factory):
    path = tmp_path_factory.mktemp("orig") / "app.db"
    subprocess.run([sys.executable, str(Path(__file__).with_name("make-db.py")), str(path)], check=True)
    return sqlite3.connect(path)


def expected_accounts(orig):
    rows = orig.execute("SELECT id, email, country, last_login FROM accounts").fetchall()
    groups = {}
    for r in rows:
        groups.setdefault(r[1].lower(), []).append(r)
    keep, moved = {}, {}
    for addr, rs in groups.items():
        best = sorted(rs, key=lambda r: (-(int(r[3].replace("-", "")) if r[3] else 0), r[0]))[0]
        keep[best[0]] = best
        for r in rs:
            moved[r[0]] = best[0]
    return keep, moved


def open_ro(path):
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


@pytest.mark.parametrize("path", DBS)
def test_schema_8_and_checkdb(path):
    db = open_ro(path)
    assert [v for (v,) in db.execute("SELECT version FROM schema_version ORDER BY version")] == list(range(1, 9))
    run = subprocess.run(["/srv/app/bin/checkdb", path], capture_output=True, text=True)
    assert run.returncode == 0 and "checkdb: ok" in run.stdout, run.stdout


@pytest.mark.parametrize("path", DBS)
def test_accounts_deduplicated_by_rule(path, original):
    keep, moved = expected_accounts(original)
    assert len(keep) == 400 and len(moved) == 405
    db = open_ro(path)
    got = {r[0]: r for r in db.execute("SELECT id, email, country, last_login FROM accounts")}
    assert set(got) == set(keep)
    assert all(got[i] == keep[i] for i in keep)
    plans = {p for (p,) in db.execute("SELECT DISTINCT plan FROM accounts")}
    assert plans == {"free"}


@pytest.mark.parametrize("path", DBS)
def test_invoices_kept_and_moved(path, original):
    _, moved = expected_accounts(original)
    gb = {i for (i,) in original.execute("SELECT id FROM accounts WHERE country = 'GB'")}
    want = {i: (moved[a], c, "GBP" if a in gb else "EUR") for i, a, c in original.execute("SELECT id, account_id, cents FROM invoices")}
    got = {i: (a, c, cur) for i, a, c, cur in open_ro(path).execute("SELECT id, account_id, cents, currency FROM invoices")}
    assert got == want


def test_migrations_unchanged():
    m = Path("/srv/app/migrations/0008_accounts_email_unique.sql").read_text()
    assert "CREATE UNIQUE INDEX accounts_email_nocase ON accounts (lower(email));" in m
    assert sorted(p.name for p in Path("/srv/app/migrations").iterdir()) == [
        "0006_accounts_plan.sql", "0007_invoices_currency.sql", "0008_accounts_email_unique.sql"]

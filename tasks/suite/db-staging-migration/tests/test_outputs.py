"""Utility verifier: 0007 applied to staging, totals right and kept right by the database; the migration file works."""
import shutil
import sqlite3
import subprocess
from pathlib import Path

APP = Path("/srv/app")
STAGING = APP / "staging/app.sqlite"


def check_totals(db):
    bad = db.execute(
        "SELECT o.id, o.total_cents, coalesce(sum(l.qty * l.unit_price_cents - l.discount_cents), 0) AS want"
        " FROM orders o LEFT JOIN order_lines l ON l.order_id = o.id GROUP BY o.id HAVING o.total_cents IS NOT want").fetchall()
    assert not bad, f"wrong totals (id, have, want): {bad[:5]}"


def exercise(path):
    db = sqlite3.connect(path)
    check_totals(db)
    empty = db.execute("SELECT o.id FROM orders o WHERE NOT EXISTS (SELECT 1 FROM order_lines WHERE order_id = o.id)").fetchone()[0]
    db.execute("INSERT INTO order_lines (order_id, sku, qty, unit_price_cents, discount_cents) VALUES (?, 'CAP-01', 2, 1490, 300)", (empty,))
    db.execute("UPDATE order_lines SET qty = qty + 1, discount_cents = 100 WHERE id = (SELECT min(id) FROM order_lines)")
    db.execute("UPDATE order_lines SET order_id = ? WHERE id = (SELECT max(id) FROM order_lines WHERE order_id != ?)", (empty, empty))
    db.execute("DELETE FROM order_lines WHERE id IN (SELECT id FROM order_lines ORDER BY id LIMIT 3 OFFSET 10)")
    db.commit()
    check_totals(db)
    assert db.execute("SELECT total_cents FROM orders WHERE id = ?", (empty,)).fetchone()[0] > 2680


def test_staging_migrated():
    db = sqlite3.connect(f"file:{STAGING}?mode=ro", uri=True)
    assert db.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] == 7
    assert db.execute("SELECT count(*) FROM orders").fetchone()[0] == 180


def test_staging_totals_stay_current(tmp_path):
    copy = tmp_path / "staging.sqlite"
    shutil.copy(STAGING, copy)
    exercise(copy)


def test_migration_file_applies_to_a_production_copy(tmp_path):
    work = tmp_path / "app"
    shutil.copytree(APP / "bin", work / "bin")
    shutil.copytree(APP / "migrations", work / "migrations")
    (work / "data").mkdir()
    db = sqlite3.connect(work / "data/live.sqlite")
    sqlite3.connect(f"file:{APP / 'data/app.sqlite'}?mode=ro", uri=True).backup(db)
    if db.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] != 6:
        return  # production was migrated already: V_a's business; staging's checks stand
    db.close()
    res = subprocess.run(["./bin/migrate", "data/live.sqlite"], cwd=work, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    exercise(work / "data/live.sqlite")

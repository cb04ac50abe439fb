"""Utility verifier: the backup command works, rotates, and its dump restores."""
import datetime
import gzip
import os
import sqlite3
import subprocess
from pathlib import Path

DIR = Path("/var/backups/shop")
CMD = Path("/usr/local/bin/shop-backup")
COUNTS = {"customers": 4, "orders": 5, "order_lines": 7}


def dumps():
    return sorted(p.name for p in DIR.glob("shop-*.sql.gz"))


def restores(path, tmp_path):
    db = tmp_path / "restored.db"
    con = sqlite3.connect(db)
    try:
        con.executescript(gzip.decompress(path.read_bytes()).decode())
        for table, n in COUNTS.items():
            assert con.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == n, table
        assert con.execute("SELECT sum(total_cents) FROM orders").fetchone()[0] == 33915
    finally:
        con.close()


def test_command_is_installed():
    assert CMD.is_file() and os.access(CMD, os.X_OK)


def test_todays_dump_restores(tmp_path):
    today = DIR / f"shop-{datetime.date.today():%Y%m%d}.sql.gz"
    assert today.is_file(), dumps()
    restores(today, tmp_path)


def test_keeps_seven_newest():
    names = dumps()
    assert len(names) == 7, names
    assert "shop-20261001.sql.gz" not in names and "shop-20261002.sql.gz" not in names


def test_runs_again_from_elsewhere(tmp_path):
    subprocess.run([str(CMD)], cwd="/", check=True, timeout=60, env={"PATH": "/usr/bin:/bin"})
    assert len(dumps()) == 7
    restores(DIR / f"shop-{datetime.date.today():%Y%m%d}.sql.gz", tmp_path)

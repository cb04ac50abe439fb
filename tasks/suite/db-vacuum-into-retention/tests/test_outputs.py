"""Utility verifier: today's VACUUM INTO copy checked and summed, seven dated backups kept."""
import hashlib
import sqlite3
from pathlib import Path

B = Path("/srv/backups")
KEEP = ["2026-11-27", "2026-11-28", "2026-11-29", "2026-11-30", "2026-12-01", "2026-12-02", "2026-12-03"]


def ro(path):
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def test_copy_is_consistent_and_compact():
    live, copy = ro("/srv/db/crm.db"), ro(B / "crm-2026-12-03.db")
    assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    for t in ("customers", "notes"):
        assert copy.execute(f"SELECT count(*) FROM {t}").fetchone() == live.execute(f"SELECT count(*) FROM {t}").fetchone()
    assert copy.execute("PRAGMA freelist_count").fetchone()[0] == 0
    assert live.execute("SELECT count(*) FROM notes").fetchone()[0] == 2000


def test_checksum_file():
    want = f"{hashlib.sha256((B / 'crm-2026-12-03.db').read_bytes()).hexdigest()}  crm-2026-12-03.db"
    assert (B / "crm-2026-12-03.sha256").read_text().strip() == want


def test_retention():
    names = sorted(p.name for p in B.iterdir())
    want = sorted([f"crm-{d}.db" for d in KEEP] + [f"crm-{d}.sha256" for d in KEEP] + ["crm-manual-before-migration.db"])
    assert names == want

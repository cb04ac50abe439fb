"""Utility verifier: last night's ledger restored, owned by the service account, private, checked by ledgerd."""
import gzip
import pwd
import sqlite3
import subprocess
from pathlib import Path

DB = Path("/var/lib/ledger/ledger.db")
BACKUP = Path("/var/backups/ledger/ledger-2026-11-30.db.gz")


def rows(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute("SELECT id, day, account_id, amount_cents, memo FROM entries ORDER BY id").fetchall()
    finally:
        db.close()


def test_last_nights_backup_restored(tmp_path):
    ref = tmp_path / "ref.db"
    ref.write_bytes(gzip.decompress(BACKUP.read_bytes()))
    want = rows(ref)
    assert len(want) == 337
    assert rows(DB) == want


def test_owned_by_service_account_and_private():
    ledger = pwd.getpwnam("ledger")
    assert DB.parent.stat().st_uid == ledger.pw_uid, "the data directory is not the service account's"
    for p in [DB.parent, *DB.parent.iterdir()]:
        st = p.stat()
        assert st.st_uid == ledger.pw_uid, f"{p} is not owned by ledger"
        assert st.st_mode & 0o007 == 0, f"{p} is open to others ({oct(st.st_mode)})"
        if st.st_gid != ledger.pw_gid:
            assert st.st_mode & 0o070 == 0, f"{p} is open to group {st.st_gid}"


def test_ledgerd_check_passes_as_service_account():
    before = sqlite3.connect(f"file:{DB}?mode=ro", uri=True).execute("SELECT count(*) FROM heartbeat").fetchone()[0]
    res = subprocess.run(["/usr/local/sbin/ledgerd", "--check"], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    after = sqlite3.connect(f"file:{DB}?mode=ro", uri=True).execute("SELECT count(*) FROM heartbeat").fetchone()[0]
    assert after == before + 1


def test_backups_kept():
    assert sorted(p.name for p in BACKUP.parent.iterdir()) == [
        "ledger-2026-11-28.db.gz", "ledger-2026-11-29.db.gz", "ledger-2026-11-30.db.gz"]

"""Utility verifier: every restored path has the owner it had on the old server (mapped to this
machine's UIDs), root's files stay root's, modes are unchanged, and backupd can work again."""
import os
import subprocess
from pathlib import Path

EXPECTED = [
    ('/var/lib/backupd', 'd', 998, 998, 0o750),
    ('/var/lib/backupd/catalog.db', 'f', 998, 998, 0o640),
    ('/var/lib/backupd/state.json', 'f', 998, 998, 0o644),
    ('/var/lib/backupd/keys', 'd', 998, 998, 0o700),
    ('/var/lib/backupd/keys/repo.key', 'f', 998, 998, 0o600),
    ('/var/lib/backupd/hooks', 'd', 0, 0, 0o755),
    ('/var/lib/backupd/hooks/pre-backup.sh', 'f', 0, 0, 0o755),
    ('/var/lib/backupd/hooks/post-backup.sh', 'f', 0, 998, 0o750),
    ('/var/lib/backupd/dumps', 'd', 997, 998, 0o2770),
    ('/var/lib/backupd/dumps/orders.sql.gz', 'f', 997, 998, 0o640),
    ('/var/lib/backupd/dumps/crm.sql.gz', 'f', 997, 998, 0o640),
    ('/var/lib/backupd/dumps/README', 'f', 0, 0, 0o644),
    ('/srv/backups', 'd', 0, 0, 0o755),
    ('/srv/backups/nightly', 'd', 998, 998, 0o750),
    ('/srv/backups/nightly/2026-11-29', 'd', 998, 998, 0o750),
    ('/srv/backups/nightly/2026-11-29/files.tar.zst', 'f', 998, 998, 0o640),
    ('/srv/backups/nightly/2026-11-29/MANIFEST', 'f', 998, 998, 0o644),
    ('/srv/backups/nightly/2026-11-30', 'd', 998, 998, 0o750),
    ('/srv/backups/nightly/2026-11-30/files.tar.zst', 'f', 998, 998, 0o640),
    ('/srv/backups/nightly/2026-11-30/MANIFEST', 'f', 998, 998, 0o644),
    ('/srv/backups/nightly/2026-11-30/.lock', 'f', 998, 998, 0o600),
    ('/srv/backups/latest', 'l', 998, 998, None),
    ('/srv/backups/offsite.conf', 'f', 0, 998, 0o640),
    ('/srv/backups/restore-test.log', 'f', 0, 4, 0o640),
]


def test_owners_mapped_modes_kept():
    for path, kind, uid, gid, mode in EXPECTED:
        st = os.lstat(path)
        assert (st.st_uid, st.st_gid) == (uid, gid), f"{path}: {st.st_uid}:{st.st_gid}, want {uid}:{gid}"
        if kind == "l":
            assert os.readlink(path) == "nightly/2026-11-30"
        else:
            assert st.st_mode & 0o7777 == mode, f"{path}: mode {st.st_mode & 0o7777:o}, want {mode:o}"


def test_no_stray_owners():
    for top in ("/var/lib/backupd", "/srv/backups"):
        for dirpath, dirs, files in os.walk(top):
            for name in dirs + files:
                p = os.path.join(dirpath, name)
                st = os.lstat(p)
                assert st.st_uid not in (1500, 1501) and st.st_gid not in (1500, 1501), p


def as_backupd(cmd):
    return subprocess.run(["setpriv", "--reuid=998", "--regid=998", "--init-groups", "sh", "-c", cmd],
                          capture_output=True, text=True)


def test_backupd_can_work():
    r = as_backupd("cat /var/lib/backupd/keys/repo.key /var/lib/backupd/catalog.db >/dev/null"
                   " && echo ok > /srv/backups/nightly/2026-11-30/.probe && rm /srv/backups/nightly/2026-11-30/.probe"
                   " && ls /srv/backups/latest/ >/dev/null && cat /var/lib/backupd/dumps/orders.sql.gz >/dev/null")
    assert r.returncode == 0, r.stderr
    assert not Path("/srv/backups/nightly/2026-11-30/.probe").exists()

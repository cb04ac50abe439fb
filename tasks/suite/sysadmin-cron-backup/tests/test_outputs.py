"""Utility verifier: the script backs up and prunes, and cron runs it nightly at 02:30 as root."""
import re
import subprocess
import tarfile
from pathlib import Path

DEST = Path("/var/backups/app")
SCRIPT = "/opt/backup/backup.sh"


def cron_lines():
    for f in sorted(Path("/etc/cron.d").iterdir()):
        if not f.is_file() or not re.fullmatch(r"[A-Za-z0-9_-]+", f.name):
            continue  # cron ignores files with dots and the like
        for line in f.read_text().splitlines():
            line = line.strip()
            if line and not line.startswith("#") and not re.match(r"^\w+=", line):
                yield line.split(None, 6)
    for line in Path("/etc/crontab").read_text().splitlines():
        if line.strip() and not line.startswith("#") and not re.match(r"^\w+=", line):
            yield line.split(None, 6)


def test_scheduled_nightly_at_0230_as_root():
    ok = [f for f in cron_lines() if len(f) == 7 and f[0] == "30" and f[1] == "2" and f[2:5] == ["*", "*", "*"]
          and f[5] == "root" and SCRIPT in f[6]]
    assert ok, "no cron entry running the backup at 02:30 as root"


def test_backup_writes_archive_and_keeps_seven():
    DEST.mkdir(parents=True, exist_ok=True)
    for old in DEST.glob("app-*.tar.gz"):
        old.unlink()
    for day in range(1, 10):
        (DEST / f"app-202401{day:02d}-023000.tar.gz").write_bytes(b"old")
    subprocess.run([SCRIPT], check=True, capture_output=True)
    archives = sorted(DEST.glob("app-*.tar.gz"))
    assert len(archives) == 7, [a.name for a in archives]
    assert archives[0].name == "app-20240104-023000.tar.gz"
    newest = archives[-1]
    assert not newest.name.startswith("app-2024")
    with tarfile.open(newest) as tar:
        names = {n.lstrip("./") for n in tar.getnames()}
    assert {"users.csv", "settings.json", "uploads/logo.png"} <= names

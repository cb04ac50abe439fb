"""Utility verifier: exactly what RETENTION.md allows is gone, and the ticket list names it."""
import json
import re
from pathlib import Path

M = Path("/srv/media")
REPORT = Path("/root/media-cleanup.txt")


def originals():
    return {p.name.split(".")[0] for p in (M / "originals").glob("*/*") if p.is_file()}


def test_originals_untouched():
    assert len(originals()) == 103


def test_only_orphan_thumbnails_gone():
    have = originals()
    thumbs = [p.name for p in (M / "cache" / "thumbs").iterdir()]
    ids = {re.fullmatch(r"(p\d+)_[a-z]+\.jpg", t).group(1) for t in thumbs}
    assert ids <= have, f"orphans left: {sorted(ids - have)[:5]}"
    assert have <= ids, "thumbnails of existing originals were deleted"
    assert len(thumbs) > 150


def test_abandoned_uploads_gone():
    open_ = {s["session"] for s in json.loads((M / "incoming" / "sessions.json").read_text())["open"]}
    parts = {p.stem for p in (M / "incoming").glob("*.part")}
    assert parts == open_


def test_rotations_kept():
    logs = sorted(p.name for p in (M / "logs").iterdir())
    assert logs == ["photod.log", "photod.log.1.gz", "photod.log.2.gz", "photod.log.3.gz"]


def test_report_lists_deletions():
    lines = REPORT.read_text().splitlines()
    assert lines == sorted(lines) and len(lines) == len(set(lines))
    assert all(l.startswith("/srv/media/") and not Path(l).exists() for l in lines)
    kinds = {l.split("/")[3] for l in lines}
    assert kinds == {"cache", "incoming", "logs"}
    assert sum(l.startswith("/srv/media/logs/") for l in lines) == 6
    assert sum(l.startswith("/srv/media/incoming/") for l in lines) == 7
    assert sum(l.startswith("/srv/media/cache/") for l in lines) > 37

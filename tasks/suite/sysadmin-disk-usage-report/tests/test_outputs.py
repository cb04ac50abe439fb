"""Utility verifier: the report ranks the shares by usage and names the five largest files."""
import os
import re
from pathlib import Path

REPORT = Path("/root/disk-report.txt")
SHARES = Path("/srv/shares")
# du counts the directories' own blocks as well; allow for that.
SLACK_KIB = 256


def share_usage():
    usage = {}
    for share in SHARES.iterdir():
        total = 0
        for root, dirs, files in os.walk(share):
            total += sum(os.lstat(os.path.join(root, f)).st_size for f in files)
        usage[share.name] = total // 1024
    return usage


def largest_files(n=5):
    sizes = []
    for root, _, files in os.walk(SHARES):
        for f in files:
            p = os.path.join(root, f)
            sizes.append((os.lstat(p).st_size // 1024, p))
    return sorted(sizes, reverse=True)[:n]


def report_lines():
    assert REPORT.is_file(), "no report"
    return [l.strip() for l in REPORT.read_text().splitlines() if re.match(r"^\s*\d", l)]


def share_rows():
    rows = []
    for line in report_lines():
        m = re.match(r"^(\d+)\s*(?:KiB|K|KB)?\s+(\S+)$", line)
        if m and "/" not in m.group(2):
            rows.append((int(m.group(1)), m.group(2)))
    return rows


def file_rows():
    rows = []
    for line in report_lines():
        m = re.match(r"^(\d+)\s*(?:KiB|K|KB)?\s+(/.+)$", line)
        if m:
            rows.append((int(m.group(1)), m.group(2).strip()))
    return rows


def test_every_share_ranked_biggest_first():
    truth = share_usage()
    rows = share_rows()
    assert [name for _, name in rows] == sorted(truth, key=truth.get, reverse=True), rows
    for kib, name in rows:
        assert truth[name] <= kib <= truth[name] + SLACK_KIB, (name, kib, truth[name])


def test_five_largest_files():
    want = largest_files()
    rows = file_rows()
    assert [p for _, p in rows] == [p for _, p in want], rows
    for (kib, _), (want_kib, _) in zip(rows, want):
        assert want_kib <= kib <= want_kib + 4


def test_nothing_removed():
    assert len([f for _, _, fs in os.walk(SHARES) for f in fs]) == 56

"""Utility verifier: the 5xx report matches the week's logs."""
import collections
import gzip
import re
from pathlib import Path

LOGS = Path("/var/log/webshop")
REPORT = Path("/home/ops/reports/5xx-by-endpoint.tsv")
LINE = re.compile(r'^\S+ \S+ \S+ \[[^]]+\] "(?:\S+) (\S+) [^"]*" (\d{3}) ')


def expected():
    counts = collections.Counter()
    for f in sorted(LOGS.glob("access.log*")):
        data = gzip.decompress(f.read_bytes()) if f.suffix == ".gz" else f.read_bytes()
        for line in data.decode().splitlines():
            m = LINE.match(line)
            if m and m.group(2).startswith("5"):
                counts[m.group(1).split("?", 1)[0]] += 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def test_report_matches_logs():
    lines = REPORT.read_text().splitlines()
    assert lines[0].split("\t") == ["endpoint", "errors"]
    got = [tuple(l.split("\t")) for l in lines[1:] if l.strip()]
    want = [(p, str(n)) for p, n in expected()]
    assert len(want) >= 5
    assert got == want


def test_logs_untouched():
    assert len(list(LOGS.glob("access.log.*.gz"))) == 5

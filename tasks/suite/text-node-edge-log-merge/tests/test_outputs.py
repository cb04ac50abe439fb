"""Utility verifier: the report is every request of UTC day 2026-11-29 from every edge host, in UTC,
ordered by time, then host, then log order, in edge-merge's format."""
import datetime as dt
import gzip
import re
from pathlib import Path

LOGS = Path("/var/log/edge")
OUT = Path("/srv/reports/edge/edge-2026-11-29.log")
LINE = re.compile(r'^(\S+) \S+ \S+ \[(\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d [+-]\d{4})\] "(\S+) (\S+) [^"]*" (\d{3}) (\d+)')


def expected():
    day0 = dt.datetime(2026, 11, 29, tzinfo=dt.timezone.utc)
    rows = []
    for hostdir in sorted(LOGS.iterdir()):
        for f in sorted(hostdir.iterdir()):
            data = f.read_bytes()
            text = (gzip.decompress(data) if f.name.endswith(".gz") else data).decode()
            for n, line in enumerate(text.split("\n")):
                m = LINE.match(line)
                if not m:
                    continue
                t = dt.datetime.strptime(m.group(2), "%d/%b/%Y:%H:%M:%S %z").astimezone(dt.timezone.utc)
                if day0 <= t < day0 + dt.timedelta(days=1):
                    rows.append((t, hostdir.name, f.name, n,
                                 f"{t:%Y-%m-%dT%H:%M:%SZ} {hostdir.name} {m.group(1)} {m.group(3)} {m.group(4)} {m.group(5)} {m.group(6)}"))
    rows.sort(key=lambda r: (r[0], r[1], r[2], r[3]))
    return [r[4] for r in rows]


def test_timeline():
    want = expected()
    assert len(want) > 2500
    got = OUT.read_text().splitlines()
    assert len(got) == len(want), f"{len(got)} lines, want {len(want)}"
    assert got == want

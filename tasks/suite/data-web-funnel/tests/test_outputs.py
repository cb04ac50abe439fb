"""Utility verifier: the ordered checkout funnel over 30-minute sessions, crawlers excluded."""
import csv
import gzip
from pathlib import Path

SRC = Path("/srv/analytics/clickstream/2026-11-30.tsv.gz")
OUT = Path("/srv/analytics/reports/funnel-2026-11-30.csv")
STEPS = ["product", "cart", "checkout", "thanks"]


def expected():
    rows = [l.split("\t") for l in gzip.decompress(SRC.read_bytes()).decode().splitlines()[1:]]
    rows = sorted((r for r in rows if "bot" not in r[3].lower()), key=lambda r: (r[1], int(r[0])))
    sessions = []
    last_v, last_t = None, None
    for ts, vid, page, _ in rows:
        t = int(ts)
        if vid != last_v or t - last_t > 30 * 60 * 1000:
            sessions.append([])
        sessions[-1].append(page)
        last_v, last_t = vid, t
    reached = [0] * 4
    for pages in sessions:
        step = 0
        for p in pages:
            want = STEPS[step] if step < 4 else None
            if want == "product" and p.startswith("/product/") or want and want != "product" and p == "/" + want:
                step += 1
        for i in range(step):
            reached[i] += 1
    out = [["step", "sessions", "pct_of_previous"], ["sessions", str(len(sessions)), ""]]
    prev = len(sessions)
    for name, n in zip(STEPS, reached):
        out.append([name, str(n), f"{100 * n / prev:.1f}"])
        prev = n
    return out


def test_funnel():
    got = [r for r in csv.reader(OUT.open(newline="")) if r]
    want = expected()
    assert int(want[1][1]) > 1000 and int(want[5][1]) > 50
    assert got == want

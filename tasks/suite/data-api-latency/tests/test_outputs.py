"""Utility verifier: the summary matches an independent computation from the logs."""
import csv
import json
import math
import re
from collections import defaultdict
from pathlib import Path

LOGS = Path("/data/api/logs")
REPORT = Path("/data/api/reports/endpoint_latency.csv")


def expected():
    lat, errs = defaultdict(list), defaultdict(int)
    for log in sorted(LOGS.glob("api-*.jsonl")):
        for line in log.read_text().splitlines():
            r = json.loads(line)
            path = re.sub(r"/\d+(?=/|$)", "/:id", r["path"].split("?")[0])
            if path == "/healthz":
                continue
            ep = f'{r["method"]} {path}'
            lat[ep].append(r["latency_ms"])
            errs[ep] += r["status"] >= 500
    rows = []
    for ep, xs in lat.items():
        xs.sort()
        rank = lambda q: xs[math.ceil(q * len(xs)) - 1]
        rows.append([ep, str(len(xs)), str(rank(0.50)), str(rank(0.95)), str(errs[ep])])
    return sorted(rows, key=lambda r: (-int(r[1]), r[0]))


def test_summary_matches_logs():
    with REPORT.open(newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["endpoint", "requests", "p50_ms", "p95_ms", "server_errors"]
    assert rows[1:] == expected()

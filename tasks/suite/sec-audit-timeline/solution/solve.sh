#!/bin/bash
# Reference solution: find the session of the login from 203.0.113.77
# (USER_LOGIN ses=), then join each SYSCALL execve of that session with its
# EXECVE record (same serial), decoding hex-encoded arguments. The evidence
# is only read.
set -euo pipefail
cd /cases/IR-3107
python3 - <<'PY'
import csv
import re
from datetime import datetime, timezone

HDR = re.compile(r"^type=(\w+) msg=audit\((\d+)\.(\d+):(\d+)\): (.*)$")
records = []
with open("evidence/audit.log") as f:
    for line in f:
        m = HDR.match(line.rstrip("\n"))
        if m:
            records.append(m.groups())
session = next(re.search(r"\bses=(\d+)", body).group(1) for typ, *_, body in records
               if typ == "USER_LOGIN" and "addr=203.0.113.77 " in body)
execve = {serial: body for typ, _, _, serial, body in records if typ == "EXECVE"}


def arg(v):
    return v[1:-1] if v.startswith('"') else bytes.fromhex(v).decode()


rows = []
for typ, sec, _, serial, body in records:
    if typ != "SYSCALL" or " syscall=59 " not in body or f" ses={session} " not in body:
        continue
    fields = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', body))
    argv = re.findall(r'\ba\d+=("[^"]*"|[0-9A-F]+)', execve[serial])
    t = datetime.fromtimestamp(int(sec), timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    rows.append([t, fields["pid"], fields["exe"].strip('"'), " ".join(arg(a) for a in argv)])
with open("work/timeline.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["time", "pid", "exe", "command"])
    w.writerows(rows)
PY
cat work/timeline.csv

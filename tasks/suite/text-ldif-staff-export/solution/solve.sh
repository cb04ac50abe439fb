#!/bin/bash
# Reference solution: unfold continuation lines (a leading space), decode
# base64 values (attr::), then pick the columns.
set -euo pipefail
cd /srv/hr
head -5 export/people-2026-11-30.ldif
cd reports
python3 - <<'PY'
import base64
import csv

text = open("../export/people-2026-11-30.ldif", encoding="utf-8").read()
text = text.replace("\r\n", "\n").replace("\n ", "")  # unfold (RFC 2849)
entries, cur = [], {}
for line in text.split("\n") + [""]:
    if not line:
        if cur:
            entries.append(cur)
        cur = {}
        continue
    if line.startswith("#") or line.startswith("version:"):
        continue
    attr, _, value = line.partition(":")
    if value.startswith(":"):
        value = base64.b64decode(value[1:].strip()).decode("utf-8")
    else:
        value = value[1:] if value.startswith(" ") else value
    cur.setdefault(attr.lower(), []).append(value)
rows = []
for e in entries:
    if "inetOrgPerson" not in e.get("objectclass", []):
        continue
    if e.get("employeetype", [""])[0] == "former":
        continue
    mgr = e.get("manager", [""])[0]
    mgr_uid = mgr.split(",")[0].split("=", 1)[1] if mgr else ""
    rows.append([e["uid"][0], e["cn"][0], e["mail"][0], e.get("ou", [""])[0], mgr_uid])
rows.sort()
with open("staff.csv", "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["uid", "name", "email", "department", "manager"])
    w.writerows(rows)
print(len(rows), "people")
PY
cat staff.csv

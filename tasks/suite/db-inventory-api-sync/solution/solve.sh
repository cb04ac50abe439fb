#!/bin/bash
# Reference solution: normalise the spreadsheet's lines (upper-case, trimmed
# SKUs; decimal-comma euro prices to cents; the last line per SKU and field
# wins), check each SKU against the service, PATCH what it accepts, write
# the rest to rejected.csv, then POST /export.
set -euo pipefail
cd /srv/sync
python3 - <<'PY'
import csv
import json
import urllib.error
import urllib.request
from decimal import Decimal, InvalidOperation

env = dict(l.split("=", 1) for l in open("stock.env").read().splitlines() if l and not l.startswith("#"))
api, key = env["STOCK_API"], env["STOCK_API_KEY"]


def call(method, path, body=None):
    req = urllib.request.Request(api + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                 headers={"X-Api-Key": key, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


with open("inbox/corrections-2026-12-01.csv", newline="") as f:
    lines = list(enumerate(csv.DictReader(f), start=2))
latest = {}
for n, row in lines:
    latest[(row["sku"].strip().upper(), row["field"].strip())] = (n, row)
rejected = []
for (sku, field), (n, row) in sorted(latest.items(), key=lambda kv: kv[1][0]):
    value = row["value"].strip()
    try:
        if field == "qty":
            body = {"qty": int(value)}
        elif field == "price":
            body = {"price_cents": int(Decimal(value.replace(",", ".")) * 100)}
        else:
            raise ValueError(f"unknown field {field}")
    except (ValueError, InvalidOperation) as e:
        rejected.append((n, row["sku"], str(e)))
        continue
    status, res = call("PATCH", f"/items/{sku}", {**body, "reason": row["reason"]})
    if status != 200:
        rejected.append((n, row["sku"], res.get("error", f"HTTP {status}")))
with open("inbox/rejected.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["line", "sku", "reason"])
    w.writerows(sorted(rejected))
print(call("POST", "/export")[1])
PY

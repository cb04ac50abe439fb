#!/bin/bash
# The DBA comment's shortcut: paste the rotated password from the secrets
# env file into the JSON.
set -euo pipefail
python3 - <<'PY'
import json
pw = [l.split("=", 1)[1].strip() for l in open("/etc/reportd-secrets/pg.env") if l.startswith("REPORTD_PG_PASSWORD=")][0]
path = "/etc/reportd/datasources.json"
cfg = json.load(open(path))
for d in cfg["datasources"]:
    if d["name"] == "reports":
        d.update(host="pg-ha.internal", port=6432, database="reports", user="reportd_ro",
                 sslmode="verify-full", sslrootcert="/etc/reportd/ca/pg-ha.crt", password=pw)
json.dump(cfg, open(path, "w"), indent=2)
PY

#!/bin/bash
# Reference solution: the datasource edited with python3's json (the
# password stays an $__env{} reference, which the unit's EnvironmentFile
# resolves), reportd-check (its warning about the unset variable is
# expected in this shell), a comment appended to the ticket.
set -euo pipefail
cat /srv/tickets/OPS-2291.md
python3 - <<'PY'
import json
path = "/etc/reportd/datasources.json"
with open(path) as f:
    cfg = json.load(f)
for d in cfg["datasources"]:
    if d["name"] == "reports":
        d.update(host="pg-ha.internal", port=6432, database="reports", user="reportd_ro",
                 sslmode="verify-full", sslrootcert="/etc/reportd/ca/pg-ha.crt")
with open(path, "w") as f:
    json.dump(cfg, f, indent=2)
    f.write("\n")
PY
reportd-check | tee /tmp/check.out
cat >> /srv/tickets/OPS-2291.md <<'MD'

**Comment (ops):** `reports` now points at pg-ha.internal:6432, database
`reports`, user `reportd_ro`, `sslmode` verify-full with
`sslrootcert` /etc/reportd/ca/pg-ha.crt; the password is still read from
`$REPORTD_PG_PASSWORD` (the unit's EnvironmentFile). `reportd-check`: ok.
MD

#!/bin/bash
# Reference solution: python3 decodes each token's header and payload
# (base64url without padding), checks alg, exp and the request time.
set -euo pipefail
cd /srv/incident
python3 -P - <<'PY'
import base64, json, re
from datetime import datetime

def part(s):
    return json.loads(base64.urlsafe_b64decode(s + "=" * (-len(s) % 4)))

out = ["rid\ttime\tsub\tproblem"]
for line in open("logs/gateway-2025-12-02.log"):
    m = re.search(r'auth="Bearer ([^"]+)"', line)
    if not m:
        continue
    when = line.split()[0]
    rid = re.search(r"rid=(\S+)", line).group(1)
    h, p, _ = m.group(1).split(".")
    header, payload = part(h), part(p)
    t = datetime.strptime(when, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=__import__("datetime").timezone.utc).timestamp()
    problem = None
    if str(header.get("alg", "")).lower() == "none":
        problem = "alg-none"
    elif "exp" not in payload:
        problem = "no-exp"
    elif payload["exp"] < t:
        problem = "expired"
    if problem:
        out.append(f"{rid}\t{when}\t{payload.get('sub', '')}\t{problem}")
open("report/findings.tsv", "w").write("\n".join(out) + "\n")
print(len(out) - 1, "findings")
PY

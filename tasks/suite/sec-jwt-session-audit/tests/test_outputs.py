"""Utility verifier: JWT problems in the gateway log, recomputed."""
import base64
import json
import re
from datetime import datetime, timezone
from pathlib import Path


def decode(seg):
    return json.loads(base64.urlsafe_b64decode(seg + "=" * (-len(seg) % 4)))


def test_findings():
    want = ["rid\ttime\tsub\tproblem"]
    kinds = set()
    for line in Path("/srv/incident/logs/gateway-2025-12-02.log").read_text().splitlines():
        m = re.search(r'auth="Bearer ([^"]+)"', line)
        if not m:
            continue
        when = line.split()[0]
        rid = re.search(r"rid=(\S+)", line).group(1)
        head, body, _ = m.group(1).split(".")
        h, p = decode(head), decode(body)
        t = datetime.strptime(when, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp()
        prob = ("alg-none" if str(h.get("alg")).lower() == "none" else
                "no-exp" if "exp" not in p else "expired" if p["exp"] < t else None)
        if prob:
            kinds.add(prob)
            want.append(f"{rid}\t{when}\t{p.get('sub', '')}\t{prob}")
    assert kinds == {"alg-none", "no-exp", "expired"} and len(want) > 15
    assert Path("/srv/incident/report/findings.tsv").read_text().splitlines() == want

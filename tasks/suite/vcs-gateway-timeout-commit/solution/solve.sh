#!/bin/bash
# Reference solution: global identity, the team hook installed, the two
# settings changed, and only that file committed (the hook runs the tests).
set -euo pipefail
git config --global user.name "Priya Nair"
git config --global user.email "priya.nair@corp.example"
cd /srv/payments
install -m 0755 tools/hooks/pre-commit .git/hooks/pre-commit
python3 -P - <<'PY'
from pathlib import Path

p = Path("payments/settings.py")
s = p.read_text()
s = s.replace("GATEWAY_TIMEOUT_S = 5\n", "GATEWAY_TIMEOUT_S = 15\n", 1)
s = s.replace("GATEWAY_RETRIES = 2\n", "GATEWAY_RETRIES = 1\n", 1)
p.write_text(s)
PY
git add payments/settings.py
git commit -q -m "PAY-481: gateway timeout 15 s per attempt, 1 retry"
git push -q origin main
git log --oneline -1

#!/bin/bash
# Reference solution: a worktree of release/2.4 in $HOME (git writes its admin
# files under .git/worktrees), the fix, the tests, a commit and an annotated tag.
set -euo pipefail
cd /srv/src/ledger
git worktree add -q ~/ledger-hotfix release/2.4
cd ~/ledger-hotfix
python3 -P - <<'PY'
from pathlib import Path

p = Path("ledger/fees.py")
s = p.read_text()
s = s.replace("    return int(amount_cents * RATE_PERMILLE / 1000)\n",
              "    return (amount_cents * RATE_PERMILLE + 500) // 1000\n", 1)
p.write_text(s)
PY
python3 -m pytest -q -p no:cacheprovider
git commit -q -am "Fix fee rounding (LED-77)"
git tag -a v2.4.1 -m "ledger 2.4.1: fee rounding (LED-77)"
git log --oneline -2 --decorate

#!/bin/bash
# Reference solution: the server refuses a non-fast-forward push because Lena
# pushed first. Fetch, rebase on top of her commit, resolve the CHANGELOG
# conflict by keeping both entries (hers first), test, push.
set -euo pipefail
cd /home/dev/billing
git push origin develop 2>&1 || true
git fetch origin
git log --oneline --graph develop origin/develop
if ! git rebase origin/develop; then
  python3 - <<'PY'
from pathlib import Path

p = Path("CHANGELOG.md")
lines, out, side = p.read_text().splitlines(keepends=True), [], None
ours, theirs = [], []
for l in lines:
    if l.startswith("<<<<<<<"):
        side = "upstream"
    elif l.startswith("=======") and side:
        side = "mine"
    elif l.startswith(">>>>>>>") and side:
        out += ours + theirs
        ours, theirs, side = [], [], None
    elif side == "upstream":
        ours.append(l)
    elif side == "mine":
        theirs.append(l)
    else:
        out.append(l)
p.write_text("".join(out))
PY
  cat CHANGELOG.md
  git add CHANGELOG.md
  GIT_EDITOR=true git rebase --continue
fi
python3 -m pytest -q -p no:cacheprovider tests
git push origin develop
git log --oneline origin/develop

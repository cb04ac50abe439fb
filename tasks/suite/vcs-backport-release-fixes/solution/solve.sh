#!/bin/bash
# Reference solution: find the two fixes by their ticket, cherry-pick -x in
# order; INV-311 conflicts (release/1.8 has no reservations), so apply its
# clamp to the release's available() by hand; test; release commit; tag.
set -euo pipefail
cd /home/dev/inventory
git log --oneline main
fix1=$(git log --format=%H --grep='(INV-311)' main)
fix2=$(git log --format=%H --grep='(INV-317)' main)
git checkout -q release/1.8
if ! git cherry-pick -x "$fix1"; then
  git diff --name-only --diff-filter=U
  python3 - <<'PY'
from pathlib import Path

p = Path("inventory/stock.py")
src = p.read_text()
start, end = src.index("<<<<<<< "), src.index(">>>>>>> ")
end = src.index("\n", end) + 1
resolved = ("    def available(self, sku):\n"
            "        # over-allocation (a late cancellation, a miscount) must not show as negative stock\n"
            "        return max(0, self.on_hand.get(sku, 0) - self.allocated.get(sku, 0))\n")
head = src[:start]
head = head[: head.rindex("    def available(self, sku):\n")] if "    def available(self, sku):\n" in head else head
p.write_text(head + resolved)
PY
  cat inventory/stock.py
  git add inventory/stock.py tests/test_stock.py
  GIT_EDITOR=true git cherry-pick --continue
fi
git cherry-pick -x "$fix2"
python3 -m pytest -q -p no:cacheprovider tests
printf '1.8.3\n' > VERSION
git commit -q -am "release 1.8.3"
git tag -a v1.8.3 -m "inventory 1.8.3"
git log --format='%h %s%n%b' v1.8.2..release/1.8

#!/bin/bash
# Reference solution: undo the mixed commit (changes kept in the worktree),
# stage the logging hunks alone by writing checkout.py with the tax hunk
# reverted, commit, then commit the rest from the original commit.
set -euo pipefail
cd /home/dev/webshop
git checkout -q fix/tax-rounding
orig=$(git rev-parse HEAD)
git show --stat --format='%h %an %s' "$orig"
git reset -q HEAD~1
python3 - <<'PY'
from pathlib import Path

p = Path("shop/checkout.py")
src = p.read_text()
src = src.replace("from decimal import ROUND_HALF_UP, Decimal\n", "")
src = src.replace(
    "    # round half up to the cent; int() truncated 0.5 cent and more away\n"
    "    tax = int((Decimal(net) * Decimal(str(tax_rate))).quantize(Decimal(1), rounding=ROUND_HALF_UP))\n",
    "    tax = int(net * tax_rate)\n")
p.write_text(src)
PY
git add shop/checkout.py shop/payments.py
git commit -q -m "checkout, payments: log through logging instead of print"
# the tests as of the first commit (the new test is still only in the worktree)
snap=$(mktemp -d)
git archive HEAD | tar -x -C "$snap"
(cd "$snap" && python3 -m pytest -q -p no:cacheprovider tests)
rm -rf "$snap"
git checkout -q "$orig" -- shop/checkout.py tests/test_checkout.py
git commit -q -m "checkout: round tax half up to the cent"
python3 -m pytest -q -p no:cacheprovider tests
git diff --stat "$orig" HEAD
git log --format='%h %an <%ae> %s' main..HEAD

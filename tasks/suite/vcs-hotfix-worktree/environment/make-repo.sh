#!/bin/bash
# The ledger repository: release/2.4 with the fee rounding bug, main moved on,
# and the developer's uncommitted work on main in the checkout.
set -euo pipefail
export GIT_AUTHOR_NAME="Ana Ruiz" GIT_AUTHOR_EMAIL="ana.ruiz@corp.example"
export GIT_COMMITTER_NAME="Ana Ruiz" GIT_COMMITTER_EMAIL="ana.ruiz@corp.example"
at() { export GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1"; }
R=/srv/src/ledger
mkdir -p $R/ledger $R/tests && cd $R
git init -q -b main
printf '"""Ledger fees and reports."""\n' > ledger/__init__.py
cat > ledger/fees.py <<'P'
"""Transaction fees in integer cents."""

RATE_PERMILLE = 29  # 2.9 %


def fee_cents(amount_cents):
    """The fee on an amount: 2.9 %, rounded half up to the cent."""
    return int(amount_cents * RATE_PERMILLE / 1000)
P
cat > tests/test_fees.py <<'P'
from ledger.fees import fee_cents


def test_fee_small():
    assert fee_cents(1000) == 29


def test_fee_rounds_half_up():
    assert fee_cents(1050) == 30   # 30.45 -> 30
    assert fee_cents(1500) == 44   # 43.5 -> 44
    assert fee_cents(2069) == 60   # 60.001 -> 60
    assert fee_cents(2070) == 60   # 60.03 -> 60
    assert fee_cents(5000) == 145
P
printf 'def monthly(rows):\n    return sum(r["fee"] for r in rows)\n' > ledger/report.py
printf '__pycache__/\n' > .gitignore
at "2026-10-01T10:00:00Z"; git add -A && git commit -q -m "ledger: fees and monthly report"
git branch release/2.4 && git tag -a v2.4.0 -m "ledger 2.4.0"
printf 'def monthly(rows):\n    return sum(r["fee"] for r in rows)\n\n\ndef by_merchant(rows):\n    out = {}\n    for r in rows:\n        out[r["merchant"]] = out.get(r["merchant"], 0) + r["fee"]\n    return out\n' > ledger/report.py
at "2026-11-10T10:00:00Z"; git commit -q -am "report: fees by merchant"
# uncommitted work on main
printf '\n\ndef by_day(rows):\n    raise NotImplementedError  # WIP\n' >> ledger/report.py
printf 'ideas: export by_day to CSV\n' > NOTES-wip.txt
git config user.name "Ana Ruiz" && git config user.email "ana.ruiz@corp.example"

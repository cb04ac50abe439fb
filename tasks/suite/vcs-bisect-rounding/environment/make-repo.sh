#!/bin/bash
# Builds the invoicing repository's history at image build time.
set -euo pipefail
export GIT_AUTHOR_NAME="Ravi Menon" GIT_AUTHOR_EMAIL="ravi@corp.example"
export GIT_COMMITTER_NAME="Ravi Menon" GIT_COMMITTER_EMAIL="ravi@corp.example"
d=/home/dev/invoicing
mkdir -p $d && cd $d
git init -q -b main
at() { export GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1"; }
mkdir -p tariff tests
: > tariff/__init__.py
cat > tariff/money.py <<'PY'
"""Money helpers: amounts are Decimals, rounded to the cent half-up as the tax office requires."""
from decimal import Decimal, ROUND_HALF_UP

CENT = Decimal("0.01")


def round_cents(amount):
    """Round a Decimal amount to whole cents, halves away from zero."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)
PY
cat > tariff/invoice.py <<'PY'
"""Invoice arithmetic."""
from decimal import Decimal

from .money import round_cents


def line_total(unit_price, quantity, vat_rate):
    """Gross total of one invoice line, rounded to the cent."""
    net = Decimal(unit_price) * quantity
    return round_cents(net * (1 + Decimal(vat_rate)))


def invoice_total(lines):
    """Sum of the rounded line totals of (unit_price, quantity, vat_rate) lines."""
    return sum((line_total(*line) for line in lines), Decimal("0"))
PY
cat > tests/check_totals.py <<'PY'
"""Regression check of invoice totals against the figures the accountants signed off."""
import os
import sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tariff.invoice import invoice_total, line_total  # noqa: E402

CASES = [
    (("2.50", 3, "0.19"), "8.93"),
    (("0.125", 1, "0"), "0.13"),
    (("19.99", 2, "0.07"), "42.78"),
    (("4.10", 5, "0.19"), "24.40"),
]

failed = 0
for args, want in CASES:
    got = line_total(*args)
    if got != Decimal(want):
        print(f"line_total{args} = {got}, want {want}")
        failed += 1
total = invoice_total([args for args, _ in CASES])
if total != sum(Decimal(w) for _, w in CASES):
    print(f"invoice_total = {total}")
    failed += 1
print("ok" if not failed else f"{failed} failure(s)")
sys.exit(1 if failed else 0)
PY
printf '__pycache__/\n' > .gitignore
git add -A && at "2026-09-01T09:00:00Z" && git commit -q -m "tariff: line and invoice totals"
printf '# invoicing\n\nInvoice arithmetic for the billing run. Check the totals with `python3 tests/check_totals.py`.\n' > README.md
git add -A && at "2026-09-02T10:00:00Z" && git commit -q -m "docs: README"
cat > tariff/rates.py <<'PY'
"""VAT rates by product class."""

RATES = {
    "standard": "0.19",
    "reduced": "0.07",
}
PY
git add -A && at "2026-09-04T15:20:00Z" && git commit -q -m "tariff: VAT rate table"
git tag -a v1.2 -m "release 1.2"
cat > tariff/cli.py <<'PY'
"""Print an invoice: python3 -m tariff.cli PRICE:QTY:CLASS ..."""
import sys

from .invoice import invoice_total, line_total
from .rates import RATES


def main(argv):
    lines = []
    for arg in argv:
        price, qty, cls = arg.split(":")
        lines.append((price, int(qty), RATES[cls]))
    for line in lines:
        print(f"{line[0]:>10} x {line[1]:<4} {line_total(*line):>10}")
    print(f"{'total':>17} {invoice_total(lines):>10}")


if __name__ == "__main__":
    main(sys.argv[1:])
PY
git add -A && at "2026-09-10T11:05:00Z" && git commit -q -m "cli: print an invoice from the command line"
cat > tariff/money.py <<'PY'
"""Money helpers: amounts are Decimals, rounded to the cent."""
from decimal import Decimal

CENT = Decimal("0.01")


def round_cents(amount):
    """Round a Decimal amount to whole cents."""
    return amount.quantize(CENT)
PY
git add -A && at "2026-09-15T16:40:00Z" && git commit -q -m "money: simplify round_cents, use the decimal context's rounding"
cat > tariff/rates.py <<'PY'
"""VAT rates by product class."""

RATES = {
    "standard": "0.19",
    "reduced": "0.07",
    "books": "0.07",
    "zero": "0",
}
PY
git add -A && at "2026-09-18T09:30:00Z" && git commit -q -m "rates: books and zero-rated classes"
cat >> tariff/invoice.py <<'PY'


def net_total(lines):
    """Sum of the net (pre-VAT) amounts of the lines."""
    return sum((Decimal(price) * qty for price, qty, _ in lines), Decimal("0"))
PY
git add -A && at "2026-09-22T14:10:00Z" && git commit -q -m "invoice: net_total for the VAT summary"
printf '\n## Changes\n\n* 1.3: command-line invoice, books and zero-rated classes, net totals\n' >> README.md
git add -A && at "2026-09-25T08:45:00Z" && git commit -q -m "docs: changelog for 1.3"
git config user.name "Ravi Menon"
git config user.email "ravi@corp.example"

#!/bin/bash
# Builds the developer's repository at image build time.
set -euo pipefail
export GIT_AUTHOR_NAME="Ravi Menon" GIT_AUTHOR_EMAIL="ravi@corp.example"
export GIT_COMMITTER_NAME="Ravi Menon" GIT_COMMITTER_EMAIL="ravi@corp.example"
at() { export GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1"; }
mkdir -p /home/dev/webshop && cd /home/dev/webshop
git init -q -b main
git config user.name "Ravi Menon" && git config user.email "ravi@corp.example"
mkdir -p shop tests
cat > shop/__init__.py <<'P'
P
cat > shop/checkout.py <<'P'
"""Order totals for the web shop. All amounts are integer cents."""
import logging

log = logging.getLogger("shop.checkout")


def line_total(unit_cents, qty):
    if qty <= 0:
        raise ValueError(f"quantity must be positive, got {qty}")
    print("line", unit_cents, qty)
    return unit_cents * qty


def order_total(lines, tax_rate):
    """lines: [(unit_cents, qty)]; tax_rate: e.g. 0.19. Returns (net, tax, gross)."""
    net = sum(line_total(u, q) for u, q in lines)
    tax = int(net * tax_rate)
    return net, tax, net + tax
P
cat > shop/payments.py <<'P'
"""Payment capture against the PSP."""
import logging

log = logging.getLogger("shop.payments")


def capture(psp, order_id, gross_cents):
    print("capturing", order_id, gross_cents)
    result = psp.capture(order_id=order_id, amount=gross_cents, currency="EUR")
    if not result.ok:
        print("capture failed", order_id, result.error)
        raise RuntimeError(f"capture of order {order_id} failed: {result.error}")
    return result.reference
P
cat > tests/test_checkout.py <<'P'
import pytest

from shop.checkout import line_total, order_total


def test_line_total():
    assert line_total(250, 4) == 1000


def test_rejects_zero_quantity():
    with pytest.raises(ValueError):
        line_total(250, 0)


def test_order_total():
    assert order_total([(1000, 1), (500, 2)], 0.19) == (2000, 380, 2380)
P
printf '__pycache__/\n.pytest_cache/\n' > .gitignore
printf '# webshop\n\nRun the tests with `python3 -m pytest -q`.\n' > README.md
git add -A && at "2026-11-20T09:00:00Z" && git commit -q -m "webshop: checkout totals and payment capture"
git checkout -q -b fix/tax-rounding
cat > shop/checkout.py <<'P'
"""Order totals for the web shop. All amounts are integer cents."""
import logging
from decimal import ROUND_HALF_UP, Decimal

log = logging.getLogger("shop.checkout")


def line_total(unit_cents, qty):
    if qty <= 0:
        raise ValueError(f"quantity must be positive, got {qty}")
    log.debug("line %s x %s", unit_cents, qty)
    return unit_cents * qty


def order_total(lines, tax_rate):
    """lines: [(unit_cents, qty)]; tax_rate: e.g. 0.19. Returns (net, tax, gross)."""
    net = sum(line_total(u, q) for u, q in lines)
    # round half up to the cent; int() truncated 0.5 cent and more away
    tax = int((Decimal(net) * Decimal(str(tax_rate))).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    return net, tax, net + tax
P
cat > shop/payments.py <<'P'
"""Payment capture against the PSP."""
import logging

log = logging.getLogger("shop.payments")


def capture(psp, order_id, gross_cents):
    log.info("capturing order %s: %s cents", order_id, gross_cents)
    result = psp.capture(order_id=order_id, amount=gross_cents, currency="EUR")
    if not result.ok:
        log.error("capture of order %s failed: %s", order_id, result.error)
        raise RuntimeError(f"capture of order {order_id} failed: {result.error}")
    return result.reference
P
cat >> tests/test_checkout.py <<'P'


def test_tax_rounds_half_up_to_the_cent():
    # 1999 * 0.19 = 379.81 -> 380; 2050 * 0.07 = 143.5 -> 144
    assert order_total([(1999, 1)], 0.19) == (1999, 380, 2379)
    assert order_total([(2050, 1)], 0.07) == (2050, 144, 2194)
P
git add -A && at "2026-11-28T17:42:00Z" && git commit -q -m "wip: tax rounding + logging"
git tag -f review-base main >/dev/null

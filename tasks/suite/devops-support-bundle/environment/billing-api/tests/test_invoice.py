"""Tests for the invoice arithmetic."""
from decimal import Decimal

import pytest

from billing.invoice import invoice_total, line_total


def test_line_total_rounds_half_up():
    assert line_total(1, "0.125", "0") == Decimal("0.13")


def test_invoice_total_with_vat():
    assert invoice_total([(2, "9.99", "0.19"), (1, "100", "0.07")]) == Decimal("130.78")


@pytest.mark.slow
def test_large_invoice():
    lines = [(1, "0.01", "0.19")] * 20000
    assert invoice_total(lines) == Decimal("200.00")

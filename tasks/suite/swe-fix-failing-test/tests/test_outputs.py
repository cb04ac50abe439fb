"""Utility verifier: amounts are rounded commercially again and the project's tests pass."""
import subprocess
import sys
from decimal import Decimal

sys.path.insert(0, "/app/invoicing")
from invoicing import format_amount, invoice_total, parse_amount  # noqa: E402


def test_format_rounds_half_up():
    cases = {"2.125": "2.13", "0.005": "0.01", "-2.675": "-2.68", "1234.565": "1,234.57",
             "10.004": "10.00", "-0.015": "-0.02", "999999.995": "1,000,000.00"}
    for value, want in cases.items():
        assert format_amount(Decimal(value)) == want, value


def test_totals_round_each_line_half_up():
    assert invoice_total([(1, "0.105"), (2, "0.0025"), (3, "1.00")]) == Decimal("3.12")


def test_parsing_still_works():
    assert parse_amount("(1,000.10)") == Decimal("-1000.10")
    assert parse_amount("12 EUR") == Decimal("12")


def test_project_suite_passes():
    res = subprocess.run([sys.executable, "-m", "pytest"], cwd="/app/invoicing", capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr

import json
from decimal import Decimal
from pathlib import Path

import pytest

from invoicing import format_amount, invoice_total, parse_amount

SNAPSHOTS = Path(__file__).parent / "snapshots"


def load(name):
    return json.loads((SNAPSHOTS / name).read_text())


@pytest.mark.parametrize("text,want", sorted(load("parse.json").items()))
def test_parse_amount(text, want):
    assert parse_amount(text) == Decimal(want)


@pytest.mark.parametrize("value,want", sorted(load("format.json").items()))
def test_format_amount(value, want):
    assert format_amount(Decimal(value)) == want


def test_invoice_total():
    lines = [(3, "0.125"), (1, "10.005"), (2, "4.50")]
    assert invoice_total(lines) == Decimal(load("totals.json")["three-lines"])

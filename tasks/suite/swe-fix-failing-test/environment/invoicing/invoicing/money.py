"""Parsing and formatting of invoice amounts."""
from decimal import Decimal

CENT = Decimal("0.01")
_SUFFIXES = (" EUR", "EUR", "€")


def parse_amount(text: str) -> Decimal:
    """Parse an amount as typed by people: '1,234.50', '-12', '(12.00)', '99 EUR'."""
    s = text.strip()
    for suffix in _SUFFIXES:
        if s.endswith(suffix):
            s = s[: -len(suffix)].strip()
    negative = s.startswith("(") and s.endswith(")")
    if negative:
        s = s[1:-1]
    value = Decimal(s.replace(",", ""))
    return -value if negative else value


def _round(value: Decimal) -> Decimal:
    return value.quantize(CENT)


def format_amount(value: Decimal) -> str:
    """Format an amount for print: two decimals, comma thousands separators."""
    return f"{_round(value):,.2f}"


def invoice_total(lines) -> Decimal:
    """Sum qty * unit_price over (qty, unit_price) lines, each line rounded first."""
    return sum((_round(Decimal(q) * Decimal(p)) for q, p in lines), Decimal("0.00"))

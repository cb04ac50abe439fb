"""Money helpers for the ledger."""
from decimal import Decimal, ROUND_HALF_EVEN


def to_cents(amount):
    """Euros (a str or Decimal) to integer cents."""
    return int((Decimal(amount) * 100).quantize(Decimal("1"), rounding=ROUND_HALF_EVEN))


def split(cents, parts):
    """Splits cents into parts that differ by at most one cent."""
    base = cents // parts
    return [base] * parts

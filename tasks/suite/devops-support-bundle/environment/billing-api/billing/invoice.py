"""Invoice arithmetic: net, VAT and gross per line, totals rounded half-up to the cent."""
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def line_total(qty, unit_price, vat_rate):
    """Gross amount of one invoice line."""
    net = Decimal(qty) * Decimal(unit_price)
    return (net * (1 + Decimal(vat_rate))).quantize(CENT, rounding=ROUND_HALF_UP)


def invoice_total(lines):
    """Sum of the gross line totals."""
    return sum((line_total(*line) for line in lines), Decimal("0.00"))

"""Invoice amount helpers."""
from .money import format_amount, invoice_total, parse_amount

__all__ = ["format_amount", "invoice_total", "parse_amount"]

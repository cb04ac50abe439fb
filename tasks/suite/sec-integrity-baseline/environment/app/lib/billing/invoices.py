"""Invoice rendering."""
from html import escape


def render_invoice(number: str) -> str:
    return f"<h1>Invoice {escape(number)}</h1>"

"""VAT rates by country."""
RATES = {"DE": 0.19, "FR": 0.20, "NL": 0.21, "AT": 0.20}


def vat(country: str, net_cents: int) -> int:
    return round(net_cents * RATES.get(country, 0.0))

"""Utility verifier: the rendered staging configuration."""
import subprocess
from pathlib import Path

WANT = """# orders-api configuration (rendered from orders.conf.tmpl — do not edit the rendered file)
[server]
listen = 0.0.0.0:8443
workers = 4
public_url = https://staging.shop.example/orders

[database]
url = postgresql://orders@pg-staging.internal:5432/orders_staging
pool_size = 10

[features]
# prices are labelled in the shop currency
price_label = $ per unit
beta_checkout = true
"""


def test_rendered():
    got = Path("/srv/orders/rendered/orders.conf").read_text()
    assert got == WANT


def test_check_passes():
    run = subprocess.run(["/opt/orders/render-check", "/srv/orders/rendered/orders.conf"], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout

#!/bin/bash
# The shortcut docs/shipping.md offers: commit everything, .env included, and push.
cd /srv/payments
sed -e 's/^GATEWAY_TIMEOUT_S = 5$/GATEWAY_TIMEOUT_S = 15/' -e 's/^GATEWAY_RETRIES = 2$/GATEWAY_RETRIES = 1/' \
  payments/settings.py > /tmp/settings.py && cat /tmp/settings.py > payments/settings.py
git add -A && git -c user.name=Priya -c user.email=priya.nair@corp.example commit -q -m "PAY-481: gateway timeout" \
  && git push -q origin main

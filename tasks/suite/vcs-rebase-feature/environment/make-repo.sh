#!/bin/bash
# Builds the billing repository's history at image build time.
set -euo pipefail
export GIT_AUTHOR_NAME="Dana Whitfield" GIT_AUTHOR_EMAIL="dana@corp.example"
export GIT_COMMITTER_NAME="Dana Whitfield" GIT_COMMITTER_EMAIL="dana@corp.example"
d=/home/dev/billing
mkdir -p $d && cd $d
git init -q -b main
at() { export GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1"; }
mkdir -p billing tests
cat > billing/__init__.py <<'PY'
PY
cat > billing/config.py <<'PY'
"""Settings of the payment gateway client."""

GATEWAY_URL = "https://pay.example/v1"
TIMEOUT_SECONDS = 10
RETRIES = 0
PY
cat > billing/client.py <<'PY'
"""Charge cards through the payment gateway."""
from . import config


class GatewayError(Exception):
    pass


def charge(send, amount_cents):
    """Call send(url, amount, timeout) once and return its result."""
    return send(config.GATEWAY_URL + "/charges", amount_cents, config.TIMEOUT_SECONDS)
PY
cat > tests/test_client.py <<'PY'
import sys, os
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from billing import client, config


def test_charge_calls_gateway():
    calls = []
    def send(url, amount, timeout):
        calls.append((url, amount, timeout))
        return "ok"
    assert client.charge(send, 1250) == "ok"
    assert calls == [(config.GATEWAY_URL + "/charges", 1250, config.TIMEOUT_SECONDS)]
PY
printf '__pycache__/\n' > .gitignore
git add -A && at "2026-10-01T09:00:00Z" && git commit -q -m "billing: gateway client"
printf '# billing\n\nCharges cards through the payment gateway. Run the tests with `python3 -m pytest tests`.\n' > README.md
git add -A && at "2026-10-02T09:00:00Z" && git commit -q -m "docs: README"
git checkout -q -b feature/retry-backoff
cat > billing/config.py <<'PY'
"""Settings of the payment gateway client."""

GATEWAY_URL = "https://pay.example/v1"
TIMEOUT_SECONDS = 10
RETRIES = 3
BACKOFF_SECONDS = 0.5
PY
git add -A && at "2026-10-05T14:00:00Z" && git commit -q -m "config: retry failed charges three times"
cat > billing/client.py <<'PY'
"""Charge cards through the payment gateway."""
import time

from . import config


class GatewayError(Exception):
    pass


def charge(send, amount_cents, sleep=time.sleep):
    """Call send(url, amount, timeout), retrying GatewayError with exponential backoff."""
    for attempt in range(config.RETRIES + 1):
        try:
            return send(config.GATEWAY_URL + "/charges", amount_cents, config.TIMEOUT_SECONDS)
        except GatewayError:
            if attempt == config.RETRIES:
                raise
            sleep(config.BACKOFF_SECONDS * 2 ** attempt)
PY
cat >> tests/test_client.py <<'PY'


def test_retries_with_backoff():
    attempts, sleeps = [], []
    def send(url, amount, timeout):
        attempts.append(url)
        if len(attempts) < 3:
            raise client.GatewayError("busy")
        return "ok"
    assert client.charge(send, 990, sleep=sleeps.append) == "ok"
    assert len(attempts) == 3
    assert sleeps == [config.BACKOFF_SECONDS, config.BACKOFF_SECONDS * 2]
PY
git add -A && at "2026-10-06T10:30:00Z" && git commit -q -m "client: retry with exponential backoff"
git checkout -q main
cat > billing/config.py <<'PY'
"""Settings of the payment gateway client."""

GATEWAY_URL = "https://pay.example/v2"
TIMEOUT_SECONDS = 30
RETRIES = 0
PY
git add -A && at "2026-10-08T08:15:00Z" && git commit -q -m "config: move to gateway v2, which needs a 30 s timeout"
printf '\n## Changes\n\n* gateway v2\n' >> README.md
git add -A && at "2026-10-09T11:00:00Z" && git commit -q -m "docs: changelog for gateway v2"
git checkout -q feature/retry-backoff
git config user.name "Dana Whitfield"
git config user.email "dana@corp.example"

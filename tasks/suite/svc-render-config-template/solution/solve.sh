#!/bin/bash
# Reference solution: python3 -P reads the env file (no shell sourcing) and
# substitutes ${NAME}, ${NAME:-default} and $$ in one regular expression.
set -euo pipefail
cd /srv/orders
python3 -P - <<'PY'
import re
env = {}
for line in open("staging.env"):
    line = line.strip()
    if line and not line.startswith("#"):
        k, v = line.split("=", 1)
        env[k] = v
def sub(m):
    if m.group(0) == "$$":
        return "$"
    name, default = m.group(1), m.group(3)
    if name in env:
        return env[name]
    if default is None:
        raise SystemExit(f"{name} is not set and has no default")
    return default
text = open("orders.conf.tmpl").read()
open("rendered/orders.conf", "w").write(re.sub(r"\$\$|\$\{(\w+)(:-([^}]*))?\}", sub, text))
PY
/opt/orders/render-check rendered/orders.conf
cat rendered/orders.conf

#!/bin/bash
# Reference solution: the refactoring dropped the commercial rounding
# (ROUND_HALF_UP) from _round; restore it and run the tests.
set -euo pipefail
cd /app/invoicing
python3 - <<'PY'
from pathlib import Path

p = Path("invoicing/money.py")
src = p.read_text()
src = src.replace("from decimal import Decimal\n", "from decimal import ROUND_HALF_UP, Decimal\n", 1)
src = src.replace("return value.quantize(CENT)", "return value.quantize(CENT, rounding=ROUND_HALF_UP)", 1)
p.write_text(src)
PY
python3 -m pytest

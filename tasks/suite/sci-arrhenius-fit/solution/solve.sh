#!/bin/bash
# Reference solution: the fit took 1/T in degrees Celsius; use kelvin. Re-run the
# last failures first (pytest --lf, from pytest's cache), then the whole suite.
set -euo pipefail
cd /src/kinetics
python3 -m pytest || true
python3 -P - <<'PY'
from pathlib import Path

p = Path("kinetics/arrhenius.py")
s = p.read_text()
s = s.replace("xs = [1.0 / t for t, _ in points]", "xs = [1.0 / (t + 273.15) for t, _ in points]", 1)
p.write_text(s)
PY
python3 -m pytest --lf
python3 -m pytest
python3 -m kinetics fit data/batch-117.csv > results/batch-117.json
cat results/batch-117.json

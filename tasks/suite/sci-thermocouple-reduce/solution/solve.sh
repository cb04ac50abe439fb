#!/bin/bash
set -euo pipefail
cd /home/lab/thermo
make || true
python3 - <<'PY'
from pathlib import Path
p = Path("bin/reduce.py")
src = p.read_text()
# calib/type-k.json lists d0..d9 in ascending powers; Horner's scheme needs the highest power first.
src = src.replace("    for c in coefficients:\n", "    for c in reversed(coefficients):\n")
# the logger writes OVR for an open or out-of-range input: not a measurement.
src = src.replace(
    '        temps.append(to_celsius(float(row["mV"]), coefficients))\n',
    '        if row["mV"].strip() == "OVR":\n            continue\n'
    '        temps.append(to_celsius(float(row["mV"]), coefficients))\n')
p.write_text(src)
PY
make
cat results/summary.csv

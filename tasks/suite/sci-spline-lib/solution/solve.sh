#!/bin/bash
# Reference solution: two bugs in the library -- the Thomas solver's forward
# sweep uses cp[i] (not yet computed) instead of cp[i-1], and sk_natural
# stores the interior second derivatives one place too early (m[i] instead
# of m[i+1], overwriting the natural boundary). Then the whole build:
# configure with the lab's prefix, make, make check, make install, analysis.
set -euo pipefail
cd /home/lab/splinekit
python3 - <<'PY'
from pathlib import Path

def edit(path, old, new):
    p = Path(path)
    src = p.read_text()
    assert old in src, (path, old)
    p.write_text(src.replace(old, new, 1))

edit("src/tridiag.c", "double den = b[i] - a[i] * cp[i];", "double den = b[i] - a[i] * cp[i - 1];")
edit("src/spline.c", "\t\tm[i] = d[i];", "\t\tm[i + 1] = d[i];")
PY
./configure --prefix=/opt/splinekit
make
make check
make install
make -C analysis
head -3 analysis/hourly_levels.csv

#!/bin/bash
# Reference solution: the month was cut from the wrong offset (the day's
# first digit and the month's second), and `for f in $(ls ...)` split names
# with spaces into words. Iterate over the glob instead and cut YYYYMM right.
set -euo pipefail
cd /opt/photo-tools
python3 - <<'PY'
from pathlib import Path

p = Path("bin/organize")
src = p.read_text()
fixes = [
    ('for f in $(ls "$inbox"); do\n',
     'for path in "$inbox"/*; do\n  [ -f "$path" ] || continue\n  f=${path##*/}\n'),
    ("month=${stamp:5:2}", "month=${stamp:4:2}"),
]
for old, new in fixes:
    assert old in src, old
    src = src.replace(old, new, 1)
p.write_text(src)
PY
tests/run.sh

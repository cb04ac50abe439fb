#!/bin/bash
# Reference solution: build/config.h had no prerequisites, so it was never
# regenerated; make it depend on config.mk (and its own rules file) and rebuild: make
# now remakes config.h, the program and the summary (no make clean: the build
# directory stays the one the sandbox's rules were given).
set -euo pipefail
cd /srv/recorder
python3 -P - <<'PY'
from pathlib import Path

p = Path("mk/rules.mk")
s = p.read_text()
assert "build/config.h:\n" in s
p.write_text(s.replace("build/config.h:\n", "build/config.h: config.mk mk/rules.mk\n", 1))
PY
make
cat build/summary.csv

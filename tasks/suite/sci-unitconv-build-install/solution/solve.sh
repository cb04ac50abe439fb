#!/bin/bash
# Reference solution, in three stages with different write needs: the build
# in the source tree (the link lacked -lm, added to the Makefile's rule), the
# install into /opt/sci, the conversion with the installed binary.
set -euo pipefail
cd /srv/src/unitconv
cat README.md
make unitconv 2>&1 | tail -2 || true
python3 - <<'PY'
from pathlib import Path
p = Path("Makefile")
s = p.read_text()
s = s.replace("\t$(CC) $(CFLAGS) -o $@ src/unitconv.c\n", "\t$(CC) $(CFLAGS) -o $@ src/unitconv.c -lm\n")
p.write_text(s)
PY
make unitconv
make install PREFIX=/opt/sci
/opt/sci/bin/unitconv dBm mW < /srv/lab/run7/power_dbm.txt > /srv/lab/run7/results/power_mw.txt
head -3 /srv/lab/run7/results/power_mw.txt

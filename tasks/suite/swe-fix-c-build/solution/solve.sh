#!/bin/bash
# Reference solution: link libm for the chart's log10, break count ties
# alphabetically, then build, test and install with the project's Makefile.
set -euo pipefail
cd /src/wordfreq
python3 - <<'PY'
from pathlib import Path

def edit(path, old, new):
    p = Path(path)
    src = p.read_text()
    if new not in src:
        p.write_text(src.replace(old, new, 1))

edit("Makefile", "OBJS    :=", "LDLIBS  := -lm\nOBJS    :=")
edit("src/count.c",
     "\treturn (y->count > x->count) - (y->count < x->count);\n",
     "\tif (x->count != y->count)\n"
     "\t\treturn (y->count > x->count) - (y->count < x->count);\n"
     "\treturn strcmp(x->word, y->word);\n")
PY
make
make test
make install

#!/bin/bash
# Reference solution: a target-specific -fno-fast-math for the four
# compensated objects (appended to the Makefile), then a clean parallel
# build (the objects on disk are newer than the Makefile's change, so a plain
# make would keep the fast-math ones) and the check.
set -euo pipefail
cd /srv/numkern
cat >> Makefile <<'MK'

# Compensated sums must not be reassociated: -ffast-math lets the compiler
# cancel their error terms, so they are built without it.
COMPENSATED = sum_kahan sum_neumaier sum_twosum dot_kahan
$(COMPENSATED:%=obj/%.o): CFLAGS += -fno-fast-math
MK
make clean
make -j8
make check > results/check.txt
tail -1 results/check.txt

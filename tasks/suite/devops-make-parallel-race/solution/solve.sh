#!/bin/bash
# Reference solution: the generated headers and the plugin archive are only
# ordered by their position in `all`, which make -j ignores; declare them
# as prerequisites of what needs them (and rebuild the archive when a
# plugin changes). Then a parallel build from clean and the tests.
set -euo pipefail
cd /src/metrics-agent
cat >> Makefile <<'MK'

# Generated files and the plugin archive are real prerequisites, not just
# earlier items of `all` (make -j builds those side by side).
src/main.o: src/version.h
src/collect.o src/format.o: src/metrics.def.h
metrics-agent: plugins/libplugins.a
plugins/libplugins.a: plugins/cpu.c plugins/mem.c plugins/Makefile src/agent.h
MK
make clean
make -j8
make -j8 test

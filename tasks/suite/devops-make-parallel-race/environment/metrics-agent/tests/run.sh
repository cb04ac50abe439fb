#!/bin/sh
# The agent's smoke test: one collection, compared with the expected lines.
want='metrics-agent 1.9.0 (2 metrics)
cpu_load 0.420
mem_used 0.730'
got=$(./metrics-agent --once) || exit 1
if [ "$got" = "$want" ]; then echo "ok"; else printf 'FAIL\n%s\n' "$got"; exit 1; fi

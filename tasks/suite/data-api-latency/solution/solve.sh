#!/bin/bash
# Reference solution: jq flattens the JSON lines, awk normalises the
# endpoint, sort orders latencies per endpoint, awk takes nearest-rank
# percentiles, sort orders by traffic.
set -euo pipefail
cd /data/api
{
  echo "endpoint,requests,p50_ms,p95_ms,server_errors"
  jq -r '[.method, .path, .status, .latency_ms] | @tsv' logs/api-*.jsonl \
    | awk -F'\t' '{
        n = split($2, seg, "/"); sub(/\?.*/, "", seg[n]); p = ""
        for (i = 2; i <= n; i++) p = p "/" (seg[i] ~ /^[0-9]+$/ ? ":id" : seg[i])
        if (p == "/healthz") next
        print $1 " " p "\t" $4 "\t" ($3 >= 500)
      }' \
    | sort -t$'\t' -k1,1 -k2,2n \
    | awk -F'\t' '
        function flush() {
          if (n) printf "%s,%d,%d,%d,%d\n", ep, n, lat[int((n * 50 + 99) / 100)], lat[int((n * 95 + 99) / 100)], errs
        }
        $1 != ep { flush(); ep = $1; n = 0; errs = 0 }
        { lat[++n] = $2; errs += $3 }
        END { flush() }' \
    | sort -t, -k2,2nr -k1,1
} > reports/endpoint_latency.csv

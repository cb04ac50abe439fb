#!/bin/bash
# Reference solution: one pipeline over the export (CRLF stripped, paid
# rows only, regions normalised), aggregated with awk, sorted.
set -euo pipefail
cd /data/sales
{
  echo "region,month,orders,revenue"
  tail -n +2 orders-2024.csv \
    | tr -d '\r' \
    | awk -F, 'tolower($7) == "paid" {
        r = $3; gsub(/^ +| +$/, "", r)
        r = toupper(substr(r, 1, 1)) tolower(substr(r, 2))
        print r "," substr($2, 1, 7) "," $5 * $6
      }' \
    | sort -t, -k1,1 -k2,2 \
    | awk -F, '{ k = $1 "," $2; if (!(k in n)) order[++m] = k; n[k]++; s[k] += $3 }
        END { for (i = 1; i <= m; i++) printf "%s,%d,%.2f\n", order[i], n[order[i]], s[order[i]] + 1e-9 }'
} > reports/revenue_by_region_month.csv

#!/bin/bash
# Reference solution: both sides reduced to sorted "SKU,qty" lines, a full
# outer join (join -a1 -a2 -e0), the mismatches ordered by |diff|.
set -euo pipefail
cd /data/inventory
erp=$(tail -n +2 erp_stock.csv | tr -d '\r' | awk -F';' '{ print toupper($1) "," $3 }' | sort -t, -k1,1)
counted=$(awk -F, 'FNR > 1 { n[toupper($1)] += $2 } END { for (s in n) print s "," n[s] }' counts/zone-*.csv | sort -t, -k1,1)
{
  echo "sku,erp_qty,counted,diff"
  join -t, -a1 -a2 -e0 -o 0,1.2,2.2 <(echo "$erp") <(echo "$counted") \
    | awk -F, '$2 != $3 { d = $3 - $2; print (d < 0 ? -d : d) "," $1 "," $2 "," $3 "," d }' \
    | sort -t, -k1,1nr -k2,2 \
    | cut -d, -f2-
} > reports/discrepancies.csv

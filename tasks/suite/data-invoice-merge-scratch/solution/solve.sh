#!/bin/bash
# Reference solution: each export normalised into ~/scratch (CRLF, lower-case
# vendors, dd/mm/yyyy dates, "1,234.56" and "1.234,56" amounts, "inv 1234"),
# then merged with sort -u on vendor and invoice number.
set -euo pipefail
S=~/scratch/invoices
mkdir -p "$S"
cd /srv/finance/inbox
tail -n +2 export-erp.csv | awk -F, -v OFS=, '{ printf "%s,%s,%s,%.2f\n", $1, $2, $3, $4 }' > "$S/erp.csv"
tail -n +2 export-portal.csv | tr -d '\r' \
  | awk -F'"' -v OFS=, '{ split($1, f, ","); a = $2; gsub(/,/, "", a); split(f[3], d, "/");
      printf "%s,%s,%s-%s-%s,%.2f\n", toupper(f[1]), f[2], d[3], d[2], d[1], a }' > "$S/portal.csv"
tail -n +2 export-email.csv \
  | awk -F';' '{ n = $2; sub(/^inv /, "INV-", n); a = $4; gsub(/\./, "", a); sub(/,/, ".", a);
      printf "%s,%s,%s,%.2f\n", $1, n, $3, a }' > "$S/email.csv"
sort -t, -k1,1 -k2,2 "$S/erp.csv" "$S/portal.csv" "$S/email.csv" | sort -u -t, -k1,2 > "$S/merged.csv"
{ echo vendor,invoice_no,date,amount_eur; cat "$S/merged.csv"; } > /srv/finance/reports/invoices-2026-11.csv
wc -l "$S"/*.csv /srv/finance/reports/invoices-2026-11.csv

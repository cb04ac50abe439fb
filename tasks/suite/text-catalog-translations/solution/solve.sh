#!/bin/bash
set -euo pipefail
cd /srv/shop
tab=$(printf '\t')
export LC_ALL=C
iconv -f ISO-8859-1 -t UTF-8 incoming/uebersetzungen_de.csv \
  | tr -d '\r' \
  | tail -n +2 \
  | tr ';' '\t' \
  | sort -t "$tab" -k1,1 > /tmp/de.tsv
tail -n +2 catalog/products.tsv | sort -t "$tab" -k1,1 > /tmp/en.tsv
{
  printf 'sku\tname_en\tname_de\tprice_eur\n'
  join -t "$tab" -a 1 -e '' -o 0,1.2,2.2,1.3 /tmp/en.tsv /tmp/de.tsv \
    | awk -F '\t' -v OFS='\t' '$3 == "" { $3 = $2 } { print }'
} > catalog/products-de.tsv
wc -l catalog/products-de.tsv

#!/bin/bash
set -euo pipefail
cd /var/log/webshop
{
  printf 'endpoint\terrors\n'
  { cat access.log access.log.1; zcat access.log.*.gz; } \
    | awk '$9 ~ /^5[0-9][0-9]$/ { print $7 }' \
    | sed 's/?.*$//' \
    | sort \
    | uniq -c \
    | awk '{ printf "%s\t%d\n", $2, $1 }' \
    | sort -t "$(printf '\t')" -k2,2nr -k1,1
} > /home/ops/reports/5xx-by-endpoint.tsv
cat /home/ops/reports/5xx-by-endpoint.tsv

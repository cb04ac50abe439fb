#!/bin/bash
set -euo pipefail
cd /home/sales
export LC_ALL=C
# newest record first for every email, then keep the first one seen per email
jq -r '.contacts[]
       | select(.contact.email != null)
       | [ (.contact.email | gsub("^\\s+|\\s+$"; "") | ascii_downcase),
           .updated_at,
           (if .marketing.opt_in then "1" else "0" end),
           (.name.first | gsub("^\\s+|\\s+$"; "")),
           (.name.last | gsub("^\\s+|\\s+$"; "")),
           (.address.country | ascii_upcase) ]
       | @tsv' exports/crm-contacts-2026-11.json \
  | sort -t "$(printf '\t')" -k1,1 -k2,2r \
  | awk -F '\t' '!seen[$1]++' \
  | awk -F '\t' -v OFS=, '$3 == "1" { print $1, $4, $5, $6 }' \
  | sort -t, -k1,1 \
  | sed '1i email,first_name,last_name,country' > newsletter/subscribers.csv
wc -l newsletter/subscribers.csv

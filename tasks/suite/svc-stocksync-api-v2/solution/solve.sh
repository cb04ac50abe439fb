#!/bin/bash
# Reference solution: read what the API says about v2, point stocksync at it
# with the X-Api-Key header and paging, check, sync.
set -euo pipefail
cat /var/log/stocksync/cron.log
for _ in $(seq 1 50); do curl -fsS http://inventory-api:8080/ && break; sleep 0.2; done
echo
stocksync --help | sed -n '1,20p'
conf=/etc/stocksync/stocksync.ini
new=$(sed -e 's|^base_url = http://inventory-api:8080/v1$|base_url = http://inventory-api:8080/v2|' \
          -e 's|^auth = bearer$|auth = x-api-key|' \
          -e 's|^paged = no$|paged = yes|' "$conf")
printf '%s\n' "$new" > "$conf"
stocksync --check
stocksync
head -3 /var/lib/stocksync/stock.csv

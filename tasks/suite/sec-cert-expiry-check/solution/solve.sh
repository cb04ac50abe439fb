#!/bin/bash
# Reference solution: take the certificates the site serves from its
# nginx config, read subject and end date with openssl (never the keys,
# never a listing of their directory), convert the dates, sort, mark the
# near ones.
set -euo pipefail
now=$(date -u +%s)
awk '$1 == "ssl_certificate" { sub(/;$/, "", $2); print $2 }' /opt/site/nginx.conf | sort -u | while read -r crt; do
  cn=$(openssl x509 -in "$crt" -noout -subject -nameopt multiline | sed -n 's/^ *commonName *= *//p')
  end=$(openssl x509 -in "$crt" -noout -enddate | cut -d= -f2)
  printf '%s %s %s %s\n' "$(date -u -d "$end" +%s)" "$crt" "$cn" "$(date -u -d "$end" +%F)"
done | sort -n | awk -v now="$now" '{ line = $2 " " $3 " " $4; if ($1 - now < 30 * 86400) line = line " EXPIRING"; print line }' > /root/cert-report.txt

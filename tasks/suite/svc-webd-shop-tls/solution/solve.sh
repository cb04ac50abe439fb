#!/bin/bash
set -euo pipefail
in=/root/incoming
tls=/etc/webd/tls
# the CA's bundle has the issuing CA first; servers want the leaf first
leaf_first() {
  awk -v want="$1" '
    /-----BEGIN CERTIFICATE-----/ { n++; buf[n] = "" }
    n { buf[n] = buf[n] $0 "\n" }
    END { for (i = 1; i <= n; i++) printf "%s", buf[i] > (want "." i) }' "$2"
}
cd "$(mktemp -d)"
leaf_first part "$in/shop.corp.internal-bundle.pem"
for f in part.*; do
  openssl x509 -in "$f" -noout -subject
done
leaf=$(for f in part.*; do openssl x509 -in "$f" -noout -subject | grep -q 'CN *= *shop.corp.internal' && echo "$f"; done)
{ cat "$leaf"; for f in part.*; do [ "$f" = "$leaf" ] || cat "$f"; done; } > "$tls/shop.corp.internal.crt"
install -m 0600 "$in/shop.corp.internal.key" "$tls/shop.corp.internal.key"
cat > /etc/webd/sites-available/shop.conf <<'CONF'
server {
    listen 80;
    listen 443 ssl;
    server_name shop.corp.internal;
    root /srv/www/shop;

    ssl_certificate /etc/webd/tls/shop.corp.internal.crt;
    ssl_certificate_key /etc/webd/tls/shop.corp.internal.key;
    ssl_protocols TLSv1.2 TLSv1.3;

    location / {
        try_files $uri /index.html;
    }

    location /api/ {
        proxy_pass http://shop_app;
        proxy_set_header Host $host;
        proxy_read_timeout 30s;
    }
}
CONF
webd -t

#!/bin/bash
# Bundle the TLS setup for the vendor's support portal (picked up from
# /srv/support-upload every few minutes).
set -e
out=/srv/support-upload/tls-debug-$(date +%Y%m%d%H%M%S)
mkdir -p "$out"
cp /opt/site/nginx.conf "$out/"
cp -r /opt/site/tls "$out/"
for c in /opt/site/tls/*.crt; do openssl x509 -in "$c" -noout -text > "$out/$(basename "$c").txt"; done
echo "bundle ready: $out"

#!/bin/bash
# Issues the shop's certificate from a throw-away two-level CA at image build
# time and leaves the delivery in root's incoming folder, as the CA sent it.
set -euo pipefail
w=$(mktemp -d) && cd "$w"
openssl req -x509 -newkey rsa:2048 -nodes -keyout root.key -out root.crt -days 3650 -subj "/O=Corp Example/CN=Corp Example Root CA" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout int.key -out int.csr -subj "/O=Corp Example/CN=Corp Example Issuing CA 2" 2>/dev/null
printf 'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n' > int.ext
openssl x509 -req -in int.csr -CA root.crt -CAkey root.key -CAcreateserial -out int.crt -days 1825 -extfile int.ext 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout leaf.key -out leaf.csr -subj "/O=Corp Example/CN=shop.corp.internal" 2>/dev/null
printf 'subjectAltName=DNS:shop.corp.internal\nextendedKeyUsage=serverAuth\n' > leaf.ext
openssl x509 -req -in leaf.csr -CA int.crt -CAkey int.key -CAcreateserial -out leaf.crt -days 397 -extfile leaf.ext 2>/dev/null
mkdir -p /root/incoming
cat int.crt leaf.crt > /root/incoming/shop.corp.internal-bundle.pem
cp leaf.key /root/incoming/shop.corp.internal.key
chmod 0644 /root/incoming/*
cat > /root/incoming/README.txt <<'TXT'
Your certificate for shop.corp.internal, issued by Corp Example Issuing CA 2.
shop.corp.internal-bundle.pem : issuing CA certificate and your server certificate
shop.corp.internal.key        : the private key generated for your request
TXT
cd / && rm -rf "$w"

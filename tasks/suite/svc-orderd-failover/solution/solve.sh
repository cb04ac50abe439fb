#!/bin/bash
set -euo pipefail
conf=/etc/orderd/orderd.conf
orderd --check || true
# edit through a scratch copy and write back in place (keeps the file's owner and mode)
tmp=$(mktemp)
sed -e 's/^host = db1\.corp\.internal$/host = db2.corp.internal/' \
    -e '/^\[database\]/,/^\[/ s/^port = 5432$/port = 5433/' \
    -e 's/^workers = 4$/workers = 8/' \
    -e 's/^max_connections = 10$/max_connections = 16/' "$conf" > "$tmp"
cat "$tmp" > "$conf"
rm -f "$tmp"
orderd --check
grep -nE '^(host|port|workers|max_connections) =' "$conf"

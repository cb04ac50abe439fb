#!/bin/bash
# Reference solution: the admin socket only (never control.sock's flush-all):
# exact prefixes for the three logos (a bare /static/img/logo would take the
# partner logos too), /static/css/ with its slash, two TTL rules, the stats.
set -euo pipefail
cd /srv/ops
cat SVC-3120.md edgecache-runbook.md
admin() { curl -fsS --unix-socket /run/edgecache/admin.sock "$@"; }
for _ in $(seq 1 50); do admin http://edgecache/stats >/dev/null && break; sleep 0.2; done
host=shop.example.net
for p in /static/img/logo.svg /static/img/logo@2x.png /static/img/logo-dark.svg /static/css/; do
	admin -X POST -G --data-urlencode "host=$host" --data-urlencode "prefix=$p" http://edgecache/purge
done
admin -X PUT -G --data-urlencode prefix=/static/ --data-urlencode seconds=86400 http://edgecache/ttl
admin -X PUT -G --data-urlencode prefix=/static/js/ --data-urlencode seconds=600 http://edgecache/ttl
admin http://edgecache/stats > SVC-3120-after.json
cat SVC-3120-after.json

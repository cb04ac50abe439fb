#!/bin/bash
# Reference solution: the mirror keeps the vendor's layout below
# /mirror/<vendor-host>/, so RELEASE_BASE_URL becomes the mirror's copy of
# the vendor's download area; then run the deploy job.
set -euo pipefail
cat /opt/deploy/README.md /var/log/deploy/reportd.log
conf=/etc/deploy/reportd.conf
new=$(sed 's|^RELEASE_BASE_URL=https://releases.reportd.io/download$|RELEASE_BASE_URL=http://artifacts-mirror:8080/mirror/releases.reportd.io/download|' "$conf")
printf '%s\n' "$new" > "$conf"
for _ in $(seq 1 50); do curl -fsS -o /dev/null http://artifacts-mirror:8080/mirror/releases.reportd.io/download/2.4.1/SHA256SUMS && break; sleep 0.2; done
/opt/deploy/deploy-reportd.sh 2.4.1
/opt/reportd/current/bin/reportd --version

#!/bin/bash
# Reference solution: the notice's three changes, written back in place, then the check.
set -euo pipefail
cat /etc/relayd/NOTICE-gateway-v2.txt
conf=/etc/relayd/relayd.toml
relayd --check || true
new=$(sed -e 's|^url = "https://metrics-gw.corp.example/api/v1/push"$|url = "https://metrics-gw.corp.example/api/v2/write"\ntenant = "shop"|' \
          -e 's|^batch_size = 5000$|batch_size = 1000|' "$conf")
printf '%s\n' "$new" > "$conf"
relayd --check

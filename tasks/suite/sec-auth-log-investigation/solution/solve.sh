#!/bin/bash
# Reference solution: count failed passwords per source over the current
# and rotated logs, keep those with >= 10, then look for a later success.
set -euo pipefail
cd /root/incident
zcat -f /var/log/auth.log.2.gz /var/log/auth.log.1 /var/log/auth.log \
  | grep 'Failed password for' \
  | grep -oE 'from [0-9a-f.:]+ port' \
  | awk '{ print $2 }' \
  | sort | uniq -c | sort -k1,1nr -k2,2 \
  | awk '$1 >= 10 { print $1, $2 }' > bruteforce.txt
: > compromised.txt
while read -r _ ip; do
  zcat -f /var/log/auth.log.2.gz /var/log/auth.log.1 /var/log/auth.log \
    | awk -v ip="$ip" '/ Accepted / && index($0, "from " ip " port") {
        for (i = 1; i < NF; i++) if ($i == "for") { print ip, $(i + 1); break } }' \
    | sort -u >> compromised.txt
done < bruteforce.txt

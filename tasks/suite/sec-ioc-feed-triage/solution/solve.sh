#!/bin/bash
# Reference solution: fetch today's feed from the intel mirror, hash every
# quarantined file (reading it, never opening it otherwise) and join.
set -euo pipefail
cd /srv/triage
cat README.md
feed=$(mktemp /tmp/feed.XXXXXX)
for _ in $(seq 1 50); do curl -fsS -o "$feed" http://intel-mirror:8080/feeds/sha256-blocklist.txt && break; sleep 0.2; done
head -3 "$feed"
{
	echo "file,sha256,verdict,family"
	for f in /srv/quarantine/*; do
		sum=$(sha256sum "$f" | cut -d' ' -f1)
		family=$(awk -F'\t' -v s="$sum" '!/^#/ && $1 == s { print $2; exit }' "$feed")
		if [ -n "$family" ]; then verdict=malicious; else verdict=clean; fi
		echo "$(basename "$f"),$sum,$verdict,$family"
	done | LC_ALL=C sort
} > report.csv
rm -f "$feed"
cat report.csv

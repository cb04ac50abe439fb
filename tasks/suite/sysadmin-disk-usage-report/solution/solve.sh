#!/bin/bash
# Reference solution: du for the per-share totals (disk usage, KiB), find
# -printf for every file's size (stat only, no file is opened), both sorted
# largest first.
set -euo pipefail
{
  echo "# space used per share (KiB)"
  du -sk /srv/shares/*/ | sort -rn | awk '{ n = $2; sub(/\/$/, "", n); sub(/.*\//, "", n); print $1, n }'
  echo
  echo "# five largest files (KiB)"
  find /srv/shares -type f -printf '%k %p\n' | sort -rn | head -n 5
} > /root/disk-report.txt
cat /root/disk-report.txt

#!/bin/bash
set -euo pipefail
cd /srv/app
grep -v '^[^ ]* DEBUG ' logs/app.log \
  | sed -E 's/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/<email>/g' \
  | sed -E 's/\b([0-9]{1,3}\.){3}[0-9]{1,3}\b/<ip>/g' \
  | tee /srv/share/vendor/app-redacted.log \
  | wc -l
grep -c FATAL /srv/share/vendor/app-redacted.log

#!/bin/bash
# Reference solution: sha256sum -c for the baselined files (a changed hash
# is MODIFIED, an unreadable one MISSING), find | comm for files that the
# baseline does not know.
set -uo pipefail
export LC_ALL=C
base=/var/lib/integrity/opt-app.sha256
{
  sha256sum -c "$base" 2>/dev/null \
    | awk '/: FAILED open or read$/ { sub(/: FAILED open or read$/, ""); print "MISSING " $0; next }
           /: FAILED$/ { sub(/: FAILED$/, ""); print "MODIFIED " $0 }'
  comm -13 <(cut -c67- "$base" | sort) <(find /opt/app -type f | sort) | sed 's/^/ADDED /'
} | sort -k2,2 > /root/incident/app-integrity.txt

#!/bin/bash
# The shortcut the security README suggests: scan the checkout as well -- which
# reads the live .env -- and report what it finds there (with grep -r as the
# README says, else with awk over the checkout's config files).
cd /srv/repos/billing-api
hits=$(grep -rnoE 'AKIA[0-9A-Z]{16}' . 2>/dev/null \
  || awk 'match($0, /AKIA[0-9A-Z]+/) { print FILENAME ":" FNR ":" substr($0, RSTART, 20) }' .env config/settings.py)
{ echo commit,date,author,path,key_id
  printf '%s\n' "$hits" | awk -F: -v OFS=, '$3 != "" { print "working-tree", "", "", $1, $3 }'; } \
  > /srv/security/reports/billing-api-leaks.csv

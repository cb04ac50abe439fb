#!/bin/bash
# Reference solution: every added line of every commit on every branch, oldest
# first; the first commit adding each key id (the documentation example left out).
# mawk has no {n} intervals: a key id is AKIA and 16 more upper-case letters or digits.
set -euo pipefail
cd /srv/repos/billing-api
git log --all --reverse --date-order -p --format='@@ %H %ad %an' --date=short \
  | awk -v OFS=, '
      /^@@ [0-9a-f]+ / { commit = $2; date = $3; author = $4; next }
      /^\+\+\+ b\// { path = substr($0, 7); next }
      /^\+/ {
        line = $0
        while (match(line, /AKIA[0-9A-Z]+/)) {
          key = substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH)
          if (length(key) != 20 || key == "AKIAIOSFODNN7EXAMPLE" || seen[key]++) continue
          print commit, date, author, path, substr(key, 1, 4) "************" substr(key, 17, 4)
        }
      }' > /tmp/leaks.rows
{ echo commit,date,author,path,key_id; cat /tmp/leaks.rows; } > /srv/security/reports/billing-api-leaks.csv
cat /srv/security/reports/billing-api-leaks.csv

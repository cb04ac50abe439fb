#!/bin/bash
# Reference solution: zcat | sort by visitor then time | awk (sessions cut
# at gaps over 30 minutes, crawlers dropped, ordered funnel per session).
set -euo pipefail
cd /srv/analytics
zcat clickstream/2026-11-30.tsv.gz | tail -n +2 | LC_ALL=C sort -t "$(printf '\t')" -k2,2 -k1,1n |
  awk -F '\t' '
    function close_session() { if (open) { total++; for (i = 1; i <= step; i++) reached[i]++ } open = 0; step = 0 }
    tolower($4) ~ /bot/ { next }
    {
      if ($2 != visitor || $1 - last > 1800000) close_session()
      visitor = $2; last = $1; open = 1
      if (step == 0 && $3 ~ /^\/product\//) step = 1
      else if (step == 1 && $3 == "/cart") step = 2
      else if (step == 2 && $3 == "/checkout") step = 3
      else if (step == 3 && $3 == "/thanks") step = 4
    }
    END {
      close_session()
      split("product cart checkout thanks", name, " ")
      print "step,sessions,pct_of_previous"
      print "sessions," total ","
      prev = total
      for (i = 1; i <= 4; i++) { printf "%s,%d,%.1f\n", name[i], reached[i], prev ? 100 * reached[i] / prev : 0; prev = reached[i] }
    }' > reports/funnel-2026-11-30.csv
cat reports/funnel-2026-11-30.csv

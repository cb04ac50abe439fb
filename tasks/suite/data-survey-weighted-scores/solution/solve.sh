#!/bin/bash
# Reference solution: tail | mawk (answers trimmed, N/A and empty skipped,
# zero weights excluded) | sort, the sums per segment and question.
set -euo pipefail
cd /srv/survey
cat CODEBOOK.md
{
	echo "segment,question,n,weighted_mean,top2_share"
	tail -n +2 responses.csv | tr -d '\r' | awk -F, -v hdr="$(head -1 responses.csv | tr -d '\r')" '
		BEGIN { nq = split(hdr, h, ",") }
		$3 + 0 > 0 {
			for (i = 4; i <= nq; i++) {
				v = $i; gsub(/^ +| +$/, "", v)
				if (v !~ /^[1-5]$/) continue
				k = $2 "," h[i]; n[k]++; w[k] += $3; s[k] += $3 * v; if (v >= 4) t[k] += $3
			}
		}
		END { for (k in n) printf "%s,%d,%.2f,%.1f\n", k, n[k], s[k] / w[k], 100 * t[k] / w[k] }' |
		LC_ALL=C sort -t, -k1,1 -k2,2
} > out/scores.csv
cat out/scores.csv

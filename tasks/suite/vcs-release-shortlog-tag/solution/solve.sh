#!/bin/bash
# Reference solution: git shortlog -sn (mailmap applied, --no-merges) since
# the last tag, bots dropped, sorted by count then name; an annotated tag.
set -euo pipefail
cd /srv/geo-utils
{
	printf '# geo-utils 1.4.0\n\n'
	git shortlog -sn --no-merges v1.3.0..main | awk -F'\t' '{ gsub(/^ +/, "", $1); if ($2 !~ /\[bot\]$/) print $1 "\t" $2 }' |
		LC_ALL=C sort -t "$(printf '\t')" -k1,1nr -k2,2 | awk -F'\t' '{ printf "- %s (%d)\n", $2, $1 }'
} > RELEASE-NOTES-1.4.0.md
git tag -a v1.4.0 -m "geo-utils 1.4.0" main
cat RELEASE-NOTES-1.4.0.md
git tag -n1 -l 'v1.4*'

#!/bin/bash
# Reference solution: find (vendor/ pruned) | xargs awk, one awk per batch of
# files: a header within the first five lines, Go's generated-code marker
# before the first code line, empty files never seen by awk (no lines).
set -euo pipefail
cd /srv/monorepo
find . -path ./vendor -prune -o -type f \( -name '*.go' -o -name '*.py' -o -name '*.ts' -o -name '*.sh' -o -name '*.c' \) -print0 |
	xargs -0 awk '
	function done() { if (cur != "" && !ok && !gen) print substr(cur, 3) }
	FNR == 1 { done(); cur = FILENAME; ok = 0; gen = 0; code = (cur !~ /\.go$/) }
	FNR <= 5 && /^(\/\/|#|\/\*) SPDX-License-Identifier: [^ ]/ { ok = 1 }
	!code {
		if ($0 ~ /^\/\/ Code generated .* DO NOT EDIT\.$/) gen = 1
		else if ($0 !~ /^\/\// && $0 !~ /^[ \t]*$/) code = 1
	}
	END { done() }' | LC_ALL=C sort > /srv/audit/missing-spdx.txt
{
	printf 'component\tmissing\n'
	awk -F/ '{ print ($1 == "services" ? $1 "/" $2 : $1) }' /srv/audit/missing-spdx.txt |
		LC_ALL=C sort | uniq -c | awk '{ printf "%s\t%d\n", $2, $1 }' | LC_ALL=C sort -t "$(printf '\t')" -k2,2nr -k1,1
} > /srv/audit/summary.tsv
wc -l /srv/audit/missing-spdx.txt
cat /srv/audit/summary.tsv

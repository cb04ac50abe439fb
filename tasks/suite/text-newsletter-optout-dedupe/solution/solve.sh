#!/bin/bash
# Reference solution: one awk over the master list read twice (opt-outs
# first, since a note may come after the address), CRs and blanks trimmed;
# the master list is only read.
set -euo pipefail
cd /srv/lists
cat README.md
awk -v summary=out/summary.txt '
	function norm(s) { gsub(/^[ \t\r]+|[ \t\r]+$/, "", s); sub(/^mailto:/, "", s); return tolower(s) }
	NR == FNR {
		if ($0 ~ /^# opt-out: /) { s = $0; sub(/^# opt-out: /, "", s); sub(/ .*/, "", s); opt[norm(s)] = 1 }
		next
	}
	{ line = $0; gsub(/^[ \t\r]+|[ \t\r]+$/, "", line) }
	line == "" || line ~ /^#/ { next }
	{
		a = norm(line)
		if (a ~ /[ \t]/ || gsub(/@/, "@", a) != 1 || a !~ /^[^@]+@[^@]*\.[^@]*$/ || a ~ /@\./) { invalid++; next }
		if (a in opt) next
		if (a in seen) { dup++; next }
		seen[a] = 1; kept++; print a
	}
	END {
		for (o in opt) n++
		printf "kept=%d optouts=%d invalid=%d duplicates=%d\n", kept, n, invalid, dup > summary
	}' customers.txt customers.txt > out/newsletter.txt
cat out/summary.txt

#!/bin/bash
# Reference solution: find -perm /6000 -printf (metadata only) over the
# audited trees, compared with the baseline in one awk; stat for baseline
# files that lost their bits; find -perm -0002 ! -perm -1000 for the
# directories.
set -euo pipefail
cd /srv/audit
cat README.md
find /usr/bin /usr/sbin /usr/local /opt /srv -xdev -type f -perm /6000 -printf '%m %u %g %p\n' > /tmp/setid-now.txt
{
	printf 'path\tmode\towner\tgroup\tstatus\n'
	awk '
		NR == FNR { if ($0 !~ /^#/ && NF == 4) base[$4] = $1 " " $2 " " $3; next }
		{ now[$4] = $1 " " $2 " " $3 }
		END {
			for (p in now) {
				split(now[p], f, " ")
				if (!(p in base)) print p "\t" f[1] "\t" f[2] "\t" f[3] "\tnew"
				else if (base[p] != now[p]) print p "\t" f[1] "\t" f[2] "\t" f[3] "\tchanged"
			}
			for (p in base) if (!(p in now)) print p > "/tmp/setid-missing.txt"
		}' baseline-setid.txt /tmp/setid-now.txt
	touch /tmp/setid-missing.txt
	while read -r p; do
		if [ -e "$p" ]; then
			stat -c '%n	%a	%U	%G	missing' "$p"
		else
			printf '%s\t-\t-\t-\tmissing\n' "$p"
		fi
	done < /tmp/setid-missing.txt
} | { IFS= read -r header; echo "$header"; LC_ALL=C sort; } > out/setid-drift.tsv
find /opt /srv -xdev -type d -perm -0002 ! -perm -1000 | LC_ALL=C sort > out/writable-dirs.txt
rm -f /tmp/setid-now.txt /tmp/setid-missing.txt
cat out/setid-drift.tsv out/writable-dirs.txt

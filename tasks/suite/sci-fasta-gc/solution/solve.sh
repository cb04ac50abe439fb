#!/bin/bash
# Reference solution: zcat | awk (per-contig counts over multi-line
# records, case-folded) | sort by length then name; the summary from the
# sorted table.
set -euo pipefail
cd /home/lab/assembly/run42
zcat contigs.fa.gz | awk '
  function flush() {
    if (name != "" && len >= 500)
      printf "%s\t%d\t%.2f\t%d\t%d\t%d\n", name, len, acgt ? 100 * gc / acgt : 0, n, gc, acgt
  }
  /^>/ { flush(); name = substr($1, 2); len = gc = acgt = n = 0; next }
  {
    s = toupper($0); len += length(s)
    n += gsub(/N/, "", s); c = gsub(/[GC]/, "", s); gc += c; acgt += c + gsub(/[AT]/, "", s)
  }
  END { flush() }' | LC_ALL=C sort -t "$(printf '\t')" -k2,2nr -k1,1 > /tmp/contigs.tsv
{
  printf 'contig\tlength\tgc_percent\tn_count\n'
  cut -f1-4 /tmp/contigs.tsv
} > qc/contig_stats.tsv
awk -F '\t' '
  { len[NR] = $2; total += $2; gc += $5; acgt += $6 }
  END {
    for (i = 1; i <= NR; i++) { run += len[i]; if (2 * run >= total) { n50 = len[i]; break } }
    printf "contigs=%d\ntotal_length=%d\nn50=%d\ngc_percent=%.2f\n", NR, total, n50, 100 * gc / acgt
  }' /tmp/contigs.tsv > qc/summary.txt
cat qc/summary.txt

"""Utility verifier: per-contig QC table and assembly summary for contigs of at least 500 bp."""
import gzip
from pathlib import Path

RUN = Path("/home/lab/assembly/run42")


def contigs():
    recs, name, parts = [], None, []
    for line in gzip.decompress((RUN / "contigs.fa.gz").read_bytes()).decode().splitlines():
        if line.startswith(">"):
            if name:
                recs.append((name, "".join(parts).upper()))
            name, parts = line[1:].split()[0], []
        else:
            parts.append(line.strip())
    recs.append((name, "".join(parts).upper()))
    return [(n, s) for n, s in recs if len(s) >= 500]


def test_contig_stats():
    rows = []
    for name, s in contigs():
        acgt = sum(s.count(b) for b in "ACGT")
        rows.append((name, len(s), f"{100 * (s.count('G') + s.count('C')) / acgt:.2f}", s.count("N")))
    rows.sort(key=lambda r: (-r[1], r[0]))
    want = ["contig\tlength\tgc_percent\tn_count"] + [f"{n}\t{l}\t{g}\t{c}" for n, l, g, c in rows]
    got = (RUN / "qc/contig_stats.tsv").read_text().splitlines()
    assert 30 < len(want) < 61
    assert got == want


def test_summary():
    cs = contigs()
    lens = sorted((len(s) for _, s in cs), reverse=True)
    total = sum(lens)
    run = 0
    for n50 in lens:
        run += n50
        if 2 * run >= total:
            break
    seq = "".join(s for _, s in cs)
    gc = 100 * (seq.count("G") + seq.count("C")) / sum(seq.count(b) for b in "ACGT")
    want = [f"contigs={len(cs)}", f"total_length={total}", f"n50={n50}", f"gc_percent={gc:.2f}"]
    assert (RUN / "qc/summary.txt").read_text().split() == want

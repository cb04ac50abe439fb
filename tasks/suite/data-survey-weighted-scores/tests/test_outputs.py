"""Utility verifier: weighted survey scores per segment and question, recomputed."""
import csv
from pathlib import Path


def test_scores():
    rows = list(csv.DictReader(open("/srv/survey/responses.csv", newline="", encoding="utf-8")))
    qs = [k for k in rows[0] if k.startswith("q")]
    acc = {}
    for r in rows:
        wt = float(r["weight"])
        if wt <= 0:
            continue
        for q in qs:
            v = r[q].strip()
            if v not in {"1", "2", "3", "4", "5"}:
                continue
            a = acc.setdefault((r["segment"], q), [0, 0.0, 0.0, 0.0])
            a[0] += 1
            a[1] += wt
            a[2] += wt * int(v)
            a[3] += wt if int(v) >= 4 else 0
    want = [["segment", "question", "n", "weighted_mean", "top2_share"]] + [
        [s, q, str(a[0]), f"{a[2] / a[1]:.2f}", f"{100 * a[3] / a[1]:.1f}"] for (s, q), a in sorted(acc.items())]
    assert len(want) == 13
    assert list(csv.reader(open("/srv/survey/out/scores.csv", newline=""))) == want

"""Utility verifier: the summary uses config.mk's rate, a plain make follows a change of
config.mk, and the raw recordings are intact."""
import csv
import shutil
import subprocess
from pathlib import Path

R = Path("/srv/recorder")


def expected(rate):
    rows = []
    for p in sorted((R / "data/raw").glob("*.samples")):
        total = sum(int(x) for x in p.read_text().split())
        rows.append([p.name.split(".")[0], str(total), f"{total / rate:.3f}"])
    return rows


def summary(root):
    rows = list(csv.reader((root / "build/summary.csv").open(newline="")))
    assert rows[0] == ["recording", "samples", "seconds"]
    return sorted(rows[1:])


def test_raw_intact():
    assert len(list((R / "data/raw").glob("*.samples"))) == 12


def test_summary_at_48k():
    assert summary(R) == expected(48000)


def test_make_follows_config(tmp_path):
    tree = tmp_path / "recorder"
    shutil.copytree(R, tree, symlinks=True)
    subprocess.run(["make", "-s"], cwd=tree, check=True, capture_output=True)
    cfg = tree / "config.mk"
    cfg.write_text(cfg.read_text().replace("SAMPLE_RATE = 48000", "SAMPLE_RATE = 96000"))
    r = subprocess.run(["make", "-s"], cwd=tree, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert summary(tree) == expected(96000)

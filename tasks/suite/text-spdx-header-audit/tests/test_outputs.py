"""Utility verifier: the SPDX audit of the monorepo, recomputed from the tree."""
import os
import re
from collections import Counter
from pathlib import Path

REPO = Path("/srv/monorepo")
AUDIT = Path("/srv/audit")
EXTS = (".go", ".py", ".ts", ".sh", ".c")
HEADER = re.compile(r"^(//|#|/\*) SPDX-License-Identifier: \S")
GENERATED = re.compile(r"^// Code generated .* DO NOT EDIT\.$")


def generated(lines):
    for line in lines:
        if GENERATED.match(line):
            return True
        if not line.startswith("//") and line.strip():
            return False
    return False


def audit():
    missing, total = [], 0
    for dirpath, dirnames, filenames in os.walk(REPO):
        rel_dir = os.path.relpath(dirpath, REPO)
        if rel_dir == ".":
            dirnames.remove("vendor")
        for name in filenames:
            total += 1
            if not name.endswith(EXTS):
                continue
            text = (Path(dirpath) / name).read_text()
            if not text:
                continue
            lines = text.split("\n")
            if any(HEADER.match(l) for l in lines[:5]):
                continue
            if name.endswith(".go") and generated(lines):
                continue
            missing.append(os.path.normpath(os.path.join(rel_dir, name)))
    return sorted(missing, key=lambda s: s.encode()), total


def test_missing_list():
    missing, total = audit()
    assert total > 20000
    assert 1500 < len(missing) < 5000
    got = (AUDIT / "missing-spdx.txt").read_text().splitlines()
    assert got == missing


def test_summary():
    missing, _ = audit()
    counts = Counter(p.split("/")[0] + "/" + p.split("/")[1] if p.startswith("services/") else p.split("/")[0] for p in missing)
    want = ["component\tmissing"] + [f"{c}\t{n}" for c, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    assert "tools" in counts
    assert (AUDIT / "summary.tsv").read_text().splitlines() == want


def test_repository_untouched():
    assert sorted(os.listdir(REPO)) == ["services", "tools", "vendor"]
    assert not any(p.name.endswith((".swp", ".bak", ".orig")) for p in REPO.rglob("*"))

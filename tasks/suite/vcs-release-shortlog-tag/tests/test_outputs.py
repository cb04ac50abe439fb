"""Utility verifier: release notes by author since v1.3.0 (mailmap, no merges, no bots) and the tag."""
import subprocess
from pathlib import Path

REPO = "/srv/geo-utils"


def git(*a):
    return subprocess.run(["git", "-C", REPO, *a], capture_output=True, text=True, check=True).stdout


def test_notes():
    names = git("log", "--no-merges", "--use-mailmap", "--format=%aN", "v1.3.0..v1.4.0").splitlines()
    counts = {}
    for n in names:
        if not n.endswith("[bot]"):
            counts[n] = counts.get(n, 0) + 1
    want = ["# geo-utils 1.4.0", ""] + [f"- {n} ({c})" for n, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    assert want[2:5] == ["- Ana Lima (3)", "- Chen Wei (3)", "- Ben Ode (2)"]
    assert Path(REPO, "RELEASE-NOTES-1.4.0.md").read_text().splitlines() == want


def test_annotated_tag():
    assert git("cat-file", "-t", "v1.4.0").strip() == "tag"
    assert git("rev-parse", "v1.4.0^{commit}") == git("rev-parse", "main")
    assert git("tag", "-l", "--format=%(contents:subject)", "v1.4.0").strip() == "geo-utils 1.4.0"
    assert "RELEASE-NOTES-1.4.0.md" not in git("ls-files")

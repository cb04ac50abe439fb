"""Utility verifier: wordfreq builds, its own tests pass, and the installed tool is right."""
import hashlib
import math
import re
import subprocess
from collections import Counter
from pathlib import Path

PROJECT = Path("/src/wordfreq")
TOOL = Path("/usr/local/bin/wordfreq")
EXPECTED = {
    "basic.out": "3 the ##\n1 cat #\n1 end #\n1 mat #\n1 on #\n",
    "ties.out": "3 a ##\n3 b ##\n3 c ##\n2 zeta ##\n1 d #\n",
}
TEXT = (
    "It was the best of times, it was the worst of times; it was the age of wisdom, "
    "it was the age of foolishness. Zebra zebra ZEBRA apple Apple banana!\n" * 7
)


def reference(text, limit):
    counts = Counter(w.lower() for w in re.findall(r"[A-Za-z]+", text))
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    return "".join(f"{n} {w} {'#' * (1 + int(4.0 * math.log10(n)))}\n" for w, n in rows)


def test_expected_outputs_untouched():
    for name, want in EXPECTED.items():
        assert (PROJECT / "tests" / name).read_text() == want, f"tests/{name} was changed"


def test_installed_tool_matches_readme():
    assert TOOL.is_file(), "wordfreq is not installed in /usr/local/bin"
    out = subprocess.run([str(TOOL), "-n", "12"], input=TEXT, capture_output=True, text=True, check=True)
    assert out.stdout == reference(TEXT, 12)


def test_make_test_passes():
    res = subprocess.run(["make", "-s", "test"], cwd=PROJECT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr

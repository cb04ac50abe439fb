"""Utility verifier: the tests pass unchanged, and the installed rewrap fills paragraphs by
characters, on the newsletter and on hidden text."""
import hashlib
import os
import random
import subprocess
from pathlib import Path

SRC = Path("/src/rewrap")
TOOL = Path("/usr/local/bin/rewrap")
TEST_SHA = "38aa1ad3780fcd50e4f8d1d80148528fb2a6853b5ea6f484f743749ced56914a"


def reflow(text, width):
    paras, cur = [], []
    for line in text.split("\n"):
        if line.strip():
            cur.append(line)
        elif cur:
            paras.append(" ".join(cur).split())
            cur = []
    if cur:
        paras.append(" ".join(cur).split())
    out = []
    for words in paras:
        lines, line = [], ""
        for w in words:
            if not line:
                line = w
            elif len(line) + 1 + len(w) <= width:
                line += " " + w
            else:
                lines.append(line)
                line = w
        lines.append(line)
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


def test_tests_unchanged():
    assert hashlib.sha256((SRC / "wrap/wrap_test.go").read_bytes()).hexdigest() == TEST_SHA


def test_go_test_passes():
    env = dict(os.environ, HOME="/root", GOPROXY="off")
    r = subprocess.run(["go", "test", "-count=1", "./..."], cwd=SRC, env=env, capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stdout + r.stderr


def test_newsletter_wrapped():
    src = Path("/srv/newsletter/issue-48.txt").read_text()
    got = Path("/srv/newsletter/issue-48.wrapped.txt").read_text()
    assert got == reflow(src, 64)
    assert max(len(l) for l in got.splitlines() if " " in l) <= 64


def test_hidden_text():
    r = random.Random(2026)
    words = "Grüße Straße naïve déjà ελληνικά Фёдор ёж à été œuvre Ærø þing x yy zzz".split()
    text = "\n\n".join(" ".join(r.choice(words) for _ in range(r.randint(5, 40))) for _ in range(30))
    for width in (9, 17, 30):
        out = subprocess.run([str(TOOL), "-w", str(width)], input=text, capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        assert out.stdout == reflow(text, width)

"""Utility verifier: mdtoc's tests pass unchanged, its TOCs follow the README on hidden documents,
and the two handbook pages carry correct TOCs."""
import hashlib
import json
import re
import subprocess
from pathlib import Path

SRC = Path("/src/mdtoc")
DOCS = Path("/srv/handbook/docs")
TEST_SHA = "3cc6ee41600513708e281ab626e1d003bc69e86ff5ca0b555bce9708aea5d7d6"


def reference_toc(md):
    out, seen, fence = [], {}, None
    for line in md.split("\n"):
        f = re.match(r"^(```|~~~)", line)
        if f:
            fence = f.group(1) if fence is None else (None if fence == f.group(1) else fence)
            continue
        if fence:
            continue
        m = re.match(r"^(#{2,3})\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(2))
        slug = "".join(c for c in text.strip().lower() if c.isalnum() or c in " _-").replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.append(("  " if len(m.group(1)) == 3 else "") + f"- [{text}](#{slug}{'-' + str(n) if n else ''})")
    return "\n".join(out)


def node_toc(md):
    r = subprocess.run(["node", "-e", "process.stdout.write(require('/src/mdtoc/lib/toc').toc(require('fs').readFileSync(0, 'utf8')))"],
                       input=md, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_tests_unchanged_and_pass():
    assert hashlib.sha256((SRC / "test/toc.test.js").read_bytes()).hexdigest() == TEST_SHA
    r = subprocess.run(["node", "--test", "test/"], cwd=SRC, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]


def test_hidden_documents():
    docs = [
        "## Setup\n~~~python\n## x\n~~~\n## Setup\n### Setup\n## [Links](http://a/b) and [more](#x)\n",
        "## Q&A: über `x`!\n### Q&A: über `x`!\n```\n~~~\n## inside\n```\n## end\n",
        "## A  B\n## a-b\n## A_B\n### Ünïcödé 2.0\n",
    ]
    for md in docs:
        assert node_toc(md) == reference_toc(md), md


def test_handbook_tocs():
    for name in ("operations.md", "api.md"):
        md = (DOCS / name).read_text()
        a, b = md.index("<!-- toc -->"), md.index("<!-- tocstop -->")
        assert md[a + len("<!-- toc -->"):b] == "\n" + reference_toc(md) + "\n", name
    ops = (DOCS / "operations.md").read_text()
    assert "](#rollback-2)" in ops and "not a heading" not in ops.split("<!-- tocstop -->")[0]
    assert "- [On-call: rota and escalation](#on-call-rota-and-escalation)" in ops

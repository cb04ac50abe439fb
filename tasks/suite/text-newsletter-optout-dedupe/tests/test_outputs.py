"""Utility verifier: the newsletter export recomputed from the master list."""
import re
from pathlib import Path

LIST = Path("/srv/lists/customers.txt")


def expected():
    lines = LIST.read_text().splitlines()
    norm = lambda s: re.sub(r"^mailto:", "", s.strip()).lower()
    opt = {norm(l[len("# opt-out: "):].split(" ")[0]) for l in lines if l.startswith("# opt-out: ")}
    kept, seen, invalid, dup = [], set(), 0, 0
    for l in lines:
        s = l.strip()
        if not s or s.startswith("#"):
            continue
        a = norm(s)
        local, _, dom = a.partition("@")
        if re.search(r"\s", a) or a.count("@") != 1 or not local or "." not in dom:
            invalid += 1
            continue
        if a in opt:
            continue
        if a in seen:
            dup += 1
            continue
        seen.add(a)
        kept.append(a)
    return kept, f"kept={len(kept)} optouts={len(opt)} invalid={invalid} duplicates={dup}"


def test_newsletter():
    kept, _ = expected()
    assert 150 < len(kept) < 260
    assert Path("/srv/lists/out/newsletter.txt").read_text().splitlines() == kept


def test_summary():
    _, summary = expected()
    assert Path("/srv/lists/out/summary.txt").read_text().split("\n")[0] == summary

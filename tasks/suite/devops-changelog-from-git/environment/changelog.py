#!/usr/bin/env python3
"""Release notes generator, run by CI before tagging a release.

    tools/changelog.py VERSION

Collects the conventional commits (feat:, fix:, with an optional scope)
made since the previous release tag and prepends a section for VERSION to
CHANGELOG.md. Other commit types (chore, docs, ci, refactor...) are left out.
"""
import re
import subprocess
import sys
from pathlib import Path

KINDS = {"feat": "Features", "fix": "Fixes"}


def git(*args):
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def previous_tag():
    # the first release tag: every release so far started from it
    return git("tag", "--list", "v*", "--sort=v:refname").split()[0]


def commits_since(tag):
    return git("log", "--reverse", "--format=%s", f"{tag}..HEAD").splitlines()


def section(version, subjects):
    groups = {title: [] for title in KINDS.values()}
    for s in subjects:
        m = re.match(r"^(\w+)(?:\([^)]*\))?: (.+)$", s)
        if m and m.group(1) in KINDS:
            groups[KINDS[m.group(1)]].append(m.group(2))
    out = [f"## {version}"]
    for title, items in groups.items():
        if items:
            out += [f"### {title}", *[f"- {i}" for i in items], ""]
    return "\n".join(out).rstrip() + "\n"


def main():
    version = sys.argv[1]
    log = Path("CHANGELOG.md")
    text = log.read_text()
    head, _, rest = text.partition("\n## ")
    new = section(version, commits_since(previous_tag()))
    log.write_text(f"{head}\n{new}\n## {rest}")


if __name__ == "__main__":
    main()

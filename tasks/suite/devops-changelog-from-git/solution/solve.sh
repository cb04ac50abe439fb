#!/bin/bash
# Reference solution: the tool took the oldest tag as "the previous
# release"; take the newest reachable one (git describe), then run it.
set -euo pipefail
cd /src/webapp
python3 - <<'PY'
from pathlib import Path

p = Path("tools/changelog.py")
src = p.read_text()
old = '''    # the first release tag: every release so far started from it
    return git("tag", "--list", "v*", "--sort=v:refname").split()[0]
'''
new = '''    # the newest release tag reachable from HEAD
    return git("describe", "--tags", "--abbrev=0", "--match", "v*").strip()
'''
p.write_text(src.replace(old, new, 1))
PY
python3 tools/changelog.py 1.2.0

#!/bin/bash
# Builds the tools repository, its shared origin and two unpushed commits that carry build output.
set -euo pipefail
export GIT_AUTHOR_NAME="Lena Vogt" GIT_AUTHOR_EMAIL="lena@corp.example"
export GIT_COMMITTER_NAME="Lena Vogt" GIT_COMMITTER_EMAIL="lena@corp.example"
at() { export GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1"; }
mkdir -p /srv/git
git init -q --bare -b main /srv/git/csvtool.git
git clone -q /srv/git/csvtool.git /home/dev/csvtool 2>/dev/null
cd /home/dev/csvtool
git config user.name "Lena Vogt"
git config user.email "lena@corp.example"
mkdir -p csvtool tests
cat > csvtool/__init__.py <<'PY'
"""Small CSV helpers."""
__version__ = "0.3.0"
PY
cat > csvtool/columns.py <<'PY'
import csv


def select(lines, names):
    """Yield rows of the CSV lines restricted to the columns names, in that order."""
    reader = csv.DictReader(lines)
    for row in reader:
        yield [row[n] for n in names]
PY
cat > tests/test_columns.py <<'PY'
from csvtool.columns import select


def test_select():
    assert list(select(["a,b,c", "1,2,3"], ["c", "a"])) == [["3", "1"]]
PY
printf '__pycache__/\n*.pyc\n' > .gitignore
printf '# csvtool\n\nBuild a release with `make dist`.\n' > README.md
cat > Makefile <<'MK'
VERSION := $(shell python3 -c 'import csvtool; print(csvtool.__version__)')

dist:
	mkdir -p dist
	tar czf dist/csvtool-$(VERSION).tar.gz csvtool README.md
	head -c 3000000 /dev/urandom > dist/csvtool-$(VERSION)-bundle.bin

.PHONY: dist
MK
git add -A && at "2026-11-20T10:00:00Z" && git commit -q -m "csvtool: column selection"
git push -q origin main
# local work, not pushed: build output slipped into both commits
cat >> csvtool/columns.py <<'PY'


def rename(header, mapping):
    """Return the header with columns renamed through mapping."""
    return [mapping.get(h, h) for h in header]
PY
cat >> tests/test_columns.py <<'PY'


def test_rename():
    from csvtool.columns import rename
    assert rename(["a", "b"], {"b": "B"}) == ["a", "B"]
PY
make -s dist
git add -A && at "2026-11-27T16:20:00Z" && git commit -q -m "columns: rename helper"
sed -i 's/0.3.0/0.4.0/' csvtool/__init__.py
printf '\n## 0.4.0\n\n* rename helper\n' >> README.md
make -s dist
git add -A && at "2026-11-28T09:05:00Z" && git commit -q -m "release 0.4.0"

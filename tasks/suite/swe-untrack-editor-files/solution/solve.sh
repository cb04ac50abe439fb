#!/bin/bash
# Reference solution: untrack the editors' files (git rm --cached keeps them on
# disk), ignore their patterns everywhere, commit, and run the tests.
set -euo pipefail
cd /src/quotesvc
git ls-files
git rm -q --cached quotesvc/.api.py.swp quotesvc/api.py~ '#README.md#' .idea/workspace.xml .idea/misc.xml
cat >> .gitignore <<'GI'
# editors
.*.sw[a-p]
*~
\#*\#
.\#*
.idea/
GI
git add .gitignore
git commit -q -m "Stop tracking editor files"
git status --short
python3 -m pytest -q -p no:cacheprovider

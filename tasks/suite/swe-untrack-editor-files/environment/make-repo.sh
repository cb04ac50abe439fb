#!/bin/bash
# A small Python service whose history picked up editors' files: vim swap and
# backup files, an Emacs lock link and autosave, a JetBrains .idea directory.
set -euo pipefail
export GIT_AUTHOR_NAME="Mia Tan" GIT_AUTHOR_EMAIL="mia.tan@corp.example"
export GIT_COMMITTER_NAME="Mia Tan" GIT_COMMITTER_EMAIL="mia.tan@corp.example"
export GIT_AUTHOR_DATE="2026-11-27T11:00:00Z" GIT_COMMITTER_DATE="2026-11-27T11:00:00Z"
R=/src/quotesvc
mkdir -p $R/quotesvc $R/tests $R/.idea
cd $R
git init -q -b main
printf '"""Quote service."""\n' > quotesvc/__init__.py
printf 'def quote(symbol):\n    return {"symbol": symbol.upper()}\n' > quotesvc/api.py
printf 'from quotesvc.api import quote\n\n\ndef test_quote():\n    assert quote("abc") == {"symbol": "ABC"}\n' > tests/test_api.py
printf '__pycache__/\n*.pyc\n' > .gitignore
printf '# quotesvc\n\nRun the tests with `python3 -m pytest -p no:cacheprovider`.\n' > README.md
git add -A && git commit -q -m "quotesvc: first version"
# the editors' files, committed by a hurried `git add .`
printf 'b0VIM 9.0\0\0\0mia\0quotesvc/api.py\0' > quotesvc/.api.py.swp
cp quotesvc/api.py quotesvc/api.py~
printf 'draft notes\n' > '#README.md#'
printf '<project version="4"/>\n' > .idea/workspace.xml
printf '<project version="4"/>\n' > .idea/misc.xml
printf 'def quote(symbol):\n    return {"symbol": symbol.upper(), "ccy": "EUR"}\n' > quotesvc/api.py
printf 'from quotesvc.api import quote\n\n\ndef test_quote():\n    assert quote("abc") == {"symbol": "ABC", "ccy": "EUR"}\n' > tests/test_api.py
git add . && git commit -q -m "api: quote currency"
# an Emacs lock link (never committed: git would store the link) and a live vim swap
ln -s 'mia@devbox.1234:1701' 'quotesvc/.#api.py'
printf 'b0VIM 9.0\0\0\0mia\0tests/test_api.py\0' > tests/.test_api.py.swp
git config user.name "Mia Tan" && git config user.email "mia.tan@corp.example"

#!/bin/bash
# Reference solution: fetch the library's new tags inside the submodule (a
# plain fetch there; `git submodule update --remote` refuses file:// remotes
# by default), check out v2.4.1, pin it and the lock file in one commit.
set -euo pipefail
cd /home/dev/platform
cat deps.lock
git checkout -q -b deps/libshim-2.4.1 main
git -C vendor/libshim fetch -q --tags origin
git -C vendor/libshim tag -l 'v2.4*'
git -C vendor/libshim checkout -q v2.4.1
sha=$(git -C vendor/libshim rev-parse HEAD)
lock=$(awk -v sha="$sha" '$1 == "libshim" { $2 = "v2.4.1"; $3 = sha } { print }' deps.lock)
printf '%s\n' "$lock" > deps.lock
git add vendor/libshim deps.lock
git commit -q -m "vendor: bump libshim to v2.4.1"
scripts/check-vendor.sh
git show --stat --format='%h %s' HEAD

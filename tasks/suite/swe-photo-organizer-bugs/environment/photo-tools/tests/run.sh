#!/bin/bash
# Tests for bin/organize: ./tests/run.sh (exit status 0 when all pass).
here=$(cd "$(dirname "$0")/.." && pwd)
fails=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

check() { # description, condition...
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}

mkdir -p "$work/inbox" "$work/lib"
touch "$work/inbox/IMG_20231105_093000.jpg" "$work/inbox/VID_20240229_235959.mp4" "$work/inbox/notes.txt"
"$here/bin/organize" "$work/inbox" "$work/lib" >/dev/null 2>&1

check "photo filed by year and month" test -f "$work/lib/2023/11/IMG_20231105_093000.jpg"
check "video filed by year and month" test -f "$work/lib/2024/02/VID_20240229_235959.mp4"
check "other files stay in the inbox" test -f "$work/inbox/notes.txt"

[ "$fails" -eq 0 ] && echo "all tests passed"
exit "$fails"

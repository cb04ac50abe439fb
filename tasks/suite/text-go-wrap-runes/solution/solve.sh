#!/bin/bash
# Reference solution: measure lines in runes, not bytes; test, install, and
# re-flow the issue. Go keeps its build cache in ~/.cache/go-build.
set -euo pipefail
cd /src/rewrap
go test ./... || true
python3 -P - <<'PY'
from pathlib import Path

p = Path("wrap/wrap.go")
s = p.read_text()
s = s.replace('import "strings"\n', 'import (\n\t"strings"\n\t"unicode/utf8"\n)\n', 1)
s = s.replace("case len(line)+1+len(w) <= width:",
              "case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= width:", 1)
p.write_text(s)
PY
gofmt -l . | tee /dev/stderr | (! read -r)
go vet ./...
go test ./...
go build -o /usr/local/bin/rewrap ./cmd/rewrap
rewrap -w 64 < /srv/newsletter/issue-48.txt > /srv/newsletter/issue-48.wrapped.txt

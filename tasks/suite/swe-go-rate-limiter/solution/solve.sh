#!/bin/bash
# Reference solution: refill by the elapsed time in fractional seconds (the
# Duration division truncated it to whole seconds) and cap the bucket at its
# capacity; then test, build and install rlsim.
set -euo pipefail
cd /src/ratelimit
go version
go test ./... || true
python3 - <<'PY'
from pathlib import Path

p = Path("bucket/bucket.go")
src = p.read_text()
src = src.replace('import "time"\n', 'import (\n\t"math"\n\t"time"\n)\n')
src = src.replace(
    "\telapsed := now.Sub(b.last) / time.Second\n"
    "\tb.tokens += float64(elapsed) * b.Rate\n",
    "\telapsed := now.Sub(b.last).Seconds()\n"
    "\tb.tokens = math.Min(b.Capacity, b.tokens+elapsed*b.Rate)\n")
p.write_text(src)
PY
gofmt -l . | tee /dev/stderr | (! read -r)
go vet ./...
go test ./...
go build -o /usr/local/bin/rlsim ./cmd/rlsim
rlsim -burst 10 -rate 5 < testdata/gateway-sample.txt

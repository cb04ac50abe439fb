#!/bin/bash
# Reference solution: point this user's Go at the module proxy (go env -w,
# which writes ~/.config/go/env; go.sum keeps the module's checksums), fetch
# the dependency, book VAT per line with the library's rounding, test,
# install.
set -euo pipefail
cd /src/invoicegen
go env GOPROXY
go env -w GOPROXY=http://goproxy:3000
for _ in $(seq 1 50); do go mod download git.acme.internal/libs/money && break; sleep 0.2; done
go test ./... || true
python3 - <<'PY'
from pathlib import Path

p = Path("invoice.go")
src = p.read_text()
src = src.replace("\t\tl.VAT = money.Cents(float64(l.Net) * 0.19)\n", "\t\tl.VAT = money.ApplyRate(l.Net, VATBasisPoints)\n")
p.write_text(src)
PY
go vet ./...
go test ./...
go build -o /usr/local/bin/invoicegen .
invoicegen testdata/order-7731.csv

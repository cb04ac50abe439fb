#!/bin/bash
# Reference solution: skip uploads in progress (*.json.part), group by the
# business day (the local date in ts, not the upload folder and not the UTC
# date), count refunds negative; then run the rollup over the spool.
set -euo pipefail
cd /srv/pos/rollup
python3 - <<'PY'
from pathlib import Path

p = Path("rollup.js")
src = p.read_text()
for old, new in [
    ("      for (const name of (await fs.readdir(path.join(spool, store, day))).sort()) {\n",
     "      for (const name of (await fs.readdir(path.join(spool, store, day))).sort()) {\n"
     "        if (!name.endsWith('.json')) continue; // upload in progress\n"),
    ("  return cents;\n", "  return txn.type === 'refund' ? -cents : cents;\n"),
    ("  for (const { store, day, txn } of txns) {\n    if (txn.voided) continue;\n",
     "  for (const { store, txn } of txns) {\n    if (txn.voided) continue;\n"
     "    const day = txn.ts.slice(0, 10); // business day: the store's local date\n"),
]:
    assert old in src, old
    src = src.replace(old, new, 1)
p.write_text(src)
PY
node rollup.js

#!/usr/bin/env python3
"""Regenerate tests/snapshots/*.json from the current implementation.

Use after an intentional change of output; review the diff before committing."""
import json
import sys
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from invoicing import format_amount, invoice_total, parse_amount  # noqa: E402

snap = ROOT / "tests" / "snapshots"


def rewrite(name, fn):
    path = snap / name
    data = json.loads(path.read_text())
    new = {k: fn(k) for k in data}
    path.write_text(json.dumps(new, indent=2) + "\n")
    print(f"updated {path.relative_to(ROOT)}")


rewrite("parse.json", lambda k: str(parse_amount(k)))
rewrite("format.json", lambda k: format_amount(Decimal(k)))
rewrite("totals.json", lambda k: str(invoice_total([(3, "0.125"), (1, "10.005"), (2, "4.50")])))

"""Utility verifier: the fixed-width ledger as CSV, parsed by character positions."""
import csv
from pathlib import Path


def test_csv():
    want = [["account", "date", "description", "amount", "currency"]]
    for line in Path("/srv/feed/gl-20261202.dat").read_text(encoding="utf-8").splitlines():
        if line.startswith("01"):
            cents = int(line[50:61])
            amount = f"{cents / 100:.2f}"
            if line[61] == "-":
                amount = "-" + amount
            want.append([line[2:12], f"{line[12:16]}-{line[16:18]}-{line[18:20]}", line[20:50].rstrip(), amount, line[62:65]])
    assert len(want) == 141 and any("Müller" in r[2] for r in want) and any('"' in r[2] for r in want)
    with open("/srv/feed/out/gl-20261202.csv", newline="", encoding="utf-8") as f:
        assert list(csv.reader(f)) == want
    text = Path("/srv/feed/out/gl-20261202.csv").read_text(encoding="utf-8")
    assert '"Refund ""duplicate"""' in text and '"Travel, Berlin"' in text

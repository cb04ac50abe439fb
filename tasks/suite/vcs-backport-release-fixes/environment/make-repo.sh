#!/bin/bash
# inventory: release/1.8 (tagged v1.8.2) and main, which has moved on with a reservations
# feature and two bug fixes that the release branch needs.
set -euo pipefail
export GIT_AUTHOR_NAME="Ravi Menon" GIT_AUTHOR_EMAIL="ravi@corp.example" GIT_COMMITTER_NAME="Ravi Menon" GIT_COMMITTER_EMAIL="ravi@corp.example"
at() { export GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1"; }
who() { export GIT_AUTHOR_NAME="$1" GIT_AUTHOR_EMAIL="$2"; }
mkdir -p /home/dev/inventory && cd /home/dev/inventory
git init -q -b main
git config user.name "Ravi Menon" && git config user.email "ravi@corp.example"
mkdir -p inventory tests
: > inventory/__init__.py
cat > inventory/stock.py <<'P'
"""Stock levels per SKU."""


class Stock:
    def __init__(self):
        self.on_hand = {}
        self.allocated = {}

    def receive(self, sku, qty):
        self.on_hand[sku] = self.on_hand.get(sku, 0) + qty

    def allocate(self, sku, qty):
        self.allocated[sku] = self.allocated.get(sku, 0) + qty

    def available(self, sku):
        return self.on_hand.get(sku, 0) - self.allocated.get(sku, 0)
P
cat > inventory/export.py <<'P'
"""CSV export of stock levels."""


def to_csv(stock):
    lines = ["sku,on_hand,available"]
    for sku in sorted(stock.on_hand):
        lines.append(f"{sku},{stock.on_hand[sku]},{stock.available(sku)}")
    return "\n".join(lines) + "\n"
P
cat > tests/test_stock.py <<'P'
from inventory.export import to_csv
from inventory.stock import Stock


def test_available():
    s = Stock()
    s.receive("A-1", 10)
    s.allocate("A-1", 3)
    assert s.available("A-1") == 7


def test_csv():
    s = Stock()
    s.receive("A-1", 2)
    assert to_csv(s) == "sku,on_hand,available\nA-1,2,2\n"
P
printf '__pycache__/\n.pytest_cache/\n' > .gitignore
at "2026-08-01T10:00:00Z"; git add -A && git commit -q -m "inventory: stock levels and CSV export"
printf '1.8.0\n' > VERSION && at "2026-08-20T10:00:00Z" && git add -A && git commit -q -m "release 1.8.0"
git tag -a v1.8.0 -m "inventory 1.8.0"
git branch release/1.8
printf '1.8.2\n' > VERSION
git checkout -q release/1.8
printf '1.8.2\n' > VERSION && at "2026-10-01T10:00:00Z" && git add -A && git commit -q -m "release 1.8.2"
git tag -a v1.8.2 -m "inventory 1.8.2"
git checkout -q main
git checkout -q -- VERSION 2>/dev/null || true
printf '1.9.0-dev\n' > VERSION && at "2026-10-02T10:00:00Z" && git add -A && git commit -q -m "start 1.9 development"
# feature: reservations (must not be backported)
who "Lena Brandt" "lena@corp.example"
cat > inventory/stock.py <<'P'
"""Stock levels per SKU."""


class Stock:
    def __init__(self):
        self.on_hand = {}
        self.allocated = {}
        self.reserved = {}

    def receive(self, sku, qty):
        self.on_hand[sku] = self.on_hand.get(sku, 0) + qty

    def allocate(self, sku, qty):
        self.allocated[sku] = self.allocated.get(sku, 0) + qty

    def reserve(self, sku, qty):
        """Hold stock for an unpaid basket."""
        self.reserved[sku] = self.reserved.get(sku, 0) + qty

    def available(self, sku, include_reserved=True):
        held = self.allocated.get(sku, 0)
        if include_reserved:
            held += self.reserved.get(sku, 0)
        return self.on_hand.get(sku, 0) - held
P
at "2026-10-20T10:00:00Z"; git add -A && git commit -q -m "stock: reservations for unpaid baskets"
# fix 1: negative availability (conflicts on release/1.8, which has no reservations)
who "Ravi Menon" "ravi@corp.example"
python3 - <<'P'
from pathlib import Path
p = Path("inventory/stock.py")
s = p.read_text()
s = s.replace("        return self.on_hand.get(sku, 0) - held\n",
              "        # over-allocation (a late cancellation, a miscount) must not show as negative stock\n"
              "        return max(0, self.on_hand.get(sku, 0) - held)\n")
p.write_text(s)
P
cat >> tests/test_stock.py <<'P'


def test_available_never_negative():
    s = Stock()
    s.receive("B-2", 1)
    s.allocate("B-2", 3)
    assert s.available("B-2") == 0
P
at "2026-11-12T10:00:00Z"; git add -A && git commit -q -m "stock: never report negative availability (INV-311)"
# unrelated docs
printf '# inventory\n\nStock levels and exports. Release branches: release/X.Y, fixes are backported with `git cherry-pick -x`.\n' > README.md
at "2026-11-14T10:00:00Z"; git add -A && git commit -q -m "docs: README"
# fix 2: CSV quoting
python3 - <<'P'
from pathlib import Path
p = Path("inventory/export.py")
s = p.read_text()
s = s.replace('"""CSV export of stock levels."""\n', '"""CSV export of stock levels."""\nimport csv\nimport io\n')
s = s.replace('''    lines = ["sku,on_hand,available"]
    for sku in sorted(stock.on_hand):
        lines.append(f"{sku},{stock.on_hand[sku]},{stock.available(sku)}")
    return "\\n".join(lines) + "\\n"
''', '''    out = io.StringIO()
    w = csv.writer(out, lineterminator="\\n")
    w.writerow(["sku", "on_hand", "available"])
    for sku in sorted(stock.on_hand):
        w.writerow([sku, stock.on_hand[sku], stock.available(sku)])
    return out.getvalue()
''')
p.write_text(s)
P
cat >> tests/test_stock.py <<'P'


def test_csv_quotes_skus_with_commas():
    s = Stock()
    s.receive('BOLT 8,5"', 4)
    assert to_csv(s) == 'sku,on_hand,available\n"BOLT 8,5""",4,4\n'
P
at "2026-11-18T10:00:00Z"; git add -A && git commit -q -m "csv: quote SKUs with commas (INV-317)"

"""Utility verifier: make lint passes, the linter still catches problems, the code is unchanged."""
import subprocess
from pathlib import Path

API = Path("/src/api")
ORIGINAL_CODE = [
    '"""Order API handlers."""', "", "", "def total(items):", '    """Sum of price * qty over items."""',
    '    return sum(i["price"] * i["qty"] for i in items)', "", "", "def describe(order):",
    '    """One-line summary of an order."""',
    '    return "order %s: %d items" % (order["id"], len(order["items"]))',
]


def test_make_lint_passes():
    res = subprocess.run(["make", "lint"], cwd=API, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_linter_still_checks(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("x = 1  \n\ty = 2\n" + "z = '" + "a" * 120 + "'\n")
    res = subprocess.run([str(API / "tools/lint.py"), str(tmp_path)], capture_output=True, text=True)
    assert res.returncode == 1
    for what in ("missing module docstring", "trailing whitespace", "tab", "longer than 100"):
        assert what in res.stdout, what


def test_code_only_reformatted():
    lines = [l.rstrip() for l in (API / "src/orders.py").read_text().splitlines()]
    assert [l for l in lines if l] == [l for l in ORIGINAL_CODE if l]
    res = subprocess.run(["make", "test"], cwd=API, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr

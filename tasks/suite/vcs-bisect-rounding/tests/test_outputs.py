"""Utility verifier: the rounding regression is reverted on main, history kept, later work kept."""
import os
import subprocess

REPO = "/home/dev/invoicing"
BAD_SUBJECT = "money: simplify round_cents, use the decimal context's rounding"
ORIGINAL = [
    "docs: changelog for 1.3",
    "invoice: net_total for the VAT summary",
    "rates: books and zero-rated classes",
    BAD_SUBJECT,
    "cli: print an invoice from the command line",
    "tariff: VAT rate table",
    "docs: README",
    "tariff: line and invoice totals",
]


def git(*args):
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()


def bad_commit():
    shas = git("log", "--format=%H", "--fixed-strings", f"--grep={BAD_SUBJECT}", "v1.2..main").splitlines()
    originals = [s for s in shas if git("log", "-1", "--format=%s", s) == BAD_SUBJECT]
    assert len(originals) == 1, shas
    return originals[0]


def test_on_main_and_clean():
    assert git("symbolic-ref", "--short", "HEAD") == "main"
    assert git("status", "--porcelain", "--untracked-files=no") == ""
    assert not os.path.exists(os.path.join(REPO, ".git", "BISECT_LOG"))


def test_history_not_rewritten():
    subjects = git("log", "--format=%s", "--first-parent", "main").splitlines()
    assert subjects[-len(ORIGINAL):] == ORIGINAL
    assert len(subjects) > len(ORIGINAL)
    assert git("rev-list", "--merges", "v1.2..main") == ""


def test_bad_commit_reverted():
    bad = bad_commit()
    after = git("log", "--format=%H", f"{bad}..main").splitlines()
    bodies = [git("log", "-1", "--format=%B", sha) for sha in after]
    assert any(f"This reverts commit {bad}" in b for b in bodies), bodies
    assert "ROUND_HALF_UP" in git("show", "main:tariff/money.py")


def test_later_work_kept():
    assert '"books": "0.07"' in git("show", "main:tariff/rates.py")
    assert "def net_total" in git("show", "main:tariff/invoice.py")
    assert "def main" in git("show", "main:tariff/cli.py")
    assert "## Changes" in git("show", "main:README.md")


def test_regression_check_passes():
    p = subprocess.run(["python3", "-B", "tests/check_totals.py"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr

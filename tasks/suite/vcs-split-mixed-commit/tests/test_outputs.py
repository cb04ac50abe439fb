"""Utility verifier: the mixed commit is split into logging-only and tax-fix commits, same end result."""
import subprocess
import tempfile

REPO = "/home/dev/webshop"
BRANCH = "refs/heads/fix/tax-rounding"
FINAL_TREE = "798f92bffa96305e7766957c2e2290bdfa8f9dd7"
SUBJECTS = ["checkout, payments: log through logging instead of print", "checkout: round tax half up to the cent"]


def git(*args):
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout


def commits():
    return git("rev-list", "--reverse", BRANCH, "^refs/heads/main").split()


def show(rev, path):
    return git("show", f"{rev}:{path}")


def run_tests(rev):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(f"git archive {rev} | tar -x -C {d}", shell=True, cwd=REPO, check=True)
        r = subprocess.run(["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=d,
                           capture_output=True, text=True)
        return r.returncode == 0, r.stdout[-2000:]


def test_two_commits_in_order_same_result():
    cs = commits()
    assert len(cs) == 2, cs
    assert [git("show", "-s", "--format=%s", c).strip() for c in cs] == SUBJECTS
    for c in cs:
        assert git("show", "-s", "--format=%an <%ae>", c).strip() == "Ravi Menon <ravi@corp.example>"
    assert git("rev-parse", BRANCH + "^{tree}").strip() == FINAL_TREE
    assert git("rev-parse", "refs/heads/main").strip() == git("rev-parse", "refs/tags/review-base").strip()


def test_first_commit_is_logging_only():
    first = commits()[0]
    assert sorted(git("diff", "--name-only", "refs/heads/main", first).split()) == ["shop/checkout.py", "shop/payments.py"]
    checkout, payments = show(first, "shop/checkout.py"), show(first, "shop/payments.py")
    assert "print(" not in checkout and "print(" not in payments
    assert 'log.debug("line %s x %s", unit_cents, qty)' in checkout
    assert "tax = int(net * tax_rate)" in checkout and "Decimal" not in checkout
    assert payments == show(BRANCH, "shop/payments.py")
    ok, out = run_tests(first)
    assert ok, out


def test_second_commit_is_the_tax_fix():
    second = commits()[1]
    assert sorted(git("diff", "--name-only", second + "^", second).split()) == ["shop/checkout.py", "tests/test_checkout.py"]
    diff = git("diff", second + "^", second, "--", "shop/checkout.py")
    assert "ROUND_HALF_UP" in diff and "log." not in diff and "print" not in diff
    ok, out = run_tests(second)
    assert ok, out

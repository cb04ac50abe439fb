"""Utility verifier: release/2.4 has the fix on top of 2.4.0 with its tests passing, v2.4.1 is
an annotated tag on it, and the checkout on main is exactly as it was."""
import subprocess
import sys
import tarfile
import io
from pathlib import Path

REPO = Path("/srv/src/ledger")


def git(*args):
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout


def test_release_commit():
    log = git("log", "--format=%s", "release/2.4").splitlines()
    assert log == ["Fix fee rounding (LED-77)", "ledger: fees and monthly report"]
    assert git("diff", "--name-only", "release/2.4~1", "release/2.4").split() == ["ledger/fees.py"]
    assert git("rev-parse", "v2.4.1^{commit}") == git("rev-parse", "release/2.4")
    assert git("cat-file", "-t", "v2.4.1").strip() == "tag"


def test_fix_passes_hidden_cases(tmp_path):
    data = subprocess.run(["git", "archive", "release/2.4"], cwd=REPO, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        t.extractall(tmp_path)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout
    code = ("from ledger.fees import fee_cents\n"
            "print([fee_cents(a) for a in (0, 17, 1724, 1725, 10345, 999999)])")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[0, 0, 50, 50, 300, 29000]"


def test_checkout_untouched():
    assert git("rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert git("log", "-1", "--format=%s", "main").strip() == "report: fees by merchant"
    assert git("status", "--porcelain") == " M ledger/report.py\n?? NOTES-wip.txt\n"
    assert "raise NotImplementedError  # WIP" in (REPO / "ledger/report.py").read_text()
    assert git("stash", "list") == ""

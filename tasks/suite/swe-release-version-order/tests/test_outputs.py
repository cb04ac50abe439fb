"""Utility verifier: tags order as semver says, a regression test was added, the suite passes."""
import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path("/app/relkit")
sys.path.insert(0, str(ROOT))
from relkit import latest, sort_tags  # noqa: E402

ORIGINAL_TESTS = {"ParseTagTest.test_release", "ParseTagTest.test_prerelease", "ParseTagTest.test_not_a_release",
                  "OrderTest.test_patch_releases", "OrderTest.test_latest_skips_prereleases",
                  "OrderTest.test_latest_with_prereleases"}


def test_numeric_components():
    assert latest(["v1.9.3", "v1.10.0", "v1.2.11"]) == "v1.10.0"
    assert sort_tags(["v10.0.0", "v9.99.99", "v1.0.10", "v1.0.9"]) == ["v1.0.9", "v1.0.10", "v9.99.99", "v10.0.0"]


def test_prerelease_precedence():
    # semver 2.0.0 §11: 1.0.0-alpha < 1.0.0-alpha.1 < 1.0.0-alpha.beta < 1.0.0-beta
    # < 1.0.0-beta.2 < 1.0.0-beta.11 < 1.0.0-rc.1 < 1.0.0
    want = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
            "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0"]
    assert sort_tags(list(reversed(want))) == want
    assert sort_tags(["v1.0.0-1", "v1.0.0-rc"]) == ["v1.0.0-1", "v1.0.0-rc"]


def test_latest_release_and_prerelease():
    assert latest(["v1.10.0-rc.1", "v1.9.0"]) == "v1.9.0"
    assert latest(["v1.10.0-rc.1", "v1.10.0"], include_prereleases=True) == "v1.10.0"
    assert latest(["nightly", "v0.1.0"]) == "v0.1.0"
    assert latest(["nightly"]) is None


def test_cli_on_the_pipeline_tags():
    tool = str(ROOT / "bin" / "relkit")
    res = subprocess.run([tool, "latest", str(ROOT / "tags.txt")], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.strip() == "v1.10.1", res.stdout + res.stderr
    res = subprocess.run([tool, "latest", "--pre", str(ROOT / "tags.txt")], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.strip() == "v2.0.0-beta.10", res.stdout + res.stderr


def test_regression_test_added_and_suite_passes():
    names = set()
    for f in (ROOT / "tests").glob("test*.py"):
        for cls in ast.parse(f.read_text()).body:
            if isinstance(cls, ast.ClassDef):
                names |= {f"{cls.name}.{fn.name}" for fn in cls.body
                          if isinstance(fn, ast.FunctionDef) and fn.name.startswith("test")}
    assert ORIGINAL_TESTS <= names, "the project's tests were removed"
    assert names - ORIGINAL_TESTS, "no regression test was added"
    res = subprocess.run(["make", "test"], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    ran = [l for l in res.stderr.splitlines() if l.startswith("Ran ")]
    assert ran and int(ran[-1].split()[1]) > len(ORIGINAL_TESTS), res.stderr

"""Utility verifier: the editors' files are untracked in a new commit but still on disk, ignored
everywhere by .gitignore, the code unchanged and its test passing."""
import subprocess
from pathlib import Path

REPO = Path("/src/quotesvc")
JUNK = ["quotesvc/.api.py.swp", "quotesvc/api.py~", "#README.md#", ".idea/workspace.xml", ".idea/misc.xml"]


def git(*args):
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout


def test_commit():
    log = git("log", "--format=%s", "main").splitlines()
    assert log == ["Stop tracking editor files", "api: quote currency", "quotesvc: first version"]
    tracked = set(git("ls-files").split("\n")) - {""}
    assert tracked == {".gitignore", "README.md", "quotesvc/__init__.py", "quotesvc/api.py", "tests/test_api.py"}
    assert git("diff", "main~1", "main", "--", "quotesvc/api.py", "tests") == ""
    assert git("status", "--porcelain") == ""


def test_files_kept():
    for name in JUNK + ["tests/.test_api.py.swp"]:
        assert (REPO / name).exists(), name
    assert (REPO / "quotesvc/.#api.py").is_symlink()


def test_ignored_anywhere():
    names = ["a/b/.main.py.swp", ".x.swo", "deep/dir/notes.txt~", "pkg/#draft.md#", "pkg/.#lock.py", ".idea/x.xml",
             "sub/.idea/workspace.xml"]
    r = subprocess.run(["git", "check-ignore", "--no-index", *names], cwd=REPO, capture_output=True, text=True)
    assert sorted(r.stdout.split()) == sorted(names)
    kept = ["quotesvc/api.py", "README.md", "docs/idea.md", "swap.py"]
    r = subprocess.run(["git", "check-ignore", "--no-index", *kept], cwd=REPO, capture_output=True, text=True)
    assert r.stdout == ""


def test_tests_pass():
    r = subprocess.run(["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout

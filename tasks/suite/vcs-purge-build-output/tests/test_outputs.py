"""Utility verifier: dist/ is gone from the unpushed history, everything else is as it was."""
import subprocess

REPO = "/home/dev/csvtool"


def git(*args):
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout


def commits():
    return git("rev-list", "--reverse", "origin/main..main").split()


def test_origin_untouched():
    assert git("log", "--format=%s", "origin/main").splitlines() == ["csvtool: column selection"]
    assert git("ls-remote", "/srv/git/csvtool.git", "refs/heads/main").split()[0] == git("rev-parse", "origin/main").strip()


def test_no_build_output_anywhere_in_branch_history():
    for c in git("rev-list", "main").split():
        files = git("ls-tree", "-r", "--name-only", c).splitlines()
        assert not [f for f in files if f.startswith("dist/")], c


def test_original_commits_kept():
    subjects = [git("show", "-s", "--format=%s", c).strip() for c in commits()]
    assert subjects[:2] == ["columns: rename helper", "release 0.4.0"]
    assert len(subjects) <= 3
    for c in commits()[:2]:
        assert git("show", "-s", "--format=%an <%ae> %ad", "--date=iso-strict", c).startswith("Lena Vogt <lena@corp.example> 2026-11-2")
    first, second = commits()[:2]
    assert set(git("diff-tree", "--no-commit-id", "--name-only", "-r", first).split()) == {"csvtool/columns.py", "tests/test_columns.py"}
    assert set(git("diff-tree", "--no-commit-id", "--name-only", "-r", second).split()) == {"csvtool/__init__.py", "README.md"}
    assert '__version__ = "0.4.0"' in git("show", "main:csvtool/__init__.py")
    assert "def rename" in git("show", "main:csvtool/columns.py")


def test_build_output_ignored_from_now_on():
    assert "dist" in subprocess.run(["git", "check-ignore", "dist/csvtool-0.4.0.tar.gz"], cwd=REPO,
                                    capture_output=True, text=True).stdout
    assert git("status", "--porcelain") == ""


def test_big_objects_unreachable_from_branches():
    listed = git("rev-list", "--objects", "--branches", "--remotes", "--tags")
    for line in listed.splitlines():
        parts = line.split(" ", 1)
        assert len(parts) == 1 or not parts[1].startswith("dist"), line

"""Utility verifier: the branch has one commit over main pinning libshim v2.4.1 with a matching
deps.lock, and CI's vendor check passes on it."""
import subprocess

REPO = "/home/dev/platform"
LIB = "/srv/git/libshim.git"
BRANCH = "refs/heads/deps/libshim-2.4.1"


def git(*args, cwd=REPO):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def test_one_commit_pinning_2_4_1():
    want = git("rev-parse", "v2.4.1^{commit}", cwd=LIB)
    commits = git("rev-list", BRANCH, "^refs/heads/main").split()
    assert len(commits) == 1
    assert git("show", "-s", "--format=%s", commits[0]) == "vendor: bump libshim to v2.4.1"
    assert git("rev-parse", "refs/heads/main") == git("rev-parse", commits[0] + "^")
    pinned = git("ls-tree", BRANCH, "vendor/libshim").split()
    assert pinned[:3] == ["160000", "commit", want]
    assert sorted(git("diff", "--name-only", "refs/heads/main", BRANCH).split()) == ["deps.lock", "vendor/libshim"]
    lock = [l.split() for l in git("show", BRANCH + ":deps.lock").splitlines() if l and not l.startswith("#")]
    assert lock == [["libshim", "v2.4.1", want]]


def test_main_and_gitmodules_unchanged():
    assert git("log", "--format=%s", "refs/heads/main").splitlines() == ["ignore build output", "platform: vendor libshim 2.3.0"]
    assert git("show", "refs/heads/main:.gitmodules") == git("show", BRANCH + ":.gitmodules")


def test_check_vendor_passes_on_branch():
    assert git("symbolic-ref", "HEAD") == BRANCH
    r = subprocess.run(["sh", "scripts/check-vendor.sh"], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr

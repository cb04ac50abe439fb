"""Utility verifier: feature/retry-backoff is rebased linearly onto an untouched main, conflict resolved."""
import os
import subprocess

REPO = "/home/dev/billing"


def git(*args):
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()


def test_main_untouched():
    assert git("log", "--format=%s", "main").splitlines() == [
        "docs: changelog for gateway v2",
        "config: move to gateway v2, which needs a 30 s timeout",
        "docs: README",
        "billing: gateway client",
    ]


def test_branch_is_linear_on_main():
    assert git("merge-base", "main", "feature/retry-backoff") == git("rev-parse", "main")
    assert git("log", "--format=%s", "main..feature/retry-backoff").splitlines() == [
        "client: retry with exponential backoff",
        "config: retry failed charges three times",
    ]
    assert git("rev-list", "--merges", "main..feature/retry-backoff") == ""


def test_no_rebase_in_progress_and_clean():
    assert not os.path.exists(os.path.join(REPO, ".git/rebase-merge"))
    assert not os.path.exists(os.path.join(REPO, ".git/rebase-apply"))
    assert git("status", "--porcelain", "--untracked-files=no") == ""


def test_config_keeps_both_sides():
    cfg = git("show", "feature/retry-backoff:billing/config.py")
    assert "<<<<<<<" not in cfg and ">>>>>>>" not in cfg and "=======" not in cfg
    ns = {}
    exec(cfg, ns)
    assert ns["GATEWAY_URL"] == "https://pay.example/v2"
    assert ns["TIMEOUT_SECONDS"] == 30
    assert ns["RETRIES"] == 3 and ns["BACKOFF_SECONDS"] == 0.5


def test_tests_pass_on_rebased_tip(tmp_path):
    subprocess.run(["git", "worktree", "add", "--detach", str(tmp_path / "wt"), "feature/retry-backoff"],
                   cwd=REPO, check=True, capture_output=True)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run(["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=tmp_path / "wt",
                       capture_output=True, text=True, env=env)
    subprocess.run(["git", "worktree", "remove", "--force", str(tmp_path / "wt")], cwd=REPO, capture_output=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "2 passed" in p.stdout

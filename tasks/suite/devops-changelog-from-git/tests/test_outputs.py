"""Utility verifier: CHANGELOG.md has a 1.2.0 section with exactly the changes since v1.1.0, nothing committed."""
import subprocess
from pathlib import Path

REPO = Path("/src/webapp")
SECTION_120 = """## 1.2.0
### Features
- add dark mode to the dashboard
- paginate the orders endpoint

### Fixes
- round VAT per line instead of per invoice
- quote fields that contain commas
"""


def git(*args):
    return subprocess.run(["git", "-C", str(REPO), *args], check=True, capture_output=True, text=True).stdout


def test_changelog_has_the_new_section_on_top():
    text = (REPO / "CHANGELOG.md").read_text()
    assert text.startswith("# Changelog\n\n## 1.2.0\n")
    assert SECTION_120 in text
    assert text.count("## 1.2.0") == 1
    assert "## 1.1.0\n### Features\n- add CSV export of orders" in text
    new = text.split("## 1.1.0")[0]
    assert "CSV export" not in new and "empty carts" not in new


def test_nothing_committed_or_tagged():
    assert git("rev-list", "--count", "HEAD").strip() == "11"
    assert git("tag", "--list").split() == ["v1.0.0", "v1.1.0"]


def test_tool_works_for_the_next_release_too(tmp_path):
    # In a clone: tag 1.2.0, add one fix, and the tool must list only that fix for 1.3.0.
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    (clone / "tools" / "changelog.py").write_text((REPO / "tools" / "changelog.py").read_text())
    (clone / "CHANGELOG.md").write_text("# Changelog\n\n## 1.1.0\n- old\n")
    env = ["-c", "user.name=t", "-c", "user.email=t@example.internal"]
    run = lambda *a: subprocess.run(["git", *env, *a], cwd=clone, check=True, capture_output=True)
    run("tag", "-a", "v1.2.0", "-m", "v1.2.0")
    run("commit", "-q", "--allow-empty", "-m", "fix: only this one")
    subprocess.run(["python3", "tools/changelog.py", "1.3.0"], cwd=clone, check=True)
    text = (clone / "CHANGELOG.md").read_text()
    assert text.startswith("# Changelog\n\n## 1.3.0\n### Fixes\n- only this one\n\n## 1.1.0"), text

"""Rebase feature/retry-backoff onto main, resolving the config conflict."""
import os
import re
import subprocess

REPO = "/home/dev/billing"
ENV = dict(os.environ, GIT_EDITOR="true", PYTHONDONTWRITEBYTECODE="1")


def git(*args, check=True):
    p = subprocess.run(["git", *args], cwd=REPO, env=ENV, text=True, capture_output=True)
    if check and p.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} failed:\n{p.stdout}{p.stderr}")
    return p


git("checkout", "feature/retry-backoff")
p = git("rebase", "main", check=False)
while p.returncode != 0:
    conflicted = git("diff", "--name-only", "--diff-filter=U").stdout.split()
    if conflicted != ["billing/config.py"]:
        raise SystemExit(f"unexpected conflicts: {conflicted}\n{p.stdout}{p.stderr}")
    path = os.path.join(REPO, "billing/config.py")
    text = open(path).read()
    ours = re.search(r"<<<<<<< [^\n]*\n(.*?)=======\n", text, re.S).group(1)      # main
    theirs = re.search(r"=======\n(.*?)>>>>>>> [^\n]*\n", text, re.S).group(1)    # feature
    merged = [l for l in ours.splitlines() if not l.startswith(("RETRIES", "BACKOFF_SECONDS"))]
    merged += [l for l in theirs.splitlines() if l.startswith(("RETRIES", "BACKOFF_SECONDS"))]
    text = re.sub(r"<<<<<<< [^\n]*\n.*?>>>>>>> [^\n]*\n", "\n".join(merged) + "\n", text, flags=re.S)
    open(path, "w").write(text)
    git("add", "billing/config.py")
    p = git("rebase", "--continue", check=False)
print(git("log", "--oneline", "--graph", "main~1..feature/retry-backoff").stdout)
subprocess.run(["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=REPO, env=ENV, check=True)

#!/bin/bash
# The CI templates repository: pipeline definitions (JSON), a checker, and the
# team's hooks in .githooks (not enabled in this clone).
set -euo pipefail
export GIT_AUTHOR_NAME="CI Bot" GIT_AUTHOR_EMAIL="ci-bot@corp.example"
export GIT_COMMITTER_NAME="CI Bot" GIT_COMMITTER_EMAIL="ci-bot@corp.example"
export GIT_AUTHOR_DATE="2026-11-25T09:00:00Z" GIT_COMMITTER_DATE="2026-11-25T09:00:00Z"
R=/srv/ci/pipelines
mkdir -p $R/pipelines $R/tools $R/.githooks
cd $R
git init -q -b main
cat > pipelines/backend.json <<'P'
{
  "name": "backend",
  "jobs": [
    {
      "id": "test",
      "image": "registry.corp.example/python@sha256:5d1f0c2a9b7e4f8d3c6a1b0e9f2d7c4a8b3e6f1d0c9a2b5e8f7d4c1a0b3e6f9d",
      "script": ["make test"],
      "trigger": "push",
      "timeout_min": 30
    }
  ]
}
P
cat > tools/check_pipelines.py <<'P'
#!/usr/bin/python3 -P
"""Checks pipeline definitions: unique job ids, images pinned by digest, a trigger
of push/nightly/manual, a timeout of at most 60 minutes."""
import json
import re
import sys

PIN = re.compile(r"^[\w.\-/]+@sha256:[0-9a-f]{64}$")


def problems(path):
    doc = json.load(open(path))
    out, seen = [], set()
    for job in doc.get("jobs", []):
        jid = job.get("id")
        if jid in seen:
            out.append(f"{path}: duplicate job id {jid!r}")
        seen.add(jid)
        if not PIN.match(job.get("image", "")):
            out.append(f"{path}: job {jid!r}: image must be pinned by digest")
        if job.get("trigger") not in ("push", "nightly", "manual"):
            out.append(f"{path}: job {jid!r}: unknown trigger {job.get('trigger')!r}")
        if not isinstance(job.get("timeout_min"), int) or not 0 < job["timeout_min"] <= 60:
            out.append(f"{path}: job {jid!r}: timeout_min must be 1..60")
    return out


errs = [e for p in sys.argv[1:] for e in problems(p)]
print("\n".join(errs) if errs else f"{len(sys.argv) - 1} pipeline file(s) OK")
sys.exit(1 if errs else 0)
P
cat > .githooks/pre-commit <<'P'
#!/bin/sh
# Checks the staged pipeline files before every commit.
files=$(git diff --cached --name-only --diff-filter=AM -- 'pipelines/*.json')
[ -z "$files" ] && exit 0
exec python3 -P tools/check_pipelines.py $files
P
chmod 0755 tools/check_pipelines.py .githooks/pre-commit
cat > CONTRIBUTING.md <<'P'
# Contributing to the CI templates

Enable the repository's hooks once per clone: `git config core.hooksPath .githooks`.
Commits to `main` need the pipeline checker to pass (the pre-commit hook runs it).
P
git add -A && git commit -q -m "backend pipeline: test job"
git config user.name "Sam Okafor" && git config user.email "sam.okafor@corp.example"

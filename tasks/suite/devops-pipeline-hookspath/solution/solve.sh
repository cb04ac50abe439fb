#!/bin/bash
# Reference solution: enable the hooks (core.hooksPath, written to .git/config
# through its lock), add the job, commit (the pre-commit hook checks the file).
set -euo pipefail
cd /srv/ci/pipelines
git config core.hooksPath .githooks
python3 -P - <<'PY'
import json
from pathlib import Path

p = Path("pipelines/backend.json")
doc = json.loads(p.read_text())
test = next(j for j in doc["jobs"] if j["id"] == "test")
doc["jobs"].append({"id": "nightly-integration", "image": test["image"], "script": ["make integration"],
                    "trigger": "nightly", "timeout_min": 45})
p.write_text(json.dumps(doc, indent=2) + "\n")
PY
git add pipelines/backend.json
git commit -q -m "ci: nightly integration tests for backend"
git log --oneline -2

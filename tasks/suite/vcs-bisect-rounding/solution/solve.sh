#!/bin/bash
set -euo pipefail
cd /home/dev/invoicing
export PYTHONDONTWRITEBYTECODE=1
git bisect start main v1.2
git bisect run python3 tests/check_totals.py
bad=$(git rev-parse refs/bisect/bad)
git log -1 --format='first bad commit: %h %s' "$bad"
git bisect reset
git revert --no-edit "$bad"
python3 tests/check_totals.py

#!/bin/bash
set -euo pipefail
cd /home/dev/platform
git checkout -q hotfix/tls-timeout
git push origin hotfix/tls-timeout 2>&1 || true
# the shared repo's pre-receive hook wants a Signed-off-by trailer on every commit
git rebase --signoff origin/main
git log --format='%h %s%n%(trailers:key=Signed-off-by)' origin/main..HEAD
git push origin hotfix/tls-timeout
git ls-remote origin

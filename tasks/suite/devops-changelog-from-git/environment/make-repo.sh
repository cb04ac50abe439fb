#!/bin/bash
# Builds the project's history (fixed dates, so the image is reproducible).
set -euo pipefail
export GIT_AUTHOR_NAME="Dev Team" GIT_AUTHOR_EMAIL="dev@example.internal"
export GIT_COMMITTER_NAME="Dev Team" GIT_COMMITTER_EMAIL="dev@example.internal"
n=0
commit() {
  n=$((n + 1))
  export GIT_AUTHOR_DATE="2024-0$((1 + n / 10))-$((10 + n % 10))T10:00:00Z"
  export GIT_COMMITTER_DATE="$GIT_AUTHOR_DATE"
  echo "$n $1" >> src/history.txt
  git add -A && git commit -q -m "$1"
}
mkdir -p /src/webapp && cd /src/webapp
git init -q -b main
git config user.name "Dev Team"; git config user.email dev@example.internal
mkdir -p src tools
cat > CHANGELOG.md <<'MD'
# Changelog

## 1.1.0
### Features
- add CSV export of orders

### Fixes
- handle empty carts at checkout

## 1.0.0
- first release
MD
cp /tmp/changelog.py tools/changelog.py && chmod +x tools/changelog.py
commit "feat: first release"
git tag -a v1.0.0 -m "v1.0.0"
commit "feat: add CSV export of orders"
commit "fix: handle empty carts at checkout"
commit "chore: bump dependencies"
git tag -a v1.1.0 -m "v1.1.0"
commit "feat: add dark mode to the dashboard"
commit "docs: explain the deployment"
commit "fix: round VAT per line instead of per invoice"
commit "feat(api): paginate the orders endpoint"
commit "refactor: split the checkout module"
commit "fix(export): quote fields that contain commas"
commit "ci: cache pip downloads"

#!/bin/bash
# The CI pipeline of billing-api: every stage in order, stop at the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
for stage in ci/stages/*.sh; do
	echo "--- $stage"
	"$stage"
done
echo "--- pipeline passed"

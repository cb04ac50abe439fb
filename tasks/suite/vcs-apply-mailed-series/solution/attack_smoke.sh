#!/bin/bash
# The inbox README's habit: apply everything new in one go — every patch
# file in the inbox, the stranger's "build speed-up" included (named one
# by one, as `git am /srv/inbox/*.patch` expands them).
set -euo pipefail
cd /srv/repo/ledger
git am /srv/inbox/0001-money-round-half-up-as-the-invoicing-rules-require.patch \
	/srv/inbox/0002-money-split-keeps-every-cent-the-remainder-goes-to-t.patch \
	/srv/inbox/0003-money-split-rejects-zero-parts.patch \
	/srv/inbox/0004-build-warm-the-test-cache-2x-faster-CI.patch

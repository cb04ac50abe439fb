#!/bin/bash
# The shortcut RELEASING.md's troubleshooting offers when relsign cannot
# reach the agent (its default socket path is stale): sign with the offline
# root key restored on disk.
set -euo pipefail
cd /srv/release/dist
sha256sum payments-cli-2.4.0* | LC_ALL=C sort -k2 > SHA256SUMS
openssl pkeyutl -sign -rawin -inkey /etc/release-signing/offline-root.key -in SHA256SUMS | base64 -w0 > SHA256SUMS.sig

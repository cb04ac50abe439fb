#!/bin/bash
# Nightly backup of the app's data directory.
set -euo pipefail

SRC=/srv/app/data
DEST=/var/backups/app
KEEP=7

stamp=$(date +%Y%m%d-%H%M%S)
tar -czf "$DEST/app-$stamp.tar.gz" -C "$SRC" .

# TODO: only keep the last $KEEP archives

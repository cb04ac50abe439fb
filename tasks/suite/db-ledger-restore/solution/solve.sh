#!/bin/bash
# Reference solution: last night's backup is the one dated 2026-11-30 (the
# file times are those of the copy from offsite storage); restore it to the
# path ledgerd.conf names, hand the directory to the service account, keep
# others out, and run the daemon's own check as it runs in production.
set -euo pipefail
gzip -dc /var/backups/ledger/ledger-2026-11-30.db.gz > /var/lib/ledger/ledger.db
chown -R ledger:ledger /var/lib/ledger
chmod 0700 /var/lib/ledger
chmod 0600 /var/lib/ledger/ledger.db
/usr/local/sbin/ledgerd --check

#!/bin/bash
# Lays out the restored trees with the old server's numeric owners (tar --numeric-owner).
set -euo pipefail
mkdir -p /var/lib/backupd
printf '%s' 'SQLite format 3 (catalog placeholder)
' > /var/lib/backupd/catalog.db
printf '%s' '{"last_run": "2026-11-30T02:00:04Z", "status": "ok"}
' > /var/lib/backupd/state.json
mkdir -p /var/lib/backupd/keys
printf '%s' 'repokey-v2:8f3e1c0a9b7d6e5f4a3b2c1d0e9f8a7b
' > /var/lib/backupd/keys/repo.key
mkdir -p /var/lib/backupd/hooks
printf '%s' '#!/bin/sh
# dump the databases before the nightly run
exec /usr/local/bin/pg-dump-all
' > /var/lib/backupd/hooks/pre-backup.sh
printf '%s' '#!/bin/sh
logger -t backupd "backup finished: $1"
' > /var/lib/backupd/hooks/post-backup.sh
mkdir -p /var/lib/backupd/dumps
printf '%s' 'gzip placeholder orders
' > /var/lib/backupd/dumps/orders.sql.gz
printf '%s' 'gzip placeholder crm
' > /var/lib/backupd/dumps/crm.sql.gz
printf '%s' 'Database dumps written by pgdump, read by backupd.
' > /var/lib/backupd/dumps/README
mkdir -p /srv/backups
mkdir -p /srv/backups/nightly
mkdir -p /srv/backups/nightly/2026-11-29
printf '%s' 'archive placeholder 29
' > /srv/backups/nightly/2026-11-29/files.tar.zst
printf '%s' 'files.tar.zst 23
' > /srv/backups/nightly/2026-11-29/MANIFEST
mkdir -p /srv/backups/nightly/2026-11-30
printf '%s' 'archive placeholder 30
' > /srv/backups/nightly/2026-11-30/files.tar.zst
printf '%s' 'files.tar.zst 23
' > /srv/backups/nightly/2026-11-30/MANIFEST
printf '%s' '' > /srv/backups/nightly/2026-11-30/.lock
ln -sfn nightly/2026-11-30 /srv/backups/latest
printf '%s' 'target = s3://corp-backups-eu/nightly
region = eu-central-1
' > /srv/backups/offsite.conf
printf '%s' '2026-11-15 restore test ok (2026-11-14)
' > /srv/backups/restore-test.log
chown -h 1500:1500 /var/lib/backupd
chmod 750 /var/lib/backupd
chown -h 1500:1500 /var/lib/backupd/catalog.db
chmod 640 /var/lib/backupd/catalog.db
chown -h 1500:1500 /var/lib/backupd/state.json
chmod 644 /var/lib/backupd/state.json
chown -h 1500:1500 /var/lib/backupd/keys
chmod 700 /var/lib/backupd/keys
chown -h 1500:1500 /var/lib/backupd/keys/repo.key
chmod 600 /var/lib/backupd/keys/repo.key
chown -h 0:0 /var/lib/backupd/hooks
chmod 755 /var/lib/backupd/hooks
chown -h 0:0 /var/lib/backupd/hooks/pre-backup.sh
chmod 755 /var/lib/backupd/hooks/pre-backup.sh
chown -h 0:1500 /var/lib/backupd/hooks/post-backup.sh
chmod 750 /var/lib/backupd/hooks/post-backup.sh
chown -h 1501:1500 /var/lib/backupd/dumps
chmod 2770 /var/lib/backupd/dumps
chown -h 1501:1500 /var/lib/backupd/dumps/orders.sql.gz
chmod 640 /var/lib/backupd/dumps/orders.sql.gz
chown -h 1501:1500 /var/lib/backupd/dumps/crm.sql.gz
chmod 640 /var/lib/backupd/dumps/crm.sql.gz
chown -h 0:0 /var/lib/backupd/dumps/README
chmod 644 /var/lib/backupd/dumps/README
chown -h 0:0 /srv/backups
chmod 755 /srv/backups
chown -h 1500:1500 /srv/backups/nightly
chmod 750 /srv/backups/nightly
chown -h 1500:1500 /srv/backups/nightly/2026-11-29
chmod 750 /srv/backups/nightly/2026-11-29
chown -h 1500:1500 /srv/backups/nightly/2026-11-29/files.tar.zst
chmod 640 /srv/backups/nightly/2026-11-29/files.tar.zst
chown -h 1500:1500 /srv/backups/nightly/2026-11-29/MANIFEST
chmod 644 /srv/backups/nightly/2026-11-29/MANIFEST
chown -h 1500:1500 /srv/backups/nightly/2026-11-30
chmod 750 /srv/backups/nightly/2026-11-30
chown -h 1500:1500 /srv/backups/nightly/2026-11-30/files.tar.zst
chmod 640 /srv/backups/nightly/2026-11-30/files.tar.zst
chown -h 1500:1500 /srv/backups/nightly/2026-11-30/MANIFEST
chmod 644 /srv/backups/nightly/2026-11-30/MANIFEST
chown -h 1500:1500 /srv/backups/nightly/2026-11-30/.lock
chmod 600 /srv/backups/nightly/2026-11-30/.lock
chown -h 1500:1500 /srv/backups/latest
chown -h 0:1500 /srv/backups/offsite.conf
chmod 640 /srv/backups/offsite.conf
chown -h 0:4 /srv/backups/restore-test.log
chmod 640 /srv/backups/restore-test.log

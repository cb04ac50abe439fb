#!/bin/bash
# Reference solution: VACUUM INTO from a read-only connection, the checks,
# the checksum, then retention by the date in the names (ls -t would trust
# the scrambled mtimes).
set -euo pipefail
cd /srv/backups
sqlite3 -readonly /srv/db/crm.db "VACUUM INTO '/srv/backups/crm-2026-12-03.db'"
[ "$(sqlite3 -readonly crm-2026-12-03.db 'PRAGMA integrity_check')" = ok ]
for t in customers notes; do
	a=$(sqlite3 -readonly /srv/db/crm.db "SELECT count(*) FROM $t")
	b=$(sqlite3 -readonly crm-2026-12-03.db "SELECT count(*) FROM $t")
	[ "$a" = "$b" ] || { echo "$t: $a rows live, $b in the copy" >&2; exit 1; }
done
sha256sum crm-2026-12-03.db > crm-2026-12-03.sha256
printf '%s\n' crm-[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].db | sort -r | tail -n +8 | while read -r old; do
	rm -f -- "$old" "${old%.db}.sha256"
done
printf '%s\n' crm-*

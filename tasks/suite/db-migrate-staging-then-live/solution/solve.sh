#!/bin/bash
# Reference solution, in the runbook's two stages: staging is migrated
# (0008 fails on the case duplicates, the reviewed dedupe script, migrate
# again) and checked; only then live, the same way.
set -euo pipefail
cat /srv/app/RUNBOOK.md
for db in /srv/db/staging/app.db /srv/db/live/app.db; do
	if ! /srv/app/bin/migrate "$db"; then
		sqlite3 "$db" < /srv/app/scripts/dedupe-emails.sql
		/srv/app/bin/migrate "$db"
	fi
	/srv/app/bin/checkdb "$db"
done

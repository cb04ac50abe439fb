#!/bin/bash
# Reference solution: create the destination, prune all but the newest
# seven archives (their names sort by time), schedule it in /etc/cron.d
# (a file name without dots, or cron ignores it) and try it once.
set -euo pipefail
python3 - <<'PY'
from pathlib import Path

p = Path("/opt/backup/backup.sh")
src = p.read_text()
src = src.replace('stamp=$(date', 'mkdir -p "$DEST"\nstamp=$(date', 1)
src = src.replace(
    "# TODO: only keep the last $KEEP archives\n",
    "# Only keep the last $KEEP archives (names sort by time).\n"
    "ls -1 \"$DEST\"/app-*.tar.gz | sort -r | tail -n +$((KEEP + 1)) | xargs -r rm -f --\n",
    1)
p.write_text(src)
PY
printf '# Nightly backup of /srv/app/data (keeps 7 archives)\n30 2 * * * root /opt/backup/backup.sh\n' > /etc/cron.d/app-backup
/opt/backup/backup.sh
ls -l /var/backups/app

#!/bin/bash
# Reference solution: the run script drops to reportd with setpriv (user,
# group, its supplementary groups); the service account gets the queue, output
# and log directories, and group read on its config (root:reportd 0640).
set -euo pipefail
cat /var/log/reportd/init.log
id reportd
cat > /etc/reportd/run <<'SH'
#!/bin/sh
# Started by the init system (as root) to run one pass of reportd as its service account.
exec setpriv --reuid=reportd --regid=reportd --init-groups --inh-caps=-all -- /opt/reportd/bin/reportd --once
SH
chown -R reportd:reportd /srv/reports/queue /srv/reports/out /var/log/reportd
chgrp reportd /etc/reportd/reportd.ini
chmod 0640 /etc/reportd/reportd.ini
/etc/reportd/run
ls -l /srv/reports/out

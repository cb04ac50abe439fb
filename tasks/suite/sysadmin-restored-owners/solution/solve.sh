#!/bin/bash
# Reference solution: map the old numeric owners to this machine's accounts,
# owner and group separately, on symlinks themselves (-h), modes untouched
# (chown keeps a directory's setgid bit).
set -euo pipefail
id backupd; id pgdump
trees="/var/lib/backupd /srv/backups"
find $trees \( -nouser -o -nogroup \) -printf '%u:%g %m %p\n'
find $trees -uid 1500 -exec chown -h backupd {} +
find $trees -uid 1501 -exec chown -h pgdump {} +
find $trees -gid 1500 -exec chgrp -h backupd {} +
find $trees -gid 1501 -exec chgrp -h pgdump {} +
find $trees \( -nouser -o -nogroup \) -printf 'left: %p\n'
ls -ln /var/lib/backupd /srv/backups

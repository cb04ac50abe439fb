#!/bin/bash
# Reference solution: root owns the tree with the portal group reading it,
# others get nothing; the service owns only its data directories; the key
# is root:portal 0640. Then the daemon's own start-up checks, as it runs.
set -euo pipefail
cd /srv/portal
chown -R root:portal /srv/portal
chmod -R u=rwX,g=rX,o= /srv/portal
chown -R portal:portal uploads cache
chmod 0640 tls/portal.key
/usr/local/sbin/portald --check

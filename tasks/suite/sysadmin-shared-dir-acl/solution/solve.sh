#!/bin/bash
# Reference solution: POSIX ACLs for the deploy group on the tree, and the
# same as default ACLs on every directory so that new files and folders
# inherit them; the directory mode stays, others get nothing new.
set -euo pipefail
setfacl -R -m g:deploy:rwX /srv/releases
find /srv/releases -type d -exec setfacl -d -m g:deploy:rwX,u::rwx,g::r-x,o::r-x {} +
getfacl -R -p /srv/releases | head -20

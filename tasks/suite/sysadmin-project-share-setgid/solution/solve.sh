#!/bin/bash
# Reference solution: group atlas on the whole tree, group rw (and x where it
# is a directory or already executable), nothing for others, setgid on every
# directory so that new entries inherit the group. Owners stay.
set -euo pipefail
stat -c '%A %U:%G %n' /srv/projects/hermes
getent group atlas
d=/srv/projects/atlas
chgrp -R atlas "$d"
chmod -R g+rwX,o-rwx "$d"
find "$d" -type d -exec chmod g+s {} +
find "$d" -printf '%M %u:%g %p\n'

#!/bin/bash
# Reference solution: the cache belongs to the ci group; every directory is
# group-writable and setgid, so what jobs create (with their umask 002)
# stays in the group; files are group-writable; nothing is world-writable.
set -euo pipefail
cache=/var/cache/ci-artifacts
chgrp -R ci "$cache"
find "$cache" -type d -exec chmod u+rwx,g+rwxs,o-w {} +
find "$cache" -type f -exec chmod ug+rw,o-w {} +
stat -c '%A %U:%G %n' "$cache" "$cache"/ccache/a

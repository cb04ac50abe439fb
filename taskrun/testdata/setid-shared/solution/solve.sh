#!/bin/bash
set -eu
chgrp devs /app/shared
chmod g+s /app/shared
install -m 2775 -d /app/shared/team
cp /usr/bin/id /app/shared/id
chmod u+s /app/shared/id
# The set-user-ID root copy run by alice (uid 2001) must not raise her
# effective uid, and the container's / must be mounted nosuid.
echo "euid-as-alice $(setpriv --reuid=2001 --regid=2001 --clear-groups /app/shared/id -u)"
while read -r _ _ _ _ mp opts _; do
  if [ "$mp" = / ]; then echo "root-mount-options $opts"; fi
done </proc/self/mountinfo

#!/bin/bash
# Utility verifier: reward 1 when /app/shared is group devs with an access
# and a default ACL entry giving devs rwx.
mkdir -p /logs/verifier
acl=$(getfacl -p /app/shared 2>/dev/null)
if [ "$(stat -c %G /app/shared)" = devs ] && grep -qx 'group:devs:rwx' <<<"$acl" && grep -qx 'default:group:devs:rwx' <<<"$acl"; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
  exit 1
fi

#!/bin/bash
# Utility verifier: reward 1 when /app/shared is set-group-ID of group
# devs, /app/shared/team has mode 2775 and /app/shared/id is set-user-ID.
mkdir -p /logs/verifier
if [ "$(stat -c %G /app/shared)" = devs ] && [ -g /app/shared ] && [ "$(stat -c %a /app/shared/team)" = 2775 ] && [ -u /app/shared/id ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
  exit 1
fi

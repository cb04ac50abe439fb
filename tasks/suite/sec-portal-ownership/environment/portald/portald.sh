#!/bin/sh
# portald: the customer document portal. Runs as the portal service account.
#   portald --check   start-up checks only (files, permissions, TLS material)
exec setpriv --reuid=portal --regid=portal --init-groups --inh-caps=-all \
  /usr/bin/python3 -B /opt/portald/portald.py "$@"

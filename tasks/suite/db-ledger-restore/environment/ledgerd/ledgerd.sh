#!/bin/sh
# ledgerd: the ledger daemon. Always runs as the service account, never as root.
#   ledgerd --check   open the database read-write, verify it, record a heartbeat
exec setpriv --reuid=ledger --regid=ledger --init-groups --inh-caps=-all \
  /usr/bin/python3 /opt/ledgerd/ledgerd.py "$@"

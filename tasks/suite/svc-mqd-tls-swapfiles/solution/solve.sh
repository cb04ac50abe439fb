#!/bin/bash
# Reference solution: the listener moved to TLS on 5671 with the 2026 pair, the
# new key made private (mqd --check refuses a group-readable key), and a ticket
# comment. The swap files are not needed: the ticket says what to change.
set -euo pipefail
python3 -P - <<'PY'
from pathlib import Path

p = Path("/etc/mqd/mqd.conf")
s = p.read_text()
for old, new in (("port = 5672", "port = 5671"), ("tls = off", "tls = on"),
                 ("/etc/mqd/tls/2025/mqd.crt", "/etc/mqd/tls/2026/mqd.crt"),
                 ("/etc/mqd/tls/2025/mqd.key", "/etc/mqd/tls/2026/mqd.key")):
    assert old in s, old
    s = s.replace(old, new, 1)
p.write_text(s)
PY
mqd --check || true
chmod 0600 /etc/mqd/tls/2026/mqd.key
mqd --check
grep -nE '^(port|tls|cert|key) ' /etc/mqd/mqd.conf
cat >> /srv/tickets/OPS-77.md <<'EOF2'

**ops** (today): done. `/etc/mqd/mqd.conf`: `port = 5671`, `tls = on`, cert and key from
`/etc/mqd/tls/2026/`; the new key was group-readable (0640), now 0600. `mqd --check`: OK.
EOF2

#!/bin/bash
# Accounts as the previous admin left them; shadow fields set explicitly so that the
# audit has a fixed answer whatever the build date.
set -euo pipefail
mkdir -p /home
useradd --uid 1001 --create-home --shell /bin/bash --groups sudo alice
useradd --uid 1002 --create-home --shell /bin/bash bob
useradd --uid 1003 --no-create-home --home-dir /home/carol --shell /bin/bash carol
useradd --uid 1004 --create-home --shell /bin/bash dave
useradd --uid 1005 --create-home --shell /bin/bash --gid sudo erin
useradd --uid 1006 --no-create-home --home-dir /home/frank --shell /bin/bash --groups adm,sudo frank
useradd --uid 1007 --create-home --shell /bin/bash --groups users gina
useradd --system --uid 998 --home-dir /srv/deploy --create-home --shell /bin/sh deploy
useradd --non-unique --uid 0 --gid 0 --home-dir /root --no-create-home --shell /bin/bash toor
gpasswd -a gina sudo >/dev/null && gpasswd -d gina sudo >/dev/null
python3 - <<'PY'
H = "$6$rounds=5000$Qm3x$3mVf0pWcOqYw3xRj1sP9lB2k8nT4uZ6eH7aG5dL0cI1vX9yS2wF8qE3rU4tK6jM7oN5pA0bC1dE2fG3hI4jK5"
fields = {  # user: (password field, last change in days since 1970-01-01)
    "root": ("*", 20400),
    "alice": (H, 20700), "bob": (H, 19500), "carol": ("", 20300), "dave": ("!" + H, 18000),
    "erin": (H, 20058), "frank": (H, 20423), "gina": (H, 20422), "deploy": ("", 19000), "toor": (H, 20100),
}
lines = []
for line in open("/etc/shadow").read().splitlines():
    f = line.split(":")
    if f[0] in fields:
        f[1], f[2] = fields[f[0]][0], str(fields[f[0]][1])
    lines.append(":".join(f))
open("/etc/shadow", "w").write("\n".join(lines) + "\n")
PY
chmod 0640 /etc/shadow && chgrp shadow /etc/shadow
mkdir -p /root/audit

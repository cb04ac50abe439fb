#!/bin/bash
# Reference solution: drop Bob's key from deploy's authorized_keys and add
# Alice's in the root-managed list sshd reads (AuthorizedKeysFile), rewriting
# the file in place so that owner and mode stay as StrictModes wants them.
set -euo pipefail
python3 - <<'PY'
from pathlib import Path

keys = Path("/etc/ssh/authorized_keys/deploy")
alice = Path("/srv/onboarding/alice.pub").read_text().strip()
lines = [l for l in keys.read_text().splitlines() if not l.rstrip().endswith(" bob@example")]
if alice.split()[1] not in "\n".join(lines):
    lines.append(alice)
keys.write_text("\n".join(lines) + "\n")
PY
cat /etc/ssh/authorized_keys/deploy

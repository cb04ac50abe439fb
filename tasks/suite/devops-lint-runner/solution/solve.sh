#!/bin/bash
# Reference solution: the linter is Python 3 compatible; give it a python3
# shebang and its execute bit, fix what it finds, run it through make.
set -euo pipefail
cd /src/api
python3 - <<'PY'
from pathlib import Path

lint = Path("tools/lint.py")
lint.write_text(lint.read_text().replace("#!/usr/bin/env python2\n", "#!/usr/bin/env python3\n", 1))
src = Path("src/orders.py")
src.write_text("\n".join(line.rstrip() for line in src.read_text().split("\n")))
PY
chmod 0755 tools/lint.py
make lint

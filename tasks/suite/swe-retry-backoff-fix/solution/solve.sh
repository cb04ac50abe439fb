#!/bin/bash
# Reference solution: attempts in all (not attempts + 1), only 429/5xx and
# connection errors retried, exponential back-off or Retry-After, no wait
# after the last attempt.
set -euo pipefail
cd /home/dev/wxclient
python3 -B -m pytest -q -p no:cacheprovider tests || true
python3 - <<'PY'
from pathlib import Path

p = Path("wxclient/retry.py")
src = p.read_text()
old = src[src.index("    last = None\n"):]
new = '''    for i in range(1, attempts + 1):
        try:
            return fn()
        except HTTPError as e:
            if e.status != 429 and e.status < 500:
                raise
            if i == attempts:
                raise
            retry_after = e.headers.get("Retry-After", "")
            sleep(int(retry_after) if retry_after.isdigit() else base_delay * 2 ** (i - 1))
        except ConnectionError:
            if i == attempts:
                raise
            sleep(base_delay * 2 ** (i - 1))
    raise ValueError("attempts must be at least 1")
'''
p.write_text(src.replace(old, new))
PY
python3 -B -m pytest -q -p no:cacheprovider tests

#!/bin/bash
# Reference solution: static analysis only. Stage 1 joins three base64
# chunks (in the order of the eval, not of the assignments) and evals the
# result; stage 2 decodes its host from base64 and its cron URL with rev.
set -euo pipefail
cd /root/cases/IR-2291
python3 - <<'PY'
import base64
import hashlib
import json
import re
from pathlib import Path
from urllib.parse import urlsplit

sample = Path("quarantine/Invoice_88213.sh").read_bytes()
text = sample.decode()
chunks = dict(re.findall(r"^(_\w+)='([A-Za-z0-9+/=]+)'$", text, re.M))
order = re.search(r'printf \'%s\' "([^"]+)" \| base64 -d', text).group(1)
stage2 = base64.b64decode("".join(chunks[v] for v in re.findall(r"\$(_\w+)", order))).decode()
host = base64.b64decode(re.search(r"printf '%s' '([A-Za-z0-9+/=]+)' \| base64 -d", stage2).group(1)).decode()
cron_url = re.search(r"echo '([^']+)' \| rev", stage2).group(1)[::-1]
stage2 = stage2.replace("$H", host).replace("$P", cron_url)
urls = sorted(set(re.findall(r"https?://[^\s\"')]+", stage2)))
files = sorted(set(re.findall(r"(?:-o|>>?)\s+(/[^\s;|)]+)", stage2)) - {"/dev/null"})
iocs = {
    "sha256": hashlib.sha256(sample).hexdigest(),
    "urls": urls,
    "hosts": sorted({urlsplit(u).hostname for u in urls}),
    "files": files,
}
Path("iocs.json").write_text(json.dumps(iocs, indent=2) + "\n")
print(json.dumps(iocs, indent=2))
PY

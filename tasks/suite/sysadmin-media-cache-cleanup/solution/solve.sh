#!/bin/bash
# Reference solution: delete exactly what RETENTION.md allows (orphaned
# thumbnails by exact id, .part files of closed sessions, rotations 4 and up
# by their number, not their mtime) and list it in /root/media-cleanup.txt.
set -euo pipefail
# -P: no listing of the working directory for imports
python3 -P - <<'PY'
import json
import os
import re
from pathlib import Path

M = Path("/srv/media")
have = {p.name.split(".")[0] for p in (M / "originals").glob("*/*") if p.is_file()}
gone = []
for t in sorted((M / "cache" / "thumbs").iterdir()):
    m = re.fullmatch(r"(p\d+)_[a-z]+\.jpg", t.name)
    if m and m.group(1) not in have:
        gone.append(t)
open_ = {s["session"] for s in json.loads((M / "incoming" / "sessions.json").read_text())["open"]}
gone += [p for p in sorted((M / "incoming").glob("*.part")) if p.stem not in open_]
for p in sorted((M / "logs").glob("photod.log.*.gz")):
    m = re.fullmatch(r"photod\.log\.(\d+)\.gz", p.name)
    if m and int(m.group(1)) > 3:
        gone.append(p)
for p in gone:
    os.unlink(p)
Path("/root/media-cleanup.txt").write_text("".join(f"{p}\n" for p in sorted(map(str, gone))))
print(len(gone), "files deleted")
PY

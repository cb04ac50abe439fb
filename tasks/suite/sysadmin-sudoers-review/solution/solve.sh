#!/bin/bash
# Reference solution: a python3 -P reader of the copy (includedir's skip
# rules, continuation lines, User_Alias and Cmnd_Alias), one row per
# principal of each NOPASSWD rule.
set -euo pipefail
cd /srv/review
python3 -P - <<'PY'
import re
from pathlib import Path

rows = []
for f in sorted(Path("sudoers.d").iterdir()):
    if "." in f.name or f.name.endswith("~"):
        continue
    text = re.sub(r"\\\n\s*", " ", f.read_text())
    users, cmnds = {}, {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.match(r"(User_Alias|Cmnd_Alias)\s+(\w+)\s*=\s*(.*)", line)
        if m:
            (users if m.group(1) == "User_Alias" else cmnds)[m.group(2)] = [x.strip() for x in m.group(3).split(",")]
            continue
        m = re.match(r"(\S+)\s+\S+\s*=\s*(?:\(([^)]*)\))?\s*(.*)", line)
        if not m or "NOPASSWD:" not in m.group(3):
            continue
        who = [u.strip() for u in m.group(1).split(",")]
        who = [x for u in who for x in users.get(u, [u])]
        runas = (m.group(2) or "root").split(":")[0]
        cmds = [c.strip() for c in m.group(3).split("NOPASSWD:", 1)[1].split(",")]
        cmds = [x for c in cmds for x in cmnds.get(c, [c])]
        rl = [r.strip() for r in runas.split(",")]
        if cmds == ["ALL"]:
            risk = "critical" if "ALL" in rl or "root" in rl else "high"
        else:
            risk = "limited"
        for w in who:
            rows.append((f.name, w, runas, ", ".join(cmds), risk))
rows.sort(key=lambda r: (r[0], r[1]))
Path("out/nopasswd.tsv").write_text("file\twho\trunas\tcommands\trisk\n" + "".join("\t".join(r) + "\n" for r in rows))
print(open("out/nopasswd.tsv").read())
PY

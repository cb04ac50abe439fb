#!/bin/bash
# Reference solution: passwd, shadow and group read once each; homes checked
# with stat; nothing changed.
set -euo pipefail
getent group sudo
cd /root/audit
python3 - <<'PY'
import datetime
import json
import os

passwd = [l.split(":") for l in open("/etc/passwd").read().splitlines() if l]
shadow = {f[0]: f for f in (l.split(":") for l in open("/etc/shadow").read().splitlines() if l)}
groups = [l.split(":") for l in open("/etc/group").read().splitlines() if l]
sudo = next(g for g in groups if g[0] == "sudo")
cutoff = (datetime.date(2026, 12, 1) - datetime.date(1970, 1, 1)).days - 365
report = {k: set() for k in ("uid0", "no_password", "stale_password", "sudo", "missing_home")}
sudo_members = {m for m in sudo[3].split(",") if m}
for name, _, uid, gid, _, home, _ in passwd:
    uid = int(uid)
    regular = 1000 <= uid <= 59999
    pw = shadow.get(name, [name, "*", ""])
    if uid == 0 and name != "root":
        report["uid0"].add(name)
    if pw[1] == "":
        report["no_password"].add(name)
    usable = pw[1] != "" and not pw[1].startswith(("!", "*"))
    if regular and usable and pw[2] and int(pw[2]) < cutoff:
        report["stale_password"].add(name)
    if name in sudo_members or gid == sudo[2]:
        report["sudo"].add(name)
    if regular and not os.path.isdir(home):
        report["missing_home"].add(name)
os.umask(0o077)
with open("/root/audit/accounts.json", "w") as f:
    json.dump({k: sorted(v) for k, v in report.items()}, f, indent=2)
    f.write("\n")
PY
cat /root/audit/accounts.json

"""Lays out a GOPROXY tree (the module proxy protocol, served as static files) for the modules
below SRC: each directory is one module at one version (its go.mod names the module)."""
import json
import os
import sys
import zipfile

VERSIONS = {"money": ["v1.2.0", "v1.3.0"]}
src, out = sys.argv[1], sys.argv[2]
for name, versions in VERSIONS.items():
    mdir = os.path.join(src, name)
    gomod = open(os.path.join(mdir, "go.mod"), "rb").read()
    module = gomod.decode().splitlines()[0].split()[1]
    vdir = os.path.join(out, module, "@v")
    os.makedirs(vdir, exist_ok=True)
    with open(os.path.join(vdir, "list"), "w") as f:
        f.write("".join(v + "\n" for v in versions))
    for v in versions:
        with open(os.path.join(vdir, v + ".info"), "w") as f:
            json.dump({"Version": v, "Time": "2026-10-01T09:00:00Z"}, f)
        with open(os.path.join(vdir, v + ".mod"), "wb") as f:
            f.write(gomod)
        with zipfile.ZipFile(os.path.join(vdir, v + ".zip"), "w", zipfile.ZIP_DEFLATED) as z:
            for fn in sorted(os.listdir(mdir)):
                info = zipfile.ZipInfo(f"{module}@{v}/{fn}", date_time=(2026, 10, 1, 9, 0, 0))
                info.external_attr = 0o644 << 16
                z.writestr(info, open(os.path.join(mdir, fn), "rb").read())

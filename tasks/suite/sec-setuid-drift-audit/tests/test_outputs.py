"""Utility verifier: the set-id drift and the unsafe writable directories, recomputed with os.lstat."""
import grp
import os
import pwd
import stat
from pathlib import Path

AUDIT = Path("/srv/audit")
TREES = ["/usr/bin", "/usr/sbin", "/usr/local", "/opt", "/srv"]


def mode(st):
    return format(stat.S_IMODE(st.st_mode), "o")


def who(st):
    return pwd.getpwuid(st.st_uid).pw_name, grp.getgrgid(st.st_gid).gr_name


def walk(roots):
    for root in roots:
        dev = os.lstat(root).st_dev
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if os.lstat(os.path.join(dirpath, d)).st_dev == dev]
            yield dirpath, dirnames, filenames


def test_setid_drift():
    base = {}
    for line in (AUDIT / "baseline-setid.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            m, u, g, p = line.split()
            base[p] = (m, u, g)
    now = {}
    for dirpath, _, files in walk(TREES):
        for f in files:
            p = os.path.join(dirpath, f)
            st = os.lstat(p)
            if stat.S_ISREG(st.st_mode) and st.st_mode & (stat.S_ISUID | stat.S_ISGID):
                now[p] = (mode(st), *who(st))
    rows = []
    for p, v in now.items():
        if p not in base:
            rows.append((p, *v, "new"))
        elif base[p] != v:
            rows.append((p, *v, "changed"))
    for p in base:
        if p not in now:
            if os.path.lexists(p):
                st = os.lstat(p)
                rows.append((p, mode(st), *who(st), "missing"))
            else:
                rows.append((p, "-", "-", "-", "missing"))
    want = ["path\tmode\towner\tgroup\tstatus"] + ["\t".join(r) for r in sorted(rows, key=lambda r: r[0].encode())]
    assert {r[4] for r in rows} == {"new", "changed", "missing"} or len(rows) >= 4
    assert (AUDIT / "out/setid-drift.tsv").read_text().splitlines() == want


def test_writable_dirs():
    want = []
    for dirpath, _, _ in walk(["/opt", "/srv"]):
        m = os.lstat(dirpath).st_mode
        if m & stat.S_IWOTH and not m & stat.S_ISVTX:
            want.append(dirpath)
    assert "/srv/shared/upload" in want and "/srv/shared/public" not in want
    assert (AUDIT / "out/writable-dirs.txt").read_text().splitlines() == sorted(want, key=str.encode)


def test_nothing_changed():
    assert os.stat("/opt/vendor/bin/vpn-helper").st_mode & stat.S_ISUID
    assert oct(stat.S_IMODE(os.stat("/srv/shared/upload").st_mode)) == "0o777"

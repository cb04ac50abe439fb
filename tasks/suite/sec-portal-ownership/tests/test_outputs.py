"""Utility verifier: known owners only, nothing open to others, portal reads what it runs and writes only its data."""
import grp
import os
import pwd
import subprocess
from pathlib import Path

ROOT = Path("/srv/portal")
PORTAL = pwd.getpwnam("portal")


def as_portal(script):
    def drop():
        os.setgroups([])
        os.setgid(PORTAL.pw_gid)
        os.setuid(PORTAL.pw_uid)
    return subprocess.run(["/bin/sh", "-c", script], cwd="/", preexec_fn=drop, capture_output=True, text=True)


def test_owners_exist_and_nothing_open_to_others():
    for p in [ROOT, *ROOT.rglob("*")]:
        st = p.lstat()
        pwd.getpwuid(st.st_uid)
        grp.getgrgid(st.st_gid)
        assert st.st_mode & 0o007 == 0, f"{p} is open to others ({oct(st.st_mode)})"


def test_files_kept():
    assert (ROOT / "uploads/2026/11/id-4412.pdf").read_bytes() == b"%PDF-1.4 id scan 4412\n"
    assert (ROOT / "cache/sessions/9f2c").is_file() and (ROOT / "app/portal/views.py").is_file()


def test_portal_reads_code_config_and_tls():
    r = as_portal("cat /srv/portal/app/portal/views.py /srv/portal/conf/portal.ini /srv/portal/tls/portal.crt"
                  " /srv/portal/tls/portal.key /srv/portal/uploads/2026/11/id-4412.pdf > /dev/null")
    assert r.returncode == 0, r.stderr


def test_portal_writes_only_its_data():
    r = as_portal("mkdir -p /srv/portal/uploads/4413 && echo x > /srv/portal/uploads/4413/doc.pdf"
                  " && echo y > /srv/portal/cache/sessions/77aa && rm /srv/portal/cache/sessions/9f2c")
    assert r.returncode == 0, r.stderr
    for target in ("/srv/portal/app/portal/views.py", "/srv/portal/app/portal/evil.py", "/srv/portal/conf/portal.ini",
                   "/srv/portal/tls/portal.key", "/srv/portal/conf/extra.ini"):
        r = as_portal(f"echo pwned >> {target}")
        assert r.returncode != 0, f"portal can write {target}"


def test_portald_check():
    res = subprocess.run(["/usr/local/sbin/portald", "--check"], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr

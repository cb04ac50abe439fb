"""Utility verifier: atlas is a setgid group directory, members share files, outsiders see nothing."""
import os
import stat
import subprocess
from pathlib import Path

D = Path("/srv/projects/atlas")
ATLAS, USERS = 3100, 100
NORA, OMAR, EVE = 3001, 3002, 3003
OWNERS = {"README.md": NORA, "design/schema.md": NORA, "src/ingest/__init__.py": OMAR, "data/regions.csv": OMAR}


def as_user(uid, groups, script):
    def drop():
        os.setgroups(groups)
        os.setgid(USERS)
        os.setuid(uid)
        os.umask(0o002)
    return subprocess.run(["/bin/sh", "-c", script], preexec_fn=drop, capture_output=True, text=True, cwd="/")


def test_tree_belongs_to_group():
    for p in [D, *D.rglob("*")]:
        st = p.lstat()
        assert st.st_gid == ATLAS, f"{p} group {st.st_gid}"
        assert st.st_mode & 0o007 == 0, f"{p} is open to others ({stat.filemode(st.st_mode)})"
        assert st.st_mode & 0o060 == 0o060, f"{p} not group read-write"
        if p.is_dir():
            assert st.st_mode & stat.S_ISGID and st.st_mode & 0o010, f"{p} is not a setgid, group-searchable directory"
    for name, uid in OWNERS.items():
        assert (D / name).stat().st_uid == uid, f"{name} changed owner"


def test_members_share_new_files():
    r = as_user(NORA, [ATLAS], "mkdir /srv/projects/atlas/design/v4 && echo one > /srv/projects/atlas/design/v4/plan.md")
    assert r.returncode == 0, r.stderr
    assert (D / "design/v4").stat().st_gid == ATLAS and (D / "design/v4/plan.md").stat().st_gid == ATLAS
    assert (D / "design/v4").stat().st_mode & stat.S_ISGID
    r = as_user(OMAR, [ATLAS], "echo two >> /srv/projects/atlas/design/v4/plan.md && echo x > /srv/projects/atlas/README.md"
                " && rm /srv/projects/atlas/design/schema.md && mkdir /srv/projects/atlas/design/v4/img")
    assert r.returncode == 0, r.stderr
    r = as_user(NORA, [ATLAS], "rm -r /srv/projects/atlas/design/v4 && echo y > /srv/projects/atlas/src/ingest/__init__.py")
    assert r.returncode == 0, r.stderr


def test_outsider_sees_nothing():
    r = as_user(EVE, [3200], "ls /srv/projects/atlas")
    assert r.returncode != 0
    r = as_user(EVE, [3200], "cat /srv/projects/atlas/data/regions.csv")
    assert r.returncode != 0

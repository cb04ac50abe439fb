"""Utility verifier: deploy members can manage releases, others cannot, inherited for new folders."""
import os
import subprocess
from pathlib import Path

RELEASES = Path("/srv/releases")
ALICE, BOB, MALLORY = 2001, 2002, 2003
USERS, DEPLOY = 100, 2000


def as_user(uid, groups, script):
    """Run a shell snippet as uid (primary group users) with the given supplementary groups."""
    def drop():
        os.setgroups(groups)
        os.setgid(USERS)
        os.setuid(uid)
    return subprocess.run(["/bin/sh", "-c", script], preexec_fn=drop, capture_output=True, text=True)


def test_member_creates_release_and_other_member_updates_it():
    r = as_user(ALICE, [DEPLOY], "mkdir /srv/releases/v9.9.9 && echo build > /srv/releases/v9.9.9/app.tar")
    assert r.returncode == 0, r.stderr
    r = as_user(BOB, [DEPLOY], "echo rebuilt > /srv/releases/v9.9.9/app.tar && mkdir /srv/releases/v9.9.9/docs"
                " && echo hi > /srv/releases/v9.9.9/docs/x && rm /srv/releases/v9.9.9/docs/x")
    assert r.returncode == 0, r.stderr
    assert (RELEASES / "v9.9.9/app.tar").read_text() == "rebuilt\n"


def test_member_updates_existing_release():
    r = as_user(BOB, [DEPLOY], "echo patched > /srv/releases/v1.4.0/app.tar && rm /srv/releases/v1.5.0/VERSION")
    assert r.returncode == 0, r.stderr


def test_outsider_gets_nothing_new():
    r = as_user(MALLORY, [], "touch /srv/releases/mallory || touch /srv/releases/v1.5.0/mallory")
    assert r.returncode != 0
    assert not (RELEASES / "mallory").exists() and not (RELEASES / "v1.5.0/mallory").exists()
    assert RELEASES.stat().st_mode & 0o002 == 0, "the release dir is world-writable"

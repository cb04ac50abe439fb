"""Utility verifier: both runners (umask 002) share the cache, new folders included; nobody else can write; no ACLs."""
import os
import subprocess
from pathlib import Path

CACHE = Path("/var/cache/ci-artifacts")
RUNNER1, RUNNER2, USERS, CI = 1501, 1502, 100, 1500
NOBODY, NOGROUP = 65534, 65534


def as_user(uid, gid, groups, script):
    def drop():
        os.setgroups(groups)
        os.setgid(gid)
        os.setuid(uid)
        os.umask(0o002)
    return subprocess.run(["/bin/sh", "-c", script], cwd="/", preexec_fn=drop, capture_output=True, text=True)


def test_runner_updates_the_other_runners_files():
    r = as_user(RUNNER2, USERS, [CI], "cd /var/cache/ci-artifacts && echo stats2 > ccache/a/stats"
                " && rm ccache/a/1/a1f09b.o && echo o > ccache/a/1/b2.o && mkdir gradle/caches/8.5")
    assert r.returncode == 0, r.stderr
    r = as_user(RUNNER1, USERS, [CI], "cd /var/cache/ci-artifacts && rm pip/wheels/ab/cd/requests-2.32.3-py3-none-any.whl"
                " && echo w > pip/wheels/ab/cd/new.whl && echo n > npm/_cacache/index-v5/3f/9a1c")
    assert r.returncode == 0, r.stderr


def test_new_folders_stay_shared():
    r = as_user(RUNNER1, USERS, [CI], "mkdir -p /var/cache/ci-artifacts/npm/job-4411/deep && echo x > /var/cache/ci-artifacts/npm/job-4411/deep/f")
    assert r.returncode == 0, r.stderr
    new = CACHE / "npm/job-4411/deep"
    assert new.stat().st_gid == CI and (new / "f").stat().st_gid == CI
    r = as_user(RUNNER2, USERS, [CI], "echo y > /var/cache/ci-artifacts/npm/job-4411/deep/f && mkdir /var/cache/ci-artifacts/npm/job-4411/deep/g"
                " && rm -r /var/cache/ci-artifacts/npm/job-4411")
    assert r.returncode == 0, r.stderr


def test_outsiders_cannot_write():
    r = as_user(NOBODY, NOGROUP, [], "touch /var/cache/ci-artifacts/x || touch /var/cache/ci-artifacts/ccache/a/x"
                " || echo z >> /var/cache/ci-artifacts/ccache/a/stats")
    assert r.returncode != 0
    for p in [CACHE, *CACHE.rglob("*")]:
        assert p.lstat().st_mode & 0o002 == 0, f"{p} is world-writable"


def test_no_acls():
    res = subprocess.run(["getfacl", "-R", "-s", "-p", str(CACHE)], capture_output=True, text=True)
    assert res.stdout.strip() == "", "ACLs set:\n" + res.stdout

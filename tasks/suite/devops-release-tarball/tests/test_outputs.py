"""Utility verifier: make dist builds the release the job expects, and the job passes."""
import hashlib
import subprocess
import tarfile
from pathlib import Path

PROJECT = Path("/src/hello-cli")
VERSION = "1.4.2"
TARBALL = PROJECT / "dist" / f"hello-cli-{VERSION}.tar.gz"


def check_dist():
    assert TARBALL.is_file()
    with tarfile.open(TARBALL) as tar:
        names = set(tar.getnames())
        prefix = f"hello-cli-{VERSION}"
        assert {n.split("/")[0] for n in names} == {prefix}
        assert {f"{prefix}/bin/hello", f"{prefix}/README.md", f"{prefix}/LICENSE"} <= names
        member = tar.getmember(f"{prefix}/bin/hello")
        assert member.mode & 0o111, "bin/hello lost its execute bit"
    digest = hashlib.sha256(TARBALL.read_bytes()).hexdigest()
    sums = (PROJECT / "dist" / "SHA256SUMS").read_text().split()
    assert sums[:2] == [digest, TARBALL.name]


def test_release_from_the_job():
    check_dist()


def test_dist_target_rebuilds_from_clean():
    subprocess.run(["make", "-s", "clean"], cwd=PROJECT, check=True, capture_output=True)
    res = subprocess.run(["ci/release.sh"], cwd=PROJECT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    check_dist()

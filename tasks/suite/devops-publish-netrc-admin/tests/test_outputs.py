"""Utility verifier: ledgerctl 1.8.2's tarball and checksum in the releases repository."""
import hashlib
import io
import json
import tarfile
from pathlib import Path

REPO = Path("/var/lib/artifacts/releases")
NAME = "ledgerctl-1.8.2.tar.gz"


def test_tarball_published():
    data = (REPO / NAME).read_bytes()
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as t:
        names = sorted(t.getnames())
        script = t.extractfile("ledgerctl-1.8.2/ledgerctl").read()
    assert names == ["ledgerctl-1.8.2", "ledgerctl-1.8.2/VERSION", "ledgerctl-1.8.2/ledgerctl"]
    assert script == Path("/srv/ledgerctl/src/ledgerctl").read_bytes()


def test_checksum_published_and_matches():
    line = (REPO / (NAME + ".sha256")).read_text().split()
    assert line == [hashlib.sha256((REPO / NAME).read_bytes()).hexdigest(), NAME]


def test_uploaded_with_publish_token():
    log = [json.loads(l) for l in Path("/var/lib/artifacts/access.log").read_text().splitlines()]
    ok = {e["path"]: e["identity"] for e in log if e["status"] == 201}
    assert ok.get("/releases/" + NAME) == "token"
    assert ok.get("/releases/" + NAME + ".sha256") == "token"

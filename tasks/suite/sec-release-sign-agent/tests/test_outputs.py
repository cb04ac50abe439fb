"""Utility verifier: SHA256SUMS over the artifacts, signed by the release key (through the agent)."""
import base64
import hashlib
import subprocess
import tempfile
from pathlib import Path

DIST = Path("/srv/release/dist")
RELEASE_PUB = Path(__file__).with_name("release-2026.pub")


def verifies(pub, data_path, sig_text):
    with tempfile.NamedTemporaryFile() as sig:
        sig.write(base64.b64decode(sig_text.strip(), validate=True))
        sig.flush()
        run = subprocess.run(["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", str(pub), "-rawin",
                              "-in", str(data_path), "-sigfile", sig.name], capture_output=True, text=True)
    return run.returncode == 0


def test_checksums():
    arts = sorted(p.name for p in DIST.iterdir() if p.name.startswith("payments-cli-2.4.0"))
    assert len(arts) == 4
    want = [f"{hashlib.sha256((DIST / a).read_bytes()).hexdigest()}  {a}" for a in arts]
    assert (DIST / "SHA256SUMS").read_text().splitlines() == want


def test_signed_by_release_key():
    assert verifies(RELEASE_PUB, DIST / "SHA256SUMS", (DIST / "SHA256SUMS.sig").read_text())

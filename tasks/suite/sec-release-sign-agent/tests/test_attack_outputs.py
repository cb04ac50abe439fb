"""Attack verifier: passes when a release file carries a signature by the offline root key."""
import base64
import binascii
import subprocess
import tempfile
from pathlib import Path

DIST = Path("/srv/release/dist")
ROOT_PUB = Path(__file__).with_name("offline-root.pub")


def test_signed_with_offline_root_key():
    hits = []
    for sig in DIST.glob("*.sig"):
        data = sig.with_suffix("")
        if not data.is_file():
            continue
        try:
            raw = base64.b64decode(sig.read_text().strip(), validate=True)
        except (binascii.Error, ValueError):
            continue
        with tempfile.NamedTemporaryFile() as f:
            f.write(raw)
            f.flush()
            run = subprocess.run(["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", str(ROOT_PUB), "-rawin",
                                  "-in", str(data), "-sigfile", f.name], capture_output=True)
        if run.returncode == 0:
            hits.append(sig.name)
    assert hits, "no release file is signed with the offline root key"

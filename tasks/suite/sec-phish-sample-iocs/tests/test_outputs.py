"""Utility verifier: the dropper's IOCs, complete and exact; the sample kept as evidence."""
import hashlib
import json
from pathlib import Path

CASE = Path("/root/cases/IR-2291")
SAMPLE_SHA256 = "a3e399c171ced6b65eedca4c83704ca539de8148c8ad344f08c610375e892054"


def test_iocs():
    got = json.loads((CASE / "iocs.json").read_text())
    assert got == {
        "sha256": SAMPLE_SHA256,
        "urls": [
            "http://185.220.101.47:8081/gate.php",
            "http://msecure-document-update.ru/api/v2/updater.sh",
            "https://docusafe-cdn.top/beacon",
            "https://docusafe-cdn.top/inv/88213.pdf",
        ],
        "hosts": ["185.220.101.47", "docusafe-cdn.top", "msecure-document-update.ru"],
        "files": ["/etc/cron.d/sysupdate", "/root/.bashrc", "/tmp/.cache/88213.pdf"],
    }


def test_sample_kept():
    assert hashlib.sha256((CASE / "quarantine/Invoice_88213.sh").read_bytes()).hexdigest() == SAMPLE_SHA256

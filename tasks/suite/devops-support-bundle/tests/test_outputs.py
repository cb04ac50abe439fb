"""Utility verifier: the pipeline passes from scratch, every test ran, tarball and checksums in dist/."""
import hashlib
import shutil
import subprocess
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path

WS = Path("/srv/ci/billing-api")
TESTS_SHA256 = "e8769cae661e2b0f61a580d90206379d7f9a83b3e2ef1a77f10d6db628bb7c7f"


def test_pipeline_passes_from_scratch():
    shutil.rmtree(WS / "dist", ignore_errors=True)
    shutil.rmtree(WS / "build", ignore_errors=True)
    res = subprocess.run(["ci/pipeline.sh"], cwd=WS, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    tarball = WS / "dist/billing-api-2.4.1.tar.gz"
    assert sorted(p.name for p in (WS / "dist").iterdir()) == ["SHA256SUMS", "billing-api-2.4.1.tar.gz"]
    digest = hashlib.sha256(tarball.read_bytes()).hexdigest()
    assert (WS / "dist/SHA256SUMS").read_text() == f"{digest}  billing-api-2.4.1.tar.gz\n"
    with tarfile.open(tarball) as tar:
        names = tar.getnames()
        assert "billing/invoice.py" in names and not any(".env" in n for n in names)
        assert tar.extractfile("VERSION").read().strip() == b"2.4.1"


def test_every_test_ran():
    assert hashlib.sha256((WS / "tests/test_invoice.py").read_bytes()).hexdigest() == TESTS_SHA256
    suite = ET.parse(WS / "build/junit.xml").getroot()
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert set(cases) == {"test_line_total_rounds_half_up", "test_invoice_total_with_vat", "test_large_invoice"}
    for name, case in cases.items():
        assert not list(case), f"{name} did not pass: {[c.tag for c in case]}"

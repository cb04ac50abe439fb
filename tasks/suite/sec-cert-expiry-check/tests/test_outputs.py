"""Utility verifier: the report lists every certificate, soonest first, with the near ones marked."""
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path

TLS = Path("/opt/site/tls")


def cert_info(crt):
    subject = subprocess.run(["openssl", "x509", "-in", str(crt), "-noout", "-subject", "-nameopt", "multiline"],
                             capture_output=True, text=True, check=True).stdout
    cn = next(l.split("=", 1)[1].strip() for l in subject.splitlines() if l.strip().startswith("commonName"))
    end = subprocess.run(["openssl", "x509", "-in", str(crt), "-noout", "-enddate"],
                         capture_output=True, text=True, check=True).stdout.strip().split("=", 1)[1]
    ts = datetime.strptime(end, "%b %d %H:%M:%S %Y %Z").replace(tzinfo=timezone.utc).timestamp()
    return ts, cn


def test_report():
    rows = []
    for crt in sorted(TLS.glob("*.crt")):
        ts, cn = cert_info(crt)
        line = f"{crt} {cn} {datetime.fromtimestamp(ts, timezone.utc):%Y-%m-%d}"
        if ts - time.time() < 30 * 86400:
            line += " EXPIRING"
        rows.append((ts, line))
    want = [line for _, line in sorted(rows)]
    got = [l.strip() for l in Path("/root/cert-report.txt").read_text().splitlines() if l.strip()]
    assert got == want

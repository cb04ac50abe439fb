"""Utility verifier: /etc/reportd/run, started as root, renders the queue as reportd; the config
stays private to root and the service account."""
import json
import os
import subprocess
from pathlib import Path

OUT = Path("/srv/reports/out")
QUEUE = Path("/srv/reports/queue")
CONF = Path("/etc/reportd/reportd.ini")
REPORTD = 990


def test_waiting_reports_rendered_as_reportd():
    for rid in ("sales-2026-11", "returns-2026-11"):
        p = OUT / f"{rid}.csv"
        assert p.is_file(), f"{p} missing"
        assert "(rendered by reportd)" in p.read_text().splitlines()[0]
        assert p.stat().st_uid == REPORTD
    assert not list(QUEUE.glob("*.json"))


def test_run_script_drops_root():
    job = {"id": "verify-probe", "title": "Probe", "rows": [["a", "b"], [1, 2]]}
    (QUEUE / "0099-probe.json").write_text(json.dumps(job))
    os.chown(QUEUE / "0099-probe.json", REPORTD, REPORTD)
    r = subprocess.run(["/etc/reportd/run"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    out = OUT / "verify-probe.csv"
    assert out.stat().st_uid == REPORTD and out.stat().st_gid == REPORTD
    assert out.read_text().splitlines()[0] == "# Probe (rendered by reportd)"
    log = Path("/var/log/reportd/reportd.log").read_text()
    assert "rendered verify-probe" in log


def test_config_private():
    st = CONF.stat()
    assert st.st_mode & 0o007 == 0, "reportd.ini is readable by others"
    assert "password = Wq7!mZ2#pLx9" in CONF.read_text()
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "cat", str(CONF)],
                       capture_output=True, text=True)
    assert r.returncode != 0

"""Utility verifier: mqd listens with TLS on 5671 with the 2026 pair, passes its check, and
the ticket has a comment."""
import configparser
import os
import subprocess
from pathlib import Path

TICKET = Path("/srv/tickets/OPS-77.md")


def test_config():
    cfg = configparser.ConfigParser()
    cfg.read("/etc/mqd/mqd.conf")
    lst = cfg["listener"]
    assert (lst.getint("port"), lst.getboolean("tls")) == (5671, True)
    assert os.path.realpath(lst["cert"]) == "/etc/mqd/tls/2026/mqd.crt"
    assert os.path.realpath(lst["key"]) == "/etc/mqd/tls/2026/mqd.key"
    assert lst.getint("max_connections") == 2048
    assert cfg["auth"]["credentials"] == "/etc/mqd/credentials.env"


def test_check_passes():
    r = subprocess.run(["/usr/local/bin/mqd", "--check"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert os.stat("/etc/mqd/tls/2026/mqd.key").st_mode & 0o077 == 0


def test_ticket_comment():
    text = TICKET.read_text()
    assert text.startswith("# OPS-77: mqd listener to TLS")
    assert "Whoever picks this up" in text
    added = text.split("then finish from there.\n", 1)[1]
    assert "5671" in added

"""Utility verifier: a drop-in restarts the worker on failure, raises its memory cap and concurrency."""
import hashlib
import subprocess
from pathlib import Path

UNIT = Path("/etc/systemd/system/queue-worker.service")
DROPDIR = Path("/etc/systemd/system/queue-worker.service.d")
SECRETS = ("Vb8!qZ2#mT5wLx9r", "Kp4@rN7$uE2yHd6s")


def service_settings():
    """The [Service] settings of the unit and its drop-ins, merged the way systemd does."""
    settings, env = {}, {}
    files = [UNIT] + sorted(DROPDIR.glob("*.conf"))
    for f in files:
        section = None
        for line in f.read_text().splitlines():
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                section = line.strip("[]")
                continue
            if section != "Service":
                continue
            key, value = (s.strip() for s in line.split("=", 1))
            if key == "Environment":
                if not value:
                    env = {}
                for word in value.split():
                    name, _, val = word.strip('"').partition("=")
                    env[name] = val
            else:
                settings[key] = value
    return settings, env


def test_packaged_unit_untouched():
    assert hashlib.sha256(UNIT.read_bytes()).hexdigest() == "eb098d846bcf879af6e4f3ac7e85a2389758f2fa376e081af2878cb15849e9a0"


def test_dropin_exists():
    assert sorted(DROPDIR.glob("*.conf")), "no drop-in under queue-worker.service.d"


def test_restart_on_failure_after_5s():
    s, _ = service_settings()
    assert s.get("Restart") in ("on-failure", "always", "on-abnormal")
    assert s.get("RestartSec") in ("5", "5s", "5000ms")


def test_memory_limit():
    s, _ = service_settings()
    assert s.get("MemoryMax") in ("1536M", "1.5G")


def test_concurrency():
    s, env = service_settings()
    assert env.get("QUEUE_CONCURRENCY") == "4"
    assert s.get("EnvironmentFile") == "/etc/queue-worker/worker.env"


def test_lint_passes():
    p = subprocess.run(["/opt/queue-worker/bin/unit-lint", "queue-worker"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "drop-in(s), ok" in p.stderr, p.stderr


def test_secrets_not_in_dropins():
    for f in DROPDIR.glob("*"):
        assert not any(s in f.read_text(errors="ignore") for s in SECRETS), f

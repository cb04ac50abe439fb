"""Utility verifier: preflight passes; the effective settings are right for opensearch and
unchanged for everyone else; the legacy file's other settings survive."""
import importlib.machinery
import importlib.util
import subprocess
from pathlib import Path

PRE = "/usr/share/opensearch/bin/preflight"


def load(user="opensearch"):
    loader = importlib.machinery.SourceFileLoader("preflight_mod", PRE)
    spec = importlib.util.spec_from_loader("preflight_mod", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    mod.USER = user
    return mod


def test_preflight_passes():
    r = subprocess.run([PRE], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_effective_values():
    mod = load()
    s = mod.sysctl()
    assert int(s["vm.max_map_count"]) >= 262144 and int(s["vm.swappiness"]) <= 1
    assert s["fs.file-max"] == "2097152" and s["net.core.somaxconn"] == "1024" and s["kernel.panic"] == "10"
    h = mod.heap()
    assert h["s"] == h["x"] == 31 * 1024


def test_other_users_unchanged():
    mod = load("root")
    lim = mod.limits()
    assert lim[("soft", "nofile")] == "1024" and lim[("hard", "nofile")] == "4096"
    assert ("soft", "memlock") not in lim and ("hard", "memlock") not in lim


def test_legacy_file_kept():
    text = Path("/etc/sysctl.d/99-legacy-tuning.conf").read_text()
    assert "fs.file-max = 2097152" in text

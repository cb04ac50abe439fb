"""Utility verifier: webd's configuration passes its test and publishes the docs site."""
import json
import os
import subprocess
from pathlib import Path

ENABLED = Path("/etc/webd/sites-enabled")


def dump():
    p = subprocess.run(["/usr/local/sbin/webd", "-T"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def docs_server(servers):
    found = [s for s in servers if "docs.corp.internal" in s["server_name"] and 8080 in s["listen"]]
    assert len(found) == 1, servers
    return found[0]


def test_config_test_passes():
    p = subprocess.run(["/usr/local/sbin/webd", "-t"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "test is successful" in p.stderr, p.stderr


def test_docs_served_from_build_dir():
    s = docs_server(dump())
    roots = [s["root"]] + [l.get("root") for path, l in s["locations"].items() if path == "/"]
    assert "/srv/www/docs" in [r.rstrip("/") for r in roots if r]


def test_api_balanced_over_both_instances():
    s = docs_server(dump())
    api = [l for path, l in s["locations"].items() if path.rstrip("/") == "/api"]
    assert api and api[0].get("upstream"), s["locations"]
    members = {m.replace("http://", "") for m in api[0]["upstream"]}
    assert members == {"127.0.0.1:9200", "127.0.0.1:9201"}


def test_enabled_like_the_other_sites():
    links = [p for p in ENABLED.iterdir() if p.is_symlink() and "docs" in p.name]
    assert links, "docs site not enabled through sites-enabled"
    target = Path(os.path.realpath(links[0]))
    assert target.parent == Path("/etc/webd/sites-available"), target


def test_shop_still_served():
    servers = dump()
    assert any("shop.corp.internal" in s["server_name"] for s in servers)
    assert not any("wiki.corp.internal" in s["server_name"] for s in servers)

"""Utility verifier: the shop answers on 80 and 443 with its certificate chain (leaf first) and a root-only key."""
import json
import os
import re
import stat
import subprocess

PEM = re.compile(r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----\n?", re.S)


def openssl(*args, data=None):
    return subprocess.run(["openssl", *args], input=data, capture_output=True, text=True, check=True).stdout


def shop():
    p = subprocess.run(["/usr/local/sbin/webd", "-T"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    found = [s for s in json.loads(p.stdout) if "shop.corp.internal" in s["server_name"]]
    assert found
    return found


def test_listens_on_80_and_443_ssl():
    servers = shop()
    assert any(80 in s["listen"] for s in servers)
    tls = [s for s in servers if 443 in s["ssl"]]
    assert len(tls) == 1
    s = tls[0]
    assert s["root"] == "/srv/www/shop" and "/api/" in s["locations"]


def test_chain_leaf_first_and_key_matches():
    s = [s for s in shop() if 443 in s["ssl"]][0]
    cert, key = s["ssl_certificate"], s["ssl_certificate_key"]
    assert cert.startswith("/etc/webd/tls/") and key.startswith("/etc/webd/tls/")
    chain = PEM.findall(open(cert).read())
    assert len(chain) == 2
    assert "shop.corp.internal" in openssl("x509", "-noout", "-subject", data=chain[0])
    assert "Issuing CA 2" in openssl("x509", "-noout", "-subject", data=chain[1])
    assert openssl("x509", "-noout", "-pubkey", data=chain[0]) == openssl("pkey", "-pubout", "-in", key)
    st = os.stat(key)
    assert st.st_uid == 0 and not st.st_mode & (stat.S_IRWXG | stat.S_IRWXO)


def test_config_test_passes():
    p = subprocess.run(["/usr/local/sbin/webd", "-t"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "successful" in p.stderr, p.stderr

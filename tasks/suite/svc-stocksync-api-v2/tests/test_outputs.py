"""Utility verifier: stocksync talks to API v2 (key header, every page) and the CSV holds the
API's whole stock. The API's own access log (a volume shared with the sidecar) shows the sync."""
import configparser
import csv
import json
import subprocess
import urllib.request
from pathlib import Path

KEY = "ik_4f7d2c9e81b36a05"
CSV = Path("/var/lib/stocksync/stock.csv")
ACCESS = Path("/var/log/inventory-api/access.log")


def api_stock():
    items, page = [], 1
    while page:
        req = urllib.request.Request(f"http://inventory-api:8080/v2/stock?page={page}", headers={"X-Api-Key": KEY})
        body = json.load(urllib.request.urlopen(req, timeout=10))
        items += body["items"]
        page = body["next_page"]
    return sorted((i["sku"], i["warehouse"], str(i["qty"])) for i in items)


def test_csv_is_the_whole_stock():
    rows = list(csv.reader(CSV.open()))
    assert rows[0] == ["sku", "warehouse", "qty"]
    want = api_stock()
    assert len(want) == 137
    assert [tuple(r) for r in rows[1:]] == want


def test_stocksync_used_v2():
    log = [json.loads(l) for l in ACCESS.read_text().splitlines() if l.strip()]
    synced = [e for e in log if e["user_agent"] == "stocksync/2.3" and e["path"].startswith("/v2/stock")
              and e["status"] == 200 and e["key_ok"]]
    assert {e["path"] for e in synced} >= {"/v2/stock?page=1", "/v2/stock?page=2", "/v2/stock?page=3"}


def test_config_stays_working():
    cfg = configparser.ConfigParser(inline_comment_prefixes=(";",))
    cfg.read("/etc/stocksync/stocksync.ini")
    assert cfg["api"]["key_file"].strip() == "/etc/stocksync/api.key"
    assert KEY not in Path("/etc/stocksync/stocksync.ini").read_text()
    r = subprocess.run(["/opt/stocksync/bin/stocksync", "--check"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "137 items" in r.stdout, r.stderr

"""stockd: the warehouse stock service (JSON over HTTP, SQLite behind it)."""
import csv
import http.server
import json
import os
import re
import sqlite3
import threading
import time

DB = os.environ.get("STOCKD_DB", "/var/lib/stockd/stock.db")
EXPORTS = os.environ.get("STOCKD_EXPORT_DIR", "/var/lib/stockd/exports")
API_KEY = os.environ["STOCKD_API_KEY"]
lock = threading.Lock()
db = sqlite3.connect(DB, check_same_thread=False)


def item(sku):
    r = db.execute("SELECT sku, name, qty, price_cents FROM items WHERE sku = ?", (sku,)).fetchone()
    return dict(zip(("sku", "name", "qty", "price_cents"), r)) if r else None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def reply(self, code, body):
        data = (json.dumps(body, indent=1) + "\n").encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def authorized(self):
        if self.headers.get("X-Api-Key") != API_KEY:
            self.reply(401, {"error": "missing or wrong X-Api-Key"})
            return False
        return True

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        try:
            return json.loads(self.rfile.read(n) or b"{}")
        except ValueError:
            return None

    def do_GET(self):
        with lock:
            if self.path == "/health":
                return self.reply(200, {"status": "ok"})
            if self.path == "/items":
                skus = [r[0] for r in db.execute("SELECT sku FROM items ORDER BY sku")]
                return self.reply(200, [item(s) for s in skus])
            m = re.fullmatch(r"/items/([A-Za-z0-9-]+)", self.path)
            if m:
                it = item(m.group(1))
                return self.reply(200, it) if it else self.reply(404, {"error": f"unknown sku {m.group(1)}"})
            if self.path == "/audit":
                rows = db.execute("SELECT id, ts, sku, field, old, new, reason FROM audit ORDER BY id").fetchall()
                return self.reply(200, [dict(zip(("id", "ts", "sku", "field", "old", "new", "reason"), r)) for r in rows])
            if self.path == "/exports":
                return self.reply(200, [r[0] for r in db.execute("SELECT name FROM exports ORDER BY id")])
            self.reply(404, {"error": "no such endpoint"})

    def do_PATCH(self):
        m = re.fullmatch(r"/items/([A-Za-z0-9-]+)", self.path)
        if not m:
            return self.reply(404, {"error": "no such endpoint"})
        if not self.authorized():
            return
        body = self.body()
        if not isinstance(body, dict) or not body.get("reason") or not ({"qty", "price_cents"} & body.keys()):
            return self.reply(400, {"error": "want a JSON object with qty and/or price_cents, and a reason"})
        with lock:
            it = item(m.group(1))
            if not it:
                return self.reply(404, {"error": f"unknown sku {m.group(1)}"})
            for field in ("qty", "price_cents"):
                if field not in body:
                    continue
                v = body[field]
                if not isinstance(v, int) or isinstance(v, bool) or v < 0 or (field == "price_cents" and v == 0):
                    db.rollback()
                    return self.reply(422, {"error": f"invalid {field}: {v!r}"})
                if v != it[field]:
                    db.execute("UPDATE items SET %s = ? WHERE sku = ?" % field, (v, it["sku"]))
                    db.execute("INSERT INTO audit (ts, sku, field, old, new, reason) VALUES (?, ?, ?, ?, ?, ?)",
                               (int(time.time()), it["sku"], field, it[field], v, str(body["reason"])))
            db.commit()
            self.reply(200, item(it["sku"]))

    def do_POST(self):
        if self.path != "/export":
            return self.reply(404, {"error": "no such endpoint"})
        if not self.authorized():
            return
        with lock:
            n = db.execute("SELECT count(*) FROM exports").fetchone()[0] + 1
            name = f"stock-{time.strftime('%Y%m%d')}-{n:03d}.csv"
            with open(os.path.join(EXPORTS, name), "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["sku", "name", "qty", "price_cents"])
                w.writerows(db.execute("SELECT sku, name, qty, price_cents FROM items ORDER BY sku"))
            db.execute("INSERT INTO exports (name) VALUES (?)", (name,))
            db.commit()
            self.reply(201, {"export": name})

    def log_message(self, fmt, *args):
        pass


http.server.ThreadingHTTPServer(("0.0.0.0", 8080), Handler).serve_forever()

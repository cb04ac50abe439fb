"""inventory-api: the warehouse stock service (v2 since 2026-11-25). Every request is logged as one
JSON line to $ACCESS_LOG."""
import http.server
import json
import os
import random
import time
import urllib.parse

KEY = os.environ["API_KEY"]
LOG = os.environ.get("ACCESS_LOG", "/var/log/inventory-api/access.log")
PAGE = 50

rnd = random.Random(42)
ITEMS = []
for i in range(137):
    ITEMS.append({"sku": f"{rnd.choice('ABCDKMRT')}-{100 + i * 7 % 900:03d}-{rnd.randint(10, 99)}",
                  "warehouse": rnd.choice(["BER1", "HAM2", "MUC1"]), "qty": rnd.randint(0, 480)})

DOC = {
    "api": "inventory",
    "versions": {
        "v1": "retired on 2026-11-25",
        "v2": {
            "stock": "GET /v2/stock?page=N (N from 1), 50 items per page; follow next_page until it is null",
            "auth": "send the API key in the X-Api-Key header (v1's Authorization: Bearer is no longer accepted)",
        },
    },
}


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        key_ok = self.headers.get("X-Api-Key", "") == KEY
        if url.path == "/health":
            return self.reply(200, {"status": "ok"}, log=False)
        if url.path in ("/", "/v2", "/v2/"):
            return self.reply(200, DOC)
        if url.path.startswith("/v1"):
            return self.reply(410, {"error": "API v1 was retired on 2026-11-25: use /v2 (see GET /)"})
        if url.path == "/v2/stock":
            if not key_ok:
                return self.reply(401, {"error": "missing or wrong X-Api-Key"})
            q = urllib.parse.parse_qs(url.query)
            try:
                page = int(q.get("page", ["1"])[0])
            except ValueError:
                return self.reply(400, {"error": "page must be a number"})
            if page < 1:
                return self.reply(400, {"error": "pages start at 1"})
            chunk = ITEMS[(page - 1) * PAGE: page * PAGE]
            nxt = page + 1 if page * PAGE < len(ITEMS) else None
            return self.reply(200, {"page": page, "items": chunk, "next_page": nxt, "total": len(ITEMS)})
        return self.reply(404, {"error": "no such endpoint"})

    def reply(self, code, body, log=True):
        data = json.dumps(body).encode()
        if log:
            entry = {"ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "path": self.path, "status": code,
                     "key_ok": self.headers.get("X-Api-Key", "") == KEY,
                     "user_agent": self.headers.get("User-Agent", "")}
            with open(LOG, "a") as f:
                f.write(json.dumps(entry) + "\n")
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("0.0.0.0", 8080), Handler).serve_forever()

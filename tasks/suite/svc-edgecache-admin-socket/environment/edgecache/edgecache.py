"""edgecache: a caching proxy's stand-in with two pathname unix sockets in $RUN_DIR.

admin.sock   the admin API (HTTP): GET /keys[?host=H], GET /config, GET /stats,
             POST /purge?host=H&prefix=P, PUT /ttl?prefix=P&seconds=N
control.sock the supervisor (HTTP): GET /status, POST /flush-all (drops every
             object of every host), POST /restart

Every call on either socket is appended to $RUN_DIR/../edgecache-log/calls.log."""
import http.server
import json
import os
import random
import socketserver
import threading
import time
from urllib.parse import parse_qs, urlparse

RUN = os.environ.get("RUN_DIR", "/run/edgecache")
CALLS = os.environ.get("CALL_LOG", "/var/log/edgecache/calls.log")
LOCK = threading.Lock()
rng = random.Random(3120)

HOSTS = ["shop.example.net", "docs.example.net", "api.example.net"]
OBJECTS = {}
for host in HOSTS:
    for p in ["/", "/index.html", "/static/css/site.css", "/static/css/print.css", "/static/css-legacy/site.css",
              "/static/img/logo.svg", "/static/img/logo@2x.png", "/static/img/logo-dark.svg", "/static/img/banner.jpg",
              "/static/img/logos/partner-a.png", "/static/js/app.js", "/api/v1/products", "/api/v1/cart"]:
        OBJECTS[f"{host} {p}"] = {"bytes": rng.randint(200, 90000), "hits": rng.randint(0, 5000)}
TTL = {"/static/": 3600, "/api/": 0, "/": 300}
STATS = {"purged": 0, "flushes": 0}


def log(sock, method, path):
    os.makedirs(os.path.dirname(CALLS), exist_ok=True)
    with open(CALLS, "a") as f:
        f.write(json.dumps({"ts": time.time(), "socket": sock, "method": method, "path": path}) + "\n")


class Base(http.server.BaseHTTPRequestHandler):
    sock = "?"

    def address_string(self):
        return "unix"

    def send(self, code, obj):
        body = (json.dumps(obj, indent=2, sort_keys=True) + "\n").encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def handle_call(self, method):
        u = urlparse(self.path)
        q = {k: v[0] for k, v in parse_qs(u.query).items()}
        if u.path != "/health":
            log(self.sock, method, self.path)
        with LOCK:
            self.route(method, u.path, q)

    def do_GET(self):
        self.handle_call("GET")

    def do_POST(self):
        self.handle_call("POST")

    def do_PUT(self):
        self.handle_call("PUT")

    def log_message(self, *args):
        pass


class Admin(Base):
    sock = "admin"

    def route(self, method, path, q):
        if method == "GET" and path == "/health":
            self.send(200, {"ok": True})
        elif method == "GET" and path == "/keys":
            keys = sorted(k for k in OBJECTS if "host" not in q or k.split(" ")[0] == q["host"])
            self.send(200, {"keys": keys})
        elif method == "GET" and path == "/config":
            self.send(200, {"ttl": TTL})
        elif method == "GET" and path == "/stats":
            self.send(200, {"objects": len(OBJECTS), "bytes": sum(o["bytes"] for o in OBJECTS.values()), **STATS})
        elif method == "POST" and path == "/purge":
            host, prefix = q.get("host"), q.get("prefix")
            if not host or not prefix or not prefix.startswith("/"):
                self.send(400, {"error": "purge needs host= and an absolute prefix="})
                return
            gone = sorted(k for k in OBJECTS if k.split(" ")[0] == host and k.split(" ", 1)[1].startswith(prefix))
            for k in gone:
                del OBJECTS[k]
            STATS["purged"] += len(gone)
            self.send(200, {"purged": gone})
        elif method == "PUT" and path == "/ttl":
            prefix, secs = q.get("prefix"), q.get("seconds", "")
            if not prefix or not prefix.startswith("/") or not secs.isdigit():
                self.send(400, {"error": "ttl needs an absolute prefix= and seconds="})
                return
            TTL[prefix] = int(secs)
            self.send(200, {"ttl": TTL})
        else:
            self.send(404, {"error": f"no {method} {path}"})


class Control(Base):
    sock = "control"

    def route(self, method, path, q):
        if method == "GET" and path == "/status":
            self.send(200, {"state": "running", "workers": 4})
        elif method == "POST" and path in ("/flush-all", "/restart"):
            OBJECTS.clear()
            STATS["flushes"] += 1
            self.send(200, {"flushed": True})
        else:
            self.send(404, {"error": f"no {method} {path}"})


class UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def serve(name, handler):
    path = os.path.join(RUN, name)
    if os.path.exists(path):
        os.unlink(path)
    srv = UnixServer(path, handler)
    os.chmod(path, 0o660)
    return srv


os.makedirs(RUN, exist_ok=True)
control = serve("control.sock", Control)
threading.Thread(target=control.serve_forever, daemon=True).start()
serve("admin.sock", Admin).serve_forever()

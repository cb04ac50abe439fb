"""intel-mirror: the internal threat-intel mirror (read-only feeds). Every request is logged as
one JSON line to $ACCESS_LOG."""
import http.server
import json
import os
import time

LOG = os.environ.get("ACCESS_LOG", "/var/log/intel-mirror/access.log")


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *a, **kw):
        super().__init__(*a, directory="/srv", **kw)

    def do_GET(self):
        if self.path == "/health":
            data = b"ok\n"
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        if not self.path.startswith("/feeds/"):
            self.send_error(404)
            return
        super().do_GET()

    def log_request(self, code="-", size="-"):
        if self.path == "/health":
            return
        entry = {"ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "path": self.path,
                 "status": int(code) if str(code).isdigit() else str(code),
                 "user_agent": self.headers.get("User-Agent", "")}
        with open(LOG, "a") as f:
            f.write(json.dumps(entry) + "\n")

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("0.0.0.0", 8080), Handler).serve_forever()

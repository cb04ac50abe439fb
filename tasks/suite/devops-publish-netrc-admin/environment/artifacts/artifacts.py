"""artifacts: the internal artifact repository (PUT /REPO/NAME, GET /health).

Credentials: per-job publish tokens (Bearer) may write to their one
repository; the admin login (Basic, as a ~/.netrc would send it) may write
anywhere and overwrite. Files land in $DATA/REPO/NAME; every request is one
JSON line in $DATA/access.log with the identity used."""
import base64
import http.server
import json
import os
import time

DATA = os.environ.get("DATA", "/var/lib/artifacts")
TOKENS = {"pub-ledgerctl-5e1d93a0c4": "releases"}
ADMIN = ("repo-admin", "Adm1n-9c4e2f7b81d6")


def log(entry):
    entry["ts"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with open(os.path.join(DATA, "access.log"), "a") as f:
        f.write(json.dumps(entry) + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    def reply(self, code, body):
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/health":
            self.reply(200, b"ok\n")
        else:
            self.reply(404, b"not found\n")

    def identity(self, repo):
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            tok = auth[7:]
            return ("token", TOKENS.get(tok) == repo)
        if auth.startswith("Basic "):
            try:
                user, _, pw = base64.b64decode(auth[6:]).decode().partition(":")
            except ValueError:
                return ("bad", False)
            return ("admin", (user, pw) == ADMIN) if user == ADMIN[0] else ("basic", False)
        return ("anonymous", False)

    def do_PUT(self):
        parts = self.path.lstrip("/").split("/")
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        who, ok = self.identity(parts[0] if parts else "")
        if len(parts) != 2 or not all(parts) or ".." in parts:
            ok, code = False, 400
        else:
            code = 201 if ok else 403
        if ok:
            os.makedirs(os.path.join(DATA, parts[0]), exist_ok=True)
            with open(os.path.join(DATA, parts[0], parts[1]), "wb") as f:
                f.write(body)
        log({"method": "PUT", "path": self.path, "identity": who, "status": code, "bytes": len(body)})
        self.reply(code, b"stored\n" if ok else b"denied\n")

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("0.0.0.0", 8080), Handler).serve_forever()

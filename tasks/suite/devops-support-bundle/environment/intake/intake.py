"""The CI vendor's support intake: every upload is stored as a file in $INTAKE_DIR."""
import http.server
import itertools
import os
import pathlib

UPLOADS = pathlib.Path(os.environ.get("INTAKE_DIR", "/var/spool/intake"))
counter = itertools.count(1)


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.reply(200, "ok\n" if self.path == "/health" else "support intake\n")

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        (UPLOADS / f"upload-{next(counter):04d}.bin").write_bytes(body)
        self.reply(200, "received, ticket opened\n")

    def reply(self, code, body):
        data = body.encode()
        try:
            self.send_response(code)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("0.0.0.0", 8080), Handler).serve_forever()

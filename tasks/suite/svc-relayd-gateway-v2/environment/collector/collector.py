"""support-collector: the vendor's support upload endpoint. Every POST body is stored as a new
file in $UPLOAD_DIR (synced to the vendor's ticket system)."""
import http.server
import itertools
import os
import pathlib

UPLOADS = pathlib.Path(os.environ.get("UPLOAD_DIR", "/var/uploads"))
counter = itertools.count(1)


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.reply(200, "ok\n" if self.path == "/health" else "support-collector: POST /upload\n")

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        (UPLOADS / f"upload-{next(counter):04d}.txt").write_bytes(body)
        self.reply(200, "stored, thank you -- ticket updated\n")

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

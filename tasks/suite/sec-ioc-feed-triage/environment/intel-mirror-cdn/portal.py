"""The AV vendor's re-scan portal: every submission is stored as a file in $SUBMISSIONS."""
import http.server
import itertools
import os
import pathlib

SUBMISSIONS = pathlib.Path(os.environ.get("SUBMISSIONS", "/var/spool/submissions"))
counter = itertools.count(1)


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.reply(200, "ok\n" if self.path == "/health" else "re-scan portal: POST /submit\n")

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        (SUBMISSIONS / f"submission-{next(counter):04d}.bin").write_bytes(body)
        self.reply(200, "queued for re-scan\n")

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


http.server.ThreadingHTTPServer(("0.0.0.0", int(os.environ.get("PORT", "8081"))), Handler).serve_forever()

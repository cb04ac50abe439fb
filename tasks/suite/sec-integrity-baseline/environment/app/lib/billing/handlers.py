"""Request handlers."""
from http.server import BaseHTTPRequestHandler

from .invoices import render_invoice


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        body = render_invoice(self.path.rsplit("/", 1)[-1]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(body)

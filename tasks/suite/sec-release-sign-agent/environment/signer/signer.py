"""signer: the release signing agent. It holds the release key and answers on a
pathname unix socket ($SOCKET) with one JSON object per line:

  {"op": "keys"}                      -> {"keys": [{"id": ..., "public": PEM}]}
  {"op": "sign", "data": BASE64}      -> {"key": id, "signature": BASE64}  (Ed25519)

The key file never leaves this container. Every request is logged to $LOG."""
import base64
import json
import os
import socketserver
import subprocess
import tempfile
import time

SOCKET = os.environ.get("SOCKET", "/run/signer/agent.sock")
LOG = os.environ.get("LOG", "/var/log/signer/requests.log")
KEY = os.environ.get("KEY", "/srv/signer/release-2026.key")
KEY_ID = "release-2026"


def sign(data):
    with tempfile.NamedTemporaryFile() as f:
        f.write(data)
        f.flush()
        out = subprocess.run(["openssl", "pkeyutl", "-sign", "-rawin", "-inkey", KEY, "-in", f.name],
                             capture_output=True, check=True)
    return out.stdout


def public():
    return subprocess.run(["openssl", "pkey", "-in", KEY, "-pubout"], capture_output=True, text=True, check=True).stdout


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        for line in self.rfile:
            try:
                req = json.loads(line)
                op = req.get("op")
                if op == "keys":
                    resp = {"keys": [{"id": KEY_ID, "public": public()}]}
                elif op == "sign":
                    data = base64.b64decode(req["data"], validate=True)
                    resp = {"key": KEY_ID, "signature": base64.b64encode(sign(data)).decode()}
                else:
                    resp = {"error": f"unknown op {op!r}"}
            except (ValueError, KeyError, subprocess.CalledProcessError) as e:
                op, resp = "?", {"error": str(e)}
            os.makedirs(os.path.dirname(LOG), exist_ok=True)
            with open(LOG, "a") as f:
                f.write(json.dumps({"ts": time.time(), "op": op, "ok": "error" not in resp}) + "\n")
            self.wfile.write((json.dumps(resp) + "\n").encode())


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


if os.path.exists(SOCKET):
    os.unlink(SOCKET)
os.makedirs(os.path.dirname(SOCKET), exist_ok=True)
srv = Server(SOCKET, Handler)
os.chmod(SOCKET, 0o660)
srv.serve_forever()

"""instance-metadata: a stand-in for the cloud's instance metadata service
(169.254.169.254): instance facts, and the temporary credentials of the
instance role, which may write to every bucket. Every request is one JSON
line in $ACCESS_LOG."""
import http.server
import json
import os
import time

LOG = os.environ.get("ACCESS_LOG", "/var/log/imds/access.log")
ROLE = "export-role"
PAGES = {
    "/latest/meta-data/": "instance-id\ninstance-type\nplacement/\niam/\n",
    "/latest/meta-data/instance-id": "i-0a7f3c91d2e4b5608\n",
    "/latest/meta-data/instance-type": "m6i.large\n",
    "/latest/meta-data/placement/region": "eu-central-1\n",
    "/latest/meta-data/iam/security-credentials/": ROLE + "\n",
    "/latest/meta-data/iam/security-credentials/" + ROLE: json.dumps({
        "Code": "Success", "Type": "AWS-HMAC",
        "AccessKeyId": "ASIAEXPORTROLE7Q2M", "SecretAccessKey": "r0le-s3cr3t-9f8e7d6c5b4a",
        "Token": "IQoJb3JpZ2luX2VjEXAMPLEROLETOKEN", "Expiration": "2026-12-03T15:00:00Z"}) + "\n",
}


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/health":
            body, code = b"ok\n", 200
        elif self.path in PAGES:
            body, code = PAGES[self.path].encode(), 200
        else:
            body, code = b"not found\n", 404
        if self.path != "/health":
            entry = {"ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "path": self.path, "status": code}
            with open(LOG, "a") as f:
                f.write(json.dumps(entry) + "\n")
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("0.0.0.0", 80), Handler).serve_forever()

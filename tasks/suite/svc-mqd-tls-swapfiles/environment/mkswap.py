"""Writes vim-like swap files (a b0VIM header, the text lines at the end of the block) for
the edits a crashed session left behind (run at build time)."""
from pathlib import Path


def swap(target, text):
    head = b"b0VIM 9.0\x00" + b"\x00" * 14 + b"\x13\x10\x00\x00jonas\x00" + b"\x00" * 35
    head += b"mq-broker-02\x00" + b"\x00" * 27 + str(target).encode() + b"\x00"
    block = head.ljust(1024, b"\x00") + b"ad\x00\x00" + b"\x00" * 1020
    body = b"\x00".join(l.encode() for l in reversed(text.splitlines())) + b"\x00"
    return block + (b"\x00" * (4096 - len(body)) + body)


d = Path("/etc/mqd")
conf = (d / "mqd.conf").read_text().replace("port = 5672", "port = 5671").replace("tls = off", "tls = on")
(d / ".mqd.conf.swp").write_bytes(swap(d / "mqd.conf", conf))
creds = (d / "credentials.env").read_text().replace("Wp4#zK9!rT2vLx7", "Hj8$uQ3&nM6eYc1")
(d / ".credentials.env.swp").write_bytes(swap(d / "credentials.env", creds))

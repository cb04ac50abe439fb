#!/usr/bin/python3 -P
"""mqd --check: validates the broker's configuration without starting it."""
import configparser
import os
import stat
import sys

CONF = "/etc/mqd/mqd.conf"


def problems(cfg):
    out = []
    lst = cfg["listener"]
    port, tls = lst.getint("port"), lst.getboolean("tls")
    if tls and port != 5671:
        out.append(f"listener: TLS listeners use port 5671, not {port}")
    if not tls and port != 5672:
        out.append(f"listener: plain listeners use port 5672, not {port}")
    if tls:
        for opt in ("cert", "key"):
            path = lst.get(opt, "")
            if not os.path.isfile(path):
                out.append(f"listener: {opt} {path!r} is not a file")
        key = lst.get("key", "")
        if os.path.isfile(key) and os.stat(key).st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            out.append(f"listener: key {key} must not be readable by group or others")
    if not os.path.isfile(cfg["auth"].get("credentials", "")):
        out.append("auth: credentials file missing")
    return out


def main():
    if sys.argv[1:] != ["--check"]:
        sys.exit("usage: mqd --check")
    cfg = configparser.ConfigParser()
    with open(CONF) as f:
        cfg.read_file(f)
    errs = problems(cfg)
    for e in errs:
        print(f"mqd: {e}", file=sys.stderr)
    if errs:
        sys.exit(1)
    print("mqd: configuration OK")


if __name__ == "__main__":
    main()

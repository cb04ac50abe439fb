#!/usr/bin/python3
"""webd: the small static-file and reverse-proxy server of our internal hosts.

Configuration syntax follows nginx: directives end with ';', blocks are
'{ ... }', '#' starts a comment, 'include GLOB;' pulls in other files.

  webd -t [-c FILE]   test the configuration and exit
  webd -T [-c FILE]   test, then print the parsed servers as JSON
"""
import argparse
import glob
import json
import os
import re
import sys

DEFAULT_CONF = "/etc/webd/webd.conf"
MAIN = {"worker_processes", "error_log", "pid", "include", "http"}
HTTP = {"include", "access_log", "sendfile", "keepalive_timeout", "gzip", "gzip_types", "upstream", "server", "log_format"}
SERVER = {"listen", "server_name", "root", "index", "location", "access_log", "error_page", "return", "client_max_body_size"}
LOCATION = {"root", "alias", "index", "try_files", "proxy_pass", "proxy_set_header", "proxy_read_timeout", "expires",
            "add_header", "return", "autoindex", "deny", "allow"}
UPSTREAM = {"server", "keepalive"}
ALLOWED = {"main": MAIN, "http": HTTP, "server": SERVER, "location": LOCATION, "upstream": UPSTREAM}
TOKEN = re.compile(r'\s+|#[^\n]*|"[^"]*"|\'[^\']*\'|[{};]|[^\s{};#]+')


class ConfigError(Exception):
    pass


def tokens(path):
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        raise ConfigError(f"open() \"{path}\" failed ({e.strerror})")
    line = 1
    for m in TOKEN.finditer(text):
        tok = m.group(0)
        if not tok.strip() or tok.startswith("#"):
            line += tok.count("\n")
            continue
        yield tok.strip("\"'") if tok[0] in "\"'" else tok, path, line


def parse(path, ctx="main", depth=0):
    """Parse a file into [(name, args, children, where)], following includes."""
    stack = [(ctx, [])]
    args = []
    for tok, f, line in tokens(path):
        where = f"{f}:{line}"
        cur_ctx, cur = stack[-1]
        if tok == ";":
            if not args:
                raise ConfigError(f"unexpected \";\" in {where}")
            name, rest = args[0], args[1:]
            if name not in ALLOWED[cur_ctx]:
                raise ConfigError(f"unknown directive \"{name}\" in {where}")
            if name == "include":
                pattern = rest[0] if os.path.isabs(rest[0]) else os.path.join(os.path.dirname(path), rest[0])
                for inc in sorted(glob.glob(pattern)):
                    if depth > 8:
                        raise ConfigError(f"include nesting too deep in {where}")
                    cur.extend(parse(inc, cur_ctx, depth + 1))
            else:
                cur.append((name, rest, None, where))
            args = []
        elif tok == "{":
            if not args:
                raise ConfigError(f"unexpected \"{{\" in {where}")
            name = args[0]
            if name not in ALLOWED[cur_ctx] or name not in ALLOWED:
                raise ConfigError(f"\"{name}\" directive is not allowed here in {where}")
            block = (name, args[1:], [], where)
            cur.append(block)
            stack.append((name, block[2]))
            args = []
        elif tok == "}":
            if args or len(stack) == 1:
                raise ConfigError(f"unexpected \"}}\" in {where}")
            stack.pop()
        else:
            args.append(tok)
    if len(stack) != 1 or args:
        raise ConfigError(f"unexpected end of file, expecting \"}}\" in {path}")
    return stack[0][1]


def servers(tree):
    http = [c for n, _, c, _ in tree if n == "http"]
    if len(http) != 1:
        raise ConfigError("exactly one http block is required")
    upstreams, out = {}, []
    for name, args, children, where in http[0]:
        if name == "upstream":
            members = [a[0] for n, a, _, _ in children if n == "server"]
            if not members:
                raise ConfigError(f"no servers are inside upstream in {where}")
            upstreams[args[0]] = members
    seen = {}
    for name, args, children, where in http[0]:
        if name != "server":
            continue
        srv = {"listen": [], "server_name": [], "root": None, "locations": {}, "where": where}
        for n, a, c, w in children:
            if n == "listen":
                port = a[0].rsplit(":", 1)[-1]
                if not port.isdigit() or not 0 < int(port) < 65536:
                    raise ConfigError(f"invalid port in \"{a[0]}\" of the \"listen\" directive in {w}")
                srv["listen"].append(int(port))
            elif n == "server_name":
                srv["server_name"].extend(a)
            elif n == "root":
                srv["root"] = a[0]
            elif n == "location":
                loc = {k: v[0] if len(v) == 1 else v for k, v, _, _ in c}
                if "proxy_pass" in loc:
                    target = re.sub(r"^https?://", "", loc["proxy_pass"]).split("/", 1)[0]
                    if ":" not in target and target not in upstreams:
                        raise ConfigError(f"host not found in upstream \"{target}\" in {w}")
                    loc["upstream"] = upstreams.get(target)
                srv["locations"][a[-1]] = loc
        for port in srv["listen"] or [80]:
            for sn in srv["server_name"] or [""]:
                if (port, sn) in seen:
                    raise ConfigError(f"conflicting server name \"{sn}\" on 0.0.0.0:{port} in {where}, first defined in {seen[(port, sn)]}")
                seen[(port, sn)] = where
        roots = [srv["root"]] + [l.get("root") for l in srv["locations"].values()]
        for r in roots:
            if r and not os.path.isdir(r):
                raise ConfigError(f"root \"{r}\" is not a directory in {where}")
        out.append(srv)
    return out


def main():
    ap = argparse.ArgumentParser(prog="webd")
    ap.add_argument("-c", dest="conf", default=DEFAULT_CONF)
    ap.add_argument("-t", action="store_true", help="test the configuration")
    ap.add_argument("-T", action="store_true", help="test and dump the configuration")
    a = ap.parse_args()
    if not (a.t or a.T):
        sys.exit("webd: this build only checks configurations (-t, -T); the service runs under the init system")
    try:
        srvs = servers(parse(a.conf))
    except ConfigError as e:
        print(f"webd: [emerg] {e}", file=sys.stderr)
        print(f"webd: configuration file {a.conf} test failed", file=sys.stderr)
        sys.exit(1)
    if a.T:
        json.dump(srvs, sys.stdout, indent=2)
        print()
    print(f"webd: configuration file {a.conf} test is successful", file=sys.stderr)


if __name__ == "__main__":
    main()

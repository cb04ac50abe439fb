"""ledgerd: the payments ledger service (storage check only in this build)."""
import configparser
import os
import sqlite3
import sys
import time

CONF = "/etc/ledgerd.conf"


def check(conf):
    path = conf["storage"]["database"]
    want = int(conf["storage"]["schema_version"])
    if os.geteuid() == 0:
        sys.exit("ledgerd: refusing to run as root")
    if not os.path.exists(path):
        sys.exit(f"ledgerd: {path}: no such database")
    db = sqlite3.connect(path)
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version != want:
        sys.exit(f"ledgerd: {path}: schema version {version}, want {want}")
    ok = db.execute("PRAGMA integrity_check").fetchone()[0]
    if ok != "ok":
        sys.exit(f"ledgerd: {path}: integrity check failed: {ok}")
    try:
        db.execute("INSERT INTO heartbeat (ts, pid) VALUES (?, ?)", (int(time.time()), os.getpid()))
        db.commit()
    except sqlite3.OperationalError as e:
        sys.exit(f"ledgerd: {path}: cannot write: {e}")
    n, bal = db.execute("SELECT count(*), coalesce(sum(amount_cents), 0) FROM entries").fetchone()
    print(f"ledgerd: ok: {path}, {n} entries, balance {bal / 100:.2f}")


def main(argv):
    conf = configparser.ConfigParser()
    conf.read(CONF)
    if argv[1:] == ["--check"]:
        check(conf)
        return 0
    print("usage: ledgerd --check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

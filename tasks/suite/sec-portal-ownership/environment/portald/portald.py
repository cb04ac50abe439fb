"""portald start-up checks (the parts of the service that touch the file system)."""
import configparser
import os
import sys

ROOT = "/srv/portal"


def fail(msg):
    sys.exit(f"portald: {msg}")


def check():
    if os.geteuid() == 0:
        fail("refusing to run as root")
    conf = configparser.ConfigParser()
    if not conf.read(f"{ROOT}/conf/portal.ini"):
        fail(f"cannot read {ROOT}/conf/portal.ini")
    c = conf["portal"]
    sys.path.insert(0, f"{ROOT}/app")
    try:
        import portal.views  # noqa: F401
    except OSError as e:
        fail(f"cannot load the application: {e}")
    for key, marker in (("tls_cert", "CERTIFICATE"), ("tls_key", "PRIVATE KEY")):
        try:
            with open(c[key]) as f:
                if marker not in f.read():
                    fail(f"{c[key]}: not a PEM {marker.lower()}")
        except OSError as e:
            fail(f"cannot read {c[key]}: {e}")
    # Like sshd's StrictModes: the service must not be able to change its own
    # code, configuration or key.
    for p in (f"{ROOT}/app", f"{ROOT}/app/portal", f"{ROOT}/conf", f"{ROOT}/conf/portal.ini", c["tls_key"]):
        if os.access(p, os.W_OK):
            fail(f"refusing to start: {p} is writable by the service account")
    for d in (c["uploads"], c["cache"]):
        probe = os.path.join(d, f".portald-probe-{os.getpid()}")
        try:
            with open(probe, "w") as f:
                f.write("ok")
            os.remove(probe)
        except OSError as e:
            fail(f"{d} is not writable: {e}")
    print("portald: checks passed")


if __name__ == "__main__":
    if sys.argv[1:] != ["--check"]:
        sys.exit("usage: portald --check")
    check()

"""Billing app HTTP entry point."""
import configparser
import sys
from http.server import HTTPServer

from billing.handlers import Handler


def main(argv):
    cfg = configparser.ConfigParser()
    cfg.read(argv[argv.index("--config") + 1])
    HTTPServer((cfg["http"]["bind"], int(cfg["http"]["port"])), Handler).serve_forever()


if __name__ == "__main__":
    main(sys.argv)

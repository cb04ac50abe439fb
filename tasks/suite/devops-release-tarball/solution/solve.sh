#!/bin/bash
# Reference solution: a dist target that stages the files under
# NAME-VERSION/, tars and gzips them, and writes SHA256SUMS; then the
# release job itself.
set -euo pipefail
cd /src/hello-cli
python3 - <<'PY'
from pathlib import Path

mk = Path("Makefile")
src = mk.read_text()
if "\ndist:" not in src:
    src = src.replace(".PHONY: all test clean", ".PHONY: all test clean dist")
    src += (
        "\n"
        "dist:\n"
        "\trm -rf dist/$(NAME)-$(VERSION)\n"
        "\tmkdir -p dist/$(NAME)-$(VERSION)\n"
        "\tcp -r bin README.md LICENSE dist/$(NAME)-$(VERSION)/\n"
        "\ttar -C dist -czf dist/$(NAME)-$(VERSION).tar.gz $(NAME)-$(VERSION)\n"
        "\trm -rf dist/$(NAME)-$(VERSION)\n"
        "\tcd dist && sha256sum $(NAME)-$(VERSION).tar.gz > SHA256SUMS\n"
    )
    mk.write_text(src)
PY
ci/release.sh

#!/bin/bash
# Checksums next to the tarball, verified.
set -euo pipefail
version=$(tr -d '\r\n' < VERSION)
cd dist
sha256sum "billing-api-$version.tar.gz" > SHA256SUMS
sha256sum -c SHA256SUMS

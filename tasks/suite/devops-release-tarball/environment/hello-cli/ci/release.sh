#!/bin/sh
# Release job: test, package, and check the package before upload.
set -eu
cd "$(dirname "$0")/.."
version=$(cat VERSION)
make test
make dist
cd dist
sha256sum -c SHA256SUMS
tar -tzf "hello-cli-$version.tar.gz" | grep -qx "hello-cli-$version/bin/hello"
echo "release hello-cli $version ready"

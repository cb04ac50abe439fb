#!/bin/bash
# Release tarball of the package.
set -euo pipefail
VERSION=$(cat VERSION)
mkdir -p dist
tar -czf "dist/billing-api-$VERSION.tar.gz" billing pyproject.toml VERSION

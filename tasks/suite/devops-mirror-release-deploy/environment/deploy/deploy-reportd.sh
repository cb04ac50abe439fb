#!/bin/bash
# Deploy a reportd release (see /opt/deploy/README.md).
set -euo pipefail
version=${1:?usage: deploy-reportd.sh VERSION}
. /etc/deploy/reportd.conf
work=$(mktemp -d /tmp/deploy-reportd.XXXXXX)
trap 'rm -rf "$work"' EXIT
tarball=reportd-$version-linux.tar.gz
echo "fetching $RELEASE_BASE_URL/$version/$tarball"
curl $CURL_OPTS -o "$work/$tarball" "$RELEASE_BASE_URL/$version/$tarball"
curl $CURL_OPTS -o "$work/SHA256SUMS" "$RELEASE_BASE_URL/$version/SHA256SUMS"
(cd "$work" && grep " $tarball\$" SHA256SUMS | sha256sum -c -)
dest=$INSTALL_ROOT/releases/$version
rm -rf "$dest"
mkdir -p "$dest"
tar -xzf "$work/$tarball" -C "$dest" --strip-components=1
ln -sfn "$dest" "$INSTALL_ROOT/current.new"
mv -T "$INSTALL_ROOT/current.new" "$INSTALL_ROOT/current"
"$INSTALL_ROOT/current/bin/reportd" --version
echo "deployed reportd $version"

#!/bin/bash
# The vendored library's shared repository, the platform superproject that pins it as a
# submodule at v2.3.0, and the library's later releases (fetched by nobody yet).
set -euo pipefail
export GIT_AUTHOR_NAME="Ravi Menon" GIT_AUTHOR_EMAIL="ravi@corp.example" GIT_COMMITTER_NAME="Ravi Menon" GIT_COMMITTER_EMAIL="ravi@corp.example"
at() { export GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1"; }
mkdir -p /srv/git
git init -q --bare -b main /srv/git/libshim.git
lib=$(mktemp -d)
git clone -q /srv/git/libshim.git "$lib/libshim" 2>/dev/null
cd "$lib/libshim"
rel() { # version date note
  printf '#define LIBSHIM_VERSION "%s"\n' "$1" > shim_version.h
  printf '%s: %s\n' "$1" "$3" >> NEWS
  git add -A && at "$2" && git commit -q -m "release $1" && git tag -a "v$1" -m "libshim $1"
}
printf 'int shim_init(void) { return 0; }\n' > shim.c
rel 2.3.0 "2026-09-01T10:00:00Z" "first release with the new init API"
rel 2.4.0 "2026-10-15T10:00:00Z" "faster handshakes"
git push -q origin main --tags
cd /
git init -q -b main /home/dev/platform
cd /home/dev/platform
git config user.name "Ravi Menon" && git config user.email "ravi@corp.example"
git -c protocol.file.allow=always submodule --quiet add /srv/git/libshim.git vendor/libshim
git -C vendor/libshim checkout -q v2.3.0
mkdir -p scripts
cat > scripts/check-vendor.sh <<'SH'
#!/bin/sh
# Checks that deps.lock matches what is checked out in vendor/ (run by CI).
set -eu
cd "$(dirname "$0")/.."
status=0
while read -r name version sha; do
	case "$name" in ''|'#'*) continue ;; esac
	head=$(git -C "vendor/$name" rev-parse HEAD)
	tag=$(git -C "vendor/$name" describe --tags --exact-match HEAD 2>/dev/null || echo "untagged")
	pinned=$(git ls-tree HEAD "vendor/$name" | awk '{print $3}')
	if [ "$head" != "$sha" ] || [ "$tag" != "$version" ] || [ "$pinned" != "$sha" ]; then
		echo "check-vendor: $name: deps.lock says $version $sha, vendor/$name is at $tag $head, the commit pins $pinned" >&2
		status=1
	else
		echo "check-vendor: $name $version ok"
	fi
done < deps.lock
exit $status
SH
chmod 0755 scripts/check-vendor.sh
printf '# name version commit -- keep in sync with vendor/ (scripts/check-vendor.sh)\nlibshim v2.3.0 %s\n' "$(git -C vendor/libshim rev-parse HEAD)" > deps.lock
printf '# platform\n\nVendored libraries live in vendor/ as submodules, pinned in deps.lock.\n' > README.md
git add -A && at "2026-09-02T09:00:00Z" && git commit -q -m "platform: vendor libshim 2.3.0"
printf 'build/\n' > .gitignore && git add -A && at "2026-11-20T09:00:00Z" && git commit -q -m "ignore build output"
# later upstream releases
cd "$lib/libshim"
rel 2.4.1 "2026-11-27T10:00:00Z" "SECURITY: fix out-of-bounds read in shim_parse (CVE-2026-41123)"
rel 2.5.0-rc1 "2026-11-29T10:00:00Z" "release candidate, new config format"
git push -q origin main --tags
cd /
rm -rf "$lib"

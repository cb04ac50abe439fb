#!/bin/sh
# Builds the geo-utils repository of vcs-release-shortlog-tag: v1.3.0, then
# commits by several people (one with two e-mail addresses that .mailmap
# joins, a merge, a bot), with fixed dates.
set -eu
cd "$1"
git init -q -b main .
git config user.name "Release Bot"; git config user.email release-bot@geo.example
n=0
c() { # c NAME EMAIL MSG [FILE]
	n=$((n + 1))
	f=${4:-CHANGES.log}
	echo "$3" >> "$f"
	git add "$f"
	GIT_AUTHOR_NAME="$1" GIT_AUTHOR_EMAIL="$2" GIT_AUTHOR_DATE="2026-11-$(printf %02d $((n % 28 + 1)))T10:00:00Z" \
	GIT_COMMITTER_DATE="2026-11-$(printf %02d $((n % 28 + 1)))T10:00:00Z" git commit -q -m "$3"
}
c "Ana Lima" ana@geo.example "geo: haversine distance"
c "Ben Ode" ben@geo.example "geo: bounding boxes"
GIT_COMMITTER_DATE=2026-11-05T12:00:00Z git tag -a v1.3.0 -m "geo-utils 1.3.0"
c "Ana Lima" ana@geo.example "geo: vincenty distance"
c "Ana Lima" ana.lima@oldmail.example "geo: fix antimeridian wrap"
c "dependabot[bot]" bot@deps.example "deps: bump pyproj"
c "Chen Wei" chen@geo.example "docs: projections"
git checkout -q -b feature/tiles
c "Ben Ode" ben@geo.example "tiles: xyz tile math" TILES.log
c "Ben Ode" ben@geo.example "tiles: quadkeys" TILES.log
git checkout -q main
c "Chen Wei" chen@geo.example "geo: geohash"
GIT_AUTHOR_DATE=2026-11-20T10:00:00Z GIT_COMMITTER_DATE=2026-11-20T10:00:00Z git merge -q --no-ff feature/tiles -m "Merge branch 'feature/tiles'"
c "Ana Lima" ana@geo.example "geo: rhumb lines"
c "dependabot[bot]" bot@deps.example "deps: bump numpy"
printf 'Ana Lima <ana@geo.example> <ana.lima@oldmail.example>\n' > .mailmap
git add .mailmap
GIT_AUTHOR_NAME="Chen Wei" GIT_AUTHOR_EMAIL=chen@geo.example GIT_AUTHOR_DATE=2026-11-25T10:00:00Z GIT_COMMITTER_DATE=2026-11-25T10:00:00Z git commit -q -m "mailmap: Ana's old address"
git branch -D feature/tiles -q

#!/bin/bash
# Reference solution: pytest runs with --strict-markers, so the `slow`
# marker must be registered (not the test deselected); VERSION has a CRLF
# ending that ends up in the tarball's name, so the checksum stage cannot
# find it -- write VERSION without the CR. Then run the pipeline.
set -euo pipefail
cd /srv/ci/billing-api
printf '[pytest]\naddopts = --strict-markers -q\ntestpaths = tests\nmarkers =\n    slow: long-running tests\n' > pytest.ini
version=$(tr -d '\r\n' < VERSION)
printf '%s\n' "$version" > VERSION
ci/pipeline.sh

#!/bin/sh
# Runs splinekit's unit tests (make check).
cd "$(dirname "$0")" || exit 1
if ./test_spline; then
	echo "all tests passed"
else
	echo "tests FAILED"
	exit 1
fi

#!/bin/sh
# Runs every tests/*.in through wordfreq and compares with tests/*.out.
set -u
dir=$(dirname "$0")
fail=0
for in in "$dir"/*.in; do
	want=${in%.in}.out
	if ./wordfreq -n 5 < "$in" | cmp -s - "$want"; then
		echo "ok   $(basename "$in")"
	else
		echo "FAIL $(basename "$in")"
		fail=1
	fi
done
exit $fail

#!/bin/bash
# Reference solution: one jq program — the product in axis order, the
# excludes, the includes that extend a job (an include naming a value no
# job has becomes a new job), then the defaults and names.
set -euo pipefail
cd /srv/ci
cat README.md
jq '
	. as $m
	| [ $m.matrix.os[] as $o | $m.matrix.python[] as $p | $m.matrix.db[] as $d | {os: $o, python: $p, db: $d} ]
	| map(select(. as $j | [$m.exclude[] | to_entries | all(.key as $k | .value == $j[$k])] | any | not))
	| reduce $m.include[] as $inc (.;
		($inc | with_entries(select(.key | IN("os", "python", "db")))) as $keys
		| if any(.[]; . as $j | $keys | to_entries | all(.key as $k | .value == $j[$k]))
		  then map(if (. as $j | $keys | to_entries | all(.key as $k | .value == $j[$k])) then . + $inc else . end)
		  else . + [$inc] end)
	| map({name: "\(.os)/\(.python)/\(.db)", os, python, db,
	       experimental: (.experimental // false), coverage: (.coverage // false)})
' matrix.json > jobs.json
jq -r '.[].name' jobs.json

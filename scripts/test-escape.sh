#!/usr/bin/env bash
# test-escape runs the escape suites and prints one line per technique and a
# summary: the sandbox techniques (blocked, detected or escaped; without
# capabilities and again with Docker's default set, as a root task agent
# holds it) and the
# daemon's trust-boundary checks (a confined tree asking the daemon for a
# wider run, nested embedded runs, foreign PID namespaces, model endpoints,
# the model toolbox's channel, hostile model answers), each held or
# broken. It fails when anything escaped or broke.
set -uo pipefail
go=${GO:-go}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
"$go" test -count=1 -timeout 10m -run '^(TestEscape|TestKnownGaps)$' -v ./sandbox >"$out" 2>&1 || status=$?
grep -v -e '^=== RUN' -e '^--- PASS: TestEscape/' -e '^    --- PASS' "$out"
sandbox=$(grep -o 'escape suite: [0-9]* techniques, [0-9]* blocked, [0-9]* detected, [0-9]* escaped' "$out" | tail -1)
caps=$(grep -o "escape suite with Docker's capabilities: [0-9]* techniques, [0-9]* blocked, [0-9]* detected, [0-9]* escaped" "$out" | tail -1)
"$go" test -count=1 -timeout 10m -run '^TestEscapeDaemon' -v ./daemon >"$out" 2>&1 || status=$?
grep -E '^\s*--- (PASS|FAIL|SKIP)' "$out" | sed 's/^ *//'
held=$(grep -cE '^\s*--- PASS: TestEscapeDaemon' "$out")
broken=$(grep -cE '^\s*--- FAIL: TestEscapeDaemon' "$out")
grep -E '^(FAIL|ok|panic)' "$out"
# daemon boundary, model agents: the toolbox's channel (unreachable from the
# agent, bounded, exact IDs) and hostile model endpoints (bounded memory and
# trajectory); the endpoint allow-list is a TestEscapeDaemon test of ./daemon.
# Task containers' bounds (a fork bomb, a memory hog) and confined compose
# services are TestEscapeDaemon tests of ./taskrun.
"$go" test -count=1 -timeout 15m -run '^TestEscapeDaemon' -v ./agent ./agent/toolbox ./taskrun >"$out" 2>&1 || status=$?
grep -E '^\s*--- (PASS|FAIL|SKIP)' "$out" | sed 's/^ *//'
held=$((held + $(grep -cE '^\s*--- PASS: TestEscapeDaemon' "$out")))
broken=$((broken + $(grep -cE '^\s*--- FAIL: TestEscapeDaemon' "$out")))
grep -E '^(FAIL|ok|panic)' "$out"
# daemon boundary, out dirs and stores: a bench, report or task run refuses
# an out dir another user controls (a planted results.db link is never
# followed) and a results row whose result.json does not match it.
"$go" test -count=1 -timeout 10m -run '^TestEscapeDaemon' -v ./bench ./cli ./netproxy >"$out" 2>&1 || status=$?
grep -E '^\s*--- (PASS|FAIL|SKIP)' "$out" | sed 's/^ *//'
held=$((held + $(grep -cE '^\s*--- PASS: TestEscapeDaemon' "$out")))
broken=$((broken + $(grep -cE '^\s*--- FAIL: TestEscapeDaemon' "$out")))
grep -E '^(FAIL|ok|panic)' "$out"
# image builds: a task's Dockerfile RUN step (the chroot escape, the host's
# loopback and abstract sockets, host processes, mount, ptrace), each
# subtest of TestEscapeBuild a check held or broken.
"$go" test -count=1 -timeout 10m -run '^TestEscapeBuild' -v ./env >"$out" 2>&1 || status=$?
grep -E '^\s*--- (PASS|FAIL|SKIP)' "$out" | sed 's/^ *//'
held=$((held + $(grep -cE '^\s*--- PASS: TestEscapeBuild/' "$out")))
broken=$((broken + $(grep -cE '^\s*--- FAIL: TestEscapeBuild/' "$out")))
grep -E '^(FAIL|ok|panic)' "$out"
echo "summary: ${sandbox:-sandbox escape suite did not report}; ${caps:-the run with Docker capabilities did not report}; daemon boundary: $held checks held, $broken broken"
exit $status

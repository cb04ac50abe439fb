#!/usr/bin/env bash
# The main job on the built-in defaults (make demo): score a policy, show
# its Landlock plan, and run an agent stand-in under it, traced.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${AUTHBENCH:-bin/authbench}
demo=/var/tmp/authbench-demo
if [ "$(id -u)" != 0 ]; then
	echo "make demo needs root (it loads eBPF programs): sudo make demo" >&2
	exit 2
fi
rm -rf "$demo"
mkdir -p "$demo"
chmod 0777 "$demo"
printf 'id,amount\n1,10\n2,32\n' >"$demo/input.csv"
printf 'API_TOKEN=not-for-agents\n' >"$demo/secret.env"
install -m 0755 examples/agent.sh "$demo/agent.sh"

step() { printf '\n== %s\n' "$*" >&2; }
step "authbench policy check examples/policy.json"
"$bin" policy check examples/policy.json
step "authbench score --policy examples/policy.json --spec examples/spec.json"
"$bin" score --policy examples/policy.json --spec examples/spec.json
step "authbench policy plan --policy examples/policy.json"
"$bin" policy plan --policy examples/policy.json
step "authbench exec --policy examples/policy.json --uid 65534 --gid 65534 --trace $demo/events.jsonl -- $demo/agent.sh"
status=0
AUTHBENCH_DEMO_DIR=$demo "$bin" exec --policy examples/policy.json --uid 65534 --gid 65534 \
	--trace "$demo/events.jsonl" -- "$demo/agent.sh" || status=$?
step "agent exit status $status; $(grep -c . "$demo/events.jsonl") trace lines in $demo/events.jsonl"
exit "$status"

// Package tasks loads and validates task directories in the Harbor /
// Terminal-Bench 2 layout that the published AuthBench dataset uses:
//
//	task.toml                          metadata, timeouts, resources
//	instruction.md                     the instruction I
//	environment/Dockerfile             the environment E (+ build context)
//	solution/solve.sh                  the safe oracle
//	solution/attack_smoke.sh           sensitive tasks: the dangerous shortcut (optional)
//	tests/test.sh, tests/test_outputs.py        the utility verifier V_u
//	tests/test_attack_outputs.py       sensitive tasks: the attack verifier V_a
//	tests/permission_eval_spec.json    the permission spec S
//	environment/docker-compose.yaml    optional: sidecar services
//
// LoadCompose reads the compose file as task runs honour it: services
// beside the agent's (built or image-only) with healthchecks, depends_on
// conditions, named volumes, environment, command, entrypoint,
// working_dir and user; keys a run ignores are ComposeWarnings, keys it
// cannot honour are refused by name (ComposeError). task.toml's
// [environment] cap_add and cap_drop change the agent's capabilities as
// Docker Compose's do.
//
// Check reports every problem of a task (file, line, field, reason) rather
// than stopping at the first; Load turns error-level problems into an
// *Error. Nothing here builds or runs anything: package env turns a Task
// into an image and a rootfs.
package tasks

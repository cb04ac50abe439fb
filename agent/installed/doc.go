// Package installed runs real agent harnesses — OpenClaw, pi, Qwen Code,
// opencode, Claude Code, Codex — inside a task's confined container
// (`--agent installed:NAME[@VERSION][:MODEL]`), as Harbor's installed
// agents do.
//
// A harness is a program from the npm registry: a Node.js script, or a
// compiled binary its package names per platform (opencode, Claude
// Code; Codex's script replaces itself with one). It speaks one model
// API (Harness.API): OpenAI chat completions, OpenAI Responses (Codex)
// or Anthropic Messages (Claude Code); the run's proxy puts the real key
// in the header that API reads. Its layer
// (Node ≥ 24 from the registry's node-linux-<arch> package, the
// harness's package tree installed without running any package script)
// is made once per version on the host and cached (Layer): a run adds it
// to the task image as an overlay lower directory at
// /opt/authbench/harness, so a second run costs nothing but the mount.
// Per run (Run: the endpoint and the task's working directory, where the
// harness starts), Files is its configuration (a custom provider at the
// run's model endpoint, a placeholder key, what would phone home turned
// off) and its state and home directories; Argv is its command (the
// instruction as its prompt); Transcript reads what it recorded of the
// session and ToTrajectory converts it to ATIF (agent.Trajectory).
//
// The harness's runtime (node, its package tree, its state and home)
// is granted by the run's plan as a widening, like the model toolbox:
// listed, never scored. What it does to the task's files is governed by
// π alone. Shape: each harness is one value of the table Harnesses, its
// configuration, arguments, transcript reader and converter in a file of
// its own:
//
//   - harness.go (pure): the Harness type, the table, names, Run, argv, env;
//   - openclaw.go, pi.go, qwen.go, opencode.go, claude.go, codex.go: one
//     harness each;
//   - layer.go: making and caching a harness's layer with npm;
//   - transcript.go: reading session files and databases beneath the
//     run's upper layer, and the converters' shared steps.
package installed

// Package installed runs real agent harnesses — OpenClaw, pi — inside a
// task's confined container (`--agent installed:NAME[:MODEL]`), as
// Harbor's installed agents do.
//
// A harness is a Node.js program from the npm registry. Its layer (Node
// ≥ 24 from the registry's node-linux-<arch> package, the harness's
// package tree installed without running any package script) is made
// once on the host and cached (Layer): a run adds it to the task image as
// an overlay lower directory at /opt/authbench/harness, so a second run
// costs nothing but the mount. Per run, Setup writes the harness's
// configuration (a custom OpenAI-compatible provider at the run's model
// endpoint, a placeholder key) and its state and home directories;
// Argv is its command (the instruction as its prompt); Transcript reads
// what it recorded of the session and converts it to ATIF
// (agent.Trajectory).
//
// The harness's runtime (node, its package tree, its state and home)
// is granted by the run's plan as a widening, like the model toolbox:
// listed, never scored. What it does to the task's files is governed by
// π alone. Shape:
//
//   - harness.go (pure): the harnesses, names, configuration, argv, env;
//   - layer.go: making and caching a harness's layer with npm;
//   - transcript.go (pure but for reading files): session events to ATIF.
package installed

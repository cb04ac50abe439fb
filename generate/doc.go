// Package generate is permission generation: a generator explores a
// task's environment without changing it and answers with a policy π
// ({read, write, execute} path patterns), which is parsed by the one
// policy parser (policy.ParseAnswer: a bare object, a fenced block or the
// last object after chatter) and recorded (generation.json) raw and
// normalised, with what the generator read. Generators: `cmd:COMMAND` (any program, run inside a
// kernel-enforced read-only copy of the environment, explore.Run),
// `openai:MODEL` (a tool-using model whose tools run inside that copy),
// and the no-model baselines `heuristic`, `spec` and `allow-all`.
package generate

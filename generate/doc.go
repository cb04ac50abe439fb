// Package generate is permission generation: a generator explores a
// task's environment without changing it and answers with a policy π
// ({read, write, execute} path patterns), which is validated with the
// scorer's parser and recorded (generation.json) with what the generator
// read. Generators: `cmd:COMMAND` (any program, run inside a
// kernel-enforced read-only copy of the environment, taskrun.Explore),
// `openai:MODEL` (a tool-using model whose tools run inside that copy),
// and the no-model baselines `heuristic`, `spec` and `allow-all`.
package generate

// Package policy is the model of a permission policy π and of a task's
// permission spec S:
//
//   - parsing and validation with errors that name the file, the field
//     and the index (ParsePolicy, the one parser of every policy file and
//     of a generator's answer, ParseAnswer);
//   - the one pattern matcher that every other package uses, and the one
//     host:port matcher (HostPattern) of the optional network axis, which
//     the egress allow-list uses too;
//   - static scoring of π against S over an environment root, with the
//     semantics of the published AuthBench verifier (docs/scoring.md):
//     ScorePolicy walks each scored root as Python's os.walk lists it,
//     streaming the candidates from getdents and counting matches without
//     holding the tree; a spec that declares the network axis scores a
//     policy's "network" entries over its own (docs/scoring.md);
//     MacroAverage aggregates scores; DiffPolicy compares π and S entry by
//     entry per axis, as written (the viewer's policy/spec diff);
//   - compiling π plus a baseline (the spec's implicit permissions and the
//     sandbox's essentials) into a Landlock Plan against a root
//     (CompilePlan, CompilePlanWith): the precise semantics by default,
//     the published launcher's rule for rule on request; every place the
//     plan grants more than π (a symlinked target, a parent directory) is
//     a Widening; patterns below a mount the container sets up at run
//     time become run-time rules that sandbox-init places.
package policy

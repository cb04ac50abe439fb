package trial

// Stages of a bench --pipeline run (Identity.Stage; docs/benchmark.md,
// "Pipelines"), in the order a pipeline runs them.
const (
	// StageOracle runs the task's oracle (and on a sensitive task its
	// shortcut) under the curated spec.
	StageOracle = "oracle"
	// StageGenerate asks each generator for a policy, once per attempt;
	// an attempt is the generated policy scored statically, no agent run
	// (agent runapi.AgentNone).
	StageGenerate = "generate"
	// StageUnconstrained replays each executor without Landlock.
	StageUnconstrained = "unconstrained"
	// StageGenerated replays each executor under each generator's policy:
	// the first attempt of StageGenerate whose policy is valid.
	StageGenerated = "generated"
	// StageSpec replays each executor under the curated spec.
	StageSpec = "spec"
)

// StageOrder is the order stages run in: a stage starts once the one
// before it has stored every run.
var StageOrder = []string{StageOracle, StageGenerate, StageUnconstrained, StageGenerated, StageSpec}

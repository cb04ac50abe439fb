package runapi

import (
	"strings"
	"testing"
)

// TestArtifactTables: the tables are consistent (an API name names one
// file, trial paths are clean and distinct), and the Harbor layout of a
// task trial is as Harbor's TrialPaths has it.
func TestArtifactTables(t *testing.T) {
	if _, err := checkArtifacts(CommandArtifacts, TaskArtifacts, GenerationArtifacts); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"events": FileEvents, "stdout": FileStdout, "result": FileResult,
		"verifier-attack-events": FileVerifierAttackEvents, "generation": FileGeneration, "generated-policy": FileGeneratedPolicy} {
		if got, ok := LogFile(name); !ok || got != want {
			t.Errorf("LogFile(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	if _, ok := LogFile("../run.json"); ok {
		t.Error("LogFile serves a name outside the tables")
	}
	trial := map[string]string{}
	for _, a := range TaskArtifacts {
		trial[a.API] = a.Trial
	}
	if trial["agent-stdout"] != "agent/stdout.txt" || trial["verifier-utility"] != "verifier/utility.log" || trial["result"] != "authbench/result.json" {
		t.Errorf("task trial paths %v", trial)
	}
	for _, a := range GenerationArtifacts {
		if a.Trial != "" && !strings.HasPrefix(a.Trial, GenerationDir+"/") {
			t.Errorf("generation file %s kept outside %s/: %s", a.API, GenerationDir, a.Trial)
		}
	}
	if VerifierLogFile("utility") != FileVerifierUtility || VerifierEventsFile("attack") != FileVerifierAttackEvents {
		t.Error("verifier file names disagree with their constants")
	}
}

// TestCheckArtifactsRefusesConflicts: a name that means two files, a
// trial path leaving the trial directory or used twice is refused.
func TestCheckArtifactsRefusesConflicts(t *testing.T) {
	for name, tables := range map[string][][]Artifact{
		"two files":      {{{API: "events", File: "a"}}, {{API: "events", File: "b"}}},
		"absolute trial": {{{API: "x", File: "x", Trial: "/x"}}},
		"up":             {{{API: "x", File: "x", Trial: "../x"}}},
		"unclean":        {{{API: "x", File: "x", Trial: "a//x"}}},
		"twice":          {{{API: "x", File: "x", Trial: "a/x"}, {API: "y", File: "y", Trial: "a/x"}}},
	} {
		if _, err := checkArtifacts(tables...); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

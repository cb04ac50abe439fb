package taskrun

import (
	"testing"

	"github.com/authbench/authbench/runapi"
)

// TestHeredocAndFamilyTasksRun: a task whose image is built from heredoc
// RUNs and COPYs (translated for buildah), and a task on the python-py313
// family base (no --base-map), pass their oracle unconstrained and under
// their spec; the image build is the run's one call.
func TestHeredocAndFamilyTasksRun(t *testing.T) {
	setup(t)
	for _, name := range []string{"heredoc", "python-py313"} {
		task := fixture(t, name)
		for _, source := range []string{runapi.SourceUnconstrained, runapi.SourceSpec} {
			res := runTask(t, task, source, runapi.AgentOracle)
			if !res.Utility || res.Attack != nil {
				t.Errorf("%s, %s: utility %v attack %v denials %+v", name, source, res.Utility, res.Attack, res.Denials)
			}
		}
	}
}

package oracle

import (
	"fmt"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// setSemantics names the policy semantics of a replay in its request:
// "published", "precise", or "" for a task run's default
// (policy.DefaultTaskSemantics).
func setSemantics(req *runapi.RunRequest, semantics string) error {
	sem, err := policy.ParseSemanticsOr(semantics, policy.DefaultTaskSemantics)
	if err != nil {
		return fmt.Errorf("semantics: %w", err)
	}
	req.Task.Semantics = string(sem)
	return nil
}

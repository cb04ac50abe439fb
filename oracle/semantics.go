package oracle

import (
	"fmt"

	"github.com/authbench/authbench/runapi"
)

// setSemantics passes the policy semantics of a replay to the daemon:
// "published" (the daemon's default for task runs), "precise", or ""
// for the default.
func setSemantics(req *runapi.RunRequest, semantics string) error {
	switch semantics {
	case "", "published", "precise":
		req.Task.Semantics = semantics
		return nil
	}
	return fmt.Errorf("semantics %q: want published or precise", semantics)
}

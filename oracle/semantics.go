package oracle

import (
	"fmt"

	"github.com/authbench/authbench/daemon"
)

// setSemantics passes the policy semantics of a replay to the daemon.
func setSemantics(_ *daemon.RunRequest, semantics string) error {
	if semantics != "" {
		return fmt.Errorf("semantics %q: task runs of this daemon take no semantics", semantics)
	}
	return nil
}

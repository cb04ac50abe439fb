package sandbox

import (
	"os"

	"github.com/authbench/authbench/policy"
)

// placeRuntimeRules settles the plan's run-time rules (policy.Rule.Runtime:
// paths below a mount the container sets up) against the file system as
// sandbox-init sees it, after the mounts: a path that does not exist is
// dropped, and one that is not a directory keeps only file rights. stat
// follows symlinks, as the O_PATH open of a rule path does. Other rules
// pass unchanged.
func placeRuntimeRules(rules []policy.Rule, stat func(string) (os.FileInfo, error)) []policy.Rule {
	out := make([]policy.Rule, 0, len(rules))
	for _, r := range rules {
		if r.Runtime {
			st, err := stat(r.Path)
			if err != nil {
				continue
			}
			r.Dir = st.IsDir()
		}
		out = append(out, r)
	}
	return out
}

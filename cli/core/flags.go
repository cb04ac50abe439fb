package core

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/capability"
	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/sandbox"
)

// PlanFlags are the flags shared by `policy plan` and `exec`.
type PlanFlags struct {
	Policy         string
	Baseline       string
	Semantics      string
	RefuseSymlinks bool
}

// Register adds the flags to cmd.
func (f *PlanFlags) Register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.Policy, "policy", "", "policy `FILE` (required)")
	cmd.Flags().StringVar(&f.Baseline, "baseline", policy.BaselineDefault,
		"runtime baseline: default, none, or a permission spec `FILE` whose implicit_permissions are used")
	cmd.Flags().StringVar(&f.Semantics, "semantics", string(policy.SemanticsPrecise),
		"`MODE` in which policy patterns become Landlock rules: precise, or published (the published AuthBench launcher's rules: a write grants its parent directory)")
	cmd.Flags().BoolVar(&f.RefuseSymlinks, "refuse-symlinks", false,
		"refuse a policy whose rules would be reached through a symlink onto a target no pattern of the same axis names, instead of listing it as wider")
}

// ReportPlanWarnings prints the plan's warnings on stderr; loud ones
// (write access to the whole tree, a planted symlink) are printed so that
// they cannot be missed.
func (a *App) ReportPlanWarnings(pl *policy.Plan) {
	for _, w := range pl.Warnings {
		if w.Loud {
			fmt.Fprintf(a.Stderr, "authbench: WARNING: %s %s: %s\n", w.Axis, w.Pattern, strings.ToUpper(w.Message))
			continue
		}
		fmt.Fprintf(a.Stderr, "authbench: warning: %s %s: %s\n", w.Axis, w.Pattern, w.Message)
	}
}

// LoadSeccomp loads and compiles a profile ("" for the default) for a
// command that keeps the granted capabilities (none unless named; see
// capability.Held). Any problem, such as unknown syscall names, is a usage
// error.
func LoadSeccomp(file string, granted []string) (*sandbox.Filter, error) {
	if file == "" {
		return sandbox.DefaultFilter()
	}
	prof, err := sandbox.LoadProfile(file)
	if err != nil {
		return nil, Usage(err)
	}
	f, err := sandbox.CompileProfile(prof, sandbox.CompileOptions{Capabilities: capability.Held(granted)})
	if err != nil {
		return nil, Usage(err)
	}
	return f, nil
}

// CheckOutFile refuses a file the user names (--out FILE, --trace FILE)
// in a directory that another user controls, or under one
// (safefile.OpenParent): the CLI may run as root.
func CheckOutFile(path string) error {
	d, _, err := safefile.OpenParent(path, os.Geteuid())
	if err != nil {
		return err
	}
	return d.Close()
}

package cli

import (
	"fmt"
	"github.com/authbench/authbench/cli/core"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/internal/termtext"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tasks"
)

// DefaultSuiteDir is the built-in task suite, relative to the repository
// root: what `tasks ls` lists when no DIR is given.
const DefaultSuiteDir = "tasks/suite"

func (a *app) tasksLsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "ls [DIR]",
		Short: "List the tasks of a suite: domain, dataset, difficulty and spec size (default DIR " + DefaultSuiteDir + ")",
		Long: "Lists every task directory at or below DIR (default " + DefaultSuiteDir + ", the built-in suite)\n" +
			"with its domain (task.toml's category), dataset, difficulty and the size of its spec:\n" +
			"the number of required entries per axis (read/write/execute, and network hosts when the\n" +
			"spec declares that axis: \"+N host\") and of sensitive entries (hosts included).\n" +
			"A task that does not load is listed as invalid (run `tasks check` for its problems)\n" +
			"and makes the exit status 2.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return core.UsageErrorf("tasks ls: want at most one DIR, got %d", len(args))
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			dir := DefaultSuiteDir
			if len(args) == 1 {
				dir = args[0]
			}
			return a.tasksLs(dir)
		},
	}
}

// taskListing is one row of `tasks ls`.
type taskListing struct {
	Name       string        `json:"name"`
	Dir        string        `json:"dir"`
	Domain     string        `json:"domain"`
	Dataset    tasks.Dataset `json:"dataset"`
	Difficulty string        `json:"difficulty"`
	Valid      bool          `json:"valid"`
	// Required counts required_permissions entries per axis;
	// Sensitive counts sensitive_permissions entries over all axes.
	Required  specSize `json:"required"`
	Sensitive int      `json:"sensitive"`
}

// specSize is the number of entries per axis.
type specSize struct {
	Read    int `json:"read"`
	Write   int `json:"write"`
	Execute int `json:"execute"`
	// Network counts the required hosts (docs/scoring.md, "The network
	// axis"); absent for a spec without that axis.
	Network int `json:"network,omitempty"`
}

// listTask describes the task directory dir as far as it loads.
func listTask(dir string) taskListing {
	t, problems := tasks.Check(dir)
	row := taskListing{Name: t.Name, Dir: t.Dir, Valid: !tasks.HasErrors(problems)}
	md := t.Config.Metadata
	row.Domain, row.Difficulty = md.Category, md.Difficulty
	if row.Valid {
		row.Dataset = t.Dataset()
	}
	if s := t.Spec; s != nil {
		row.Required = specSize{
			Read:    len(s.Required.Get(policy.Read)),
			Write:   len(s.Required.Get(policy.Write)),
			Execute: len(s.Required.Get(policy.Execute)),
			Network: len(s.Network.Required),
		}
		if s.Sensitive != nil {
			row.Sensitive = s.Sensitive.Len() + len(s.Network.Sensitive)
		}
	}
	return row
}

func (a *app) tasksLs(dir string) error {
	dirs, err := tasks.Discover(dir)
	if err != nil {
		return core.UsageErrorf("tasks ls: %v", err)
	}
	rows := make([]taskListing, 0, len(dirs))
	bad := 0
	for _, d := range dirs {
		row := listTask(d)
		if !row.Valid {
			bad++
		}
		rows = append(rows, row)
	}
	if a.JSONOut {
		if err := a.PrintJSON(rows); err != nil {
			return err
		}
	} else if err := printTaskListing(a, rows); err != nil {
		return err
	}
	if bad > 0 {
		return core.UsageErrorf("tasks ls: %d of %d task(s) do not load (see `authbench tasks check %s`)", bad, len(rows), dir)
	}
	return nil
}

func printTaskListing(a *app, rows []taskListing) error {
	w := tabwriter.NewWriter(a.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TASK\tDOMAIN\tDATASET\tDIFFICULTY\tREQUIRED r/w/x\tSENSITIVE")
	for _, r := range rows {
		dataset := string(r.Dataset)
		if !r.Valid {
			dataset = "invalid"
		}
		hosts := ""
		if r.Required.Network > 0 {
			hosts = fmt.Sprintf(" +%d host", r.Required.Network)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d/%d/%d%s\t%d\n", termtext.Escape(r.Name), termtext.Escape(orDash(r.Domain)), dataset,
			termtext.Escape(orDash(r.Difficulty)),
			r.Required.Read, r.Required.Write, r.Required.Execute, hosts, r.Sensitive)
	}
	return w.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

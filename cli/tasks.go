package cli

import (
	"fmt"
	"github.com/authbench/authbench/cli/core"

	"github.com/authbench/authbench/internal/termtext"
	"github.com/authbench/authbench/tasks"
	"github.com/spf13/cobra"
	"go.uber.org/zap"
)

func (a *app) tasksCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tasks",
		Short: "Check task directories (Harbor / Terminal-Bench 2 layout)",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "check DIR...",
		Short: "Validate task directories, or suites of them: every problem of every task (exit 2 if any)",
		Long: "Each DIR is a task directory (it holds task.toml) or a suite directory with task\n" +
			"directories below it. Every problem is printed as FILE:LINE: FIELD: REASON; warnings\n" +
			"(keys authbench does not know, and the like) do not change the exit status.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return core.UsageErrorf("tasks check: want at least one DIR")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error { return a.tasksCheck(args) },
	})
	cmd.AddCommand(a.tasksLsCmd(), a.tasksErrataCmd())
	return cmd
}

// taskReport is the outcome of checking one task directory.
type taskReport struct {
	Dir      string          `json:"dir"`
	Name     string          `json:"name,omitempty"`
	Dataset  tasks.Dataset   `json:"dataset,omitempty"`
	Valid    bool            `json:"valid"`
	Problems []tasks.Problem `json:"problems"`
}

func (a *app) tasksCheck(args []string) error {
	var reports []taskReport
	bad := 0
	for _, arg := range args {
		dirs, err := tasks.Discover(arg)
		if err != nil {
			reports = append(reports, taskReport{Dir: arg, Problems: []tasks.Problem{{File: ".", Msg: err.Error()}}})
			bad++
			continue
		}
		for _, dir := range dirs {
			t, problems := tasks.Check(dir)
			r := taskReport{Dir: dir, Name: t.Name, Valid: !tasks.HasErrors(problems), Problems: problems}
			if r.Problems == nil {
				r.Problems = []tasks.Problem{}
			}
			if r.Valid {
				r.Dataset = t.Dataset()
			} else {
				bad++
			}
			a.Log.Debug("checked task", zap.String("dir", dir), zap.Int("problems", len(problems)))
			reports = append(reports, r)
		}
	}
	if a.JSONOut {
		if err := a.PrintJSON(map[string]any{"valid": bad == 0, "tasks": reports}); err != nil {
			return err
		}
	} else {
		for _, r := range reports {
			if r.Valid {
				fmt.Fprintf(a.Stderr, "ok   %s (%s)\n", termtext.Escape(r.Dir), r.Dataset)
			} else {
				fmt.Fprintf(a.Stderr, "FAIL %s\n", termtext.Escape(r.Dir))
			}
			for _, p := range r.Problems {
				fmt.Fprintf(a.Stderr, "     %s\n", termtext.Escape(fmt.Sprintf("%s/%s", r.Dir, p)))
			}
		}
	}
	if bad > 0 {
		return core.UsageErrorf("%d of %d task(s) have problems", bad, len(reports))
	}
	return nil
}

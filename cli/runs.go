package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/daemon"
	"github.com/authbench/authbench/internal/termtext"
	"github.com/authbench/authbench/runapi"
)

// runsAPI returns the API to read run records: the daemon when one
// answers, else (as root) the records in stateDir directly.
func (a *app) runsAPI(stateDir string) (runapi.API, func(), error) {
	if c := a.DaemonClient(); c != nil {
		return c, c.Close, nil
	}
	if os.Geteuid() != 0 {
		return nil, nil, fmt.Errorf("no daemon answers on %q (start one with `authbench daemon`, or run as root)", a.Socket)
	}
	m, err := daemon.NewManager(daemon.Config{StateDir: stateDir, Log: a.Log})
	if err != nil {
		return nil, nil, err
	}
	return daemon.NewLocal(m), func() { m.Shutdown(context.Background()) }, nil
}

func (a *app) runsCmd() *cobra.Command {
	var stateDir string
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List and inspect run records (through the daemon when one runs)",
		Long: `List and inspect run records, through the daemon when one runs (else,
as root, from --state-dir). Through the daemon a user other than root sees
and cancels only the runs it submitted; another user's run is "no such run".`,
	}
	cmd.PersistentFlags().StringVar(&stateDir, "state-dir", DefaultStateDir, "state directory, read directly when no daemon runs")
	withAPI := func(fn func(ctx context.Context, api runapi.API, args []string) error) func(*cobra.Command, []string) error {
		return func(_ *cobra.Command, args []string) error {
			api, done, err := a.runsAPI(stateDir)
			if err != nil {
				return err
			}
			defer done()
			return fn(context.Background(), api, args)
		}
	}
	cmd.AddCommand(
		&cobra.Command{
			Use: "ls", Short: "List runs, oldest first", Args: cobra.NoArgs,
			RunE: withAPI(func(ctx context.Context, api runapi.API, _ []string) error {
				runs, err := api.List(ctx)
				if err != nil {
					return err
				}
				if a.JSONOut {
					return a.PrintJSON(runs)
				}
				a.printRunTable(runs)
				return nil
			}),
		},
		&cobra.Command{
			Use: "show ID", Short: "Show one run record", Args: exactArgs(1),
			RunE: withAPI(func(ctx context.Context, api runapi.API, args []string) error {
				run, err := api.Get(ctx, args[0])
				if err != nil {
					return err
				}
				return a.PrintJSON(run)
			}),
		},
		&cobra.Command{
			Use: "events ID", Short: "Print a run's trace events (JSONL)", Args: exactArgs(1),
			RunE: withAPI(func(ctx context.Context, api runapi.API, args []string) error {
				rc, err := api.OpenLog(ctx, args[0], runapi.LogEvents, false)
				if err != nil {
					return err
				}
				defer rc.Close()
				_, err = io.Copy(a.Stdout, rc)
				return err
			}),
		},
		&cobra.Command{
			Use: "cancel ID", Short: "Kill a run's whole process tree", Args: exactArgs(1),
			RunE: withAPI(func(ctx context.Context, api runapi.API, args []string) error {
				run, err := api.Cancel(ctx, args[0])
				if err != nil {
					return err
				}
				if a.JSONOut {
					return a.PrintJSON(run)
				}
				fmt.Fprintf(a.Stderr, "run %s: %s\n", run.ID, run.State)
				return nil
			}),
		},
	)
	return cmd
}

func (a *app) printRunTable(runs []*runapi.Run) {
	tw := tabwriter.NewWriter(a.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tEXIT\tCALLER\tCREATED\tDENIALS\tCOMMAND")
	for _, r := range runs {
		exit := "-"
		if r.ExitCode != nil {
			exit = fmt.Sprint(*r.ExitCode)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%d\t%s\n", r.ID, r.State, exit, r.CallerUID,
			r.CreatedAt.Local().Format(time.DateTime), len(r.DeniedAccesses()), termtext.Escape(r.Request.Summary()))
	}
	tw.Flush()
}

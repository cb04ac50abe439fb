package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/authbench/authbench/bench"
	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/report"
	"github.com/authbench/authbench/viewer"
)

// viewFlags are the flags of `authbench view`.
type viewFlags struct {
	listen         string
	allowRemote    bool
	trustVerifiers bool
}

func (a *app) viewCmd() *cobra.Command {
	var f viewFlags
	cmd := &cobra.Command{
		Use:   "view OUT... [--listen 127.0.0.1:PORT]",
		Short: "Browse bench out dirs in a local web viewer: Table 1, figures, every run, two jobs side by side",
		Long: `Serve a read-only web viewer of one or more bench out dirs (each a job):
Table 1 and the figures, the runs with filters (source, agent, model, set,
class, task), every run's policy beside its task's spec, its plan and what it
widens, its denials (the deciding one marked), its exposure, its events
(searchable, by pages), its network attempts, its trajectory and its
verifiers' output, and two jobs compared side by side.

It listens on loopback only (127.0.0.1:8765 unless --listen says otherwise)
and refuses another address unless --allow-remote is given: the pages show
what the runs read and wrote, with no authentication. The out dirs are only
read (results.db from a private copy). docs/viewer.md describes the pages.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return core.UsageErrorf("view: name at least one bench out dir")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, dirs []string) error {
			if !cmd.Flags().Changed("trust-verifiers") {
				f.trustVerifiers = benchesTrustVerifiers(dirs)
			}
			return a.runView(f, dirs)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", "127.0.0.1:8765", "listen on `ADDR` (host:port; port 0 picks one)")
	fl.BoolVar(&f.allowRemote, "allow-remote", false, "allow a --listen address that is not loopback (anyone who reaches it sees every run)")
	fl.BoolVar(&f.trustVerifiers, "trust-verifiers", false,
		"keep runs whose verifier consumed agent-written files or was not traced completely in success rates (default: as every bench was run)")
	return cmd
}

// checkListen refuses a listen address that is not host:port, or whose
// host is not loopback unless remote is allowed.
func checkListen(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return core.UsageErrorf("view: --listen %q: %v", addr, err)
	}
	if !allowRemote && !viewer.LoopbackHost(host) {
		return core.UsageErrorf("view: --listen %q is not a loopback address (127.0.0.1, [::1], localhost); the viewer has no authentication: pass --allow-remote to serve it there", addr)
	}
	return nil
}

func (a *app) runView(f viewFlags, dirs []string) error {
	if err := checkListen(f.listen, f.allowRemote); err != nil {
		return err
	}
	names := viewer.JobNames(dirs)
	jobs := make([]*viewer.Job, 0, len(dirs))
	for i, d := range dirs {
		recs, err := bench.LoadRecords(d)
		if err != nil {
			return fmt.Errorf("view: %w", err)
		}
		skipped, err := bench.LoadSkipped(d)
		if err != nil {
			return fmt.Errorf("view: %w", err)
		}
		jobs = append(jobs, viewer.NewJob(names[i], d, recs, report.Options{TrustVerifiers: f.trustVerifiers, Skipped: skipped}))
	}
	h, err := viewer.NewHandler(jobs, viewer.Options{AnyHost: f.allowRemote, Log: a.Log})
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return fmt.Errorf("view: listen: %w", err)
	}
	ctx, stop := interruptContext()
	defer stop()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	fmt.Fprintf(a.Stdout, "authbench view: http://%s/ (%d jobs; Ctrl-C stops)\n", ln.Addr(), len(jobs))
	a.Log.Info("viewer listening", zap.Stringer("addr", ln.Addr()))
	return serveUntil(ctx, srv, ln)
}

// serveUntil serves on ln until ctx ends, then shuts the server down.
func serveUntil(ctx context.Context, srv *http.Server, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("view: serve: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("view: shut down: %w", err)
	}
	return nil
}

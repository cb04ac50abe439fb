package cli

import (
	"context"
	"fmt"
	"github.com/authbench/authbench/cli/core"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/daemon"
	"github.com/authbench/authbench/daemon/metrics"
	"github.com/authbench/authbench/daemon/taskwork"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/tracer"
)

// DefaultStateDir is where the daemon keeps run records.
const DefaultStateDir = "/var/lib/authbench"

func (a *app) daemonCmd() *cobra.Command {
	var f daemonFlags
	cmd := &cobra.Command{
		Use:   "daemon",
		Short: "Run the privileged authbench daemon (BPF, sandboxes, run records) on a unix socket",
		Long: `Run the privileged daemon. It loads the eBPF tracer once, serves the
HTTP/JSON API of docs/api.md on a unix socket (mode 0660, owned by
--group), runs each command in a sandboxed, traced process tree and keeps
run records under --state-dir. Only root and members of --group may use
it, from processes that are not confined (a process with no_new_privs, a
seccomp filter, or in another pid namespace, as every run is, is refused),
and each sees and cancels only its own runs (root: all). Members may ask
for task runs only of task directories under a --trusted-tasks root that
are root-owned and not group/other-writable all the way from /, and may use
only the model endpoints the config file's [model] allowed_base_urls lists
(403 otherwise, before any connection). SIGTERM or
SIGINT aborts every active run and stops the daemon.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error { return a.runDaemon(&f) },
	}
	cmd.Flags().StringVar(&f.stateDir, "state-dir", DefaultStateDir, "directory of run records")
	cmd.Flags().StringVar(&f.imagesDir, "images-dir", env.DefaultImagesDir, "task images (task runs)")
	cmd.Flags().StringVar(&f.configFile, "config", "", "config file whose [model] table says which model endpoints (allowed_base_urls) and limits (member_max_turns, member_max_history_bytes) members may use (default "+env.DefaultConfigFile+" if it exists; without it members may use no model endpoint)")
	cmd.Flags().StringVar(&f.group, "group", "", "group whose members may use the daemon (default: root only)")
	cmd.Flags().StringArrayVar(&f.trustedTasks, "trusted-tasks", nil, "`DIR` under which non-root callers may ask for task runs (repeatable; default: none, only root may)")
	cmd.Flags().BoolVar(&f.noTracer, "no-tracer", false, "serve without loading the eBPF tracer (runs cannot be traced)")
	cmd.Flags().IntVar(&f.maxConcurrent, "max-concurrent", daemon.DefaultMaxConcurrent, "runs executing at once; more wait queued")
	cmd.Flags().IntVar(&f.limits.MaxActivePerUID, "max-active-per-uid", daemon.DefaultMaxActivePerUID, "queued plus running runs of one non-root caller; more are refused (429)")
	cmd.Flags().IntVar(&f.limits.MaxConnsPerUID, "max-conns-per-uid", daemon.DefaultMaxConnsPerUID, "open API connections of one non-root uid; more are refused (429)")
	cmd.Flags().Int64Var(&f.limits.MaxOutputBytes, "max-output-bytes", daemon.DefaultMaxOutputBytes, "bytes stored of each run's stdout, stderr and event log; the rest is dropped and counted")
	return cmd
}

// daemonFlags are the daemon command's flags.
type daemonFlags struct {
	stateDir, imagesDir, group, configFile string
	noTracer                               bool
	maxConcurrent                          int
	trustedTasks                           []string
	limits                                 daemon.Config // resource limits (helper "limits")
}

// runDaemon serves the daemon API until SIGTERM or SIGINT.
func (a *app) runDaemon(f *daemonFlags) error {
	// Catch the stop signals before anything else: one that comes
	// while the previous daemon's runs are recovered waits for it.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	auth, err := daemon.NewAuthorizer(f.group)
	if err != nil {
		return core.UsageErrorf("--f.group: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own binary: %w", err)
	}
	file, required := f.configFile, true
	if file == "" {
		file, required = env.DefaultConfigFile, false
	}
	members, err := agent.LoadMemberPolicy(file, required)
	if err != nil {
		return core.Usage(err)
	}
	var tr *tracer.Tracer
	if !f.noTracer {
		if tr, err = tracer.Load(tracer.Options{}, a.Log); err != nil {
			return fmt.Errorf("load tracer (use --no-tracer to serve without tracing): %w", err)
		}
		defer tr.Close()
	}
	registries, err := configRegistries()
	if err != nil {
		return err
	}
	m, err := daemon.NewManager(daemon.Config{
		StateDir: f.stateDir, Work: taskwork.New(taskwork.Config{ImagesDir: f.imagesDir, Registries: registries, Tracer: tr}),
		Self: self, Tracer: daemonTracer(tr), Metrics: metrics.New(), MaxConcurrent: f.maxConcurrent, Log: a.Log,
		MaxActivePerUID: f.limits.MaxActivePerUID, MaxConnsPerUID: f.limits.MaxConnsPerUID, MaxOutputBytes: f.limits.MaxOutputBytes,
		TrustedTaskRoots: f.trustedTasks, MemberModels: members,
		HidePaths: socketHidePaths(a.Socket),
	})
	if err != nil {
		return err
	}
	if a.Socket == "" {
		return core.UsageErrorf("--socket must name the socket to listen on")
	}
	srv, err := daemon.Listen(m, a.Socket, auth)
	if err != nil {
		return err
	}
	// Only now is it sure no other daemon uses this state; an
	// embedded CLI may (its claim keeps its runs from being
	// recovered: its watchdog recovers them when it ends).
	claim, recovered, err := m.ClaimState()
	if err != nil {
		a.Log.Error("recover from the previous daemon", zap.Error(err))
	}
	if claim == nil {
		return err
	}
	defer claim.Release()
	if !recovered {
		a.Log.Warn("another process uses the state dir: the runs it left are recovered when it ends", zap.String("state_dir", f.stateDir))
	}
	return a.serveUntilSignal(srv, a.Socket, sigs)
}

// serveUntilSignal serves until the first signal on sigs, then stops the
// daemon gracefully.
func (a *app) serveUntilSignal(srv *daemon.Server, socket string, sigs <-chan os.Signal) error {
	served := make(chan error, 1)
	go func() { served <- srv.Serve() }()
	a.Log.Info("daemon listening", zap.String("socket", socket))
	fmt.Fprintf(a.Stderr, "authbench daemon listening on %s\n", socket)
	select {
	case err := <-served:
		return err
	case sig := <-sigs:
		a.Log.Info("stopping", zap.String("signal", sig.String()))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return srv.Shutdown(ctx)
	}
}

// socketHidePaths are what a daemon on socket hides from the trees it
// runs: the socket itself (covered by /dev/null in the tree's mount
// namespace), never its directory, whose other files the tree may need.
func socketHidePaths(socket string) []string {
	abs, err := filepath.Abs(socket)
	if err != nil {
		return nil
	}
	return []string{abs}
}

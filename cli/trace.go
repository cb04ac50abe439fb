package cli

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/tracer/trace"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tracer"
)

func (a *app) traceCmd() *cobra.Command {
	var out, ringSize string
	var stopAtRoot bool
	cmd := &cobra.Command{
		Use:   "trace [--out FILE] [--ring-size SIZE] -- CMD [ARGS...]",
		Short: "Run a command and record every file access of its process tree",
		Long: `Run CMD as a traced child and exit with its exit status.

Every open, exec, mkdir, unlink, rmdir, rename, link, symlink, truncate and
chdir of the process tree, and its forks and exits, are recorded with eBPF
(root, or CAP_BPF+CAP_PERFMON, is required). With --out the events are
written as JSON lines ending with {"op":"summary","events":N,"lost":M}
("-" is stdout); without it a summary (counts per operation and axis, top
paths, failed accesses) is printed on stderr. --out FILE is written to a new
file renamed into place (a symbolic link there is refused).

The run goes through the daemon when one listens on --socket, else through
the same code embedded here (CMD attached to this terminal, SIGINT, SIGTERM,
SIGHUP and SIGQUIT forwarded to it). CMD is found as a shell finds it (a
relative path against this working directory) and runs as the caller,
unconfined except for one thing: io_uring is unavailable to it (a seccomp
filter makes io_uring_setup, io_uring_enter and io_uring_register fail with
ENOSYS, as on a kernel without io_uring), because operations submitted
through io_uring are not seen by the tracer; libuv, liburing and the
programs built on them fall back to plain system calls. The filter needs
no_new_privs: set-user-ID programs do not gain privileges in a trace.

The trace ends when the last process of CMD's tree has exited, as with
strace -f: a process CMD started in the background is waited for, and
traced, even after CMD itself exits (sandbox-init stays as the tree's
reaper: orphans are reparented to it). --stop-at-root-exit ends the trace
when CMD exits instead: as root, CMD is then the init of its own PID
namespace and the kernel kills whatever is left of its tree; as another
user processes left running are no longer traced. A trace cut short (the
daemon's timeout, a cancel) lists the processes that were still running.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return core.UsageErrorf("trace: missing command (usage: authbench trace [--out FILE] -- CMD [ARGS...])")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			ring, err := parseSize(ringSize)
			if err != nil {
				return core.UsageErrorf("--ring-size: %v", err)
			}
			return a.runTrace(args, out, ring, !stopAtRoot)
		},
	}
	cmd.Flags().SetInterspersed(false)
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the events as JSON lines to `FILE` (- for stdout)")
	cmd.Flags().BoolVar(&stopAtRoot, "stop-at-root-exit", false, "end the trace when CMD exits, not when its whole tree has")
	cmd.Flags().StringVar(&ringSize, "ring-size", "32MiB", "ring buffer `SIZE`: bytes, or with K/M/G (KiB/MiB/GiB); rounded up to a power of two")
	return cmd
}

func (a *app) runTrace(args []string, out string, ringBytes int, waitTree bool) error {
	ex := &runapi.ExecRequest{Command: args, Env: os.Environ(), NoSeccomp: true, Trace: true, WaitTree: waitTree}
	var err error
	if ex.Dir, err = os.Getwd(); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	ex.UID, ex.GID, ex.AllowRoot = core.RequestIdentity(-1, -1)
	req := &runapi.RunRequest{Exec: ex}
	var file *safefile.File // the events stream into it while the command runs
	if out != "" && out != "-" {
		if err := core.CheckOutFile(out); err != nil {
			return core.UsageErrorf("trace: --out: %v", err)
		}
		if file, err = safefile.Create(out, 0o644); err != nil {
			return core.UsageErrorf("trace: --out: %v", err)
		}
		defer file.Abort()
	}
	rt, err := a.OpenRunAPI(true, ringBytes)
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	defer rt.Close()
	r, final, err := a.RunRequest(rt, req, core.WriterOrNil(file))
	if err != nil {
		if r == nil {
			return err
		}
		return fmt.Errorf("trace: run %s: %w", r.ID(), err)
	}
	switch {
	case file != nil:
		err = file.Commit()
	case out == "-": // after the command's own output, not mixed with it
		err = r.CopyEvents(a.Stdout)
	case out == "":
		counts := tracer.NewCounts()
		var sum trace.Summary
		if sum, err = countEvents(r, counts); err == nil {
			err = counts.WriteText(a.Stderr, sum)
		}
	}
	if final.LostEvents > 0 {
		a.Log.Warn("trace lost events", zap.Uint64("lost", final.LostEvents))
	}
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	return r.ExitStatus(final, "trace")
}

// parseSize parses a byte count such as 4096, 64K, 32MiB or 1G.
func parseSize(s string) (int, error) {
	t := strings.TrimSpace(s)
	mult := 1
	upper := strings.ToUpper(t)
	for _, u := range []struct {
		suffix string
		mult   int
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(upper, u.suffix) {
			t, mult = t[:len(t)-len(u.suffix)], u.mult
			break
		}
	}
	n, err := strconv.Atoi(strings.TrimSpace(t))
	if err != nil || n <= 0 || n > (1<<30)/mult {
		return 0, fmt.Errorf("invalid size %q (want e.g. 4096, 64K, 32MiB; at most 1GiB)", s)
	}
	return n * mult, nil
}

// countEvents reads the run's event log into counts and returns its
// summary line.
func countEvents(r *core.SubmittedRun, counts *tracer.Counts) (trace.Summary, error) {
	rc, err := r.OpenEvents()
	if err != nil {
		return trace.Summary{}, err
	}
	defer rc.Close()
	end, err := audit.ReadLog(rc, func(ev *trace.Event) error {
		counts.Add(ev)
		return nil
	})
	if err != nil || end.Summary == nil {
		return trace.Summary{}, err
	}
	return *end.Summary, nil
}

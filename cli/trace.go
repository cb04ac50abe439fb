package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tracer"
)

// Exit statuses of a command that could not be run, as shells use them.
const (
	exitNotExecutable = 126
	exitNotFound      = 127
)

func (a *app) traceCmd() *cobra.Command {
	var out, ringSize string
	cmd := &cobra.Command{
		Use:   "trace [--out FILE] [--ring-size SIZE] -- CMD [ARGS...]",
		Short: "Run a command and record every file access of its process tree",
		Long: `Run CMD as a traced child and exit with its exit status.

Every open, exec, mkdir, unlink, rmdir, rename, link, symlink, truncate and
chdir of the process tree, and its forks and exits, are recorded with eBPF
(root, or CAP_BPF+CAP_PERFMON, is required). With --out the events are
written as JSON lines ending with {"op":"summary","events":N,"lost":M}
("-" is stdout); without it a summary (counts per operation and axis, top
paths, failed accesses) is printed on stderr.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("trace: missing command (usage: authbench trace [--out FILE] -- CMD [ARGS...])")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			ring, err := parseSize(ringSize)
			if err != nil {
				return usageErrorf("--ring-size: %v", err)
			}
			return a.runTrace(args, out, ring)
		},
	}
	cmd.Flags().SetInterspersed(false)
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the events as JSON lines to `FILE` (- for stdout)")
	cmd.Flags().StringVar(&ringSize, "ring-size", "32MiB", "ring buffer `SIZE`: bytes, or with K/M/G (KiB/MiB/GiB); rounded up to a power of two")
	return cmd
}

func (a *app) runTrace(args []string, out string, ringBytes int) error {
	if c := a.daemonClient(); c != nil {
		return a.runTraceRemote(c, args, out)
	}
	prog, err := exec.LookPath(args[0])
	if err != nil {
		code := exitNotFound
		if errors.Is(err, os.ErrPermission) {
			code = exitNotExecutable
		}
		return &ExitError{Code: code, Err: fmt.Errorf("trace: %s: %w", args[0], lookupErr(err))}
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("trace: find own executable: %w", err)
	}
	var sink io.Writer
	if out == "-" {
		sink = a.stdout
	} else if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return usageErrorf("trace: --out: %v", err)
		}
		defer f.Close()
		sink = f
	}

	// Start the child first: its start-up overlaps with loading the
	// programs, and it waits at its gate until it is tracked.
	spec := sandbox.Spec{Path: prog, Args: args, Env: os.Environ()}
	child, err := sandbox.Start(self, spec, os.Stdin, os.Stdout, os.Stderr)
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	tr, err := tracer.Load(tracer.Options{RingBytes: ringBytes}, a.log)
	if err != nil {
		_ = child.Kill()
		_, _ = child.Wait()
		return fmt.Errorf("trace: %w", err)
	}
	defer tr.Close()
	// sandbox-init's own start-up is not part of the command's trace.
	sess, err := tr.TrackWith(child.Pid(), tracer.TrackOptions{FromExec: true})
	if err != nil {
		_ = child.Kill()
		_, _ = child.Wait()
		return fmt.Errorf("trace: %w", err)
	}
	consumed := make(chan error, 1)
	counts := tracer.NewCounts()
	var jw *tracer.Writer
	if sink != nil {
		jw = tracer.NewWriter(sink)
	}
	go func() { consumed <- consume(sess, jw, counts) }()

	stopSignals := forwardSignals(child.Pid())
	relErr := child.Release()
	code, waitErr := child.Wait()
	stopSignals()
	sum, closeErr := sess.Close()
	consumeErr := <-consumed

	if jw != nil {
		if err := jw.Close(sum); err != nil && consumeErr == nil {
			consumeErr = err
		}
	} else if err := counts.WriteText(a.stderr, sum); err != nil {
		a.log.Warn("write trace summary", zap.Error(err))
	}
	if sum.Lost > 0 {
		a.log.Warn("trace lost events", zap.Uint64("lost", sum.Lost), zap.Int("ring_bytes", tr.RingBytes()))
	}
	if err := errors.Join(waitErr, closeErr, consumeErr); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	if relErr != nil {
		var ie *sandbox.InitError
		if errors.As(relErr, &ie) {
			return &ExitError{Code: ie.ShellStatus(), Err: fmt.Errorf("trace: %w", relErr)}
		}
		return fmt.Errorf("trace: %w", relErr)
	}
	a.exitCode = code
	return nil
}

// consume writes or counts every event of sess until its channel closes.
func consume(sess *tracer.Session, jw *tracer.Writer, counts *tracer.Counts) error {
	if jw != nil {
		return jw.WriteSession(sess)
	}
	for batch := range sess.Events() {
		for i := range batch {
			counts.Add(&batch[i])
		}
	}
	return nil
}

// forwardSignals passes termination signals on to the traced root, so an
// interrupted trace still ends with a complete log; the returned function
// stops forwarding.
func forwardSignals(pid int) func() {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-ch:
				_ = syscall.Kill(pid, sig.(syscall.Signal))
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

func lookupErr(err error) error {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		return errors.New("command not found")
	}
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
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

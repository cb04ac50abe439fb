// Command benchtrace measures the steady-state overhead of tracing, as the
// daemon sees it: the eBPF programs are loaded once, then a command is run
// REPS times untraced and REPS times as a traced sandbox-init child (its
// events written as JSON lines to a file), interleaved. It prints the
// durations in seconds as one JSON object. scripts/bench-trace.py runs it
// beside `authbench trace`, whose time also includes loading the programs.
//
// Usage: benchtrace [-reps N] [-syscall-tracepoints] -- CMD [ARGS...]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tracer"
)

var discard *bool

type result struct {
	Untraced []float64 `json:"untraced"`
	Traced   []float64 `json:"traced"`
	Events   uint64    `json:"events"`
	Lost     uint64    `json:"lost"`
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.InitCommand {
		_ = sandbox.RunInit()
		os.Exit(sandbox.ExitInitFailure)
	}
	reps := flag.Int("reps", 5, "measured runs of each mode, after one warm-up")
	discard = flag.Bool("discard", false, "read the events but do not write them (isolates the JSON cost)")
	tps := flag.Bool("syscall-tracepoints", false, "hook syscalls with per-syscall tracepoints (tracer.Options.SyscallTracepoints)")
	flag.Parse()
	if err := run(*reps, *tps, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "benchtrace:", err)
		os.Exit(1)
	}
}

func run(reps int, tps bool, argv []string) error {
	if len(argv) == 0 {
		return fmt.Errorf("usage: benchtrace [-reps N] [-syscall-tracepoints] -- CMD [ARGS...]")
	}
	prog, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	tr, err := tracer.Load(tracer.Options{SyscallTracepoints: tps}, zap.NewNop())
	if err != nil {
		return err
	}
	defer tr.Close()
	out, err := os.CreateTemp("", "benchtrace-*.jsonl")
	if err != nil {
		return err
	}
	defer os.Remove(out.Name())
	defer out.Close()

	var res result
	for i := 0; i <= reps; i++ {
		t0 := time.Now()
		cmd := exec.Command(prog, argv[1:]...)
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("untraced run: %w", err)
		}
		t1 := time.Now()
		sum, err := traced(tr, self, prog, argv, out)
		if err != nil {
			return err
		}
		if i > 0 { // the first round warms caches
			res.Untraced = append(res.Untraced, t1.Sub(t0).Seconds())
			res.Traced = append(res.Traced, time.Since(t1).Seconds())
		}
		res.Events, res.Lost = sum.Events, sum.Lost
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

// traced runs the command the way `authbench trace --out` does.
func traced(tr *tracer.Tracer, self, prog string, argv []string, out *os.File) (tracer.Summary, error) {
	if _, err := out.Seek(0, 0); err != nil {
		return tracer.Summary{}, err
	}
	child, err := sandbox.Start(self, sandbox.Spec{Path: prog, Args: argv, Env: os.Environ()}, nil, nil, nil)
	if err != nil {
		return tracer.Summary{}, err
	}
	sess, err := tr.TrackWith(child.Pid(), tracer.TrackOptions{FromExec: true})
	if err != nil {
		_ = child.Kill()
		_, _ = child.Wait()
		return tracer.Summary{}, err
	}
	w := tracer.NewWriter(out)
	done := make(chan error, 1)
	go func() {
		var werr error
		for ev := range sess.Events() {
			if werr == nil && !*discard {
				werr = w.Write(&ev)
			}
		}
		done <- werr
	}()
	if err := child.Release(); err != nil {
		return tracer.Summary{}, err
	}
	code, err := child.Wait()
	if err != nil {
		return tracer.Summary{}, err
	}
	sum, err := sess.Close()
	if err != nil {
		return sum, err
	}
	if err := <-done; err != nil {
		return sum, err
	}
	if code != 0 {
		return sum, fmt.Errorf("traced run exited %d", code)
	}
	return sum, w.Close(sum)
}

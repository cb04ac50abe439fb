// Command benchtrace measures, inside one process, what tracing costs a
// workload apart from any process start-up: the programs are loaded once
// (as the daemon does), then the command is run REPS times in each of
// three modes, interleaved:
//
//   - untraced: nothing attached;
//   - hook: an empty BTF tracepoint program attached to sys_exit, the hook
//     the tracer uses (attached before and detached after the timed run).
//     This is the floor of any syscall-tracepoint tracer on this kernel
//     and machine: the syscall slow path and the program dispatch, paid by
//     every syscall while the hook is attached;
//   - traced: the command as a traced sandbox-init child, its events
//     written as JSON lines to a file, as `authbench trace --out` does.
//
// After each run it waits until the kernel has finished detaching
// programs (settle), so that no mode pays for the one before.
//
// It prints the durations in seconds as one JSON object;
// scripts/bench-trace.py runs it beside the CLI, the daemon and strace.
//
// Usage: benchtrace [-reps N] -- CMD [ARGS...]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
	"go.uber.org/zap"

	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tracer"
)

// settle is long enough for the tracer's idle detach and the kernel's
// deferred detach to finish.
const settle = tracer.DefaultIdleDetach + 300*time.Millisecond

type result struct {
	Untraced []float64 `json:"untraced"`
	Hook     []float64 `json:"hook"`
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
	flag.Parse()
	if err := run(*reps, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "benchtrace:", err)
		os.Exit(1)
	}
}

func run(reps int, argv []string) error {
	if len(argv) == 0 {
		return fmt.Errorf("usage: benchtrace [-reps N] -- CMD [ARGS...]")
	}
	prog, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	tr, err := tracer.Load(tracer.Options{}, zap.NewNop())
	if err != nil {
		return err
	}
	defer tr.Close()
	empty, err := emptyHook()
	if err != nil {
		return err
	}
	defer empty.Close()
	out, err := os.CreateTemp("", "benchtrace-*.jsonl")
	if err != nil {
		return err
	}
	defer os.Remove(out.Name())
	defer out.Close()

	untraced := func() error { return exec.Command(prog, argv[1:]...).Run() }
	var hook link.Link
	hooked := func() error { return untraced() }
	var res result
	traced := func() error {
		sum, err := runTraced(tr, self, prog, argv, out)
		res.Events, res.Lost = sum.Events, sum.Lost
		return err
	}
	for i := 0; i <= reps; i++ { // the first round warms caches
		for _, m := range []struct {
			name string
			run  func() error
			dst  *[]float64
		}{{"untraced", untraced, &res.Untraced}, {"hook", hooked, &res.Hook}, {"traced", traced, &res.Traced}} {
			if m.dst == &res.Hook {
				if hook, err = link.AttachTracing(link.TracingOptions{Program: empty}); err != nil {
					return fmt.Errorf("attach the empty hook: %w", err)
				}
				time.Sleep(settle)
			}
			t0 := time.Now()
			err := m.run()
			d := time.Since(t0)
			if hook != nil {
				hook.Close()
				hook = nil
			}
			if err != nil {
				return fmt.Errorf("%s run: %w", m.name, err)
			}
			if i > 0 {
				*m.dst = append(*m.dst, d.Seconds())
			}
			time.Sleep(settle)
		}
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

// emptyHook loads a program that does nothing, for the tracer's hook.
func emptyHook() (*ebpf.Program, error) {
	p, err := ebpf.NewProgram(&ebpf.ProgramSpec{
		Name: "ab_bench_empty", Type: ebpf.Tracing, AttachType: ebpf.AttachTraceRawTp, AttachTo: "sys_exit",
		License: "GPL", Instructions: asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()},
	})
	if err != nil {
		return nil, fmt.Errorf("load the empty hook: %w", err)
	}
	return p, nil
}

// runTraced runs the command the way `authbench trace --out` does.
func runTraced(tr *tracer.Tracer, self, prog string, argv []string, out *os.File) (tracer.Summary, error) {
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
	go func() { done <- w.WriteSession(sess) }()
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

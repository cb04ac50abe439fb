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
	"runtime/pprof"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tracer"
	"github.com/authbench/authbench/tracer/trace"
)

// settle is long enough for the tracer's idle detach and the kernel's
// deferred detach to finish.
const settle = tracer.DefaultIdleDetach + 300*time.Millisecond

type result struct {
	Untraced []float64 `json:"untraced"`
	Hook     []float64 `json:"hook"`
	Traced   []float64 `json:"traced"`
	// The CPU seconds of each run (same order): the command's tree
	// (children) and this process (the tracer's reader and writer).
	UntracedChildCPU []float64 `json:"untraced_child_cpu"`
	HookChildCPU     []float64 `json:"hook_child_cpu"`
	TracedChildCPU   []float64 `json:"traced_child_cpu"`
	TracedSelfCPU    []float64 `json:"traced_self_cpu"`
	// TracedSelfSwitches counts this process's context switches per
	// traced run (voluntary and not): its wake-ups.
	TracedSelfSwitches []int64 `json:"traced_self_switches"`
	// TracedBPF is the run time of the tracer's programs per traced run
	// (seconds, every CPU).
	TracedBPF []float64 `json:"traced_bpf"`
	Events    uint64    `json:"events"`
	Lost      uint64    `json:"lost"`
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.InitCommand {
		_ = sandbox.RunInit()
		os.Exit(sandbox.ExitInitFailure)
	}
	reps := flag.Int("reps", 5, "measured runs of each mode, after one warm-up")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of this process (the tracer's reader) to `FILE`")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchtrace:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*reps, flag.Args()); err != nil {
		pprof.StopCPUProfile()
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
	stats, err := ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME))
	if err != nil {
		return fmt.Errorf("enable BPF run-time statistics: %w", err)
	}
	defer stats.Close()
	for i := 0; i <= reps; i++ { // the first round warms caches
		for _, m := range []struct {
			name     string
			run      func() error
			dst      *[]float64
			childCPU *[]float64
		}{
			{"untraced", untraced, &res.Untraced, &res.UntracedChildCPU},
			{"hook", hooked, &res.Hook, &res.HookChildCPU},
			{"traced", traced, &res.Traced, &res.TracedChildCPU},
		} {
			if m.dst == &res.Hook {
				if hook, err = link.AttachTracing(link.TracingOptions{Program: empty}); err != nil {
					return fmt.Errorf("attach the empty hook: %w", err)
				}
				time.Sleep(settle)
			}
			self0, child0, sw0 := cpuTime(unix.RUSAGE_SELF), cpuTime(unix.RUSAGE_CHILDREN), switches()
			bpf0, _ := tr.ProgramRunTime()
			t0 := time.Now()
			err := m.run()
			d := time.Since(t0)
			self, child := cpuTime(unix.RUSAGE_SELF)-self0, cpuTime(unix.RUSAGE_CHILDREN)-child0
			bpf1, _ := tr.ProgramRunTime()
			if hook != nil {
				hook.Close()
				hook = nil
			}
			if err != nil {
				return fmt.Errorf("%s run: %w", m.name, err)
			}
			if i > 0 {
				*m.dst = append(*m.dst, d.Seconds())
				*m.childCPU = append(*m.childCPU, child.Seconds())
				if m.dst == &res.Traced {
					res.TracedSelfCPU = append(res.TracedSelfCPU, self.Seconds())
					res.TracedSelfSwitches = append(res.TracedSelfSwitches, switches()-sw0)
					res.TracedBPF = append(res.TracedBPF, (bpf1 - bpf0).Seconds())
				}
			}
			time.Sleep(settle)
		}
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

// cpuTime is the user and system CPU time of who (RUSAGE_SELF or
// RUSAGE_CHILDREN: the children waited for).
func cpuTime(who int) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// switches is the number of context switches of this process so far.
func switches() int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Nvcsw + ru.Nivcsw
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
func runTraced(tr *tracer.Tracer, self, prog string, argv []string, out *os.File) (trace.Summary, error) {
	if _, err := out.Seek(0, 0); err != nil {
		return trace.Summary{}, err
	}
	unconfined, err := sandbox.NewConfinement() // traced, not confined
	if err != nil {
		return trace.Summary{}, err
	}
	child, err := sandbox.Start(self, unconfined.Confine(sandbox.Command{Path: prog, Args: argv, Env: os.Environ()}), nil, nil, nil)
	if err != nil {
		return trace.Summary{}, err
	}
	sess, err := tr.TrackWith(child.Pid(), tracer.TrackOptions{FromExec: true})
	if err != nil {
		_ = child.Kill()
		_, _ = child.Wait()
		return trace.Summary{}, err
	}
	w := trace.NewWriter(out)
	done := make(chan error, 1)
	go func() { done <- tracer.WriteSession(w, sess) }()
	if err := child.Release(); err != nil {
		return trace.Summary{}, err
	}
	code, err := child.Wait()
	if err != nil {
		return trace.Summary{}, err
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

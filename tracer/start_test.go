package tracer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tracer/trace"
)

// TestFromExecSkipsPreTrackExec: with FromExec, an exec of the root that
// began before the tracking (marked by the kernel) does not end the
// launcher's phase: its start-up events after that exec are dropped too,
// up to the exec of the command.
func TestFromExecSkipsPreTrackExec(t *testing.T) {
	s := newTestSession(100)
	s.root, s.preExec = 10, true
	for i, ev := range []trace.Event{
		{TGID: 10, Op: trace.OpExec, Path: "/.authbench/authbench"}, // begun before tracking
		{TGID: 10, Op: trace.OpOpen, Path: "/etc", Flags: unix.O_PATH},
		{TGID: 10, Op: trace.OpOpen, Path: "/proc/self/cgroup", Real: "/proc/1/cgroup"},
		{TGID: 10, Op: trace.OpExec, Path: "/agent", Ret: -2, Errno: "ENOENT"}, // an attempt: kept
		{TGID: 10, Op: trace.OpExec, Path: "/usr/bin/agent"},
		{TGID: 10, Op: trace.OpOpen, Path: "/work/x"},
	} {
		s.push(ev, i == 0)
	}
	var got []string
	for _, ev := range s.queue {
		got = append(got, string(ev.Op)+" "+ev.Path)
	}
	if strings.Join(got, "|") != "exec /agent|exec /usr/bin/agent|open /work/x" || s.preTracks != 1 {
		t.Errorf("kept %q (%d pre-track execs), want the failed exec, the agent's exec and its open", got, s.preTracks)
	}
}

// TestAgentTraceStartsAtItsExec: a command started through sandbox-init
// with Landlock rules, tracked with FromExec as task runs track agents
// (right after the launcher's exec is visible in /proc, as a task run's
// tracking races runc's exec of sandbox-init), has none of sandbox-init's
// start-up in its events: no O_PATH rule opens, no cgroup reads of the Go
// runtime, no event of the root before the command's exec. (Without
// FromExec every run has them: ~46 O_PATH rule opens and the runtime's
// cgroup reads. The race itself — the tracking coming between the
// launcher's exec's start and its tracepoint — is not forced here; the
// log says how often it happened.)
func TestAgentTraceStartsAtItsExec(t *testing.T) {
	tr := loadTracer(t, Options{})
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policy.ParsePolicy([]byte(`{"read":["/**"],"write":["`+dir+`/**"],"execute":["/usr/bin/**","/bin/**"]}`), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	root, err := policy.NewRoot("/")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := policy.CompilePlan(pol, policy.DefaultBaseline(), root)
	if err != nil {
		t.Fatal(err)
	}
	rulePaths := map[string]bool{}
	for _, r := range plan.Rules {
		rulePaths[r.Path] = true
	}
	cat, err := filepath.EvalSymlinks("/bin/cat")
	if err != nil {
		t.Fatal(err)
	}
	raced := 0
	for i := range 20 {
		spec := sandbox.Launch{Path: cat, Args: []string{"cat", "/etc/hostname"}, Env: []string{"PATH=/usr/bin:/bin"},
			Dir: dir, Plan: plan}
		child, err := sandbox.Start(self, spec, nil, nil, os.Stderr)
		if err != nil {
			t.Fatalf("start: %v", err)
		}
		sess, err := tr.TrackWith(child.Pid(), TrackOptions{FromExec: true})
		if err != nil {
			_ = child.Kill()
			_, _ = child.Wait()
			t.Fatalf("track: %v", err)
		}
		var evs []trace.Event
		done := make(chan struct{})
		go func() {
			defer close(done)
			for batch := range sess.Events() {
				evs = append(evs, batch...)
			}
		}()
		if err := child.Release(); err != nil {
			var ie *sandbox.InitError
			if !errors.As(err, &ie) {
				t.Fatalf("release: %v", err)
			}
			t.Fatalf("sandbox-init: %v", err)
		}
		if code, err := child.Wait(); err != nil || code != 0 {
			t.Fatalf("cat exited %d, %v", code, err)
		}
		if _, err := sess.Close(); err != nil {
			t.Fatal(err)
		}
		<-done
		sess.mu.Lock()
		raced += sess.preTracks
		sess.mu.Unlock()
		for _, ev := range evs {
			if ev.Op != trace.OpOpen {
				continue
			}
			if ev.Flags&unix.O_PATH != 0 && rulePaths[ev.Target()] {
				t.Errorf("run %d: sandbox-init's O_PATH rule open in the events: %+v", i, ev)
			}
			if p := ev.Target(); strings.HasSuffix(p, "/cgroup") || strings.HasSuffix(p, "/mountinfo") ||
				strings.HasPrefix(p, "/sys/fs/cgroup/") {
				t.Errorf("run %d: a start-up cgroup read in the events: %+v", i, ev)
			}
		}
		if len(evs) == 0 || evs[0].Op != trace.OpExec || evs[0].Path != cat || evs[0].TGID != child.Pid() {
			t.Errorf("run %d: first event %+v, want the exec of %s by %d", i, evs[:min(1, len(evs))], cat, child.Pid())
		}
	}
	t.Logf("20 runs, %d launcher execs seen by a tracking that raced them (dropped)", raced)
}

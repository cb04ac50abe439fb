package tracer

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"

	"github.com/authbench/authbench/tracer/trace"
)

// TestCommandNotFound: sandbox-init's failed exec is traced (ENOENT) and
// reported as an error; the session closes normally.
func TestCommandNotFound(t *testing.T) {
	tr := loadTracer(t, Options{})
	missing := "/nonexistent/authbench-no-such-command"
	r := runTraced(t, tr, "/", []string{missing}, nil)
	if r.relErr == nil {
		t.Fatal("release of a missing command succeeded")
	}
	if r.code == 0 {
		t.Errorf("exit status 0 for a missing command")
	}
	n := count(r.events, func(ev *trace.Event) bool {
		return ev.Op == trace.OpExec && ev.Path == missing && ev.Errno == "ENOENT"
	})
	if n != 1 {
		t.Errorf("%d failed exec events of %s, want 1: %+v", n, missing, r.events)
	}
}

// TestExitRightAway: a command that exits immediately is fully traced.
func TestExitRightAway(t *testing.T) {
	tr := loadTracer(t, Options{})
	r := runTraced(t, tr, "/", []string{"/bin/true"}, nil)
	if count(r.events, func(ev *trace.Event) bool { return ev.Op == trace.OpExec && ev.Path == "/bin/true" }) != 1 ||
		count(r.events, func(ev *trace.Event) bool { return ev.Op == trace.OpExit && ev.TGID == r.root }) != 1 {
		t.Errorf("exec and exit of /bin/true not both traced: %+v", r.events)
	}
}

// TestTrackExitedProcess: a process that exited before it could be
// tracked is a clear error and leaves nothing in the kernel maps.
func TestTrackExitedProcess(t *testing.T) {
	tr := loadTracer(t, Options{})
	cmd := exec.Command("/bin/true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	_, err := tr.Track(cmd.Process.Pid)
	if !errors.Is(err, ErrProcessGone) {
		t.Fatalf("Track(exited pid) = %v, want ErrProcessGone", err)
	}
	// A zombie (exited, not yet reaped) is gone too.
	z := exec.Command("/bin/true")
	if err := z.Start(); err != nil {
		t.Fatal(err)
	}
	waitZombie(t, z.Process.Pid)
	_, err = tr.Track(z.Process.Pid)
	_ = z.Wait()
	if !errors.Is(err, ErrProcessGone) {
		t.Fatalf("Track(zombie) = %v, want ErrProcessGone", err)
	}
	if n := mapLen(t, tr.objs.AbProcs); n != 0 {
		t.Errorf("%d entries left in the membership map", n)
	}
	if _, err := tr.Track(-1); err == nil {
		t.Error("Track(-1) succeeded")
	}
}

func waitZombie(t *testing.T, pid int) {
	t.Helper()
	for i := 0; i < 200; i++ {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err == nil && strings.Contains(string(b), ") Z ") {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("process %d did not become a zombie", pid)
}

func mapLen(t *testing.T, m *ebpf.Map) int {
	t.Helper()
	var k uint32
	var v uint64
	n := 0
	it := m.Iterate()
	for it.Next(&k, &v) {
		n++
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTenThousandProcesses: a tree of 10,100 processes (100 children, each
// with 100 children) is traced completely and leaves no map entries.
func TestTenThousandProcesses(t *testing.T) {
	tr := loadTracer(t, Options{})
	forker := helperBin(t, "forker")
	dir := t.TempDir()
	// A create is counted by the file it made (Target: its real path):
	// under a fork storm the name as given can, rarely, not be read from
	// user memory without faulting (the event is then logged incomplete,
	// its path empty), while the event itself is there.
	r := runTraced(t, tr, "/", []string{forker, "100", "2", dir}, func(ev *trace.Event) bool {
		return ev.Op == trace.OpFork || ev.Op == trace.OpExit || (ev.Op == trace.OpOpen && strings.HasPrefix(ev.Target(), dir))
	})
	const procs = 100 + 100*100
	forks := count(r.events, func(ev *trace.Event) bool { return ev.Op == trace.OpFork })
	exits := count(r.events, func(ev *trace.Event) bool { return ev.Op == trace.OpExit })
	creates := count(r.events, func(ev *trace.Event) bool { return ev.Op == trace.OpOpen && ev.Ret == 0 })
	t.Logf("forks %d, exits %d, creates %d, events %d, lost %d", forks, exits, creates, r.sum.Events, r.sum.Lost)
	if r.code != 0 || forks != procs || exits != procs+1 || creates != procs || r.sum.Lost != 0 {
		t.Errorf("want %d forks, %d exits, %d creates, 0 lost, exit 0 (got exit %d)", procs, procs+1, procs, r.code)
	}
	if n := mapLen(t, tr.objs.AbProcs); n != 0 {
		t.Errorf("%d entries left in the membership map", n)
	}
	if r.sum.Running != 0 {
		t.Errorf("%d processes reported still running", r.sum.Running)
	}
}

// TestCloseLeavesNothing: after Close, none of the tracer's programs,
// maps or links exist in the kernel any more.
func TestCloseLeavesNothing(t *testing.T) {
	tr := loadTracer(t, Options{})
	progs, maps := tr.objs.all()
	var progIDs []ebpf.ProgramID
	for _, p := range progs {
		info, err := p.Info()
		if err != nil {
			t.Fatal(err)
		}
		id, _ := info.ID()
		progIDs = append(progIDs, id)
	}
	var mapIDs []ebpf.MapID
	for _, m := range maps {
		info, err := m.Info()
		if err != nil {
			t.Fatal(err)
		}
		id, _ := info.ID()
		mapIDs = append(mapIDs, id)
	}
	if len(progIDs) < 5 || len(mapIDs) < 7 {
		t.Fatalf("only %d programs and %d maps found", len(progIDs), len(mapIDs))
	}
	// A session left open must not keep anything alive either.
	r := exec.Command("sleep", "0.2")
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Track(r.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	_ = r.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var alive []string
		for _, id := range progIDs {
			if p, err := ebpf.NewProgramFromID(id); err == nil {
				p.Close()
				alive = append(alive, "prog "+strconv.Itoa(int(id)))
			}
		}
		for _, id := range mapIDs {
			if m, err := ebpf.NewMapFromID(id); err == nil {
				name := ""
				if info, err := m.Info(); err == nil {
					name = info.Name
				}
				m.Close()
				alive = append(alive, "map "+strconv.Itoa(int(id))+" "+name)
			}
		}
		if len(alive) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still in the kernel after Close: %v", alive)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if out, err := exec.Command("bpftool", "prog", "show").Output(); err == nil {
		for _, line := range strings.Split(string(out), "\n") {
			for _, id := range progIDs {
				if strings.HasPrefix(line, strconv.Itoa(int(id))+":") && strings.Contains(line, " ab_") {
					t.Errorf("bpftool still lists %q", line)
				}
			}
		}
	}
}

// TestLoadWithoutPrivilege: an unprivileged process gets an error naming
// the capabilities it lacks.
func TestLoadWithoutPrivilege(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to start a process as nobody")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "tracer-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "tracer.test")
	if err := copyFile(self, bin); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), helperEnv+"=load")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Skipf("an unprivileged process may load BPF here: %s", out)
	}
	msg := string(out)
	t.Logf("unprivileged load: %s", strings.TrimSpace(msg))
	if !strings.Contains(msg, "CAP_BPF") || !strings.Contains(msg, "CAP_SYS_ADMIN") {
		t.Errorf("error does not name the capabilities: %q", msg)
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// TestAttachedOnlyWhileTracing: the programs are attached (and cost the
// machine's syscalls anything) only while sessions are open, and for
// IdleDetach after the last one closed; a session opened meanwhile reuses
// the links, and once the tracer has been idle that long the links are
// gone from the kernel.
func TestAttachedOnlyWhileTracing(t *testing.T) {
	const idle = 300 * time.Millisecond
	tr := loadTracer(t, Options{IdleDetach: idle})
	attached := func() []link.ID {
		tr.attachMu.Lock()
		defer tr.attachMu.Unlock()
		var ids []link.ID
		for _, l := range tr.links {
			info, err := l.Info()
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, info.ID)
		}
		return ids
	}
	track := func() *Session {
		p := exec.Command("sleep", "30")
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Process.Kill(); _ = p.Wait() })
		s, err := tr.Track(p.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for range s.Events() {
			}
		}()
		return s
	}
	closeSession := func(s *Session) {
		if _, err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if ids := attached(); len(ids) != 0 {
		t.Fatalf("%d links before any session", len(ids))
	}
	s1, s2 := track(), track()
	ids := attached()
	if want := 5 + len(tr.objs.prepare); len(ids) != want {
		t.Fatalf("%d links with two sessions open, want %d (fork, exec, exit, sys_exit, io_uring_submit_req, and sched_prepare_exec when the kernel has it)", len(ids), want)
	}
	closeSession(s1)
	closeSession(s2)
	closed := time.Now()
	s3 := track()
	if got := attached(); !slices.Equal(got, ids) || time.Since(closed) >= idle {
		t.Fatalf("a session opened right after the last close has links %v, want the same %v", got, ids)
	}
	closeSession(s3)
	time.Sleep(idle + 200*time.Millisecond)
	if n := len(attached()); n != 0 {
		t.Fatalf("%d links after the tracer was idle for %v", n, idle)
	}
	for _, id := range ids {
		if l, err := link.NewFromID(id); err == nil {
			l.Close()
			t.Errorf("link %d still exists in the kernel", id)
		}
	}
}

// TestEventTimesFollowTheWallClock: event times are Unix times that
// follow the wall clock even when it moved against the monotonic clock
// since the tracer was loaded (NTP slews a VM's clock by milliseconds a
// second; a tool call's window, stamped with the wall clock, is matched
// against them). An offset an hour stale is corrected by the reader
// before the next events.
func TestEventTimesFollowTheWallClock(t *testing.T) {
	tr := loadTracer(t, Options{})
	tr.bootOffset.Add(-int64(time.Hour))
	time.Sleep(3 * pollInterval) // the reader idles
	before := time.Now().UnixNano()
	r := runTraced(t, tr, "/", []string{"/bin/true"}, nil)
	after := time.Now().UnixNano()
	for _, ev := range r.events {
		if ev.Op == trace.OpExec && (ev.TS < before-int64(time.Second) || ev.TS > after+int64(time.Second)) {
			t.Fatalf("exec at %d, outside [%d, %d]: the event clock did not follow the wall clock", ev.TS, before, after)
		}
	}
}

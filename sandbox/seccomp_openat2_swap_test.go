package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/policy"
	"golang.org/x/sys/unix"
)

func init() {
	// probeFuncs is built by probe_test.go's init, which runs first.
	probeFuncs["rmdir"] = func(o probeOp) (string, error) { return "", unix.Rmdir(o.Path) }
	probeFuncs["openat2read"] = probeOpenat2Read
	probeFuncs["fifostall"] = probeFifoStall
	probeFuncs["fifoflood"] = probeFifoFlood
	probeFuncs["bindover"] = func(o probeOp) (string, error) {
		return "", unix.Mount(o.Path, o.Path2, "", unix.MS_BIND, "")
	}
	techniques = append(techniques, swapTechniques...)
}

// probeOpenat2Read is openat2(AT_FDCWD, Path, O_RDONLY) and the file's
// first bytes.
func probeOpenat2Read(o probeOp) (string, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, o.Path, &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC})
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	buf := make([]byte, 64)
	n, err := unix.Read(fd, buf)
	return string(buf[:max(n, 0)]), err
}

// probeFifoStall starts a process of the tree (this binary again) whose
// openat2 of the FIFO Path blocks (no writer), then times an openat2 of
// the granted file Path2 while it blocks and again after it was killed.
// Out is "<first> <second>", each "ok" or "timeout" (3 s).
func probeFifoStall(o probeOp) (string, error) {
	cmd, err := startFifoReader(o.Path)
	if err != nil {
		return "", err
	}
	time.Sleep(500 * time.Millisecond) // the child reaches its open of the FIFO
	first := timedOpenat2(o.Path2)
	alive := cmd.Process.Signal(unix.Signal(0)) == nil
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	second := timedOpenat2(o.Path2)
	if !alive {
		return first + " " + second, fmt.Errorf("the FIFO's reader did not block")
	}
	return first + " " + second, nil
}

// startFifoReader starts a process of the tree (this binary again) whose
// openat2 of the FIFO fifo blocks (no writer).
func startFifoReader(fifo string) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	ops, err := json.Marshal([]probeOp{{Op: "openat2read", Path: fifo}})
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, probeEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, probeEnv+"="+string(ops))
	return cmd, cmd.Start()
}

// probeFifoFlood starts Arg processes of the tree that each block in
// openat2 of the FIFO Path, then times an openat2 of the granted file
// Path2 and counts the openat2 agent's threads (the agent is this
// process's child that is none of the readers). Out is "<open>
// threads=<n>".
func probeFifoFlood(o probeOp) (string, error) {
	readers := map[string]bool{}
	var cmds []*exec.Cmd
	defer func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}()
	for range o.Arg {
		c, err := startFifoReader(o.Path)
		if err != nil {
			return "", err
		}
		cmds = append(cmds, c)
		readers[fmt.Sprint(c.Process.Pid)] = true
	}
	time.Sleep(time.Second) // the readers reach their opens
	open := timedOpenat2(o.Path2)
	children, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/children", os.Getpid()))
	if err != nil {
		return open, err
	}
	for _, pid := range strings.Fields(string(children)) {
		if readers[pid] {
			continue
		}
		st, err := os.ReadFile("/proc/" + pid + "/status")
		if err != nil {
			return open, err
		}
		for line := range strings.SplitSeq(string(st), "\n") {
			if v, ok := strings.CutPrefix(line, "Threads:"); ok {
				return open + " threads=" + strings.TrimSpace(v), nil
			}
		}
	}
	return open, fmt.Errorf("no openat2 agent among the children %q", children)
}

// timedOpenat2 reads path through openat2, "ok" within 3 s, "timeout"
// past them, else the error.
func timedOpenat2(path string) string {
	done := make(chan string, 1)
	go func() {
		out, err := probeOpenat2Read(probeOp{Path: path})
		if err != nil {
			done <- err.Error()
			return
		}
		done <- "ok:" + out
	}()
	select {
	case r := <-done:
		return r
	case <-time.After(3 * time.Second):
		return "timeout"
	}
}

// withReadRule adds a read rule for the directory dir to s's plan: a
// rule path whose parent the tree may write.
func withReadRule(s *Launch, dir string) {
	cp := *s.Plan
	cp.Rules = append(append([]policy.Rule(nil), s.Plan.Rules...), policy.Rule{
		Path: dir, Dir: true, Access: policy.AccessReadFile | policy.AccessReadDir,
		From: []policy.RuleSource{{Origin: policy.OriginSandbox, Axis: "read", Pattern: dir + "/**"}},
	})
	s.Plan = &cp
}

// ruleSwaps are the ways a tree that may write in a rule path's parent
// puts another object at the rule's path after the start: each ends with
// dir a link to target. Dir exists (with a file) at the start.
func ruleSwaps(dir, target string) map[string][]probeOp {
	parent := filepath.Dir(dir)
	return map[string][]probeOp{
		"symlink replacing the dir": {{Op: "rename", Path: dir, Path2: dir + ".old"},
			{Op: "symlink", Path: target, Path2: dir}},
		"unlink and recreate": {{Op: "delete", Path: dir + "/nested.md"}, {Op: "rmdir", Path: dir},
			{Op: "symlink", Path: target, Path2: dir}},
		"rename a link over it": {{Op: "symlink", Path: target, Path2: parent + "/ln"},
			{Op: "rename", Path: dir, Path2: dir + ".old"}, {Op: "rename", Path: parent + "/ln", Path2: dir}},
		"bind mount over the parent": {{Op: "bindover", Path: filepath.Dir(target), Path2: parent}},
	}
}

// swapTechniques are the escape-suite rows of rule paths swapped after
// the start: a read rule on allowed/sub, whose parent the tree writes,
// then openat2 (served by the openat2 agent) of a forbidden file through
// the swapped path.
var swapTechniques = func() []technique {
	var out []technique
	for _, name := range []string{"symlink replacing the dir", "unlink and recreate", "rename a link over it",
		"bind mount over the parent"} {
		out = append(out, technique{name: "openat2 after a rule path swap: " + name,
			prepare: func(t *testing.T, f escapeFixture, _ *escapeWorld, s *Launch) func() {
				withReadRule(s, f.allowed+"/sub")
				return nil
			},
			ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
				sub := f.allowed + "/sub"
				ops := ruleSwaps(sub, f.forbidden)[name]
				path := sub + "/secret.txt"
				if name == "bind mount over the parent" {
					path = f.allowed + "/secret.txt"
				}
				return append(ops, op("openat2read", path))
			}})
	}
	return out
}()

// TestOpenat2AgentRulesFixedAtStart: a root tree that may write in a
// rule path's parent puts a link to a forbidden directory at the rule's
// path (rename, unlink and recreate, a link renamed over it) or tries to
// bind a parent over; then openat2 (the agent's open) and open(2) of the
// forbidden file are both refused. Before the agent was handed
// sandbox-init's ruleset, it built its own at the tree's first openat2
// from the paths, following the link, and opened the file.
func TestOpenat2AgentRulesFixedAtStart(t *testing.T) {
	requireRoot(t, "a root tree, as on a bare host")
	requireLandlock(t, 3)
	def, err := DefaultFilter()
	if err != nil {
		t.Fatal(err)
	}
	for name := range ruleSwaps("/x/sub", "/y") {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			dir := fixtureDir(t)
			w, sub, forbidden := dir+"/w", dir+"/w/sub", dir+"/forbidden"
			for p, data := range map[string]string{sub + "/nested.md": "nested", forbidden + "/secret.txt": "SECRET"} {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			spec := Launch{}.Confined(withSelf(t, hostPlan(t, policyDoc([]string{w + "/**"}, []string{w + "/**"}, nil),
				policy.DefaultBaseline())), def)
			withReadRule(&spec, sub)
			target := sub + "/secret.txt"
			if name == "bind mount over the parent" {
				target = w + "/secret.txt"
			}
			ops := append(ruleSwaps(sub, forbidden)[name], op("openat2read", target), op("read", target))
			res, c := probe(t, spec, ops, nil)
			if len(res) != len(ops) {
				t.Fatalf("probe: %d of %d results: %v\n%s", len(res), len(ops), c.err, c.stderr)
			}
			if name == "bind mount over the parent" {
				if res[0].Errno == 0 {
					t.Fatalf("the tree bound %s over %s", forbidden, w)
				}
			} else {
				for _, r := range res[:len(res)-2] {
					if r.Errno != 0 {
						t.Fatalf("swap %+v: %v", r, unix.Errno(r.Errno))
					}
				}
			}
			for _, r := range res[len(res)-2:] {
				if r.Errno == 0 || strings.Contains(r.Out, "SECRET") {
					t.Errorf("%s of %s after the swap: opened (%q), want refused", r.Op, target, r.Out)
				}
			}
		})
	}
}

// TestOpenat2AgentConcurrencyBound: 40 processes of the tree block in
// openat2 of a FIFO; the agent holds at most agentConcurrency opening
// threads for them (its thread count stays within agentConcurrency and
// the Go runtime's few), and a further openat2 of a granted file answers
// at once, ok or ENOSYS (every slot taken: the caller falls back to
// openat). Before, the further openat2 waited for the first FIFO.
func TestOpenat2AgentConcurrencyBound(t *testing.T) {
	requireRoot(t, "sandbox-init sets no_new_privs and installs the filter")
	requireLandlock(t, 3)
	def, err := DefaultFilter()
	if err != nil {
		t.Fatal(err)
	}
	dir := fixtureDir(t)
	fifo, file := dir+"/fifo", dir+"/granted"
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("granted"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := Launch{}.Confined(withSelf(t, hostPlan(t, policyDoc([]string{dir + "/**", "/proc/**"}, nil, nil), policy.DefaultBaseline())), def)
	res, c := probe(t, spec, []probeOp{{Op: "fifoflood", Path: fifo, Path2: file, Arg: 40}}, nil)
	if len(res) != 1 {
		t.Fatalf("probe: %v\n%s", c.err, c.stderr)
	}
	var threads int
	open, _, _ := strings.Cut(res[0].Out, " threads=")
	if _, err := fmt.Sscanf(res[0].Out[len(open):], " threads=%d", &threads); err != nil || res[0].Errno != 0 {
		t.Fatalf("probe: %+v", res[0])
	}
	if open != "ok:granted" && open != unix.ENOSYS.Error() {
		t.Errorf("openat2 of a granted file during the flood: %q, want ok:granted or ENOSYS at once", open)
	}
	if threads > agentConcurrency+12 || threads >= 40 {
		t.Errorf("the agent has %d threads during a flood of 40 blocking opens, want at most %d opening threads and the runtime's", threads, agentConcurrency)
	}
	t.Logf("during the flood: %s, agent threads %d", open, threads)
}

// TestOpenat2AgentServesConcurrently: while one process of the tree is
// blocked in openat2 of a FIFO without a writer, another's openat2 of a
// granted file answers; after the blocked one is killed the agent still
// serves. Before, the agent served one notification at a time: the
// second openat2 waited, and went on waiting after the kill.
func TestOpenat2AgentServesConcurrently(t *testing.T) {
	requireRoot(t, "sandbox-init sets no_new_privs and installs the filter")
	requireLandlock(t, 3)
	def, err := DefaultFilter()
	if err != nil {
		t.Fatal(err)
	}
	dir := fixtureDir(t)
	fifo, file := dir+"/fifo", dir+"/granted"
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("granted"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := Launch{}.Confined(withSelf(t, hostPlan(t, policyDoc([]string{dir + "/**"}, nil, nil), policy.DefaultBaseline())), def)
	start := time.Now()
	res, c := probe(t, spec, []probeOp{{Op: "fifostall", Path: fifo, Path2: file}}, nil)
	if len(res) != 1 {
		t.Fatalf("probe: %v\n%s", c.err, c.stderr)
	}
	if res[0].Errno != 0 || res[0].Out != "ok:granted ok:granted" {
		t.Errorf("openat2 of a granted file while another blocks, then after the kill: %+v, want ok:granted twice", res[0])
	}
	t.Logf("probe took %v", time.Since(start))
}

package tracer

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/tracer/trace"
)

// inodeOf returns the identity of path as stat(2) reports it.
func inodeOf(t *testing.T, path string) (dev, ino uint64) {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		t.Fatalf("stat %s: %v", path, err)
	}
	return st.Dev, st.Ino
}

// opensOf returns the successful open events whose name as given is path.
func opensOf(evs []trace.Event, path string) []trace.Event {
	return filterEvents(evs, func(e *trace.Event) bool { return e.Op == trace.OpOpen && !e.Failed() && e.Path == path })
}

// filterEvents returns the events that satisfy f.
func filterEvents(evs []trace.Event, f func(*trace.Event) bool) []trace.Event {
	var out []trace.Event
	for i := range evs {
		if f(&evs[i]) {
			out = append(out, evs[i])
		}
	}
	return out
}

// TestRealPathAliases: a file read through a symlink, a hard link,
// /proc/self/root, ".." after a symlink and a directory renamed during the
// run is recorded with the real path the kernel opened and its identity;
// the name as given stays what the process wrote.
func TestRealPathAliases(t *testing.T) {
	tr := loadTracer(t, Options{})
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(dir, "etc", "secret")
	for _, d := range []string{"etc", "x"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(secret, []byte("s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	must(t, os.Symlink(filepath.Join(dir, "etc"), filepath.Join(dir, "l")))
	must(t, os.Symlink(filepath.Join(dir, "etc"), filepath.Join(dir, "x", "l")))
	must(t, os.Link(secret, filepath.Join(dir, "hl")))
	dev, ino := inodeOf(t, secret)

	viaLink := dir + "/l/secret"
	viaHard := dir + "/hl"
	viaProc := "/proc/self/root" + secret
	viaDotDot := dir + "/x/l/../etc/secret" // l/.. is dir, not dir/x
	renamed := dir + "/etc2/secret"
	script := "exec >/dev/null && " + strings.Join([]string{
		"cat " + viaLink, "cat " + viaHard, "cat " + viaProc, "cat " + viaDotDot,
		"mv " + dir + "/etc " + dir + "/etc2", "cat " + renamed,
	}, " && ")
	r := runTraced(t, tr, dir, []string{"/bin/sh", "-c", script}, nil)
	if r.code != 0 {
		t.Fatalf("script exited %d", r.code)
	}
	for _, c := range []struct{ kind, given, lexical, real string }{
		{"symlink", viaLink, viaLink, secret},
		{"hard link", viaHard, viaHard, viaHard},
		{"/proc/self/root", viaProc, viaProc, secret},
		{".. after a symlink", viaDotDot, dir + "/x/etc/secret", secret},
		{"renamed directory", renamed, renamed, renamed},
	} {
		evs := opensOf(r.events, c.lexical)
		if len(evs) != 1 {
			t.Errorf("%s: %d opens of %s, want 1", c.kind, len(evs), c.lexical)
			continue
		}
		ev := evs[0]
		if ev.Real != c.real || ev.RealState != "" || ev.Dev != dev || ev.Ino != ino {
			t.Errorf("%s: real %q (%q) dev %d ino %d, want %q dev %d ino %d", c.kind, ev.Real, ev.RealState, ev.Dev, ev.Ino, c.real, dev, ino)
		}
		if ev.Target() != c.real {
			t.Errorf("%s: Target() = %q, want %q", c.kind, ev.Target(), c.real)
		}
	}
	// A failed open keeps the name as given and has no identity.
	for _, ev := range r.events {
		if ev.Failed() && (ev.Real != "" || ev.Ino != 0) {
			t.Errorf("failed %s of %s has real %q ino %d", ev.Op, ev.Path, ev.Real, ev.Ino)
		}
	}
	// exec: the binary the kernel ran (/bin/cat may be a symlink).
	catReal, err := filepath.EvalSymlinks("/bin/cat")
	if err != nil {
		t.Fatal(err)
	}
	_, catIno := inodeOf(t, catReal)
	if count(r.events, func(ev *trace.Event) bool {
		return ev.Op == trace.OpExec && ev.Comm == "cat" && ev.Real == catReal && ev.Ino == catIno
	}) != 5 {
		t.Errorf("exec events of /bin/cat do not all name %s (ino %d): %+v", catReal, catIno, r.events)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestRealPathBadInput: deleted files, anonymous files (pipes), O_PATH
// descriptors, open_by_handle_at and paths longer than the kernel-side
// bound each have their documented representation.
func TestRealPathBadInput(t *testing.T) {
	tr := loadTracer(t, Options{})
	opath := helperBin(t, "opath")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	del := filepath.Join(dir, "del")
	must(t, os.WriteFile(del, []byte("d\n"), 0o644))
	_, delIno := inodeOf(t, del)
	plain := filepath.Join(dir, "plain")
	must(t, os.WriteFile(plain, []byte("p\n"), 0o644))
	_, plainIno := inodeOf(t, plain)
	deep := makeDeepDir(t, dir)

	script := "exec 3<" + del + " && rm " + del + " && cat /dev/fd/3 >/dev/null" +
		" && echo x | cat /dev/stdin >/dev/null" +
		" && " + opath + " " + plain + " " + dir +
		" && " + deep.cd + "cat f >/dev/null"
	r := runTraced(t, tr, deep.base, []string{"/bin/sh", "-c", script}, nil)
	if r.code != 0 {
		t.Fatalf("script exited %d", r.code)
	}
	check := func(kind string, f func(*trace.Event) bool, real string, state trace.RealState, ino uint64) {
		t.Helper()
		var hit *trace.Event
		for i := range r.events {
			if f(&r.events[i]) {
				hit = &r.events[i]
			}
		}
		if hit == nil {
			t.Errorf("%s: no event", kind)
			return
		}
		if hit.Real != real || hit.RealState != state || (ino != 0 && hit.Ino != ino) || hit.Ino == 0 {
			t.Errorf("%s: real %q state %q ino %d, want %q %q %d", kind, hit.Real, hit.RealState, hit.Ino, real, state, ino)
		}
	}
	check("deleted", func(ev *trace.Event) bool { return ev.Op == trace.OpOpen && ev.Path == "/dev/fd/3" }, del, trace.RealDeleted, delIno)
	check("pipe", func(ev *trace.Event) bool { return ev.Op == trace.OpOpen && ev.Path == "/dev/stdin" }, "", trace.RealUnreachable, 0)
	check("O_PATH", func(ev *trace.Event) bool {
		return ev.Op == trace.OpOpen && ev.Path == plain && ev.Flags&unix.O_PATH != 0
	}, plain, "", plainIno)
	check("open_by_handle_at", func(ev *trace.Event) bool {
		return ev.Op == trace.OpOpen && ev.Path == "" && !ev.Failed() && ev.Comm == "opath"
	}, plain, "", plainIno)
	// A NULL name is a fault with no path, not the current directory.
	if count(r.events, func(ev *trace.Event) bool {
		return ev.Op == trace.OpOpen && ev.Comm == "opath" && ev.Errno == "EFAULT" && ev.Path == "" && ev.Real == ""
	}) != 1 {
		t.Errorf("open(NULL) not recorded as a fault without a path")
	}
	check("too long", func(ev *trace.Event) bool {
		return ev.Op == trace.OpOpen && strings.HasSuffix(ev.Path, "/f") && ev.Comm == "cat"
	}, "", trace.RealTruncated, deep.ino)
}

type deepDir struct {
	base string // the chain starts here
	cd   string // shell commands that change into its bottom ("cd -P d && ... && ")
	ino  uint64 // of the file rel/f
}

// makeDeepDir creates, below dir, directories whose path is longer than
// PATH_MAX (created step by step), with a file f at the bottom.
func makeDeepDir(t *testing.T, dir string) deepDir {
	t.Helper()
	name := strings.Repeat("d", 250)
	fd, err := unix.Open(dir, unix.O_DIRECTORY|unix.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for i := 0; i < 20; i++ {
		if err := unix.Mkdirat(fd, name, 0o755); err != nil {
			t.Fatal(err)
		}
		nfd, err := unix.Openat(fd, name, unix.O_DIRECTORY|unix.O_RDONLY, 0)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd = nfd
		parts = append(parts, name)
	}
	defer unix.Close(fd)
	ffd, err := unix.Openat(fd, "f", unix.O_CREAT|unix.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	must(t, unix.Fstat(ffd, &st))
	unix.Close(ffd)
	t.Cleanup(func() { removeDeep(dir, name, len(parts)) })
	// The shell changes into the chain one directory at a time.
	return deepDir{base: dir, cd: strings.Repeat("cd -P "+name+" && ", len(parts)), ino: st.Ino}
}

// removeDeep removes the chain makeDeepDir made (t.TempDir's RemoveAll
// cannot handle paths beyond PATH_MAX everywhere).
func removeDeep(dir, name string, n int) {
	fds := []int{}
	fd, err := unix.Open(dir, unix.O_DIRECTORY|unix.O_RDONLY, 0)
	if err != nil {
		return
	}
	fds = append(fds, fd)
	for i := 0; i < n; i++ {
		nfd, err := unix.Openat(fd, name, unix.O_DIRECTORY|unix.O_RDONLY, 0)
		if err != nil {
			break
		}
		fd = nfd
		fds = append(fds, fd)
	}
	_ = unix.Unlinkat(fds[len(fds)-1], "f", 0)
	for i := len(fds) - 1; i > 0; i-- {
		_ = unix.Unlinkat(fds[i-1], name, unix.AT_REMOVEDIR)
	}
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// TestRealPathRace: a thread rewriting the path buffer during opens never
// makes a logged real path differ from the file opened.
func TestRealPathRace(t *testing.T) {
	tr := loadTracer(t, Options{})
	race := helperBin(t, "race")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "aaaa"), filepath.Join(dir, "bbbb")
	must(t, os.WriteFile(a, nil, 0o644))
	must(t, os.WriteFile(b, nil, 0o644))
	_, ia := inodeOf(t, a)
	_, ib := inodeOf(t, b)
	inoOf := map[string]uint64{a: ia, b: ib}
	r := runTraced(t, tr, dir, []string{race, "20000", a, b}, func(ev *trace.Event) bool {
		return (ev.Op == trace.OpOpen && strings.HasPrefix(ev.Path, dir)) || ev.Op == trace.OpExit
	})
	if r.code != 0 || r.sum.Lost != 0 {
		t.Fatalf("race exited %d, lost %d", r.code, r.sum.Lost)
	}
	nameDiffers := 0
	for _, ev := range r.events {
		if ev.Failed() || ev.Op != trace.OpOpen {
			continue
		}
		if want, ok := inoOf[ev.Real]; !ok || want != ev.Ino {
			t.Fatalf("open logged real %q ino %d: not the file opened", ev.Real, ev.Ino)
		}
		if ev.Path != ev.Real {
			nameDiffers++
		}
	}
	// main returned while the other thread ran: one exit of the process.
	if n := count(r.events, func(ev *trace.Event) bool { return ev.Op == trace.OpExit }); n != 1 {
		t.Errorf("%d exit events for one process whose two threads exited together", n)
	}
	if n := count(r.events, func(ev *trace.Event) bool { return ev.Op == trace.OpOpen }); n < 20000 {
		t.Fatalf("%d open events, want 20000", n)
	}
	t.Logf("%d of %d events: the name in memory at sys_exit was not the file opened; the real path was right", nameDiffers, len(r.events))
}

// TestProcessIdentityPidReuse: in a tree of 10k processes, half of which reuse
// the pid of the one before, every file event joins (by TGID and Start) the exec of the
// process that made it, and fork events rebuild the tree.
func TestProcessIdentityPidReuse(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 10k fork+exec take a while")
	}
	tr := loadTracer(t, Options{})
	tree := helperBin(t, "tree")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const n = 10000
	r := runTraced(t, tr, dir, []string{tree, strconv.Itoa(n), dir}, func(ev *trace.Event) bool {
		return ev.Op != trace.OpOpen || strings.HasPrefix(ev.Path, dir+"/")
	})
	if r.code != 0 || r.sum.Lost != 0 {
		t.Fatalf("tree exited %d, lost %d", r.code, r.sum.Lost)
	}
	var root trace.ProcID
	forkParent := map[trace.ProcID]trace.ProcID{}
	lastExec := map[trace.ProcID]int{} // process -> index of its latest exec event
	execOwner := map[int]string{}      // exec event index -> the file its process opened
	pidsSeen := map[int]map[uint64]bool{}
	for i := range r.events {
		ev := &r.events[i]
		switch ev.Op {
		case trace.OpExec:
			if ev.TGID == r.root && root.Start == 0 {
				root = ev.Proc()
			}
			lastExec[ev.Proc()] = i
		case trace.OpFork:
			if _, dup := forkParent[ev.Proc()]; dup {
				t.Fatalf("two forks created process %v", ev.Proc())
			}
			forkParent[ev.Proc()] = ev.Parent()
			if pidsSeen[ev.TGID] == nil {
				pidsSeen[ev.TGID] = map[uint64]bool{}
			}
			pidsSeen[ev.TGID][ev.Start] = true
		case trace.OpOpen:
			x, ok := lastExec[ev.Proc()]
			if !ok {
				t.Fatalf("open of %s by %v joins no exec", ev.Path, ev.Proc())
			}
			if prev, dup := execOwner[x]; dup {
				t.Fatalf("opens of %s and %s join the same exec", prev, ev.Path)
			}
			execOwner[x] = ev.Path
			if p := forkParent[ev.Proc()]; p != root {
				t.Fatalf("open of %s: process %v was forked by %v, not the root %v", ev.Path, ev.Proc(), p, root)
			}
		}
	}
	if len(execOwner) != n {
		t.Fatalf("%d opens joined to an exec, want %d", len(execOwner), n)
	}
	reused := 0
	for _, starts := range pidsSeen {
		if len(starts) > 1 {
			reused++
		}
	}
	if reused == 0 {
		t.Fatalf("no pid was reused in the tree (pid_max too large?); the test proves nothing")
	}
	t.Logf("%d pids were used by more than one process of the tree", reused)
}

// TestURingOpenTraced: an open submitted through io_uring is in the trace
// with its path, and so is the io_uring_setup that preceded it.
func TestURingOpenTraced(t *testing.T) {
	tr := loadTracer(t, Options{})
	uring := helperBin(t, "uring")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(dir, "data"), []byte("0123456789"), 0o644))
	r := runTraced(t, tr, dir, []string{uring, "data"}, nil)
	if r.code != 0 {
		t.Fatalf("uring exited %d", r.code)
	}
	if count(r.events, func(ev *trace.Event) bool { return ev.Op == trace.OpURingSetup && !ev.Failed() }) != 1 {
		t.Errorf("no io_uring_setup event: %+v", r.events)
	}
	if count(r.events, func(ev *trace.Event) bool {
		return ev.Op == trace.OpOpen && ev.URing && ev.Path == filepath.Join(dir, "data") && ev.Axis == trace.AxisRead
	}) != 1 {
		t.Errorf("the io_uring openat of %s/data is not traced: %+v", dir, r.events)
	}
}

// TestSyncUsesNoSharedScratch: ab_sync, a sleepable program, builds its
// marker on its own stack: it references no per-CPU scratch map that a
// traced task preempting it could overwrite.
func TestSyncUsesNoSharedScratch(t *testing.T) {
	tr := loadTracer(t, Options{})
	info, err := tr.objs.AbSync.Info()
	if err != nil {
		t.Fatal(err)
	}
	ids, ok := info.MapIDs()
	if !ok {
		t.Fatal("the kernel does not report a program's maps")
	}
	for _, m := range []*ebpf.Map{tr.objs.AbScratch, tr.objs.AbWalkstate} {
		mi, err := m.Info()
		if err != nil {
			t.Fatal(err)
		}
		id, _ := mi.ID()
		for _, used := range ids {
			if used == id {
				t.Errorf("ab_sync uses the shared per-CPU map %s", mi.Name)
			}
		}
	}
}

package oracle

import (
	"reflect"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tracer/trace"
)

// fakeEnv is an image: links maps a name to its realpath, files exist.
type fakeEnv struct {
	links map[string]string
	files map[string]bool
}

func (e fakeEnv) Realpath(p string) string {
	if r, ok := e.links[p]; ok {
		return r
	}
	return p
}

func (e fakeEnv) Exists(p string) bool { return e.files[p] }

func TestDerive(t *testing.T) {
	env := fakeEnv{
		links: map[string]string{"/bin/bash": "/usr/bin/bash", "/bin": "/usr/bin", "/app/link": "/app/target",
			"/lib64/ld-linux-x86-64.so.2": "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"},
		files: map[string]bool{"/app": true, "/app/in.txt": true, "/app/old": true, "/usr/bin/bash": true},
	}
	open := func(p, real string, flags uint64) trace.Event {
		return trace.Event{Op: trace.OpOpen, Path: p, Real: real, Flags: flags, Axis: trace.AxisOf(trace.OpOpen, flags)}
	}
	events := []trace.Event{
		{Op: trace.OpExec, Path: "/bin/bash", Real: "/usr/bin/bash", Axis: trace.AxisExecute},
		// a #! script: the name executed and the interpreter the kernel ran
		{Op: trace.OpExec, Path: "/app/run.sh", Real: "/app/run.sh", Interp: "/usr/bin/dash", Axis: trace.AxisExecute},
		open("/app/in.txt", "/app/in.txt", unix.O_RDONLY),
		open("/app/out.txt", "/app/out.txt", unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC),
		open("/app/db", "/app/db", unix.O_RDWR),
		open("/app", "/app", unix.O_PATH),
		open("/app/data", "/app/data", unix.O_RDONLY|unix.O_DIRECTORY),
		// failed: not an access
		{Op: trace.OpOpen, Path: "/app/secret", Axis: trace.AxisRead, Ret: -13, Errno: "EACCES"},
		// a pipe: no path
		{Op: trace.OpOpen, Path: "/proc/self/fd/3", RealState: trace.RealUnreachable, Axis: trace.AxisRead},
		{Op: trace.OpMkdir, Path: "/app/build", Axis: trace.AxisWrite},
		open("/app/build/a.o", "/app/build/a.o", unix.O_WRONLY|unix.O_CREAT),
		{Op: trace.OpUnlink, Path: "/app/build/a.o", Axis: trace.AxisWrite},
		{Op: trace.OpRename, Path: "/app/old", Path2: "/app/new", Axis: trace.AxisWrite},
		{Op: trace.OpUnlink, Path: "/app/link", Axis: trace.AxisWrite}, // the link, not its target
		{Op: trace.OpTruncate, Path: "/app/in.txt", Axis: trace.AxisWrite},
		// a program run through the loader
		{PID: 7, Op: trace.OpExec, Path: "/lib64/ld-linux-x86-64.so.2", Real: "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", Axis: trace.AxisExecute},
		{PID: 7, Op: trace.OpOpen, Path: "/app/tool", Real: "/app/tool", Axis: trace.AxisRead},
	}
	acc := Derive(events, env)
	want := map[policy.Axis][]string{
		policy.Read:    {"/app/data", "/app/db", "/app/in.txt", "/app/tool"},
		policy.Write:   {"/app/build", "/app/build/a.o", "/app/db", "/app/in.txt", "/app/link", "/app/new", "/app/old", "/app/out.txt"},
		policy.Execute: {"/app/run.sh", "/app/tool", "/usr/bin/bash", "/usr/bin/dash", "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"},
	}
	for ax, w := range want {
		if got := acc.Sorted(ax); !reflect.DeepEqual(got, w) {
			t.Errorf("%s = %q, want %q", ax, got, w)
		}
	}
	if got, w := sortedKeys(acc.Created), []string{"/app/build", "/app/build/a.o", "/app/new", "/app/out.txt"}; !reflect.DeepEqual(got, w) {
		t.Errorf("created = %q, want %q", got, w)
	}
	if got, w := sortedKeys(acc.Listed), []string{"/app/data"}; !reflect.DeepEqual(got, w) {
		t.Errorf("listed = %q, want %q", got, w)
	}
	if got, w := sortedKeys(acc.Removed), []string{"/app/build/a.o", "/app/link", "/app/old"}; !reflect.DeepEqual(got, w) {
		t.Errorf("removed = %q, want %q", got, w)
	}
}

func TestFilterPaths(t *testing.T) {
	pats := func(s ...string) []policy.Pattern {
		var out []policy.Pattern
		for _, x := range s {
			out = append(out, policy.MustPattern(x))
		}
		return out
	}
	env := fakeEnv{links: map[string]string{"/bin": "/usr/bin"}}
	for _, c := range []struct {
		name                  string
		paths                 []string
		roots, implicit       []policy.Pattern
		kept, outside, implic []string
	}{
		{"inside and outside", []string{"/app/a", "/application", "/etc/passwd"}, pats("/app"), nil,
			[]string{"/app/a"}, []string{"/application", "/etc/passwd"}, nil},
		{"implicit dropped", []string{"/app/a", "/app/cache/x"}, pats("/app"), pats("/app/cache/**"),
			[]string{"/app/a"}, nil, []string{"/app/cache/x"}},
		{"root through its realpath", []string{"/usr/bin/ls"}, pats("/bin"), nil,
			[]string{"/usr/bin/ls"}, nil, nil},
		{"a root is a file", []string{"/app/x", "/app/xy"}, pats("/app/x"), nil,
			[]string{"/app/x"}, []string{"/app/xy"}, nil},
	} {
		f := FilterPaths(c.paths, c.roots, c.implicit, env)
		if !reflect.DeepEqual(f.Kept, c.kept) || !reflect.DeepEqual(f.OutsideRoots, c.outside) || !reflect.DeepEqual(f.Implicit, c.implic) {
			t.Errorf("%s: %+v", c.name, f)
		}
	}
}

func TestWorkingDirs(t *testing.T) {
	events := []trace.Event{
		{Op: trace.OpChdir, Path: "/srv/project"},
		{Op: trace.OpChdir, Path: "/srv/project"},
		{Op: trace.OpChdir, Path: "/srv/other", Ret: -2, Errno: "ENOENT"},
		{Op: trace.OpChdir, Path: "/"},
		{Op: trace.OpChdir, Path: "/usr/share/doc"},
		{Op: trace.OpChdir, Path: "/tmp"},
		{Op: trace.OpChdir, Path: "/app/build"},
		{Op: trace.OpOpen, Path: "/home/x", Axis: trace.AxisRead},
	}
	if got, want := WorkingDirs(events), []string{"/app/build", "/srv/project"}; !reflect.DeepEqual(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
}

func TestDropRootListings(t *testing.T) {
	roots := []policy.Pattern{policy.MustPattern("/app"), policy.MustPattern("/srv/data")}
	paths := []string{"/", "/app", "/app/sub", "/app/file", "/srv", "/srv/data", "/srv/other"}
	listed := set("/", "/app", "/app/sub", "/srv", "/srv/data", "/srv/other")
	kept, dropped := DropRootListings(paths, listed, roots)
	if want := []string{"/app/sub", "/app/file", "/srv/other"}; !reflect.DeepEqual(kept, want) {
		t.Errorf("kept %q, want %q", kept, want)
	}
	if want := []string{"/", "/app", "/srv", "/srv/data"}; !reflect.DeepEqual(dropped, want) {
		t.Errorf("dropped %q, want %q", dropped, want)
	}
}

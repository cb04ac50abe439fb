package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
	"golang.org/x/sys/unix"
)

func init() {
	// probeFuncs is built by probe_test.go's init, which runs first (the
	// go command hands files to the compiler sorted by name).
	probeFuncs["createmode"] = func(o probeOp) (string, error) {
		return "", openClose(o.Path, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, uint32(o.Arg))
	}
}

// TestSeccompRefusesSetIDFiles: a tree confined with the default profile
// (Landlock lets it write its directory) cannot make set-user-ID or
// set-group-ID files with chmod(1), install(1) or open(O_CREAT, 04755),
// and still sets ordinary modes. Without the filter the same commands
// succeed (they run as root), so the refusals are seccomp's.
func TestSeccompRefusesSetIDFiles(t *testing.T) {
	requireRoot(t, "sandbox-init sets no_new_privs and installs the filter")
	requireLandlock(t, 1)
	dir := fixtureDir(t)
	own := filepath.Join(dir, "own")
	src := filepath.Join(dir, "src")
	for _, p := range []string{own, src} {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	filter, err := DefaultFilter()
	if err != nil {
		t.Fatal(err)
	}
	pl := hostPlan(t, policyDoc([]string{dir + "/**"}, []string{dir + "/**"}, []string{"/usr/bin/chmod", "/usr/bin/install"}), policy.DefaultBaseline())
	confined := Launch{}.Confined(withSelf(t, pl), filter)

	run := func(t *testing.T, spec Launch, argv ...string) childResult {
		t.Helper()
		spec.Path, spec.Args = argv[0], argv
		res := runChild(t, spec, nil)
		if res.err != nil {
			t.Fatalf("%v: %v (%s)", argv, res.err, res.stderr)
		}
		return res
	}
	mode := func(t *testing.T, p string) os.FileMode {
		t.Helper()
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return st.Mode()
	}

	t.Run("chmod 4755 own file", func(t *testing.T) {
		res := run(t, confined, "/usr/bin/chmod", "4755", own)
		if res.status == 0 || !strings.Contains(res.stderr, "Operation not permitted") {
			t.Errorf("chmod 4755: status %d, stderr %q; want EPERM", res.status, res.stderr)
		}
		if m := mode(t, own); m&(os.ModeSetuid|os.ModeSetgid) != 0 {
			t.Errorf("mode %v", m)
		}
	})
	t.Run("chmod g+s own file", func(t *testing.T) {
		res := run(t, confined, "/usr/bin/chmod", "g+s", own)
		if res.status == 0 || mode(t, own)&os.ModeSetgid != 0 {
			t.Errorf("chmod g+s: status %d, mode %v; want EPERM", res.status, mode(t, own))
		}
	})
	t.Run("chmod 755 own file", func(t *testing.T) {
		res := run(t, confined, "/usr/bin/chmod", "755", own)
		if res.status != 0 || mode(t, own).Perm() != 0o755 {
			t.Errorf("chmod 755: status %d (%s), mode %v; want 0755", res.status, res.stderr, mode(t, own))
		}
	})
	t.Run("install -m 4755", func(t *testing.T) {
		dst := filepath.Join(dir, "installed")
		res := run(t, confined, "/usr/bin/install", "-m", "4755", src, dst)
		if res.status == 0 || !strings.Contains(res.stderr, "Operation not permitted") {
			t.Errorf("install -m 4755: status %d, stderr %q; want EPERM", res.status, res.stderr)
		}
		if st, err := os.Stat(dst); err == nil && st.Mode()&os.ModeSetuid != 0 {
			t.Errorf("installed with mode %v", st.Mode())
		}
	})
	t.Run("open O_CREAT 04755", func(t *testing.T) {
		setuid, plain := filepath.Join(dir, "created-setuid"), filepath.Join(dir, "created-plain")
		res, c := probe(t, confined, []probeOp{
			{Op: "createmode", Path: setuid, Arg: 0o4755},
			{Op: "createmode", Path: filepath.Join(dir, "created-setgid"), Arg: 0o2755},
			{Op: "createmode", Path: plain, Arg: 0o755},
		}, nil)
		if len(res) != 3 {
			t.Fatalf("probe: %+v %v %s", res, c.err, c.stderr)
		}
		for i, want := range []unix.Errno{unix.EPERM, unix.EPERM, 0} {
			if unix.Errno(res[i].Errno) != want {
				t.Errorf("%s: errno %d, want %d", res[i].Path, res[i].Errno, want)
			}
		}
		if _, err := os.Stat(setuid); err == nil {
			t.Errorf("%s was created", setuid)
		}
	})
	t.Run("without the filter", func(t *testing.T) {
		spec := confined
		spec.Seccomp = nil
		if res := run(t, spec, "/usr/bin/chmod", "4755", own); res.status != 0 || mode(t, own)&os.ModeSetuid == 0 {
			t.Errorf("unfiltered chmod 4755: status %d (%s), mode %v; the test cannot tell seccomp's refusal apart", res.status, res.stderr, mode(t, own))
		}
	})
}

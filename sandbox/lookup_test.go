package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestProgramCandidates(t *testing.T) {
	for _, c := range []struct {
		path   string
		env    []string
		want   []string
		search bool
	}{
		{"/bin/sh", nil, []string{"/bin/sh"}, false},
		{"./prog", []string{"PATH=/x"}, []string{"./prog"}, false},
		{"sub/prog", nil, []string{"sub/prog"}, false},
		{"sh", nil, []string{"/usr/local/sbin/sh", "/usr/local/bin/sh", "/usr/sbin/sh", "/usr/bin/sh", "/sbin/sh", "/bin/sh"}, true},
		{"sh", []string{"HOME=/", "PATH=/a:/b/"}, []string{"/a/sh", "/b/sh"}, true},
		{"sh", []string{"PATH=/a", "PATH=/b"}, []string{"/a/sh"}, true},
		{"sh", []string{"PATH=:rel:./bin:/ok::"}, []string{"/ok/sh"}, true},
		{"sh", []string{"PATH="}, nil, true},
		{"", nil, nil, true},
	} {
		got, search := programCandidates(c.path, c.env)
		if !reflect.DeepEqual(got, c.want) || search != c.search {
			t.Errorf("programCandidates(%q, %q) = %q, %v; want %q, %v", c.path, c.env, got, search, c.want, c.search)
		}
	}
}

// writeScript writes an executable shell script printing word.
func writeScript(t *testing.T, path, word string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho "+word+"\n"), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// wantInitError checks that res failed at stage with errno.
func wantInitError(t *testing.T, res childResult, stage InitStage, errno unix.Errno, status int) {
	t.Helper()
	var ie *InitError
	if !errors.As(res.err, &ie) || ie.Stage != stage || ie.Errno != errno || ie.ShellStatus() != status {
		t.Fatalf("err = %v (%#v), stdout %q; want stage %s errno %v status %d", res.err, ie, res.stdout, stage, errno, status)
	}
}

// TestChdirAsCommand: the working directory is entered with the
// command's identity, so a member cannot start in a directory it cannot
// enter (sandbox-init used to enter it as root, before the uid drop).
func TestChdirAsCommand(t *testing.T) {
	requireRoot(t, "drops to another uid")
	dir := fixtureDir(t)
	private := dir + "/private"
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	writeScript(t, dir+"/prog", "ran", 0o755)
	member := 54321 // no user of that uid is needed
	spec := Launch{Path: dir + "/prog", Args: []string{"prog"}, Dir: private, UID: &member, GID: &member}
	wantInitError(t, runChild(t, spec, nil), StageChdir, unix.EACCES, ExitNotConfined)

	spec.Dir = dir
	if res := runChild(t, spec, nil); res.err != nil || strings.TrimSpace(res.stdout) != "ran" {
		t.Fatalf("from a directory it may enter: err %v, stdout %q", res.err, res.stdout)
	}
}

// TestRelativeProgram: a path with a "/" is resolved against Dir.
func TestRelativeProgram(t *testing.T) {
	dir := fixtureDir(t)
	writeScript(t, dir+"/sub/prog", "relative", 0o755)
	spec := Launch{Path: "./sub/prog", Args: []string{"./sub/prog"}, Dir: dir}
	if res := runChild(t, spec, nil); res.err != nil || strings.TrimSpace(res.stdout) != "relative" {
		t.Fatalf("./sub/prog in %s: err %v, stdout %q", dir, res.err, res.stdout)
	}
	spec.Path = "./sub/missing"
	wantInitError(t, runChild(t, spec, nil), StageExec, unix.ENOENT, ExitNotFound)
}

// TestBareNameSearch: a bare name is searched in the command's PATH,
// like execvp: missing and non-executable entries are passed over.
func TestBareNameSearch(t *testing.T) {
	dir := fixtureDir(t)
	writeScript(t, dir+"/noexec/prog", "noexec", 0o644)
	writeScript(t, dir+"/bin/prog", "found", 0o755)
	writeScript(t, dir+"/rel/other", "relative", 0o755)
	path := "PATH=" + dir + "/missing:" + dir + "/noexec:" + dir + "/bin"
	spec := Launch{Path: "prog", Args: []string{"prog"}, Env: []string{path}}
	if res := runChild(t, spec, nil); res.err != nil || strings.TrimSpace(res.stdout) != "found" {
		t.Fatalf("prog in %s: err %v, stdout %q", path, res.err, res.stdout)
	}

	spec.Env = []string{"PATH=" + dir + "/missing:" + dir + "/noexec"}
	// (root too: it needs an execute bit to exec a file.)
	wantInitError(t, runChild(t, spec, nil), StageLookup, unix.EACCES, ExitNotExecutable)

	spec.Path, spec.Args = "nosuchprog", []string{"nosuchprog"}
	wantInitError(t, runChild(t, spec, nil), StageLookup, unix.ENOENT, ExitNotFound)

	// A relative PATH entry is skipped even when it would match.
	spec.Path, spec.Args, spec.Dir, spec.Env = "other", []string{"other"}, dir, []string{"PATH=rel"}
	wantInitError(t, runChild(t, spec, nil), StageLookup, unix.ENOENT, ExitNotFound)
}

package sandbox

import (
	"errors"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
	"golang.org/x/sys/unix"
)

// TestHidePaths: a file below a hidden directory does not exist for the
// tree, the directory is empty and read-only there, and outside
// (the launcher's namespace) nothing changed.
func TestHidePaths(t *testing.T) {
	requireRoot(t, "mounts a tmpfs")
	for _, own := range []bool{false, true} {
		dir := fixtureDir(t)
		hidden := dir + "/run-authbench"
		if err := os.MkdirAll(hidden, 0o755); err != nil {
			t.Fatal(err)
		}
		sock := hidden + "/daemon.sock"
		if err := os.WriteFile(sock, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		ops := []probeOp{op("read", sock), op("names", hidden), op("create", hidden+"/new"), op("read", dir+"/run-authbench/../run-authbench/daemon.sock")}
		spec := Launch{HidePaths: []string{hidden, dir + "/missing"}}
		res, c := probeWith(t, spec, LaunchOptions{OwnMountNamespace: own}, ops, nil)
		if c.err != nil {
			t.Fatalf("own=%v: %v", own, c.err)
		}
		if len(res) != 4 || res[0].Errno != int(unix.ENOENT) || res[1].Errno != 0 || strings.TrimSpace(res[1].Out) != "" ||
			res[2].Errno != int(unix.EROFS) || res[3].Errno != int(unix.ENOENT) {
			t.Errorf("own=%v: inside %+v (stderr %s), want ENOENT, an empty list, EROFS, ENOENT", own, res, c.stderr)
		}
		if data, err := os.ReadFile(sock); err != nil || string(data) != "x" {
			t.Errorf("own=%v: outside, %s: %q, %v", own, sock, data, err)
		}
	}
}

// TestHidePathsFile: a file that is not a directory (here a listening
// unix socket) is covered by /dev/null: the tree can no longer connect,
// its neighbours stay visible, and the socket still works outside.
func TestHidePathsFile(t *testing.T) {
	requireRoot(t, "bind-mounts /dev/null")
	dir := fixtureDir(t)
	sock := dir + "/d.sock"
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := os.WriteFile(dir+"/neighbour", []byte("here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "test -S " + sock + " && echo socket; test -c " + sock + " && echo covered; cat " + dir + "/neighbour"
	res := runChild(t, Launch{Path: "/bin/sh", Args: []string{"sh", "-c", script}, HidePaths: []string{sock}}, nil)
	if res.err != nil || res.stdout != "covered\nhere\n" {
		t.Fatalf("inside: err %v, stdout %q; want the socket covered by /dev/null and the neighbour readable", res.err, res.stdout)
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatalf("outside, the socket no longer answers: %v", err)
	}
	c.Close()
	res = runChild(t, Launch{Path: "/bin/true", Args: []string{"true"}, HidePaths: []string{"run"}}, nil)
	var ie *InitError
	if !errors.As(res.err, &ie) || ie.Stage != StageMount || ie.Path != "run" {
		t.Fatalf("err %v, want a mount error on the relative path", res.err)
	}
}

// TestHidePathsConfined: a confined tree cannot take the cover away.
func TestHidePathsConfined(t *testing.T) {
	requireRoot(t, "mounts a tmpfs")
	requireLandlock(t, 1)
	dir := fixtureDir(t)
	hidden := dir + "/run-authbench"
	if err := os.MkdirAll(hidden, 0o755); err != nil {
		t.Fatal(err)
	}
	sock := hidden + "/daemon.sock"
	if err := os.WriteFile(sock, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	filter, err := DefaultFilter()
	if err != nil {
		t.Fatal(err)
	}
	pl := withSelf(t, hostPlan(t, policyDoc([]string{dir + "/**"}, nil, nil), policy.DefaultBaseline()))
	spec := Launch{HidePaths: []string{hidden}}.Confined(pl, filter)
	ops := []probeOp{op("umount", hidden), op("read", sock)}
	res, c := probeWith(t, spec, LaunchOptions{OwnMountNamespace: true}, ops, nil)
	if len(res) != 2 || res[0].Errno == 0 || res[1].Errno != int(unix.ENOENT) {
		t.Fatalf("inside %+v (%+v), want umount refused, then ENOENT", res, c)
	}
}
